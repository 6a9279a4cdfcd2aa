//! What is kept of tasks across window reloads and restarts: every [`TaskView`] the connections
//! report, in the `tasks` table, written in the order the events came. A task whose server's
//! connection ends (stops, restarts, fails) before it does is marked [`TaskState::Lost`], and so
//! are the unfinished tasks a previous run of the app left behind. At most [`MAX_FINISHED`]
//! finished tasks are kept.

use std::sync::Arc;

use rusqlite::{Connection, OptionalExtension, Row, params};

use super::{TaskState, TaskView};
use crate::error::Result;
use crate::events::{Bus, CoreEvent, ServerEvent, ServerStatus};
use crate::store::Store;

/// The most finished tasks kept (the newest); unfinished ones are always kept.
pub const MAX_FINISHED: usize = 1000;

/// Why a task of a connection that ended is lost.
pub const LOST_WITH_CONNECTION: &str =
    "the server's connection ended before the task finished; its result is lost";

/// Why a task left unfinished by an earlier run of Switchboard is lost.
pub const LOST_WITH_HOST: &str = "Switchboard stopped before the task finished; its result is lost";

const COLUMNS: &str = "server, task_id, tool, call_id, status, status_message, created_at, \
                       updated_at, result, error";

/// The `tasks` table.
#[derive(Clone)]
pub struct TaskLog {
    store: Arc<Store>,
}

impl TaskLog {
    /// The task log in `store`.
    pub fn new(store: Arc<Store>) -> Self {
        Self { store }
    }

    /// Every kept task, newest first.
    pub async fn list(&self) -> Result<Vec<TaskView>> {
        self.store.run(list).await
    }

    /// One task, if kept.
    pub async fn get(&self, server: &str, task_id: &str) -> Result<Option<TaskView>> {
        let (server, task_id) = (server.to_owned(), task_id.to_owned());
        self.store
            .run(move |c| {
                c.query_row(
                    &format!("SELECT {COLUMNS} FROM tasks WHERE server = ?1 AND task_id = ?2"),
                    params![server, task_id],
                    view,
                )
                .optional()
            })
            .await
    }

    /// Records a task as reported; queued behind every earlier write.
    pub fn record(&self, task: TaskView) {
        self.store.detach(move |c| upsert(c, &task));
    }

    /// Marks the unfinished tasks of `server` (of every server when `None`) lost, saying
    /// `why`, and returns them as they now are.
    pub async fn mark_lost(&self, server: Option<String>, why: &str) -> Result<Vec<TaskView>> {
        let why = why.to_owned();
        self.store
            .run(move |c| {
                let tx = c.transaction()?;
                let lost: Vec<TaskView> = {
                    let mut select = tx.prepare(&format!(
                        "SELECT {COLUMNS} FROM tasks WHERE status IN ('working', 'input_required') \
                         AND (?1 IS NULL OR server = ?1)"
                    ))?;
                    select
                        .query_map(params![server], view)?
                        .collect::<rusqlite::Result<_>>()?
                };
                let mut marked = Vec::with_capacity(lost.len());
                for mut task in lost {
                    task.update(TaskState::Lost, Some(why.clone()));
                    upsert(&tx, &task)?;
                    marked.push(task);
                }
                tx.commit()?;
                Ok(marked)
            })
            .await
    }
}

/// Keeps the task log in step with the bus: every task event is recorded, and when a server's
/// connection ends its unfinished tasks are marked lost (and announced). Runs until the bus is
/// gone.
pub fn keep(log: TaskLog, events: Bus) {
    let mut control = events.control();
    tokio::spawn(async move {
        while let Some(event) = control.recv().await {
            match event {
                CoreEvent::Server(ServerEvent::Task { task, .. }) => log.record(task),
                CoreEvent::Server(ServerEvent::Status { server, status })
                    if !matches!(status, ServerStatus::Running { .. }) =>
                {
                    announce_lost(&log, &events, Some(server), LOST_WITH_CONNECTION).await;
                }
                _ => {}
            }
        }
    });
}

/// Marks tasks lost and tells the window about each.
pub async fn announce_lost(log: &TaskLog, events: &Bus, server: Option<String>, why: &str) {
    match log.mark_lost(server, why).await {
        Ok(lost) => {
            for task in lost {
                events.publish(ServerEvent::Task {
                    server: task.server.clone(),
                    task,
                });
            }
        }
        Err(e) => tracing::warn!(error = %e, "could not mark lost tasks"),
    }
}

fn upsert(c: &Connection, task: &TaskView) -> rusqlite::Result<()> {
    c.execute(
        &format!(
            "INSERT INTO tasks ({COLUMNS}) VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10) \
             ON CONFLICT (server, task_id) DO UPDATE SET status = excluded.status, \
             status_message = excluded.status_message, updated_at = excluded.updated_at, \
             call_id = coalesce(excluded.call_id, tasks.call_id), \
             result = coalesce(excluded.result, tasks.result), \
             error = coalesce(excluded.error, tasks.error)"
        ),
        params![
            task.server,
            task.task_id,
            task.tool,
            task.call_id,
            task.status.as_str(),
            task.status_message,
            task.created_at,
            task.updated_at,
            task.result.as_ref().map(|r| r.to_string()),
            task.error
                .as_ref()
                .and_then(|e| serde_json::to_string(e).ok()),
        ],
    )?;
    c.execute(
        "DELETE FROM tasks WHERE rowid IN (SELECT rowid FROM tasks WHERE status NOT IN \
         ('working', 'input_required') ORDER BY updated_at DESC LIMIT -1 OFFSET ?1)",
        params![MAX_FINISHED as i64],
    )?;
    Ok(())
}

fn list(c: &mut Connection) -> rusqlite::Result<Vec<TaskView>> {
    let mut select = c.prepare(&format!(
        "SELECT {COLUMNS} FROM tasks ORDER BY created_at DESC, rowid DESC"
    ))?;
    select.query_map([], view)?.collect()
}

fn view(row: &Row<'_>) -> rusqlite::Result<TaskView> {
    let status: String = row.get(4)?;
    let result: Option<String> = row.get(8)?;
    let error: Option<String> = row.get(9)?;
    Ok(TaskView {
        server: row.get(0)?,
        task_id: row.get(1)?,
        tool: row.get(2)?,
        call_id: row.get(3)?,
        status: TaskState::from_wire(&status).unwrap_or(TaskState::Lost),
        status_message: row.get(5)?,
        created_at: row.get(6)?,
        updated_at: row.get(7)?,
        result: result.and_then(|r| serde_json::from_str(&r).ok()),
        error: error.and_then(|e| serde_json::from_str(&e).ok()),
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn log() -> TaskLog {
        TaskLog::new(Arc::new(Store::in_memory().unwrap()))
    }

    #[tokio::test]
    async fn tasks_are_kept_updated_and_marked_lost_per_server() {
        let log = log();
        let mut a = TaskView::new("a", "t1", "slow", Some("call-1"));
        log.record(a.clone());
        a.update(TaskState::InputRequired, Some("which?".into()));
        log.record(a.clone());
        let mut done = TaskView::new("b", "t2", "slow", None);
        done.update(TaskState::Completed, None);
        done.result = Some(serde_json::json!({"content": []}));
        log.record(done.clone());
        log.record(TaskView::new("b", "t3", "slow", None));
        let all = log.list().await.unwrap();
        assert_eq!(all.len(), 3);
        let kept = log.get("a", "t1").await.unwrap().unwrap();
        assert_eq!(kept.status, TaskState::InputRequired);
        assert_eq!(kept.call_id.as_deref(), Some("call-1"));

        let lost = log
            .mark_lost(Some("b".into()), LOST_WITH_CONNECTION)
            .await
            .unwrap();
        assert_eq!(lost.len(), 1, "only b's unfinished task");
        assert_eq!(lost[0].task_id, "t3");
        let done = log.get("b", "t2").await.unwrap().unwrap();
        assert_eq!(done.status, TaskState::Completed);
        assert_eq!(done.result, Some(serde_json::json!({"content": []})));
        let lost = log.mark_lost(None, LOST_WITH_HOST).await.unwrap();
        assert_eq!(lost.len(), 1);
        assert_eq!(lost[0].status_message.as_deref(), Some(LOST_WITH_HOST));
    }

    #[tokio::test]
    async fn only_the_newest_finished_tasks_are_kept() {
        let log = log();
        log.record(TaskView::new("s", "running", "slow", None));
        for i in 0..MAX_FINISHED + 20 {
            let mut t = TaskView::new("s", &format!("t{i}"), "slow", None);
            t.update(TaskState::Completed, None);
            t.updated_at = i as i64;
            log.record(t);
        }
        let all = log.list().await.unwrap();
        assert_eq!(all.len(), MAX_FINISHED + 1);
        assert!(all.iter().any(|t| t.task_id == "running"));
        assert!(!all.iter().any(|t| t.task_id == "t0"));
    }
}
