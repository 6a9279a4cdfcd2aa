//! Switchboard's database: one SQLite file in the data directory (rusqlite, bundled), opened in WAL
//! mode and brought up to date by embedded, numbered migrations. Other modules (audit, policies,
//! pins, sampling usage, chats, providers, tasks) own their tables. Async code reaches the database only
//! through [`Store::run`] (or [`Store::detach`] where nothing can wait), which queue the work for
//! the store's own worker thread: SQLite may wait up to the busy timeout for another process, and
//! that wait must never hold up the window or a runtime worker. The queue is first in, first
//! out, so writes land in the order they were asked for. [`Store::with`] is for code that is
//! already off the runtime. The connection lock is only held for one short statement batch,
//! never across an `.await`.

use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex};
use std::time::{SystemTime, UNIX_EPOCH};

use rusqlite::Connection;

use crate::error::{Error, ErrorCode, Result};

/// The migrations, in order; the database's `user_version` is how many have run.
const MIGRATIONS: &[&str] = &[
    include_str!("store/migrations/0001_init.sql"),
    include_str!("store/migrations/0002_providers.sql"),
    include_str!("store/migrations/0003_chat.sql"),
    include_str!("store/migrations/0004_audit_search.sql"),
    include_str!("store/migrations/0005_trust.sql"),
    include_str!("store/migrations/0006_tasks.sql"),
    include_str!("store/migrations/0007_launch_definitions.sql"),
    include_str!("store/migrations/0008_keychain_index.sql"),
];

/// The file name of the database inside the data directory.
pub const DATABASE_FILE: &str = "switchboard.sqlite3";

/// Work queued for the store's worker thread.
type Job = Box<dyn FnOnce(&Mutex<Connection>) + Send>;

/// The open database.
pub struct Store {
    conn: Arc<Mutex<Connection>>,
    path: PathBuf,
    worker: std::sync::mpsc::Sender<Job>,
}

impl std::fmt::Debug for Store {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Store").field("path", &self.path).finish()
    }
}

impl Store {
    /// Opens (creating if needed) the database in `data_dir` and runs pending migrations.
    pub fn open(data_dir: &Path) -> Result<Self> {
        std::fs::create_dir_all(data_dir).map_err(|e| {
            Error::new(
                ErrorCode::Io,
                format!("cannot create data directory {}: {e}", data_dir.display()),
            )
        })?;
        let path = data_dir.join(DATABASE_FILE);
        let conn = Connection::open(&path).map_err(|e| db_error(&path, e))?;
        Self::init(conn, path)
    }

    /// A private in-memory database (tests and throwaway CLI runs).
    pub fn in_memory() -> Result<Self> {
        let path = PathBuf::from(":memory:");
        let conn = Connection::open_in_memory().map_err(|e| db_error(&path, e))?;
        Self::init(conn, path)
    }

    fn init(mut conn: Connection, path: PathBuf) -> Result<Self> {
        // The busy timeout comes first: switching to WAL and migrating take write locks, and the
        // CLI and the app (or two CLIs) may open the same fresh file at the same moment.
        conn.busy_timeout(BUSY_TIMEOUT)
            .map_err(|e| db_error(&path, e))?;
        // SQLite answers "busy" at once, without waiting, in a few cases the busy timeout does
        // not cover (switching a file another connection is opening to WAL, WAL recovery): those
        // are retried for as long as the timeout would have waited.
        let started = std::time::Instant::now();
        loop {
            match prepare(&mut conn) {
                Ok(()) => break,
                Err(e) if is_busy(&e) && started.elapsed() < BUSY_TIMEOUT => {
                    std::thread::sleep(std::time::Duration::from_millis(20));
                }
                Err(e) => return Err(db_error(&path, e)),
            }
        }
        let conn = Arc::new(Mutex::new(conn));
        let (worker, jobs) = std::sync::mpsc::channel::<Job>();
        let shared = conn.clone();
        std::thread::Builder::new()
            .name("switchboard-store".into())
            .spawn(move || {
                // Ends when the store (the only sender) is dropped.
                while let Ok(job) = jobs.recv() {
                    // A job that panics must not stop the store for the rest of the session.
                    let ran =
                        std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| job(&shared)));
                    if ran.is_err() {
                        tracing::error!("a database job panicked; the store goes on");
                    }
                }
            })
            .map_err(|e| Error::new(ErrorCode::Io, format!("cannot start the store: {e}")))?;
        Ok(Self { conn, path, worker })
    }

    /// The database file.
    pub fn path(&self) -> &Path {
        &self.path
    }

    /// Runs `f` with the connection on the store's worker thread and waits for it without
    /// blocking the caller's thread. Whatever `f` writes is committed when this returns.
    pub async fn run<T: Send + 'static>(
        &self,
        f: impl FnOnce(&mut Connection) -> rusqlite::Result<T> + Send + 'static,
    ) -> Result<T> {
        let (tx, rx) = tokio::sync::oneshot::channel();
        let path = self.path.clone();
        self.enqueue(Box::new(move |conn| {
            let _ = tx.send(locked(conn, &path, f));
        }))?;
        rx.await
            .map_err(|_| Error::new(ErrorCode::Internal, "the store's worker stopped"))?
    }

    /// Queues `f` for the worker and returns at once (for a `Drop`, which cannot wait). It runs
    /// after everything queued before it and before everything queued after it.
    pub fn detach(&self, f: impl FnOnce(&mut Connection) -> rusqlite::Result<()> + Send + 'static) {
        let path = self.path.clone();
        let queued = self.enqueue(Box::new(move |conn| {
            if let Err(e) = locked(conn, &path, f) {
                tracing::error!(error = %e, "a background database write failed");
            }
        }));
        if let Err(e) = queued {
            tracing::error!(error = %e, "could not queue a database write");
        }
    }

    fn enqueue(&self, job: Job) -> Result<()> {
        self.worker
            .send(job)
            .map_err(|_| Error::new(ErrorCode::Internal, "the store's worker stopped"))
    }

    /// Runs `f` with the connection on the calling thread: only for code that is not on the async
    /// runtime (a blocking task, a test, the CLI before its runtime starts).
    pub fn with<T>(&self, f: impl FnOnce(&mut Connection) -> rusqlite::Result<T>) -> Result<T> {
        locked(&self.conn, &self.path, f)
    }
}

/// Runs blocking work (SQLite, the keychain) on tokio's blocking pool and waits for it without
/// blocking the caller's thread.
pub async fn off_thread<T: Send + 'static>(
    work: impl FnOnce() -> Result<T> + Send + 'static,
) -> Result<T> {
    tokio::task::spawn_blocking(work)
        .await
        .map_err(|e| Error::new(ErrorCode::Internal, format!("background work failed: {e}")))?
}

fn locked<T>(
    conn: &Mutex<Connection>,
    path: &Path,
    f: impl FnOnce(&mut Connection) -> rusqlite::Result<T>,
) -> Result<T> {
    // A panic while holding the connection leaves no half-done work: an open transaction is
    // rolled back when it is dropped. So a poisoned lock is taken over, not given up on.
    let mut conn = conn.lock().unwrap_or_else(|poisoned| poisoned.into_inner());
    f(&mut conn).map_err(|e| db_error(path, e))
}

/// How long opening the database waits for other processes holding it.
const BUSY_TIMEOUT: std::time::Duration = std::time::Duration::from_secs(5);

/// Sets the connection up and migrates. Safe to repeat after a "busy".
///
/// WAL + NORMAL: every committed row survives the process being killed (only an OS crash can
/// lose the last transactions).
fn prepare(conn: &mut Connection) -> rusqlite::Result<()> {
    conn.pragma_update(None, "journal_mode", "WAL")?;
    conn.pragma_update(None, "synchronous", "NORMAL")?;
    conn.pragma_update(None, "foreign_keys", "ON")?;
    migrate(conn)
}

fn is_busy(e: &rusqlite::Error) -> bool {
    matches!(
        e.sqlite_error_code(),
        Some(rusqlite::ErrorCode::DatabaseBusy | rusqlite::ErrorCode::DatabaseLocked)
    )
}

fn migrate(conn: &mut Connection) -> rusqlite::Result<()> {
    loop {
        // IMMEDIATE takes the write lock before reading the version, so of two processes opening
        // the same file, one migrates and the other then sees the new version and skips it.
        let tx = conn.transaction_with_behavior(rusqlite::TransactionBehavior::Immediate)?;
        let done: usize = tx.pragma_query_value(None, "user_version", |r| r.get(0))?;
        let Some(sql) = MIGRATIONS.get(done) else {
            return Ok(());
        };
        tx.execute_batch(sql)?;
        tx.pragma_update(None, "user_version", done + 1)?;
        tx.commit()?;
        tracing::info!(migration = done + 1, "database migrated");
    }
}

fn db_error(path: &Path, e: rusqlite::Error) -> Error {
    Error::new(
        ErrorCode::Storage,
        format!("database {}: {e}", path.display()),
    )
}

/// Milliseconds since the Unix epoch.
pub fn now_ms() -> i64 {
    SystemTime::now()
        .duration_since(UNIX_EPOCH)
        .map(|d| d.as_millis() as i64)
        .unwrap_or(0)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn migrates_once_and_reopens() {
        let dir = tempfile::tempdir().unwrap();
        let store = Store::open(dir.path()).unwrap();
        let version: usize = store
            .with(|c| c.pragma_query_value(None, "user_version", |r| r.get(0)))
            .unwrap();
        assert_eq!(version, MIGRATIONS.len());
        drop(store);
        let again = Store::open(dir.path()).unwrap();
        let tables: i64 = again
            .with(|c| {
                c.query_row(
                    "SELECT count(*) FROM sqlite_master WHERE type = 'table' AND name = 'audit'",
                    [],
                    |r| r.get(0),
                )
            })
            .unwrap();
        assert_eq!(tables, 1);
    }

    #[test]
    fn many_openers_of_a_fresh_file_all_succeed() {
        // The CLI, the app and a test reading the audit log may all open a new file at once.
        for _ in 0..5 {
            let dir = tempfile::tempdir().unwrap();
            let openers: Vec<_> = (0..8)
                .map(|_| {
                    let path = dir.path().to_owned();
                    std::thread::spawn(move || Store::open(&path).map(|_| ()))
                })
                .collect();
            for o in openers {
                o.join().unwrap().unwrap();
            }
            let store = Store::open(dir.path()).unwrap();
            let version: usize = store
                .with(|c| c.pragma_query_value(None, "user_version", |r| r.get(0)))
                .unwrap();
            assert_eq!(version, MIGRATIONS.len());
        }
    }
}
