//! Standing approval rules, per server and optionally per tool: ask (the default), allow for this
//! session, always allow, deny. "Always" and "deny" persist in the store; "this session" lives in
//! memory and ends with the process. A rule for a tool wins over the rule for its server.

use std::collections::HashMap;
use std::sync::{Arc, Mutex};

use rusqlite::{OptionalExtension, params};
use serde::{Deserialize, Serialize};
use ts_rs::TS;

use crate::error::{Error, ErrorCode, Result};
use crate::store::{Store, now_ms};

/// What happens when a request of this kind arrives.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Hash, Serialize, Deserialize, TS)]
#[serde(rename_all = "snake_case")]
#[ts(export)]
pub enum Rule {
    /// Show it to the user (the default).
    #[default]
    Ask,
    /// Let it through without asking until the app exits.
    AllowSession,
    /// Let it through without asking, from now on.
    AlwaysAllow,
    /// Refuse without asking.
    Deny,
}

impl Rule {
    fn as_str(self) -> &'static str {
        match self {
            Rule::Ask => "ask",
            Rule::AllowSession => "allow_session",
            Rule::AlwaysAllow => "always_allow",
            Rule::Deny => "deny",
        }
    }

    fn parse(s: &str) -> Rule {
        match s {
            "always_allow" => Rule::AlwaysAllow,
            "deny" => Rule::Deny,
            "allow_session" => Rule::AllowSession,
            _ => Rule::Ask,
        }
    }

    /// Whether requests pass without asking.
    pub fn allows(self) -> bool {
        matches!(self, Rule::AllowSession | Rule::AlwaysAllow)
    }
}

/// The kinds of request a rule can cover.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize, TS)]
#[serde(rename_all = "snake_case")]
#[ts(export)]
pub enum PolicyKind {
    /// A model calling a server's tool from the chat.
    ToolCall,
    /// A server asking the LLM (`sampling/createMessage`).
    Sampling,
    /// A server asking the user (`elicitation/create`).
    Elicitation,
}

impl PolicyKind {
    fn as_str(self) -> &'static str {
        match self {
            PolicyKind::ToolCall => "tool_call",
            PolicyKind::Sampling => "sampling",
            PolicyKind::Elicitation => "elicitation",
        }
    }

    fn parse(s: &str) -> Option<PolicyKind> {
        Some(match s {
            "tool_call" => PolicyKind::ToolCall,
            "sampling" => PolicyKind::Sampling,
            "elicitation" => PolicyKind::Elicitation,
            _ => return None,
        })
    }
}

/// One rule as the settings screen lists it.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, TS)]
#[serde(rename_all = "camelCase")]
#[ts(export)]
pub struct PolicyEntry {
    pub server: String,
    pub kind: PolicyKind,
    /// The tool, or null for a rule about every tool of the server.
    pub tool: Option<String>,
    pub rule: Rule,
    /// Filled in when rules are listed: why the rule covers less than it seems to (its tool is
    /// not among what its server offers now, or its server is not configured). Not stored.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[ts(optional)]
    pub warning: Option<String>,
}

type Key = (String, PolicyKind, String);

/// The rules: persistent ones in the store, session ones in memory.
#[derive(Debug, Clone)]
pub struct Policies {
    store: Arc<Store>,
    session: Arc<Mutex<HashMap<Key, Rule>>>,
}

impl Policies {
    /// Rules kept in `store`.
    pub fn new(store: Arc<Store>) -> Self {
        Self {
            store,
            session: Arc::default(),
        }
    }

    fn session(&self) -> Result<std::sync::MutexGuard<'_, HashMap<Key, Rule>>> {
        self.session
            .lock()
            .map_err(|_| Error::new(ErrorCode::Internal, "policy lock poisoned"))
    }

    fn stored(&self, server: &str, kind: PolicyKind, tool: &str) -> Result<Option<Rule>> {
        self.store.with(|c| {
            c.query_row(
                "SELECT rule FROM policies WHERE server = ?1 AND kind = ?2 AND tool = ?3",
                params![server, kind.as_str(), tool],
                |r| r.get::<_, String>(0),
            )
            .optional()
            .map(|r| r.map(|s| Rule::parse(&s)))
        })
    }

    /// The rule that applies: the tool's own, else the server's, else [`Rule::Ask`].
    pub fn rule(&self, server: &str, kind: PolicyKind, tool: Option<&str>) -> Result<Rule> {
        let mut scopes = Vec::with_capacity(2);
        if let Some(t) = tool.filter(|t| !t.is_empty()) {
            scopes.push(t);
        }
        scopes.push("");
        for scope in scopes {
            let key = (server.to_owned(), kind, scope.to_owned());
            if let Some(rule) = self.session()?.get(&key).copied() {
                return Ok(rule);
            }
            if let Some(rule) = self.stored(server, kind, scope)? {
                return Ok(rule);
            }
        }
        Ok(Rule::Ask)
    }

    /// Sets a rule. [`Rule::Ask`] for a whole server removes its rule (asking is the default);
    /// for one tool it is kept, so that tool is asked about whatever the server's rule says.
    pub fn set(&self, entry: &PolicyEntry) -> Result<()> {
        self.remove(entry)?;
        let tool = entry.tool.clone().unwrap_or_default();
        let key = (entry.server.clone(), entry.kind, tool.clone());
        match entry.rule {
            Rule::Ask if tool.is_empty() => {}
            Rule::AllowSession => {
                self.session()?.insert(key, Rule::AllowSession);
            }
            Rule::Ask | Rule::AlwaysAllow | Rule::Deny => {
                self.store.with(|c| {
                    c.execute(
                        "INSERT INTO policies (server, kind, tool, rule, changed_ms) VALUES (?1, ?2, ?3, ?4, ?5)",
                        params![entry.server, entry.kind.as_str(), tool, entry.rule.as_str(), now_ms()],
                    )
                })?;
            }
        }
        Ok(())
    }

    /// Removes the rule at `entry`'s scope (server, kind, tool), whatever it is.
    pub fn remove(&self, entry: &PolicyEntry) -> Result<()> {
        let tool = entry.tool.clone().unwrap_or_default();
        self.session()?
            .remove(&(entry.server.clone(), entry.kind, tool.clone()));
        self.store.with(|c| {
            c.execute(
                "DELETE FROM policies WHERE server = ?1 AND kind = ?2 AND tool = ?3",
                params![entry.server, entry.kind.as_str(), tool],
            )
        })?;
        Ok(())
    }

    /// Forgets every rule of `server` (it was removed: a new server given its name later must
    /// not inherit what was allowed to this one).
    pub fn forget(&self, server: &str) -> Result<()> {
        self.session()?.retain(|(s, _, _), _| s != server);
        self.store
            .with(|c| c.execute("DELETE FROM policies WHERE server = ?1", params![server]))?;
        Ok(())
    }

    /// Moves `from`'s rules to `to` (the server was renamed), replacing any `to` had.
    pub fn rename(&self, from: &str, to: &str) -> Result<()> {
        if from == to {
            return Ok(());
        }
        self.forget(to)?;
        {
            let mut session = self.session()?;
            let moved: Vec<(Key, Rule)> = session
                .iter()
                .filter(|((s, _, _), _)| s == from)
                .map(|((_, k, t), r)| ((to.to_owned(), *k, t.clone()), *r))
                .collect();
            session.retain(|(s, _, _), _| s != from);
            session.extend(moved);
        }
        self.store.with(|c| {
            c.execute(
                "UPDATE policies SET server = ?2 WHERE server = ?1",
                params![from, to],
            )
        })?;
        Ok(())
    }

    /// Every rule, session ones included, sorted by server, kind and tool.
    pub fn list(&self) -> Result<Vec<PolicyEntry>> {
        let mut out: Vec<PolicyEntry> = self
            .store
            .with(|c| {
                let mut stmt = c.prepare("SELECT server, kind, tool, rule FROM policies")?;
                let rows = stmt.query_map([], |r| {
                    Ok((
                        r.get::<_, String>(0)?,
                        r.get::<_, String>(1)?,
                        r.get::<_, String>(2)?,
                        r.get::<_, String>(3)?,
                    ))
                })?;
                rows.collect::<rusqlite::Result<Vec<_>>>()
            })?
            .into_iter()
            .filter_map(|(server, kind, tool, rule)| {
                Some(PolicyEntry {
                    server,
                    kind: PolicyKind::parse(&kind)?,
                    tool: Some(tool).filter(|t| !t.is_empty()),
                    rule: Rule::parse(&rule),
                    warning: None,
                })
            })
            .collect();
        out.extend(
            self.session()?
                .iter()
                .map(|((server, kind, tool), rule)| PolicyEntry {
                    server: server.clone(),
                    kind: *kind,
                    tool: Some(tool.clone()).filter(|t| !t.is_empty()),
                    rule: *rule,
                    warning: None,
                }),
        );
        out.sort_by(|a, b| {
            (&a.server, a.kind.as_str(), &a.tool).cmp(&(&b.server, b.kind.as_str(), &b.tool))
        });
        Ok(out)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn entry(server: &str, kind: PolicyKind, tool: Option<&str>, rule: Rule) -> PolicyEntry {
        PolicyEntry {
            server: server.into(),
            kind,
            tool: tool.map(Into::into),
            rule,
            warning: None,
        }
    }

    #[test]
    fn default_is_ask_and_tool_rules_win() {
        let p = Policies::new(Arc::new(Store::in_memory().unwrap()));
        let k = PolicyKind::ToolCall;
        assert_eq!(p.rule("fs", k, Some("read")).unwrap(), Rule::Ask);
        p.set(&entry("fs", k, None, Rule::AlwaysAllow)).unwrap();
        p.set(&entry("fs", k, Some("write"), Rule::Deny)).unwrap();
        assert_eq!(p.rule("fs", k, Some("read")).unwrap(), Rule::AlwaysAllow);
        assert_eq!(p.rule("fs", k, Some("write")).unwrap(), Rule::Deny);
        assert_eq!(p.rule("other", k, Some("read")).unwrap(), Rule::Ask);
        assert_eq!(p.rule("fs", PolicyKind::Sampling, None).unwrap(), Rule::Ask);
    }

    #[test]
    fn session_rules_do_not_persist_and_revoke_works() {
        let dir = tempfile::tempdir().unwrap();
        let k = PolicyKind::Sampling;
        {
            let p = Policies::new(Arc::new(Store::open(dir.path()).unwrap()));
            p.set(&entry("everything", k, None, Rule::AllowSession))
                .unwrap();
            p.set(&entry("py", k, None, Rule::AlwaysAllow)).unwrap();
            assert_eq!(p.rule("everything", k, None).unwrap(), Rule::AllowSession);
            assert_eq!(p.list().unwrap().len(), 2);
        }
        let p = Policies::new(Arc::new(Store::open(dir.path()).unwrap()));
        assert_eq!(p.rule("everything", k, None).unwrap(), Rule::Ask);
        assert_eq!(p.rule("py", k, None).unwrap(), Rule::AlwaysAllow);
        p.set(&entry("py", k, None, Rule::Ask)).unwrap();
        assert_eq!(p.rule("py", k, None).unwrap(), Rule::Ask);
        assert!(p.list().unwrap().is_empty());
    }

    #[test]
    fn one_tool_can_be_asked_about_under_a_server_wide_allow() {
        let p = Policies::new(Arc::new(Store::in_memory().unwrap()));
        let k = PolicyKind::ToolCall;
        p.set(&entry("fs", k, None, Rule::AlwaysAllow)).unwrap();
        p.set(&entry("fs", k, Some("delete"), Rule::Ask)).unwrap();
        assert_eq!(p.rule("fs", k, Some("read")).unwrap(), Rule::AlwaysAllow);
        assert_eq!(p.rule("fs", k, Some("delete")).unwrap(), Rule::Ask);
        assert_eq!(p.list().unwrap().len(), 2);
        p.remove(&entry("fs", k, Some("delete"), Rule::Ask))
            .unwrap();
        assert_eq!(p.rule("fs", k, Some("delete")).unwrap(), Rule::AlwaysAllow);
    }

    #[test]
    fn removed_servers_lose_their_rules_and_renamed_ones_keep_them() {
        let p = Policies::new(Arc::new(Store::in_memory().unwrap()));
        let k = PolicyKind::Sampling;
        p.set(&entry("old", k, None, Rule::AlwaysAllow)).unwrap();
        p.set(&entry(
            "old",
            PolicyKind::ToolCall,
            Some("t"),
            Rule::AllowSession,
        ))
        .unwrap();
        p.rename("old", "new").unwrap();
        assert_eq!(p.rule("old", k, None).unwrap(), Rule::Ask);
        assert_eq!(p.rule("new", k, None).unwrap(), Rule::AlwaysAllow);
        assert_eq!(
            p.rule("new", PolicyKind::ToolCall, Some("t")).unwrap(),
            Rule::AllowSession
        );
        p.forget("new").unwrap();
        assert!(p.list().unwrap().is_empty());
        assert_eq!(p.rule("new", k, None).unwrap(), Rule::Ask);
    }
}
