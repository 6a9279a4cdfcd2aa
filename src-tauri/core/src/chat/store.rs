//! The conversations and their messages in the store.

use std::sync::Arc;

use rusqlite::{Connection, OptionalExtension, params};
use serde::{Deserialize, Serialize};
use serde_json::Value;
use ts_rs::TS;

use super::ChatMessage;
use crate::error::{Error, ErrorCode, Result};
use crate::store::{Store, now_ms};
use crate::tool_switches::ToolSwitches;

/// A conversation as the list shows it.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, TS)]
#[serde(rename_all = "camelCase")]
#[ts(export)]
pub struct Conversation {
    pub id: String,
    pub title: String,
    /// The provider and model the next turn goes to.
    pub provider: String,
    pub model: String,
    #[ts(type = "number")]
    pub updated_ms: i64,
    /// The tool sets the model is offered tools from; absent: every tool switched on.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[ts(optional)]
    pub tool_sets: Option<Vec<String>>,
}

/// A conversation with its messages, oldest first.
#[derive(Debug, Clone, PartialEq, Serialize, TS)]
#[serde(rename_all = "camelCase")]
#[ts(export)]
pub struct ConversationView {
    pub conversation: Conversation,
    pub messages: Vec<ChatMessage>,
    /// Whether the model's turn is still running (so a window that missed the end can tell).
    pub answering: bool,
}

/// The conversations in the store.
#[derive(Clone)]
pub struct Chats {
    store: Arc<Store>,
    switches: ToolSwitches,
}

impl std::fmt::Debug for Chats {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Chats").field("store", &self.store).finish()
    }
}

/// A `SELECT id, title, provider, model, updated_ms, tool_sets` row.
fn conversation_row(r: &rusqlite::Row<'_>) -> rusqlite::Result<Conversation> {
    let sets: Option<String> = r.get(5)?;
    Ok(Conversation {
        id: r.get(0)?,
        title: r.get(1)?,
        provider: r.get(2)?,
        model: r.get(3)?,
        updated_ms: r.get(4)?,
        // Unreadable, it limits the conversation to nothing rather than widening it to all.
        tool_sets: sets.map(|s| serde_json::from_str(&s).unwrap_or_default()),
    })
}

/// The columns [`conversation_row`] reads.
const CONVERSATION_COLUMNS: &str = "id, title, provider, model, updated_ms, tool_sets";

fn not_found(id: &str) -> Error {
    Error::new(ErrorCode::InvalidInput, format!("no conversation {id:?}"))
}

impl Chats {
    /// Conversations kept in `store`.
    pub fn new(store: Arc<Store>) -> Self {
        let switches = ToolSwitches::new(store.clone());
        Self { store, switches }
    }

    /// The person's switches and tool sets for what the model is offered.
    pub fn switches(&self) -> &ToolSwitches {
        &self.switches
    }

    /// Starts a conversation.
    pub async fn create(&self, title: &str, provider: &str, model: &str) -> Result<Conversation> {
        let c = Conversation {
            id: crate::canonical::new_id(),
            title: title.to_owned(),
            provider: provider.to_owned(),
            model: model.to_owned(),
            updated_ms: now_ms(),
            tool_sets: None,
        };
        let row = c.clone();
        self.store
            .run(move |db| {
                db.execute(
                    "INSERT INTO conversations (id, title, provider, model, updated_ms) VALUES (?1, ?2, ?3, ?4, ?5)",
                    params![row.id, row.title, row.provider, row.model, row.updated_ms],
                )
            })
            .await?;
        Ok(c)
    }

    /// Every conversation, most recent first.
    pub async fn list(&self) -> Result<Vec<Conversation>> {
        self.store
            .run(|db| {
                let mut stmt = db.prepare(&format!(
                    "SELECT {CONVERSATION_COLUMNS} FROM conversations ORDER BY updated_ms DESC"
                ))?;
                let rows = stmt.query_map([], conversation_row)?;
                rows.collect()
            })
            .await
    }

    /// One conversation with its messages.
    pub async fn get(&self, id: &str) -> Result<ConversationView> {
        let key = id.to_owned();
        let found = self.store.run(move |db| load(db, &key)).await?;
        found.ok_or_else(|| not_found(id))
    }

    /// Adds a message (content: a block or an array of blocks).
    pub async fn append(&self, id: &str, role: &str, content: Value) -> Result<ChatMessage> {
        let message = new_message(role, content);
        let (key, row) = (id.to_owned(), message.clone());
        let inserted = self
            .store
            .run(move |db| insert_message(db, &key, &row))
            .await?;
        let id = inserted.ok_or_else(|| not_found(id))?;
        Ok(ChatMessage { id, ..message })
    }

    /// Adds a message from where nothing can wait (a stopped turn's `Drop`): queued ahead of
    /// anything added after it.
    pub fn append_detached(&self, id: &str, role: &str, content: Value) {
        let (key, row) = (id.to_owned(), new_message(role, content));
        self.store
            .detach(move |db| insert_message(db, &key, &row).map(|_| ()));
    }

    /// Changes the conversation's title, model or tool sets.
    pub async fn update(&self, c: &Conversation) -> Result<()> {
        let row = c.clone();
        let sets = row
            .tool_sets
            .as_ref()
            .map(|s| serde_json::to_string(s).unwrap_or_default());
        let changed = self
            .store
            .run(move |db| {
                db.execute(
                    "UPDATE conversations SET title = ?2, provider = ?3, model = ?4, tool_sets = ?5 WHERE id = ?1",
                    params![row.id, row.title, row.provider, row.model, sets],
                )
            })
            .await?;
        if changed == 0 {
            return Err(not_found(&c.id));
        }
        Ok(())
    }

    /// Deletes a conversation and its messages.
    pub async fn delete(&self, id: &str) -> Result<()> {
        let key = id.to_owned();
        self.store
            .run(move |db| db.execute("DELETE FROM conversations WHERE id = ?1", params![key]))
            .await?;
        Ok(())
    }
}

/// A message about to be added (its id comes from the insert).
fn new_message(role: &str, content: Value) -> ChatMessage {
    let content = match content {
        Value::Array(_) => content,
        one => Value::Array(vec![one]),
    };
    ChatMessage {
        id: 0,
        role: role.to_owned(),
        content,
        at_ms: now_ms(),
    }
}

/// Inserts `m` into conversation `id`; `None` when there is no such conversation.
fn insert_message(db: &mut Connection, id: &str, m: &ChatMessage) -> rusqlite::Result<Option<i64>> {
    let tx = db.transaction()?;
    let changed = tx.execute(
        "UPDATE conversations SET updated_ms = ?2 WHERE id = ?1",
        params![id, m.at_ms],
    )?;
    if changed == 0 {
        return Ok(None);
    }
    tx.execute(
        "INSERT INTO chat_messages (conversation, role, content, at_ms) VALUES (?1, ?2, ?3, ?4)",
        params![id, m.role, m.content.to_string(), m.at_ms],
    )?;
    let row = tx.last_insert_rowid();
    tx.commit()?;
    Ok(Some(row))
}

/// Conversation `id` with its messages, if it exists.
fn load(db: &mut Connection, id: &str) -> rusqlite::Result<Option<ConversationView>> {
    let conversation = db
        .query_row(
            &format!("SELECT {CONVERSATION_COLUMNS} FROM conversations WHERE id = ?1"),
            params![id],
            conversation_row,
        )
        .optional()?;
    let mut stmt = db.prepare(
        "SELECT id, role, content, at_ms FROM chat_messages WHERE conversation = ?1 ORDER BY id",
    )?;
    let messages = stmt
        .query_map(params![id], |r| {
            let content: String = r.get(2)?;
            Ok(ChatMessage {
                id: r.get(0)?,
                role: r.get(1)?,
                content: serde_json::from_str(&content).unwrap_or(Value::Null),
                at_ms: r.get(3)?,
            })
        })?
        .collect::<rusqlite::Result<Vec<_>>>()?;
    Ok(conversation.map(|conversation| ConversationView {
        conversation,
        messages,
        answering: false,
    }))
}
