//! `login SERVER` and `logout SERVER`: signing in to a remote server that requires it, through
//! the system browser (or a printed URL) and a one-time listener on 127.0.0.1.

use std::process::ExitCode;

use switchboard_core::Result;
use switchboard_core::app::SignIn;
use switchboard_core::app::{Loopback, Open};
use tokio_util::sync::CancellationToken;

use crate::Session;

pub async fn login(
    session: &Session,
    name: &str,
    no_browser: bool,
    scopes: Option<&str>,
) -> Result<ExitCode> {
    let server = session.app.configured_server(name)?;
    let cancel = CancellationToken::new();
    // Ctrl+C ends the wait for the browser cleanly.
    let on_interrupt = cancel.clone();
    tokio::spawn(async move {
        if tokio::signal::ctrl_c().await.is_ok() {
            on_interrupt.cancel();
        }
    });
    let loopback = Loopback::bind(opener(no_browser), cancel).await?;
    if let Some(scopes) = scopes {
        session
            .app
            .sign_in_for_scopes(name, &server, scopes, &loopback)
            .await?;
        eprintln!("signed in to {name} for {scopes}");
        kept_for_this_run(session);
        return Ok(ExitCode::SUCCESS);
    }
    match session.app.sign_in(name, &server, &loopback).await? {
        SignIn::Done => eprintln!("signed in to {name}"),
        SignIn::NotNeeded => eprintln!("{name} does not ask for sign-in (or you are signed in)"),
    }
    kept_for_this_run(session);
    Ok(ExitCode::SUCCESS)
}

/// Without a keychain the tokens live only in this process: said, so nobody counts on them.
pub fn kept_for_this_run(session: &Session) {
    if session.app.keeps_sign_ins_for_this_run() {
        eprintln!(
            "note: no OS keychain could be opened, so the sign-in is kept only while this command \
             runs and is not saved; {}",
            switchboard_core::app::KEYCHAIN_FIX
        );
    }
}

pub async fn logout(session: &Session, name: &str) -> Result<ExitCode> {
    let server = session.app.configured_server(name)?;
    session.app.sign_out(name, &server).await?;
    eprintln!("signed out of {name}");
    Ok(ExitCode::SUCCESS)
}

/// Opens the sign-in page: printed, and (unless `--no-browser`) in the system browser, started
/// directly (never through a shell). The URL was checked to be https (or on this machine).
fn opener(no_browser: bool) -> Open {
    Box::new(move |url| {
        eprintln!("Sign in at:\n  {url}\nWaiting for the browser to come back (Ctrl+C cancels)…");
        if no_browser {
            return Ok(());
        }
        let (program, args): (&str, &[&str]) = if cfg!(target_os = "macos") {
            ("open", &[])
        } else if cfg!(windows) {
            ("rundll32", &["url.dll,FileProtocolHandler"])
        } else {
            ("xdg-open", &[])
        };
        let started = std::process::Command::new(program)
            .args(args)
            .arg(url)
            .stdout(std::process::Stdio::null())
            .stderr(std::process::Stdio::null())
            .spawn();
        if let Err(e) = started {
            eprintln!("(could not open a browser: {e}; open the URL above yourself)");
        }
        Ok(())
    })
}
