//! `trust SERVER`: shows exactly what a configured server runs and trusts that definition when
//! the person says so on the terminal (or passed `--yes` after reading it).

use std::io::{BufRead, IsTerminal, Write};
use std::process::ExitCode;

use switchboard_core::app::requests::ServerName;
use switchboard_core::app::{LaunchReview, TrustVerdict};
use switchboard_core::{Error, ErrorCode, Result};

use crate::Session;

pub async fn trust(session: &Session, server: &str, yes: bool) -> Result<ExitCode> {
    let on_terminal = std::io::stdin().is_terminal();
    if !yes && !on_terminal {
        let review = session.app.trust_review(&ServerName {
            server: server.to_owned(),
        })?;
        if review.verdict != TrustVerdict::Trusted {
            eprint!("{}", review.text());
            return Err(Error::new(
                ErrorCode::InvalidInput,
                "not on a terminal, so nobody can be asked: read the definition above and run \
                 this again with --yes to trust it",
            ));
        }
    }
    let trusted = session
        .app
        .trust_server(
            ServerName {
                server: server.to_owned(),
            },
            Box::new(move |review| Box::pin(async move { ask(review, yes).await })),
        )
        .await?;
    if trusted {
        eprintln!("trusted {server}: it runs until its definition changes");
        Ok(ExitCode::SUCCESS)
    } else {
        Err(Error::new(
            ErrorCode::Denied,
            format!("{server} is not trusted: nothing was changed"),
        ))
    }
}

/// Prints the review and, unless `yes`, asks on the terminal.
pub async fn ask(review: LaunchReview, yes: bool) -> bool {
    eprint!("{}", review.text());
    if yes {
        return true;
    }
    tokio::task::spawn_blocking(|| {
        eprint!("Trust this definition and let it run? [y/N] ");
        let _ = std::io::stderr().flush();
        let mut answer = String::new();
        std::io::stdin().lock().read_line(&mut answer).is_ok()
            && matches!(answer.trim(), "y" | "Y" | "yes")
    })
    .await
    .unwrap_or(false)
}
