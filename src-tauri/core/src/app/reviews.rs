//! The app's requests about approvals: reviews waiting for the user, standing rules, pinned tool
//! definitions and the audit log.

use std::path::PathBuf;

use serde_json::Value;

use super::App;
use super::requests::{
    ApprovePins, AuditExport, CompareSampling, DecideReview, NoArgs, ReplaySampling, ServerName,
};
use crate::approvals::policy::PolicyEntry;
use crate::approvals::{ComparedAnswer, Review, ReviewKind};
use crate::audit::{AuditEntry, AuditQuery};
use crate::error::{Error, ErrorCode, Result};
use crate::pins::{self, PinItem};
use crate::store::off_thread;

impl App {
    /// The reviews waiting for a decision, oldest first.
    pub async fn pending_reviews(&self, _: NoArgs) -> Result<Vec<Review>> {
        self.reviews()?.pending()
    }

    /// Decides a review: its id and the digest of what was shown must match.
    pub async fn decide_review(&self, args: DecideReview) -> Result<()> {
        self.reviews()?.decide(&args.id, &args.digest, args.verdict)
    }

    /// Sends a pending sampling request, as edited in its dialog, to two or three models at once;
    /// each column's text streams as a `comparedText` event. The dialog stays open: the person
    /// then approves it with the answer they picked.
    pub async fn compare_sampling(&self, args: CompareSampling) -> Result<Vec<ComparedAnswer>> {
        let review = self
            .reviews()?
            .pending()?
            .into_iter()
            .find(|r| r.id == args.id && r.digest == args.digest)
            .filter(|r| r.kind == ReviewKind::SamplingRequest)
            .ok_or_else(|| {
                Error::new(
                    ErrorCode::ApprovalMismatch,
                    "This sampling request is no longer waiting, or changed since it was shown.",
                )
            })?;
        let flow = crate::audit::Flow::resume(
            &review.flow,
            crate::audit::FlowKind::Sampling,
            &review.server,
        );
        self.0
            .door
            .compare_sampling(&flow, &args.content, &args.models)
            .await
    }

    /// Sends a past sampling request from the audit log to two or three models at once, to
    /// compare their answers; nothing goes back to the server.
    pub async fn replay_sampling(&self, args: ReplaySampling) -> Result<Vec<ComparedAnswer>> {
        let audit = self.0.door.audit().clone();
        let flow = args.flow.clone();
        let rows = off_thread(move || {
            audit.search(&AuditQuery {
                flow: Some(flow),
                ..AuditQuery::default()
            })
        })
        .await?;
        let asked = rows
            .into_iter()
            .find(|r| {
                r.kind == crate::audit::FlowKind::Sampling
                    && r.step == crate::audit::Step::Requested
                    && r.actor == "server"
            })
            .ok_or_else(|| {
                Error::new(
                    ErrorCode::InvalidInput,
                    "The audit log holds no sampling request from a server in that flow.",
                )
            })?;
        self.0
            .door
            .replay_sampling(&asked.server, &args.flow, asked.detail, &args.models)
            .await
    }

    /// The standing rules, each with a warning when it covers less than it seems to.
    pub async fn list_policies(&self, _: NoArgs) -> Result<Vec<PolicyEntry>> {
        let policies = self.0.door.policies().clone();
        let mut rules = off_thread(move || policies.list()).await?;
        for rule in &mut rules {
            rule.warning = self.rule_warning(&rule.server, rule.tool.as_deref());
        }
        Ok(rules)
    }

    /// Adds or changes a standing rule. A rule for a server or tool that is not there (now) is
    /// kept, and listed with a warning.
    pub async fn set_policy(&self, args: PolicyEntry) -> Result<()> {
        let policies = self.0.door.policies().clone();
        off_thread(move || policies.set(&args)).await
    }

    /// Why a rule for `server` (and `tool`) covers less than it seems to, if it does: the
    /// server is not configured, or it runs and offers no such tool.
    fn rule_warning(&self, server: &str, tool: Option<&str>) -> Option<String> {
        let Ok(handle) = self.0.host.servers().get(server) else {
            return Some(format!(
                "no server named {server:?} is configured: this rule covers nothing"
            ));
        };
        let (tool, catalog) = (tool?, handle.catalog()?);
        let offered = catalog.tools.iter().any(|t| t.name == tool);
        (!offered).then(|| {
            format!(
                "{server:?} does not offer a tool named {tool:?} now: this rule covers nothing \
                 until it does"
            )
        })
    }

    /// Removes a standing rule.
    pub async fn remove_policy(&self, args: PolicyEntry) -> Result<()> {
        let policies = self.0.door.policies().clone();
        off_thread(move || policies.remove(&args)).await
    }

    /// Audit rows matching the query, newest first.
    pub async fn search_audit(&self, args: AuditQuery) -> Result<Vec<AuditEntry>> {
        self.0.door.audit().find(args).await
    }

    /// Writes the audit rows `query` matches (all of them, oldest first) as JSON Lines to
    /// `path`: what the search shows is what is exported.
    pub async fn export_audit(&self, path: PathBuf, query: AuditQuery) -> Result<AuditExport> {
        let audit = self.0.door.audit().clone();
        let target = path.clone();
        let entries = off_thread(move || {
            let io = |e: std::io::Error| {
                Error::new(
                    ErrorCode::Io,
                    format!("cannot write {}: {e}", target.display()),
                )
            };
            let mut out = std::io::BufWriter::new(std::fs::File::create(&target).map_err(io)?);
            let n = audit.export_jsonl(&query, &mut out)?;
            std::io::Write::flush(&mut out).map_err(io)?;
            Ok(n)
        })
        .await?;
        Ok(AuditExport {
            path: path.display().to_string(),
            entries: u32::try_from(entries).unwrap_or(u32::MAX),
        })
    }

    /// The server's current tool definitions and instructions against what is pinned.
    pub async fn review_pins(&self, args: ServerName) -> Result<Vec<PinItem>> {
        let defs = self.offered_definitions(&args.server).await?;
        let pins = self.0.door.pins().clone();
        off_thread(move || pins.review(&args.server, &defs)).await
    }

    /// Pins the definitions the user approved as shown.
    pub async fn approve_pins(&self, args: ApprovePins) -> Result<usize> {
        let defs = self.offered_definitions(&args.server).await?;
        let approved: Vec<(String, String)> =
            args.items.into_iter().map(|c| (c.item, c.digest)).collect();
        self.0
            .door
            .approve_pins(&args.server, &defs, &approved)
            .await
    }

    /// What a running server offers now, as it gets pinned: its tools and its instructions.
    async fn offered_definitions(&self, server: &str) -> Result<Vec<(String, Value)>> {
        let handle = self.0.host.servers().get(server)?;
        let connection = handle.connection()?;
        let tools = match handle.catalog() {
            Some(catalog) => catalog.tools.clone(),
            None => connection.list_tools().await?,
        };
        let tools: Vec<Value> = tools
            .iter()
            .filter_map(|t| serde_json::to_value(t).ok())
            .collect();
        let instructions = connection.summary().instructions.clone();
        Ok(pins::definitions(instructions.as_deref(), &tools))
    }
}
