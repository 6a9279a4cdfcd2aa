//! `switchboard-cli`: the headless client on the Switchboard core, for scripts, conformance runs
//! and benchmarks. It uses the same connection code as the desktop app.

mod bench;
mod conformance;
mod gallery;
mod login;
mod reviewers;
mod tool_search_bench;
mod trace;
mod trust;

use std::io::{IsTerminal, Write};
use std::path::PathBuf;
use std::process::ExitCode;
use std::sync::Arc;
use std::time::Duration;

use clap::{Args, Parser, Subcommand, ValueEnum};
use serde_json::{Value, json};
use switchboard_core::app::AuditQuery;
use switchboard_core::app::BaseEnv;
use switchboard_core::app::Keychain;
use switchboard_core::app::Paths;
use switchboard_core::app::Reviewer;
use switchboard_core::app::requests::ImportApply;
use switchboard_core::app::{App, AppBuilder, Traffic};
use switchboard_core::app::{CompletionRef, Connection, Live};
use switchboard_core::app::{Config, NetworkSetting, SandboxProfile, SandboxSetting, ServerConfig};
use switchboard_core::app::{Models, OfferedTool, Provider, ProviderKind, ToolIndex, tokens};
use switchboard_core::{Error, ErrorCode, Result};

const EXIT_CODES: &str = "\
Exit codes:
  0  success
  1  the tool call returned isError: true
  2  usage error or invalid input
  3  configuration error (file, field or keychain)
  4  the server could not be started or connected (its sandbox included)
  5  the server answered with a protocol error, does not support the request, or has no
     such tool
  6  timeout (the request was cancelled)
  7  the connection closed (crash, oversize message)
  8  denied (by you, by policy, or a changed tool definition), or the server's definition is not
     trusted yet (run `switchboard-cli trust SERVER`)
  9  an LLM provider failed or a sampling limit was hit
 10  internal error
 11  the server requires sign-in (run `switchboard-cli login SERVER`) or signing in failed

Errors are printed to stderr as one line: `error: <code>: <message>`.";

#[derive(Parser)]
#[command(name = "switchboard-cli", version, about = "Headless MCP client on the Switchboard core", after_help = EXIT_CODES)]
struct Cli {
    /// The configuration file (default: the platform config dir; env SWITCHBOARD_CONFIG).
    #[arg(long, global = true, value_name = "FILE")]
    config: Option<PathBuf>,
    /// The data directory (default: the platform data dir; env SWITCHBOARD_DATA_DIR).
    #[arg(long, global = true, value_name = "DIR")]
    data_dir: Option<PathBuf>,
    /// How server→client requests (sampling, elicitation) are decided (default: ask on a
    /// terminal, deny otherwise). The app's "deny" rules apply first (a denied tool is not
    /// called, even by `call`); with deny, the app's "allow" rules let nothing through.
    #[arg(long, global = true, value_enum)]
    approve: Option<Approve>,
    /// Where sampling goes (default: the providers on the app's Models screen, else you write
    /// the answer with --approve ask). The key comes from the keychain entry `provider:<name>` or
    /// OPENAI_API_KEY / ANTHROPIC_API_KEY / GEMINI_API_KEY.
    #[arg(long, global = true, value_enum)]
    provider: Option<ProviderArg>,
    /// The provider's base URL (an OpenAI-compatible server such as Ollama, a proxy, …).
    #[arg(long, global = true, value_name = "URL")]
    base_url: Option<String>,
    /// The model sampling requests are sent to (required with a network provider).
    #[arg(long, global = true, value_name = "NAME")]
    model: Option<String>,
    /// Log to stderr: -v what happens, -vv in detail (default: only the `error:` line;
    /// SWITCHBOARD_LOG or RUST_LOG choose their own filter).
    #[arg(short, long, global = true, action = clap::ArgAction::Count)]
    verbose: u8,
    /// Write every message to and from the servers to FILE as JSON Lines (time, direction,
    /// kind, method, id, size, pairing and latency, HTTP status and headers, the body), with the
    /// servers' secrets replaced: a trace to attach to a bug report.
    #[arg(long, global = true, value_name = "FILE")]
    trace: Option<PathBuf>,
    #[command(subcommand)]
    command: Command,
}

#[derive(Clone, Copy, PartialEq, Eq, ValueEnum)]
enum Approve {
    /// Ask on the terminal.
    Ask,
    /// Accept: elicitation gets the schema's defaults.
    Allow,
    /// Deny: sampling gets -1, elicitation is declined.
    Deny,
}

#[derive(Clone, Copy, PartialEq, Eq, ValueEnum)]
enum ProviderArg {
    /// OpenAI Chat Completions, or any compatible server with --base-url.
    Openai,
    /// Anthropic Messages.
    Anthropic,
    /// Google Gemini.
    Gemini,
    /// You write the answer (with --approve ask).
    Manual,
}

impl ProviderArg {
    fn kind(self) -> ProviderKind {
        match self {
            ProviderArg::Openai => ProviderKind::Openai,
            ProviderArg::Anthropic => ProviderKind::Anthropic,
            ProviderArg::Gemini => ProviderKind::Gemini,
            ProviderArg::Manual => ProviderKind::Manual,
        }
    }

    fn name(self) -> &'static str {
        match self {
            ProviderArg::Openai => "openai",
            ProviderArg::Anthropic => "anthropic",
            ProviderArg::Gemini => "gemini",
            ProviderArg::Manual => "manual",
        }
    }
}

/// Which server to talk to: a configured name (first positional) or an ad-hoc one.
#[derive(Args, Clone, Default)]
struct Target {
    /// An ad-hoc stdio server: the command line, split like a shell and run without one.
    #[arg(long, value_name = "CMD ARG…", conflicts_with = "url")]
    stdio: Option<String>,
    /// An ad-hoc remote server (Streamable HTTP).
    #[arg(long, value_name = "URL")]
    url: Option<String>,
    /// Environment for an ad-hoc server (repeatable).
    #[arg(long = "env", value_name = "K=V")]
    env: Vec<String>,
    /// A root exposed to the server (repeatable).
    #[arg(long = "root", value_name = "PATH")]
    roots: Vec<PathBuf>,
    /// Request timeout in seconds for this run.
    #[arg(long, value_name = "SECS")]
    timeout: Option<u64>,
    /// Whether an ad-hoc stdio server runs in the OS sandbox (docs/sandbox.md).
    #[arg(long, value_enum, value_name = "on|off", default_value = "on")]
    sandbox: Switch,
    /// Whether an ad-hoc sandboxed server may use the network (off: not even loopback).
    #[arg(long, value_enum, value_name = "on|off", default_value = "on")]
    network: Switch,
}

/// `on` or `off`.
#[derive(clap::ValueEnum, Clone, Copy, Default, PartialEq, Eq)]
enum Switch {
    #[default]
    On,
    Off,
}

#[derive(Subcommand)]
enum RegistryAction {
    /// One JSON line per server (its latest version): name, version, title, description,
    /// status, package kinds, remote URLs, registry.
    Search {
        /// Part of the server's name.
        term: Option<String>,
        /// The registry's base URL (default: SWITCHBOARD_REGISTRY, the config's first
        /// `registries` entry, or the official registry).
        #[arg(long, value_name = "URL")]
        registry: Option<String>,
        /// How many servers (at most 100).
        #[arg(long, value_name = "N")]
        limit: Option<u32>,
    },
}

#[derive(Subcommand)]
enum Command {
    /// Connect to every enabled server; one JSON line each.
    Servers,
    /// List tools (all pages); `--all` lists every enabled configured server's (starting each),
    /// `--tokens` prints what each tool's definition costs a model in tokens, then each server's
    /// total, instead of the definitions.
    Tools {
        #[command(flatten)]
        target: Target,
        /// Every enabled configured server.
        #[arg(long)]
        all: bool,
        /// Tokens per tool and per server, counted for `--model` (default gpt-4o).
        #[arg(long)]
        tokens: bool,
        #[arg(value_name = "SERVER")]
        rest: Vec<String>,
    },
    /// Find tools by what they do, over every enabled configured server's tools that are on for
    /// the model: one JSON line per hit (server, tool, score), best first. Starts each server.
    FindTools {
        /// What the tool should do, in words.
        query: String,
        /// How many tools to print.
        #[arg(long, default_value_t = 10)]
        limit: usize,
        /// Seconds to wait for each server.
        #[arg(long)]
        timeout: Option<u64>,
    },
    /// Call a tool: `call <server> TOOL [--args JSON]`.
    Call {
        #[command(flatten)]
        target: Target,
        /// Tool arguments as a JSON object.
        #[arg(long, value_name = "JSON")]
        args: Option<String>,
        #[arg(value_name = "SERVER TOOL", required = true)]
        rest: Vec<String>,
    },
    /// List resources (all pages).
    Resources {
        #[command(flatten)]
        target: Target,
        #[arg(value_name = "SERVER")]
        rest: Vec<String>,
    },
    /// List resource templates (all pages).
    Templates {
        #[command(flatten)]
        target: Target,
        #[arg(value_name = "SERVER")]
        rest: Vec<String>,
    },
    /// List prompts (all pages).
    Prompts {
        #[command(flatten)]
        target: Target,
        #[arg(value_name = "SERVER")]
        rest: Vec<String>,
    },
    /// List a server's skills (the MCP Skills extension): names, descriptions and files, with
    /// nothing of a skill read.
    Skills {
        #[command(flatten)]
        target: Target,
        #[arg(value_name = "SERVER")]
        rest: Vec<String>,
    },
    /// Load a skill: `skill <server> NAME|URI [FILE]` prints its SKILL.md (or one of its files),
    /// checked against the server's listing (size, sha256 digest, frontmatter).
    Skill {
        #[command(flatten)]
        target: Target,
        #[arg(value_name = "SERVER NAME|URI [FILE]", required = true)]
        rest: Vec<String>,
    },
    /// List a directory resource: `list-dir <server> URI` prints its direct children, one JSON
    /// line each (a skill's folder: `skill://NAME`), from servers that list directories (the
    /// Skills extension's `directoryRead`). Nothing is read.
    ListDir {
        #[command(flatten)]
        target: Target,
        #[arg(value_name = "SERVER URI", required = true)]
        rest: Vec<String>,
    },
    /// Read a resource: `read <server> URI`.
    Read {
        #[command(flatten)]
        target: Target,
        #[arg(value_name = "SERVER URI", required = true)]
        rest: Vec<String>,
    },
    /// Get a prompt: `prompt <server> NAME [--args JSON]`.
    Prompt {
        #[command(flatten)]
        target: Target,
        #[arg(long, value_name = "JSON")]
        args: Option<String>,
        #[arg(value_name = "SERVER NAME", required = true)]
        rest: Vec<String>,
    },
    /// Complete an argument: `complete <server> (--prompt NAME | --template URI) ARG VALUE`.
    Complete {
        #[command(flatten)]
        target: Target,
        #[arg(long, value_name = "NAME", conflicts_with = "template")]
        prompt: Option<String>,
        #[arg(long, value_name = "URI")]
        template: Option<String>,
        #[arg(value_name = "SERVER ARG VALUE", required = true)]
        rest: Vec<String>,
    },
    /// Check that a server answers: `ping` up to 2025-11-25; a server on 2026-07-28 (which removed
    /// `ping`) is sent `server/discover` instead, and the time is that request's round trip.
    Ping {
        #[command(flatten)]
        target: Target,
        #[arg(value_name = "SERVER")]
        rest: Vec<String>,
    },
    /// Print the audit log as JSON Lines, oldest first (the app's log: the same database).
    Audit {
        /// Only this server.
        #[arg(long)]
        server: Option<String>,
        /// Only rows containing all these words.
        #[arg(long)]
        text: Option<String>,
        /// The newest N rows.
        #[arg(long, default_value_t = 1000)]
        limit: u32,
    },
    /// Import a Claude Desktop or VS Code config into ours.
    Import {
        file: PathBuf,
        /// Show what would be imported without changing anything.
        #[arg(long)]
        dry_run: bool,
    },
    /// Sign in to a remote server that requires it (OAuth): opens the browser, waits for the
    /// redirect back, and keeps the tokens in the OS keychain.
    Login {
        /// A configured server's name.
        server: String,
        /// Print the sign-in URL instead of opening a browser (a headless machine: open it
        /// anywhere that can reach this machine's 127.0.0.1, e.g. through an SSH tunnel).
        #[arg(long)]
        no_browser: bool,
        /// Ask for these scopes (space-separated) instead of connecting first to learn what the
        /// server asks for: how to get more access after a 403 `insufficient_scope` named them.
        #[arg(long, value_name = "SCOPES")]
        scope: Option<String>,
    },
    /// Trust a configured server's launch definition: shows exactly what it runs (command,
    /// arguments, environment, URL, headers; hidden characters revealed) and asks. Nothing in the
    /// config file runs until its definition is trusted, and a changed definition asks again.
    Trust {
        /// A configured server's name.
        server: String,
        /// Trust without asking (for scripts; the definition is still printed).
        #[arg(long)]
        yes: bool,
    },
    /// Sign out of a remote server: deletes its tokens from the keychain.
    Logout {
        /// A configured server's name.
        server: String,
    },
    /// Find servers in an MCP Registry.
    Registry {
        #[command(subcommand)]
        action: RegistryAction,
    },
    /// Install a server from a registry (`namespace/name[@version]`): prints exactly what it
    /// would run and asks, like `trust`; secret values go to the keychain.
    Install {
        /// `namespace/name` or `namespace/name@version` (default: its latest version).
        reference: String,
        /// The registry's base URL (default: SWITCHBOARD_REGISTRY, the config's first
        /// `registries` entry, or the official registry).
        #[arg(long, value_name = "URL")]
        registry: Option<String>,
        /// Which of what it ships to install (default: its first package, else its remote).
        #[arg(long, value_name = "npm|pypi|oci|remote")]
        package: Option<String>,
        /// The local name (default: the last part of its registry name).
        #[arg(long, value_name = "LOCAL")]
        name: Option<String>,
        /// A value it asks for: an environment variable, header, argument or URL variable
        /// (repeatable). A required one not given is asked on a terminal.
        #[arg(long = "set", value_name = "KEY=VALUE")]
        set: Vec<String>,
        /// Trust the printed definition without asking.
        #[arg(long)]
        yes: bool,
    },
    /// Remove an installed server, its rules, its trust and its keychain entries.
    Uninstall {
        /// A configured server's name.
        server: String,
    },
    /// Act as the client under test of @modelcontextprotocol/conformance.
    Conformance { url: String },
    /// Benchmark the host's client path against a server it spawns.
    Bench(bench::BenchArgs),
    /// Benchmark tool search over every enabled configured server's tools that are on for the
    /// model: REQUESTS holds one labelled request a line (`{"request": "...", "expected":
    /// ["server/tool"]}`); prints each request's hits and rank, then recall@5 and one turn's
    /// definitions in tokens with every tool offered and with search.
    BenchToolSearch {
        requests: PathBuf,
        /// The model whose tokenizer counts.
        #[arg(long, default_value = "gpt-4o")]
        model: String,
        /// Seconds to wait for each server.
        #[arg(long)]
        timeout: Option<u64>,
    },
}

fn main() -> ExitCode {
    let cli = Cli::parse();
    // Through the core's filter: no level puts message contents (typed passwords) in the log.
    let filter = ["SWITCHBOARD_LOG", "RUST_LOG"]
        .iter()
        .find_map(|var| switchboard_core::app::log_filter(&std::env::var(var).ok()?))
        .or_else(|| {
            switchboard_core::app::log_filter(match cli.verbose {
                0 => "off",
                1 => "info,rmcp=warn",
                _ => "debug",
            })
        })
        .unwrap_or_default();
    tracing_subscriber::fmt()
        .with_env_filter(filter)
        .with_ansi(std::io::stderr().is_terminal())
        .with_writer(std::io::stderr)
        .init();
    // One thread: the CLI drives one server (or a few) and waits on it; blocking work (the
    // keychain, the terminal, the editor) already goes to tokio's blocking pool. No hops between
    // worker threads on every message.
    let runtime = match tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
    {
        Ok(r) => r,
        Err(e) => return fail(&Error::new(ErrorCode::Internal, e.to_string())),
    };
    match runtime.block_on(run(cli)) {
        Ok(code) => code,
        Err(e) => fail(&e),
    }
}

/// The error's sentences on one line, then what lies behind them on one more.
fn fail(e: &Error) -> ExitCode {
    eprintln!("error: {}: {}", e.code, e.message.replace('\n', " "));
    if let Some(details) = &e.details {
        eprintln!("  details: {}", details.replace('\n', " "));
    }
    ExitCode::from(exit_code(e.code))
}

fn exit_code(code: ErrorCode) -> u8 {
    match code {
        ErrorCode::InvalidInput => 2,
        ErrorCode::ConfigIo
        | ErrorCode::ConfigInvalid
        | ErrorCode::ServerNotFound
        | ErrorCode::Keychain => 3,
        ErrorCode::SpawnFailed
        | ErrorCode::ConnectFailed
        | ErrorCode::ServerNotRunning
        | ErrorCode::Sandbox => 4,
        ErrorCode::ServerError | ErrorCode::NotSupported | ErrorCode::ToolNotFound => 5,
        ErrorCode::Timeout | ErrorCode::Cancelled => 6,
        ErrorCode::TransportClosed | ErrorCode::MessageTooLarge => 7,
        ErrorCode::Denied
        | ErrorCode::PinChanged
        | ErrorCode::ApprovalMismatch
        | ErrorCode::NotTrusted => 8,
        ErrorCode::LimitExceeded | ErrorCode::Provider => 9,
        ErrorCode::Io | ErrorCode::Storage | ErrorCode::Internal => 10,
        ErrorCode::AuthRequired
        | ErrorCode::SignInExpired
        | ErrorCode::AuthFailed
        | ErrorCode::SignInRefused
        | ErrorCode::InsufficientScope => 11,
    }
}

/// One CLI session: the core's app without supervision (each command connects on its own), with the
/// reviewer and models the flags chose.
struct Session {
    app: App,
}

impl Session {
    async fn new(cli: &Cli, traffic: Traffic) -> Result<Self> {
        let paths = Paths::resolve(cli.config.as_deref(), cli.data_dir.as_deref())?;
        let on_terminal = std::io::stdin().is_terminal() && std::io::stderr().is_terminal();
        let approve = cli.approve.unwrap_or(if on_terminal {
            Approve::Ask
        } else {
            Approve::Deny
        });
        let reviewer: Arc<dyn Reviewer> = match approve {
            Approve::Ask => Arc::new(reviewers::terminal::Terminal::default()),
            Approve::Allow => Arc::new(reviewers::Allow),
            Approve::Deny => Arc::new(reviewers::Deny {
                why: match cli.approve {
                    Some(_) => "switchboard-cli was run with --approve deny".into(),
                    None => "switchboard-cli is not on a terminal, so nobody could approve it \
                             (run it with --approve ask or --approve allow)"
                        .into(),
                },
            }),
        };
        // Run from a shell, the CLI already has the login shell's PATH: asking that shell again
        // (as the desktop app must) would only hold up the first spawn.
        let mut builder = AppBuilder::new(paths)
            .supervise(false)
            .reviewer(reviewer)
            .base_env(BaseEnv::from_current())
            .traffic(traffic);
        // Without --provider, sampling goes to the providers on the app's Models screen.
        if let Some(models) = models(cli)? {
            builder = builder.models(models);
        }
        // `--approve deny` means deny: rules the app saved do not let anything through here.
        if approve == Approve::Deny {
            builder = builder.refuse_allow_rules();
        }
        let app = builder.build().await?;
        // A broken configuration file is the CLI's error, not an empty list.
        if let Some(e) = app.config_error() {
            return Err(e);
        }
        Ok(Self { app })
    }

    /// Connects to the target: `rest[0]` is the server name unless `--stdio`/`--url` is given.
    /// Returns the live connection and the remaining positionals.
    async fn open(&self, target: &Target, rest: &[String]) -> Result<(Live, Vec<String>)> {
        let timeout = target.timeout.map(Duration::from_secs);
        if let Some(cmd) = &target.stdio {
            let mut server = adhoc_stdio(cmd, &target.env)?;
            server.sandbox = Some(adhoc_sandbox(target.sandbox, target.network)?);
            let live = self
                .connect("stdio", server, &target.roots, timeout)
                .await?;
            return Ok((live, rest.to_vec()));
        }
        if let Some(url) = &target.url {
            let server = ServerConfig::remote(url.clone(), Default::default());
            let live = self
                .connect("remote", server, &target.roots, timeout)
                .await?;
            return Ok((live, rest.to_vec()));
        }
        let (name, rest) = rest.split_first().ok_or_else(|| {
            Error::new(
                ErrorCode::InvalidInput,
                "name a server from the config, or use --stdio or --url",
            )
        })?;
        let live = self
            .app
            .connect_configured(name, &target.roots, timeout)
            .await
            .map_err(|e| login_hint(e, name))?;
        Ok((live, rest.to_vec()))
    }

    async fn connect(
        &self,
        name: &str,
        server: ServerConfig,
        roots: &[PathBuf],
        timeout: Option<Duration>,
    ) -> Result<Live> {
        self.app.connect_to(name, server, roots, timeout).await
    }

    fn config(&self) -> Result<Config> {
        self.app.config()
    }
}

/// `server`'s `tools` as the chat's model would be offered them.
fn offered(server: &str, tools: Vec<rmcp::model::Tool>) -> Vec<OfferedTool> {
    tools
        .into_iter()
        .filter_map(|t| {
            Some(OfferedTool {
                server: server.to_owned(),
                definition: serde_json::to_value(t).ok()?,
                instructions: None,
            })
        })
        .collect()
}

/// `tools` as JSON lines: each definition (with its server), or with `tokens_for` a model,
/// what each costs that model in tokens and then each server's total.
fn print_tools(tools: &[OfferedTool], tokens_for: Option<&str>) -> Result<ExitCode> {
    let Some(model) = tokens_for else {
        for t in tools {
            print_line(&json!({ "server": t.server, "tool": t.definition }))?;
        }
        return Ok(ExitCode::SUCCESS);
    };
    let tokenizer = tokens::tokenizer_for(model);
    let counted = tokens::tool_tokens(tokenizer, tools);
    let mut servers: Vec<(String, u64, usize)> = Vec::new();
    for t in &counted {
        print_line(&json!({ "server": t.server, "tool": t.tool, "tokens": t.tokens }))?;
        match servers.iter_mut().find(|(s, _, _)| *s == t.server) {
            Some((_, sum, n)) => (*sum, *n) = (*sum + t.tokens, *n + 1),
            None => servers.push((t.server.clone(), t.tokens, 1)),
        }
    }
    for (server, sum, n) in servers {
        print_line(
            &json!({ "server": server, "tools": n, "tokens": sum, "tokenizer": tokenizer }),
        )?;
    }
    Ok(ExitCode::SUCCESS)
}

/// The tools of every enabled configured server, each started for the asking; a server that
/// cannot be reached is left out, and said so in the log (`-v`).
async fn every_servers_tools(
    session: &Session,
    timeout: Option<Duration>,
) -> Result<Vec<OfferedTool>> {
    let config = session.config()?;
    let mut tools = Vec::new();
    for name in config
        .mcp_servers
        .iter()
        .filter(|(_, s)| s.enabled)
        .map(|(n, _)| n)
    {
        let live = match session.app.connect_configured(name, &[], timeout).await {
            Ok(live) => live,
            Err(e) => {
                tracing::warn!(server = %name, "left out: {}", e.message);
                continue;
            }
        };
        match live.connection.list_tools().await {
            Ok(list) => tools.extend(offered(name, list)),
            Err(e) => tracing::warn!(server = %name, "left out: {}", e.message),
        }
        live.shutdown().await;
    }
    Ok(tools)
}

/// The tools of every enabled configured server that are on for the chat's model (what tool
/// search ranks); `timeout` in seconds for each server.
async fn tools_for_model(session: &Session, timeout: Option<u64>) -> Result<Vec<OfferedTool>> {
    let tools = every_servers_tools(session, timeout.map(Duration::from_secs)).await?;
    session.app.tools_for_model(tools).await
}

/// A server that requires sign-in, or more access than was granted, says how to sign in.
fn login_hint(mut e: Error, server: &str) -> Error {
    let login = format!("switchboard-cli login {}", shell_words::quote(server));
    if e.needs_sign_in() {
        e.message.push_str(&format!("; sign in with: {login}"));
    } else if e.code == ErrorCode::InsufficientScope
        && let Some(scopes) = e
            .challenge
            .as_deref()
            .and_then(switchboard_core::app::challenge_scopes)
    {
        e.message.push_str(&format!(
            "; sign in for more access with: {login} --scope {}",
            shell_words::quote(&scopes)
        ));
    }
    e
}

/// Where sampling goes for this run when `--provider` says (else the app's providers).
fn models(cli: &Cli) -> Result<Option<Models>> {
    let Some(p) = cli.provider else {
        return Ok(None);
    };
    let model = match (p, &cli.model) {
        (_, Some(m)) => m.clone(),
        (ProviderArg::Manual, None) => "manual".to_owned(),
        (_, None) => {
            return Err(Error::new(
                ErrorCode::InvalidInput,
                format!("--provider {} needs --model NAME", p.name()),
            ));
        }
    };
    let key = Provider::find_key(p.name(), p.kind(), &Keychain::default());
    let provider = Provider::new(p.name(), p.kind(), cli.base_url.as_deref(), key)?;
    Ok(Some(Models::single(provider, &model)))
}

/// The sandbox of an ad-hoc stdio server from `--sandbox` and `--network`.
fn adhoc_sandbox(sandbox: Switch, network: Switch) -> Result<SandboxSetting> {
    match (sandbox, network) {
        (Switch::On, Switch::On) => Ok(SandboxSetting::Enabled(true)),
        (Switch::On, Switch::Off) => Ok(SandboxSetting::Profile(SandboxProfile {
            network: NetworkSetting::Enabled(false),
            ..SandboxProfile::default()
        })),
        (Switch::Off, Switch::On) => Ok(SandboxSetting::Enabled(false)),
        (Switch::Off, Switch::Off) => Err(Error::new(
            ErrorCode::InvalidInput,
            "--network off needs the sandbox: without it nothing keeps the server off the network",
        )),
    }
}

/// An ad-hoc stdio server: the command line split like a shell, with `--env K=V` added.
fn adhoc_stdio(cmd: &str, env: &[String]) -> Result<ServerConfig> {
    let words = shell_words::split(cmd)
        .map_err(|e| Error::new(ErrorCode::InvalidInput, format!("--stdio: {e}")))?;
    let (program, args) = words
        .split_first()
        .ok_or_else(|| Error::new(ErrorCode::InvalidInput, "--stdio needs a command"))?;
    let mut server = ServerConfig::stdio(program.clone(), args.to_vec());
    for kv in env {
        let (k, v) = kv.split_once('=').ok_or_else(|| {
            Error::new(
                ErrorCode::InvalidInput,
                format!("--env {kv:?}: expected K=V"),
            )
        })?;
        server.env.insert(k.to_owned(), v.to_owned());
    }
    Ok(server)
}

/// Prints each status change of a task to stderr (`task <id>: <status> (<message>)`) until
/// `finished`, then what was published before it.
async fn print_task_statuses(
    mut control: switchboard_core::app::Listener,
    mut finished: tokio::sync::oneshot::Receiver<()>,
) {
    loop {
        tokio::select! {
            biased;
            event = control.recv() => match event {
                Some(event) => print_task_status(event),
                None => return,
            },
            _ = &mut finished => break,
        }
    }
    while let Some(event) = control.try_recv() {
        print_task_status(event);
    }
}

fn print_task_status(event: switchboard_core::app::CoreEvent) {
    use switchboard_core::app::{CoreEvent, ServerEvent};
    if let CoreEvent::Server(ServerEvent::Task { task, .. }) = event {
        let message = task
            .status_message
            .map(|m| format!(" ({m})"))
            .unwrap_or_default();
        eprintln!("task {}: {}{message}", task.task_id, task.status.as_str());
    }
}

/// Whether the server lists `tool` (when it cannot say, the result stands as it is).
async fn offers_tool(c: &Connection, tool: &str) -> bool {
    match c.list_tools().await {
        Ok(tools) => tools.iter().any(|t| t.name == tool),
        Err(_) => true,
    }
}

fn print_line(value: &impl serde::Serialize) -> Result<()> {
    let text =
        serde_json::to_string(value).map_err(|e| Error::new(ErrorCode::Internal, e.to_string()))?;
    let mut out = std::io::stdout().lock();
    // A closed stdout (e.g. `| head`) is not an error worth reporting.
    let _ = writeln!(out, "{text}");
    Ok(())
}

fn parse_json_arg(flag: &str, text: Option<&str>) -> Result<Option<Value>> {
    text.map(|t| {
        serde_json::from_str(t).map_err(|e| {
            Error::new(
                ErrorCode::InvalidInput,
                format!("{flag}: not valid JSON: {e}"),
            )
        })
    })
    .transpose()
}

fn positional<'a>(rest: &'a [String], index: usize, what: &str) -> Result<&'a str> {
    rest.get(index)
        .map(String::as_str)
        .ok_or_else(|| Error::new(ErrorCode::InvalidInput, format!("missing {what}")))
}

async fn with_connection<T>(
    session: &Session,
    target: &Target,
    rest: &[String],
    body: impl AsyncFnOnce(&Connection, &[String]) -> Result<T>,
) -> Result<T> {
    let (live, rest) = session.open(target, rest).await?;
    let server = live.connection.server().to_owned();
    let result = body(&live.connection, &rest).await;
    live.shutdown().await;
    // Only a configured server can be signed in to by name.
    let configured = target.stdio.is_none() && target.url.is_none();
    result.map_err(|e| {
        if configured {
            login_hint(e, &server)
        } else {
            e
        }
    })
}

async fn run(cli: Cli) -> Result<ExitCode> {
    let trace = match &cli.trace {
        Some(path) => Some(trace::TraceRun::open(path)?),
        None => None,
    };
    let traffic = match (&trace, &cli.command) {
        (Some(trace), _) => trace.traffic(),
        (None, Command::Bench(args)) => args.traffic(),
        _ => Traffic::off(),
    };
    let session = Session::new(&cli, traffic).await?;
    let done = run_command(&cli, &session).await;
    // The connections are closed by now: everything they sent is in the queue.
    match trace {
        Some(trace) => trace.finish().and(done),
        None => done,
    }
}

async fn run_command(cli: &Cli, session: &Session) -> Result<ExitCode> {
    match &cli.command {
        Command::Servers => servers(session).await,
        Command::Tools {
            target,
            all,
            tokens,
            rest,
        } => {
            let model = cli.model.as_deref().unwrap_or("gpt-4o");
            if *all {
                let timeout = target.timeout.map(Duration::from_secs);
                let tools = every_servers_tools(session, timeout).await?;
                return print_tools(&tools, tokens.then_some(model));
            }
            with_connection(session, target, rest, async |c, _| {
                let tools = c.list_tools().await?;
                if !*tokens {
                    for t in tools {
                        print_line(&t)?;
                    }
                    return Ok(ExitCode::SUCCESS);
                }
                let server = c.summary().server_info["name"].as_str().unwrap_or("server");
                print_tools(&offered(server, tools), Some(model))
            })
            .await
        }
        Command::FindTools {
            query,
            limit,
            timeout,
        } => {
            let tools = tools_for_model(session, *timeout).await?;
            for hit in ToolIndex::new(&tools).search(query, *limit) {
                print_line(&hit)?;
            }
            Ok(ExitCode::SUCCESS)
        }
        Command::Call { target, args, rest } => {
            let args = parse_json_arg("--args", args.as_deref())?;
            with_connection(session, target, rest, async |c, rest| {
                let tool = positional(rest, 0, "TOOL")?;
                // A tool that runs as a task reports its status changes on stderr as it goes.
                let (done, finished) = tokio::sync::oneshot::channel();
                let control = session.app.events().control();
                let statuses = tokio::spawn(print_task_statuses(control, finished));
                let result = session.app.call_as_asked(c, tool, args).await;
                let _ = done.send(());
                let _ = statuses.await;
                let result = result?;
                // Some SDKs answer an unknown tool with an error result rather than a protocol
                // error: that is not the tool failing, so it is an `error:` line of its own.
                if result.is_error == Some(true) && !offers_tool(c, tool).await {
                    return Err(Error::new(
                        ErrorCode::ToolNotFound,
                        format!("server {:?} has no tool {tool:?} (see `tools`)", c.server()),
                    ));
                }
                print_line(&result)?;
                if let Some(hint) = c.sandbox_hint(&result) {
                    eprintln!("hint: {hint}");
                }
                Ok(if result.is_error == Some(true) {
                    ExitCode::from(1)
                } else {
                    ExitCode::SUCCESS
                })
            })
            .await
        }
        Command::Resources { target, rest } => {
            with_connection(session, target, rest, async |c, _| {
                for r in c.list_resources().await?.0 {
                    print_line(&r)?;
                }
                Ok(ExitCode::SUCCESS)
            })
            .await
        }
        Command::Templates { target, rest } => {
            with_connection(session, target, rest, async |c, _| {
                for t in c.list_resource_templates().await? {
                    print_line(&t)?;
                }
                Ok(ExitCode::SUCCESS)
            })
            .await
        }
        Command::Prompts { target, rest } => {
            with_connection(session, target, rest, async |c, _| {
                for p in c.list_prompts().await? {
                    print_line(&p)?;
                }
                Ok(ExitCode::SUCCESS)
            })
            .await
        }
        Command::Skills { target, rest } => {
            with_connection(session, target, rest, async |c, _| {
                for skill in c.list_skills().await? {
                    print_line(&skill)?;
                }
                Ok(ExitCode::SUCCESS)
            })
            .await
        }
        Command::Skill { target, rest } => {
            with_connection(session, target, rest, async |c, rest| {
                let skill = c.held_skill(positional(rest, 0, "NAME|URI")?).await?;
                let (uri, text) = match rest.get(1) {
                    None => (skill.uri.clone(), c.load_skill(&skill).await?.text),
                    Some(file) => {
                        let bytes = c.read_skill_file(&skill, file).await?;
                        (file.clone(), String::from_utf8_lossy(&bytes).into_owned())
                    }
                };
                print_line(&json!({ "skill": skill.name, "uri": uri, "text": text }))?;
                Ok(ExitCode::SUCCESS)
            })
            .await
        }
        Command::ListDir { target, rest } => {
            with_connection(session, target, rest, async |c, rest| {
                for entry in c.read_directory(positional(rest, 0, "URI")?).await? {
                    print_line(&entry)?;
                }
                Ok(ExitCode::SUCCESS)
            })
            .await
        }
        Command::Read { target, rest } => {
            with_connection(session, target, rest, async |c, rest| {
                print_line(&c.read_resource(positional(rest, 0, "URI")?).await?)?;
                Ok(ExitCode::SUCCESS)
            })
            .await
        }
        Command::Prompt { target, args, rest } => {
            let args = parse_json_arg("--args", args.as_deref())?;
            with_connection(session, target, rest, async |c, rest| {
                print_line(&c.get_prompt(positional(rest, 0, "NAME")?, args).await?)?;
                Ok(ExitCode::SUCCESS)
            })
            .await
        }
        Command::Complete {
            target,
            prompt,
            template,
            rest,
        } => {
            let reference = match (prompt, template) {
                (Some(p), None) => CompletionRef::Prompt(p.clone()),
                (None, Some(t)) => CompletionRef::Template(t.clone()),
                _ => {
                    return Err(Error::new(
                        ErrorCode::InvalidInput,
                        "give exactly one of --prompt NAME or --template URI",
                    ));
                }
            };
            with_connection(session, target, rest, async |c, rest| {
                let arg = positional(rest, 0, "ARG")?;
                let value = positional(rest, 1, "VALUE")?;
                print_line(&c.complete(reference, arg, value, None).await?)?;
                Ok(ExitCode::SUCCESS)
            })
            .await
        }
        Command::Ping { target, rest } => {
            with_connection(session, target, rest, async |c, _| {
                let start = std::time::Instant::now();
                c.ping().await?;
                print_line(&json!({"ok": true, "ms": start.elapsed().as_secs_f64() * 1000.0}))?;
                Ok(ExitCode::SUCCESS)
            })
            .await
        }
        Command::Audit {
            server,
            text,
            limit,
        } => {
            let mut rows = session
                .app
                .search_audit(AuditQuery {
                    server: server.clone(),
                    text: text.clone(),
                    limit: Some(*limit),
                    ..AuditQuery::default()
                })
                .await?;
            rows.reverse();
            for row in rows {
                print_line(&row)?;
            }
            Ok(ExitCode::SUCCESS)
        }
        Command::Import { file, dry_run } => import_file(session, file, *dry_run).await,
        Command::Login {
            server,
            no_browser,
            scope,
        } => login::login(session, server, *no_browser, scope.as_deref()).await,
        Command::Logout { server } => login::logout(session, server).await,
        Command::Trust { server, yes } => trust::trust(session, server, *yes).await,
        Command::Registry {
            action:
                RegistryAction::Search {
                    term,
                    registry,
                    limit,
                },
        } => gallery::search(session, term.clone(), registry.clone(), *limit).await,
        Command::Install {
            reference,
            registry,
            package,
            name,
            set,
            yes,
        } => {
            let args = gallery::Install {
                reference: reference.clone(),
                registry: registry.clone(),
                package: package.clone(),
                name: name.clone(),
                set: set.clone(),
                yes: *yes,
            };
            gallery::install(session, args).await
        }
        Command::Uninstall { server } => gallery::uninstall(session, server).await,
        Command::Conformance { url } => conformance::run(session, url).await,
        Command::Bench(args) => bench::run(session, args).await,
        Command::BenchToolSearch {
            requests,
            model,
            timeout,
        } => {
            let tools = tools_for_model(session, *timeout).await?;
            tool_search_bench::run(&tools, requests, model)
        }
    }
}

async fn servers(session: &Session) -> Result<ExitCode> {
    let config = &session.config()?;
    let enabled: Vec<_> = config
        .mcp_servers
        .iter()
        .filter(|(_, s)| s.enabled)
        .collect();
    let results = futures::future::join_all(enabled.iter().map(|(name, server)| async move {
        let _ = server;
        let result = session.app.connect_configured(name, &[], None).await;
        let line = match &result {
            Ok(live) => {
                let s = live.connection.summary();
                json!({"name": name, "status": "running", "protocolVersion": s.protocol_version,
                       "serverInfo": s.server_info, "capabilities": s.capabilities, "error": null})
            }
            Err(e) if e.code == ErrorCode::NotTrusted => json!({"name": name,
                "status": "needs_trust", "protocolVersion": null, "serverInfo": null,
                "capabilities": null, "error": e}),
            Err(e) => json!({"name": name, "status": "failed", "protocolVersion": null,
                             "serverInfo": null, "capabilities": null, "error": e}),
        };
        if let Ok(live) = result {
            live.shutdown().await;
        }
        line
    }))
    .await;
    for line in results {
        print_line(&line)?;
    }
    Ok(ExitCode::SUCCESS)
}

/// Imports a Claude Desktop or VS Code file as the window does (secrets to the keychain, the
/// servers merged into the file as it is now); each input's value comes from
/// `SWITCHBOARD_INPUT_<ID>`, else is asked on a terminal.
async fn import_file(session: &Session, file: &std::path::Path, dry_run: bool) -> Result<ExitCode> {
    let plan = session.app.import_preview(file.to_owned()).await?;
    if dry_run {
        print_line(&plan)?;
        return Ok(ExitCode::SUCCESS);
    }
    let interactive = std::io::stdin().is_terminal();
    let inputs = plan
        .inputs
        .iter()
        .filter_map(|input| {
            let var = format!(
                "SWITCHBOARD_INPUT_{}",
                input.id.to_ascii_uppercase().replace(['-', '.'], "_")
            );
            let value = std::env::var(&var).ok().or_else(|| {
                interactive
                    .then(|| {
                        reviewers::terminal::prompt_line(&format!(
                            "{} ({}): ",
                            input.description, input.id
                        ))
                    })
                    .flatten()
            })?;
            Some((input.id.clone(), value))
        })
        .collect();
    let apply = ImportApply {
        inputs,
        source_digest: plan.source_digest,
    };
    let report = session.app.import_apply(file.to_owned(), apply).await?;
    print_line(&report)?;
    Ok(ExitCode::SUCCESS)
}
