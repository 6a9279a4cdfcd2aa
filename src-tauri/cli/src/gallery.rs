//! `registry search`, `install` and `uninstall`: the gallery on the command line. An install
//! prints the definition it would run and asks (or takes `--yes`), exactly as `trust` does.

use std::io::{BufRead, IsTerminal, Write};
use std::process::ExitCode;

use indexmap::IndexMap;
use serde_json::json;
use switchboard_core::app::Confirm;
use switchboard_core::app::requests::ServerName;
use switchboard_core::app::{
    BundleInstall, InstallInput, InstallRequest, RegistryRef, RegistrySearch,
};
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
    let path = std::path::Path::new(&args.reference);
    if args.reference.ends_with(".mcpb") || path.is_file() {
        return install_bundle(session, args).await;
    }
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
    let installed = session.app.install_server(request, asker(yes)).await?;
    installed_line(&installed)
}

/// `install FILE.mcpb`: its settings from `--set` (asked on a terminal when required).
async fn install_bundle(session: &Session, args: Install) -> Result<ExitCode> {
    let path = std::path::PathBuf::from(&args.reference);
    let form = session.app.bundle_form(path.clone()).await?;
    eprintln!(
        "{} {} by {}: {}",
        form.display_name, form.version, form.author, form.signature_text
    );
    let mut request = BundleInstall {
        path,
        name: args.name,
        values: values(&args.set)?,
    };
    if std::io::stdin().is_terminal() {
        ask_each(&form.needs, &mut request.values).await?;
    } else if !args.yes {
        return Err(Error::new(
            ErrorCode::InvalidInput,
            "not on a terminal, so nobody can be asked: run this again with --yes to trust the \
             definition it prints",
        ));
    }
    let yes = args.yes;
    let installed = session.app.install_bundle(request, asker(yes)).await?;
    installed_line(&installed)
}

/// Shows the definition and asks on the terminal, or trusts it with `--yes`.
fn asker(yes: bool) -> Confirm {
    Box::new(move |review| Box::pin(crate::trust::ask(review, yes)))
}

/// Says what was installed: a sentence on stderr, its name as JSON on stdout.
fn installed_line(installed: &str) -> Result<ExitCode> {
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

/// `KEY=VALUE` pairs; a key given more than once has its values one per line (a setting that
/// takes several).
fn values(set: &[String]) -> Result<IndexMap<String, String>> {
    let mut out: IndexMap<String, String> = IndexMap::new();
    for pair in set {
        let (k, v) = pair.split_once('=').ok_or_else(|| {
            Error::new(
                ErrorCode::InvalidInput,
                format!("--set {pair:?}: write it as KEY=VALUE"),
            )
        })?;
        match out.get_mut(k) {
            Some(existing) => {
                existing.push('\n');
                existing.push_str(v);
            }
            None => {
                out.insert(k.to_owned(), v.to_owned());
            }
        }
    }
    Ok(out)
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
    ask_each(&option.needs, &mut request.values).await
}

/// Asks for each required value in `needs` that has no default and was not given.
async fn ask_each(needs: &[InstallInput], values: &mut IndexMap<String, String>) -> Result<()> {
    for need in needs {
        if !need.required || need.default.is_some() || values.contains_key(&need.key) {
            continue;
        }
        let prompt = format!("{} ({}): ", need.key, need.description);
        let secret = need.secret;
        let value = tokio::task::spawn_blocking(move || read_value(&prompt, secret))
            .await
            .map_err(|e| Error::new(ErrorCode::Internal, e.to_string()))??;
        values.insert(need.key.clone(), value);
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
