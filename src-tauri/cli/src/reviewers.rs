//! The CLI's side of the approval door: who decides what servers ask (`--approve`). `allow` and
//! `deny` answer at once for scripts; `ask` ([`terminal`]) puts each review in front of the person
//! at the terminal, with `$EDITOR` for edits. Every decision is written to the audit log by the door.

pub mod terminal;

use futures::future::BoxFuture;
use switchboard_core::app::{Review, ReviewKind, Reviewer, Verdict};

/// `--approve allow`: everything passes unedited; forms get their defaults (and are cancelled
/// when the defaults are not a valid answer); URL elicitations are declined, since nobody is
/// there to open the page.
pub struct Allow;

impl Reviewer for Allow {
    fn review(&self, review: Review) -> BoxFuture<'static, Verdict> {
        let verdict = match review.kind {
            ReviewKind::Elicitation if review.content.get("url").is_some() => Verdict::Deny,
            ReviewKind::Elicitation if !review.content["error"].is_null() => Verdict::Cancel,
            _ => Verdict::Approve {
                content: review.content,
                remember: None,
            },
        };
        Box::pin(async move { verdict })
    }

    fn actor(&self) -> &'static str {
        "cli_allow"
    }

    fn writes_answers(&self) -> bool {
        false
    }
}

/// `--approve deny`, and the default off a terminal: sampling gets -1 (saying why), elicitation
/// is declined, tool calls are not made.
pub struct Deny {
    /// Why, in the CLI's own words.
    pub why: String,
}

impl Reviewer for Deny {
    fn review(&self, _review: Review) -> BoxFuture<'static, Verdict> {
        Box::pin(async { Verdict::Deny })
    }

    fn actor(&self) -> &'static str {
        "cli_deny"
    }

    fn denial(&self) -> Option<String> {
        Some(self.why.clone())
    }

    fn writes_answers(&self) -> bool {
        false
    }
}
