//! `registry search`, `install` and `uninstall`: the gallery on the command line. An install
//! prints the definition it would run and asks (or takes `--yes`), exactly as `trust` does.

use std::io::{BufRead, IsTerminal, Write};
use std::process::ExitCode;

use indexmap::IndexMap;
use serde_json::json;
use switchboard_core::app::requests::ServerName;
use switchboard_core::app::{InstallRequest, RegistryRef, RegistrySearch};
use switchboard_core::{Error, ErrorCode, Result};

use crate::{Session, print_line};

/// One JSON line per server of the page.
pub async fn search(
    session: &Session,
    term: Option<String>,
    registry: Option<String>,
    limit: Option<u32>,
) -> Result<ExitCode> {
    let page = session
        .app
        .registry_search(RegistrySearch {
            registry,
            search: term,
            cursor: None,
            limit,
        })
        .await?;
    for listing in &page.servers {
        let text = listing.shown();
        let remotes: Vec<_> = listing
            .server
            .remotes
            .iter()
            .filter_map(|r| serde_json::to_value(r).ok())
            .filter_map(|r| r.get("url").and_then(|u| u.as_str()).map(reveal))
            .collect();
        print_line(&json!({
            "name": text.name,
            "version": text.version,
            "title": text.title,
            "description": text.description,
            "status": listing.status,
            "packages": text.kinds.iter().filter(|k| *k != "remote").collect::<Vec<_>>(),
            "remotes": remotes,
            "registry": listing.registry,
        }))?;
    }
    if page.skipped > 0 {
        eprintln!(
            "{} entries were left out: their names are not registry names",
            page.skipped
        );
    }
    Ok(ExitCode::SUCCESS)
}

fn reveal(s: &str) -> String {
    switchboard_core::app::reveal(s).into_owned()
}

/// What `install` was given.
pub struct Install {
    pub reference: String,
    pub registry: Option<String>,
    pub package: Option<String>,
    pub name: Option<String>,
    pub set: Vec<String>,
    pub yes: bool,
}

pub async fn install(session: &Session, args: Install) -> Result<ExitCode> {
    let (name, version) = match args.reference.split_once('@') {
        Some((name, version)) => (name.to_owned(), Some(version.to_owned())),
        None => (args.reference.clone(), None),
    };
    let mut request = InstallRequest {
        server: RegistryRef {
            registry: args.registry,
            name,
            version,
        },
        choice: None,
        kind: args.package,
        name: args.name,
        values: values(&args.set)?,
    };
    ask_missing(session, &mut request).await?;
    let yes = args.yes;
    if !yes && !std::io::stdin().is_terminal() {
        eprint!("{}", session.app.install_review(&request).await?.text());
        return Err(Error::new(
            ErrorCode::InvalidInput,
            "not on a terminal, so nobody can be asked: read the definition above and run this \
             again with --yes to trust it",
        ));
    }
    let installed = session
        .app
        .install_server(
            request,
            Box::new(move |review| Box::pin(crate::trust::ask(review, yes))),
        )
        .await?;
    eprintln!("installed {installed}: trusted, and it runs until its definition changes");
    print_line(&json!({"installed": installed}))?;
    Ok(ExitCode::SUCCESS)
}

pub async fn uninstall(session: &Session, server: &str) -> Result<ExitCode> {
    session
        .app
        .uninstall_server(ServerName {
            server: server.to_owned(),
        })
        .await?;
    eprintln!("uninstalled {server}: its definition, its rules and its keychain entries are gone");
    Ok(ExitCode::SUCCESS)
}

/// `KEY=VALUE` pairs.
fn values(set: &[String]) -> Result<IndexMap<String, String>> {
    set.iter()
        .map(|pair| {
            pair.split_once('=')
                .map(|(k, v)| (k.to_owned(), v.to_owned()))
                .ok_or_else(|| {
                    Error::new(
                        ErrorCode::InvalidInput,
                        format!("--set {pair:?}: write it as KEY=VALUE"),
                    )
                })
        })
        .collect()
}

/// Asks on the terminal for each required value not given (a secret without echo); off a
/// terminal, the install's own error names them.
async fn ask_missing(session: &Session, request: &mut InstallRequest) -> Result<()> {
    if !std::io::stdin().is_terminal() {
        return Ok(());
    }
    let form = session.app.install_form(request.server.clone()).await?;
    let listing = &form.listing;
    let choice = match request.choice {
        Some(c) => c,
        None => switchboard_core::app::pick_choice(listing, request.kind.as_deref())?,
    };
    let Some(option) = form.choices.iter().find(|o| o.choice == choice) else {
        return Ok(());
    };
    for need in &option.needs {
        if !need.required || need.default.is_some() || request.values.contains_key(&need.key) {
            continue;
        }
        let prompt = format!("{} ({}): ", need.key, need.description);
        let secret = need.secret;
        let value = tokio::task::spawn_blocking(move || read_value(&prompt, secret))
            .await
            .map_err(|e| Error::new(ErrorCode::Internal, e.to_string()))??;
        request.values.insert(need.key.clone(), value);
    }
    Ok(())
}

fn read_value(prompt: &str, secret: bool) -> Result<String> {
    let io = |e: std::io::Error| Error::new(ErrorCode::Io, format!("reading your answer: {e}"));
    if secret {
        return rpassword::prompt_password(prompt).map_err(io);
    }
    eprint!("{prompt}");
    std::io::stderr().flush().map_err(io)?;
    let mut line = String::new();
    std::io::stdin().lock().read_line(&mut line).map_err(io)?;
    Ok(line.trim_end_matches(['\n', '\r']).to_owned())
}
