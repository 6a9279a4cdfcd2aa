//! The facade as the window uses it: nothing a command waits for blocks the runtime, and the
//! races the shell used to have (two turns at once, a stop that misses) are gone.

use std::time::Duration;

use serde_json::json;

use super::requests::{ConversationId, NewConversation, NewMessage, NoArgs, SendMessage};
use super::*;
use crate::approvals::policy::{PolicyEntry, PolicyKind, Rule};
use crate::audit::AuditQuery;
use crate::events::{ChatEvent, CoreEvent};
use crate::secrets::MemoryStore;

async fn app(dir: &std::path::Path) -> App {
    let paths = Paths {
        config_file: dir.join("config.json"),
        data_dir: dir.join("data"),
    };
    AppBuilder::new(paths)
        .secrets(Arc::new(MemoryStore::default()))
        .base_env(BaseEnv::from_current())
        .build()
        .await
        .unwrap()
}

/// Takes the database's write lock from another connection, as another process would.
fn hold_write_lock(dir: &std::path::Path) -> rusqlite::Connection {
    let other =
        rusqlite::Connection::open(dir.join("data").join(crate::store::DATABASE_FILE)).unwrap();
    other.execute_batch("BEGIN IMMEDIATE").unwrap();
    other
}

// One thread: if any command waited for SQLite on the runtime's thread, nothing else could run.
#[tokio::test(flavor = "current_thread")]
async fn the_window_answers_while_another_process_holds_the_database() {
    let dir = tempfile::tempdir().unwrap();
    let app = app(dir.path()).await;
    let other = hold_write_lock(dir.path());
    let rule = PolicyEntry {
        server: "s".into(),
        kind: PolicyKind::Sampling,
        tool: None,
        rule: Rule::Deny,
        warning: None,
    };
    // Ticks while the runtime's one thread is free: it stops if anything blocks that thread.
    let ticks = Arc::new(std::sync::atomic::AtomicUsize::new(0));
    let counter = ticks.clone();
    let ticker = tokio::spawn(async move {
        loop {
            tokio::time::sleep(Duration::from_millis(10)).await;
            counter.fetch_add(1, std::sync::atomic::Ordering::SeqCst);
        }
    });
    let (a, b) = (app.clone(), app.clone());
    let write = tokio::spawn(async move { a.set_policy(rule).await });
    tokio::time::sleep(Duration::from_millis(100)).await;
    let search = tokio::spawn(async move { b.search_audit(AuditQuery::default()).await });

    // A command that touches no database answers at once.
    let listed =
        tokio::time::timeout(Duration::from_millis(200), app.list_servers(NoArgs {})).await;
    assert!(
        listed
            .expect("list_servers answered at once")
            .unwrap()
            .is_empty()
    );
    let path = tokio::time::timeout(Duration::from_millis(200), app.config_path(NoArgs {})).await;
    assert!(path.expect("config_path answered at once").is_ok());
    let before = ticks.load(std::sync::atomic::Ordering::SeqCst);
    tokio::time::sleep(Duration::from_millis(300)).await;
    assert!(!search.is_finished(), "the search waits for the database");
    let ticked = ticks.load(std::sync::atomic::Ordering::SeqCst) - before;
    assert!(
        ticked >= 10,
        "the runtime stalled: {ticked} ticks in 300 ms"
    );
    ticker.abort();

    other.execute_batch("COMMIT").unwrap();
    let found = tokio::time::timeout(Duration::from_secs(5), search).await;
    found
        .expect("the search returns once the lock is released")
        .unwrap()
        .unwrap();
    write.await.unwrap().unwrap();
    assert_eq!(app.list_policies(NoArgs {}).await.unwrap().len(), 1);
}

fn question(conversation: &str) -> SendMessage {
    SendMessage {
        conversation: conversation.to_owned(),
        messages: vec![NewMessage {
            role: "user".into(),
            content: json!({"type": "text", "text": "Hi"}),
        }],
    }
}

#[tokio::test]
async fn a_double_send_starts_one_turn_and_stop_reaches_it() {
    let dir = tempfile::tempdir().unwrap();
    let app = app(dir.path()).await;
    let mut events = app.events().control();
    // With the manual provider the turn waits for the person to write the answer.
    let c = app
        .new_conversation(NewConversation {
            title: "t".into(),
            provider: "manual".into(),
            model: "manual".into(),
        })
        .await
        .unwrap();
    let (first, second) = tokio::join!(
        app.send_message(question(&c.id)),
        app.send_message(question(&c.id))
    );
    let errors: Vec<_> = [first, second]
        .into_iter()
        .filter_map(|r| r.err())
        .collect();
    assert_eq!(errors.len(), 1, "exactly one send starts a turn");
    assert_eq!(errors[0].code, ErrorCode::InvalidInput);
    let id = ConversationId { id: c.id.clone() };
    let view = app.get_conversation(id).await.unwrap();
    assert!(view.answering);
    assert_eq!(view.messages.len(), 1, "the refused send added nothing");
    // The turn asks for the answer; Stop withdraws that and ends the turn.
    tokio::time::timeout(Duration::from_secs(5), async {
        while app.pending_reviews(NoArgs {}).await.unwrap().is_empty() {
            tokio::time::sleep(Duration::from_millis(10)).await;
        }
    })
    .await
    .expect("the turn asks for the answer");
    app.cancel_turn(ConversationId { id: c.id.clone() })
        .await
        .unwrap();
    let done = tokio::time::timeout(Duration::from_secs(5), async {
        loop {
            if let Some(CoreEvent::Chat(ChatEvent::ChatDone { error, .. })) = events.recv().await {
                return error;
            }
        }
    })
    .await
    .unwrap();
    assert_eq!(done.map(|e| e.code), Some(ErrorCode::Cancelled));
    tokio::time::timeout(Duration::from_secs(5), async {
        while !app.pending_reviews(NoArgs {}).await.unwrap().is_empty() {
            tokio::time::sleep(Duration::from_millis(10)).await;
        }
    })
    .await
    .expect("the stopped turn's question leaves the queue");
    let id = ConversationId { id: c.id.clone() };
    assert!(!app.get_conversation(id).await.unwrap().answering);
    // And the conversation takes a new turn.
    app.send_message(question(&c.id)).await.unwrap();
}

#[tokio::test]
async fn a_rule_that_covers_nothing_is_listed_with_a_warning() {
    let dir = tempfile::tempdir().unwrap();
    let app = app(dir.path()).await;
    let rule = PolicyEntry {
        server: "gone".into(),
        kind: PolicyKind::ToolCall,
        tool: Some("rm".into()),
        rule: Rule::Deny,
        warning: None,
    };
    app.set_policy(rule).await.unwrap();
    let listed = app.list_policies(NoArgs {}).await.unwrap();
    let warning = listed[0].warning.as_deref().unwrap_or_default();
    assert!(warning.contains("no server named \"gone\""), "{warning}");
}

/// A deny rule covers the person's own call from the Tools screen too, not only the model's: it
/// is refused by the rule (not for want of a server), and the audit log says the rule did it.
#[tokio::test]
async fn a_deny_rule_refuses_the_tools_screens_call() {
    let dir = tempfile::tempdir().unwrap();
    let app = app(dir.path()).await;
    let rule = PolicyEntry {
        server: "files".into(),
        kind: PolicyKind::ToolCall,
        tool: Some("delete".into()),
        rule: Rule::Deny,
        warning: None,
    };
    app.set_policy(rule).await.unwrap();
    let call = super::requests::CallTool {
        server: "files".into(),
        name: "delete".into(),
        args: json!({"path": "/"}),
        call_id: "c-1".into(),
    };
    let refused = app.call_tool(call, |_| true).await.unwrap_err();
    assert_eq!(refused.code, ErrorCode::Denied, "{refused}");
    assert!(
        refused.message.contains("denied by your rules"),
        "{refused}"
    );
    let rows = app.0.door.audit().search(&AuditQuery::default()).unwrap();
    assert!(
        rows.iter()
            .any(|r| r.actor == "policy" && r.decision.as_deref() == Some("denied")),
        "{rows:?}"
    );
}
