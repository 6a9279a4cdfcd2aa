//! What the model is offered, as the person shapes it: each tool of each server switched on or
//! off for the model (off, it stays the person's to call on the Tools screen and in the CLI),
//! what a server's new tools start as, and named tool sets across servers that a conversation may
//! be limited to. Kept in SQLite. A tool gets its server's choice for new tools when it is first
//! seen, so changing that choice later moves no tool already seen, and a tool that leaves its
//! server's list and comes back keeps its switch.

use std::collections::HashSet;
use std::sync::Arc;

use rusqlite::{OptionalExtension, params};
use serde::{Deserialize, Serialize};
use ts_rs::TS;

use crate::error::{Error, ErrorCode, Result};
use crate::store::Store;

/// The longest name a tool set may have.
pub const MAX_SET_NAME: usize = 64;

/// One tool of one server.
#[derive(Debug, Clone, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize, TS)]
#[ts(export)]
pub struct ToolRef {
    pub server: String,
    pub tool: String,
}

/// A named set of tools.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, TS)]
#[ts(export)]
pub struct ToolSet {
    pub name: String,
    pub members: Vec<ToolRef>,
}

/// Every switch the person set, for the window.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, TS)]
#[serde(rename_all = "camelCase")]
#[ts(export)]
pub struct ToolSwitchesView {
    /// The tools switched off for the model.
    pub off: Vec<ToolRef>,
    /// The servers whose new tools start switched off.
    pub new_tools_off: Vec<String>,
    pub sets: Vec<ToolSet>,
}

/// The switches in the store.
#[derive(Clone)]
pub struct ToolSwitches {
    store: Arc<Store>,
}

impl ToolSwitches {
    pub fn new(store: Arc<Store>) -> Self {
        Self { store }
    }

    /// Whether each of `server`'s `tools` is on for the model; a tool seen for the first time
    /// is recorded with the server's choice for new tools. Blocking.
    pub fn observe(&self, server: &str, tools: &[String]) -> Result<Vec<bool>> {
        self.store.with(|c| {
            let tx = c.transaction()?;
            let default: bool = tx
                .query_row(
                    "SELECT enabled FROM new_tool_defaults WHERE server = ?1",
                    params![server],
                    |r| r.get(0),
                )
                .optional()?
                .unwrap_or(true);
            let mut on = Vec::with_capacity(tools.len());
            for tool in tools {
                tx.execute(
                    "INSERT OR IGNORE INTO tool_switches (server, tool, enabled) VALUES (?1, ?2, ?3)",
                    params![server, tool, default],
                )?;
                on.push(tx.query_row(
                    "SELECT enabled FROM tool_switches WHERE server = ?1 AND tool = ?2",
                    params![server, tool],
                    |r| r.get(0),
                )?);
            }
            tx.commit()?;
            Ok(on)
        })
    }

    /// Switches `server`'s `tool` on or off for the model.
    pub fn set(&self, server: &str, tool: &str, enabled: bool) -> Result<()> {
        self.store
            .with(|c| {
                c.execute(
                    "INSERT INTO tool_switches (server, tool, enabled) VALUES (?1, ?2, ?3)
                     ON CONFLICT (server, tool) DO UPDATE SET enabled = excluded.enabled",
                    params![server, tool, enabled],
                )
            })
            .map(drop)
    }

    /// What `server`'s tools not seen yet start as.
    pub fn set_new_tools(&self, server: &str, enabled: bool) -> Result<()> {
        self.store
            .with(|c| {
                c.execute(
                    "INSERT INTO new_tool_defaults (server, enabled) VALUES (?1, ?2)
                     ON CONFLICT (server) DO UPDATE SET enabled = excluded.enabled",
                    params![server, enabled],
                )
            })
            .map(drop)
    }

    /// Creates or replaces tool set `set`.
    pub fn save_set(&self, set: &ToolSet) -> Result<()> {
        let name = set_name(&set.name)?;
        self.store.with(|c| {
            let tx = c.transaction()?;
            tx.execute("DELETE FROM tool_sets WHERE name = ?1", params![name])?;
            tx.execute("INSERT INTO tool_sets (name) VALUES (?1)", params![name])?;
            for m in &set.members {
                tx.execute(
                    "INSERT OR IGNORE INTO tool_set_members (set_name, server, tool) VALUES (?1, ?2, ?3)",
                    params![name, m.server, m.tool],
                )?;
            }
            tx.commit()
        })
    }

    /// Deletes tool set `name`.
    pub fn delete_set(&self, name: &str) -> Result<()> {
        let name = name.trim();
        self.store
            .with(|c| c.execute("DELETE FROM tool_sets WHERE name = ?1", params![name]))
            .map(drop)
    }

    /// The tools in any of the sets `names`. A set that is gone adds none: a conversation
    /// limited to it offers nothing rather than everything (the window says the set is gone).
    pub fn members(&self, names: &[String]) -> Result<HashSet<ToolRef>> {
        let sets = self.sets()?;
        let mut members = HashSet::new();
        for name in names {
            match sets.iter().find(|s| &s.name == name) {
                Some(set) => members.extend(set.members.iter().cloned()),
                None => tracing::warn!(set = %name, "a conversation's tool set is gone"),
            }
        }
        Ok(members)
    }

    /// Every switch and set.
    pub fn view(&self) -> Result<ToolSwitchesView> {
        let (off, new_tools_off) = self.store.with(|c| {
            let off = c
                .prepare("SELECT server, tool FROM tool_switches WHERE enabled = 0 ORDER BY server, tool")?
                .query_map([], |r| Ok(ToolRef { server: r.get(0)?, tool: r.get(1)? }))?
                .collect::<rusqlite::Result<Vec<_>>>()?;
            let servers = c
                .prepare("SELECT server FROM new_tool_defaults WHERE enabled = 0 ORDER BY server")?
                .query_map([], |r| r.get(0))?
                .collect::<rusqlite::Result<Vec<String>>>()?;
            Ok((off, servers))
        })?;
        Ok(ToolSwitchesView {
            off,
            new_tools_off,
            sets: self.sets()?,
        })
    }

    fn sets(&self) -> Result<Vec<ToolSet>> {
        self.store.with(|c| {
            let rows = c
                .prepare(
                    "SELECT s.name, m.server, m.tool FROM tool_sets s
                     LEFT JOIN tool_set_members m ON m.set_name = s.name
                     ORDER BY s.name, m.server, m.tool",
                )?
                .query_map([], |r| {
                    Ok((
                        r.get::<_, String>(0)?,
                        r.get::<_, Option<String>>(1)?,
                        r.get::<_, Option<String>>(2)?,
                    ))
                })?
                .collect::<rusqlite::Result<Vec<_>>>()?;
            let mut sets: Vec<ToolSet> = Vec::new();
            for (name, server, tool) in rows {
                if sets.last().is_none_or(|s| s.name != name) {
                    sets.push(ToolSet {
                        name,
                        members: Vec::new(),
                    });
                }
                if let (Some(server), Some(tool), Some(set)) = (server, tool, sets.last_mut()) {
                    set.members.push(ToolRef { server, tool });
                }
            }
            Ok(sets)
        })
    }

    /// Moves `from`'s switches and set memberships to `to` (the server was renamed).
    pub fn rename(&self, from: &str, to: &str) -> Result<()> {
        if from == to {
            return Ok(());
        }
        self.forget(to)?;
        self.store.with(|c| {
            for table in ["tool_switches", "new_tool_defaults", "tool_set_members"] {
                c.execute(
                    &format!("UPDATE {table} SET server = ?2 WHERE server = ?1"),
                    params![from, to],
                )?;
            }
            Ok(())
        })
    }

    /// Forgets `server`'s switches and memberships (it was removed).
    pub fn forget(&self, server: &str) -> Result<()> {
        self.store.with(|c| {
            for table in ["tool_switches", "new_tool_defaults", "tool_set_members"] {
                c.execute(
                    &format!("DELETE FROM {table} WHERE server = ?1"),
                    params![server],
                )?;
            }
            Ok(())
        })
    }
}

/// `name` as a set's name: trimmed, not empty, at most [`MAX_SET_NAME`] characters, no control
/// characters.
fn set_name(name: &str) -> Result<&str> {
    let name = name.trim();
    let fine = !name.is_empty()
        && name.chars().count() <= MAX_SET_NAME
        && !name.chars().any(char::is_control);
    if fine {
        Ok(name)
    } else {
        Err(Error::new(
            ErrorCode::InvalidInput,
            format!(
                "a tool set's name is 1 to {MAX_SET_NAME} characters, without control characters"
            ),
        ))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn switches() -> (tempfile::TempDir, ToolSwitches) {
        let dir = tempfile::tempdir().unwrap();
        let store = Arc::new(Store::open(dir.path()).unwrap());
        (dir, ToolSwitches::new(store))
    }

    fn tools(names: &[&str]) -> Vec<String> {
        names.iter().map(|s| s.to_string()).collect()
    }

    #[test]
    fn switches_survive_a_restart_and_the_list_changing() {
        let dir = tempfile::tempdir().unwrap();
        let open = || ToolSwitches::new(Arc::new(Store::open(dir.path()).unwrap()));
        let s = open();
        assert_eq!(
            s.observe("fs", &tools(&["read", "write"])).unwrap(),
            [true, true]
        );
        s.set("fs", "write", false).unwrap();
        // The server's new tools start off from now on; the tools already seen keep theirs.
        s.set_new_tools("fs", false).unwrap();
        drop(s);
        let s = open();
        assert_eq!(
            s.observe("fs", &tools(&["read", "write", "delete"]))
                .unwrap(),
            [true, false, false]
        );
        // `write` left the list and came back: still off.
        s.observe("fs", &tools(&["read"])).unwrap();
        assert_eq!(s.observe("fs", &tools(&["write"])).unwrap(), [false]);
        let view = s.view().unwrap();
        assert_eq!(view.new_tools_off, ["fs"]);
        assert_eq!(view.off.len(), 2, "{view:?}");
    }

    #[test]
    fn sets_group_tools_across_servers_and_follow_a_rename() {
        let (_dir, s) = switches();
        let member = |server: &str, tool: &str| ToolRef {
            server: server.into(),
            tool: tool.into(),
        };
        let writing = ToolSet {
            name: " writing ".into(),
            members: vec![member("docs", "search"), member("fs", "write")],
        };
        s.save_set(&writing).unwrap();
        assert_eq!(s.members(&["writing".into()]).unwrap().len(), 2);
        s.rename("fs", "files").unwrap();
        let members = s.members(&["writing".into()]).unwrap();
        assert!(members.contains(&member("files", "write")), "{members:?}");
        s.forget("docs").unwrap();
        assert_eq!(s.members(&["writing".into()]).unwrap().len(), 1);
        // A conversation limited to a set that is gone offers nothing, never everything.
        s.delete_set(" writing ").unwrap();
        assert!(s.members(&["writing".into()]).unwrap().is_empty());
        for bad in ["", "  ", "a\nb", &"x".repeat(MAX_SET_NAME + 1)] {
            let set = ToolSet {
                name: bad.into(),
                members: vec![],
            };
            assert!(s.save_set(&set).is_err(), "{bad:?}");
        }
    }
}
