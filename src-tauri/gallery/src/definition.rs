//! What installing a listing runs. A package becomes a command pinned to its exact version
//! (`npx -y pkg@1.2.3`, `uvx pkg==1.2.3`, `docker run --rm -i image:tag`), a remote its URL; every
//! argument is one argv entry and no shell ever sees them. The values the person gives fill the
//! environment, arguments, headers and URL variables the `server.json` declares; secret ones
//! leave the definition as `${secret:…}` references and go to the keychain.

mod inputs;

use indexmap::IndexMap;
use serde::Serialize;
use switchboard_base::config::{InstalledFrom, RemoteTransport, ServerConfig};
use switchboard_base::{Error, ErrorCode, Result};
use ts_rs::TS;

use crate::registry::Listing;
use crate::registry::server_json::{Endpoint, Package, Transport};
use crate::text;
use inputs::Resolver;
pub use inputs::{Needed, NeededKind};

/// Where an installed server came from, as its definition records it.
pub type Provenance = InstalledFrom;

/// Which of a listing's ways to run it.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, serde::Deserialize, TS)]
#[serde(tag = "kind", content = "index", rename_all = "camelCase")]
#[ts(export, rename = "InstallChoice")]
pub enum Choice {
    Package(usize),
    Remote(usize),
}

/// A server definition ready for the trust dialog, and the secrets it refers to.
#[derive(Debug, Clone, PartialEq)]
pub struct Installable {
    /// The local name it is installed under.
    pub name: String,
    pub config: ServerConfig,
    /// Keychain entries to write (name, value) before it first runs.
    pub secrets: Vec<(String, String)>,
    /// The program that must be on PATH (`npx`, `uvx`, `docker`), for a package.
    pub runtime: Option<String>,
}

/// Every way `listing` can be run, with a label for each.
pub fn choices(listing: &Listing) -> Vec<(Choice, String)> {
    let s = &listing.server;
    let packages = s.packages.iter().enumerate().map(|(i, p)| {
        let label = format!(
            "{} {}",
            text::shown(&p.registry_type, 16),
            text::shown(&p.identifier, text::SHORT)
        );
        (Choice::Package(i), label)
    });
    let remotes = s.remotes.iter().enumerate().map(|(i, r)| {
        let url = match r {
            Transport::StreamableHttp(e) | Transport::Sse(e) => text::shown(&e.url, text::SHORT),
            Transport::Stdio => String::new(),
        };
        (Choice::Remote(i), format!("remote {url}"))
    });
    packages.chain(remotes).collect()
}

/// The choice of kind `kind` (`npm`, `pypi`, `oci`, `mcpb`, `remote`), or the first way it can
/// be run when `kind` is `None`.
pub fn pick(listing: &Listing, kind: Option<&str>) -> Result<Choice> {
    let s = &listing.server;
    let found = match kind {
        None => (!s.packages.is_empty())
            .then_some(Choice::Package(0))
            .or((!s.remotes.is_empty()).then_some(Choice::Remote(0))),
        Some("remote") => (!s.remotes.is_empty()).then_some(Choice::Remote(0)),
        Some(kind) => s
            .packages
            .iter()
            .position(|p| p.registry_type == kind)
            .map(Choice::Package),
    };
    found.ok_or_else(|| {
        let offered = listing.kinds().join(", ");
        invalid(match kind {
            Some(kind) => format!("It has no {kind} package; it offers: {offered}."),
            None => "It lists no package and no remote, so there is nothing to install.".into(),
        })
    })
}

/// What the person may or must give for `choice`, in the order the form shows it.
pub fn needs(listing: &Listing, choice: Choice) -> Result<Vec<Needed>> {
    match choice {
        Choice::Package(i) => Ok(inputs::of_package(package(listing, i)?)),
        Choice::Remote(i) => Ok(inputs::of_endpoint(endpoint(listing, i)?)),
    }
}

/// The definition for `choice` of `listing`, installed as `name`, with `values` (keyed as
/// [`needs`] names them). A required value missing is an error naming each.
pub fn installable(
    listing: &Listing,
    choice: Choice,
    name: &str,
    values: &IndexMap<String, String>,
) -> Result<Installable> {
    if !listing.offered() {
        return Err(invalid(format!(
            "{} is {} in its registry, so it is not offered.",
            text::shown(&listing.server.name, text::SHORT),
            match listing.status {
                crate::Status::Deleted => "deleted",
                _ => "deprecated",
            }
        )));
    }
    let mut resolver = Resolver::new(values, name);
    let (mut config, runtime) = match choice {
        Choice::Package(i) => {
            let (config, runtime) = local(package(listing, i)?, &mut resolver)?;
            (config, Some(runtime))
        }
        Choice::Remote(i) => (
            remote(endpoint(listing, i)?, listing, i, &mut resolver)?,
            None,
        ),
    };
    resolver.finish()?;
    config.installed_from = Some(InstalledFrom {
        registry: listing.registry.clone(),
        name: listing.server.name.clone(),
        version: listing.server.version.clone(),
        repository: listing.server.repository.as_ref().map(|r| r.url.clone()),
        ..InstalledFrom::default()
    });
    Ok(Installable {
        name: name.to_owned(),
        config,
        secrets: resolver.secrets,
        runtime,
    })
}

fn package(listing: &Listing, i: usize) -> Result<&Package> {
    listing
        .server
        .packages
        .get(i)
        .ok_or_else(|| invalid("It has no such package."))
}

fn endpoint(listing: &Listing, i: usize) -> Result<&Endpoint> {
    match listing.server.remotes.get(i) {
        Some(Transport::StreamableHttp(e) | Transport::Sse(e)) => Ok(e),
        _ => Err(invalid("It has no such remote.")),
    }
}

/// The command for a package, and the runtime it needs.
fn local(p: &Package, r: &mut Resolver) -> Result<(ServerConfig, String)> {
    if p.transport != Transport::Stdio {
        return Err(invalid(
            "Its package serves over HTTP on a port of its own, which Switchboard does not \
             start; install its remote, or a package that speaks stdio.",
        ));
    }
    check_identifier(p)?;
    let env = r.environment(&p.environment_variables)?;
    let mut args = r.arguments(&p.runtime_arguments)?;
    let runtime = match p.registry_type.as_str() {
        "npm" => {
            if let Some(base) = non_default(&p.registry_base_url, "https://registry.npmjs.org") {
                args.extend(["--registry".into(), base]);
            }
            args.extend(["-y".into(), pinned(p, "@")?]);
            "npx"
        }
        "pypi" => {
            if let Some(base) = non_default(&p.registry_base_url, "https://pypi.org") {
                args.extend(["--default-index".into(), format!("{base}/simple")]);
            }
            args.push(pinned(p, "==")?);
            "uvx"
        }
        "oci" => {
            check_container_arguments(&args)?;
            let mut docker: Vec<String> = CONTAINER_RUN.map(String::from).into();
            docker.append(&mut args);
            // docker hands the container only the variables named with -e.
            docker.extend(env.keys().flat_map(|k| ["-e".to_owned(), k.clone()]));
            docker.push(oci_image(p)?);
            args = docker;
            "docker"
        }
        "mcpb" => {
            return Err(invalid(
                "This is an MCP Bundle: download it and open the .mcpb file to install it.",
            ));
        }
        other => {
            return Err(invalid(format!(
                "Switchboard cannot install {} packages yet.",
                text::shown(other, 16)
            )));
        }
    };
    args.extend(r.arguments(&p.package_arguments)?);
    let config = ServerConfig {
        command: Some(runtime.to_owned()),
        args,
        env,
        enabled: true,
        ..ServerConfig::default()
    };
    Ok((config, runtime.to_owned()))
}

/// `identifier`, `sep`, and its exact version: what pins a package.
fn pinned(p: &Package, sep: &str) -> Result<String> {
    let version = p.version.as_deref().unwrap_or_default();
    if !text::is_exact_version(version) {
        return Err(invalid(format!(
            "Its package gives no exact version ({:?}), so it cannot be pinned.",
            text::shown(version, 64)
        )));
    }
    Ok(format!("{}{sep}{version}", p.identifier))
}

/// A remote's definition: its URL with its variables filled in, and its headers.
fn remote(e: &Endpoint, listing: &Listing, i: usize, r: &mut Resolver) -> Result<ServerConfig> {
    let url = r.url(&e.url, &e.variables)?;
    let transport = match listing.server.remotes.get(i) {
        Some(Transport::Sse(_)) => RemoteTransport::Sse,
        _ => RemoteTransport::StreamableHttp,
    };
    Ok(ServerConfig {
        url: Some(url),
        headers: r.headers(&e.headers)?,
        transport,
        enabled: true,
        ..ServerConfig::default()
    })
}

/// `args` with each package of `listing` pinned at `old` pinned at `new` instead
/// (`pkg@old`, `pkg==old`, `image:old`): an update keeps everything else of the definition.
pub fn repin(args: &[String], listing: &Listing, old: &str, new: &str) -> Vec<String> {
    let ids: Vec<&str> = listing
        .server
        .packages
        .iter()
        .map(|p| match p.identifier.rsplit_once(':') {
            Some((image, tag)) if p.registry_type == "oci" && !tag.contains('/') => image,
            _ => p.identifier.as_str(),
        })
        .collect();
    args.iter()
        .map(|arg| {
            for sep in ["@", "==", ":"] {
                if let Some(id) = arg.strip_suffix(&format!("{sep}{old}"))
                    && ids.contains(&id)
                {
                    return format!("{id}{sep}{new}");
                }
            }
            arg.clone()
        })
        .collect()
}

/// A package name as its registry allows: nothing that reads as an option or a path.
fn check_identifier(p: &Package) -> Result<()> {
    let id = &p.identifier;
    let allowed = |c: char| c.is_ascii_alphanumeric() || "@/._-:".contains(c);
    if id.is_empty()
        || id.len() > 214
        || id.starts_with('-')
        || id.contains("..")
        || !id.chars().all(allowed)
    {
        return Err(invalid(format!(
            "Its package name {:?} is not one a package registry allows.",
            text::shown(id, 64)
        )));
    }
    Ok(())
}

/// How a container is started: removed when it ends, stdin kept open for the protocol, and no
/// capabilities or new privileges inside it (an MCP server needs none).
const CONTAINER_RUN: [&str; 5] = [
    "run",
    "--rm",
    "-i",
    "--cap-drop=ALL",
    "--security-opt=no-new-privileges",
];

/// Runtime arguments that would undo the container's walls: capabilities or privileges back,
/// the host's devices, process, IPC, user or network namespaces, or the engine's own socket
/// (root on the host). Folders mounted with `-v`/`--mount` stay: the trust dialog shows them.
fn check_container_arguments(args: &[String]) -> Result<()> {
    const WALLS: [&str; 10] = [
        "--privileged",
        "--cap-add",
        "--security-opt",
        "--device",
        "--pid",
        "--ipc",
        "--userns",
        "--uts",
        "--cgroupns",
        "--volumes-from",
    ];
    let host_namespace = |flag: &str, value: Option<&String>| {
        matches!(flag, "--network" | "--net") && value.is_some_and(|v| v == "host")
    };
    for (i, arg) in args.iter().enumerate() {
        let (flag, inline) = match arg.split_once('=') {
            Some((f, v)) => (f, Some(v.to_owned())),
            None => (arg.as_str(), None),
        };
        let value = inline.as_ref().or(args.get(i + 1));
        let breaks = WALLS.contains(&flag)
            || host_namespace(flag, value)
            || arg.contains("docker.sock")
            || arg.contains("podman.sock");
        if breaks {
            return Err(invalid(format!(
                "Its container arguments ask for {} which would let it out of its container; \
                 Switchboard does not install that.",
                text::shown(arg, 64)
            )));
        }
    }
    Ok(())
}

/// An OCI image reference pinned to a tag or digest.
fn oci_image(p: &Package) -> Result<String> {
    let id = &p.identifier;
    let last = id.rsplit('/').next().unwrap_or(id);
    if id.contains("@sha256:") {
        return Ok(id.clone());
    }
    match last.split_once(':') {
        Some((_, tag)) if text::is_exact_version(tag) => Ok(id.clone()),
        Some(_) => Err(invalid(
            "Its image's tag is not an exact version, so it cannot be pinned.",
        )),
        None => pinned(p, ":"),
    }
}

/// `base` unless it is the registry's default (with or without a trailing slash).
fn non_default(base: &Option<String>, default: &str) -> Option<String> {
    let base = base.as_deref()?.trim_end_matches('/');
    (base != default).then(|| base.to_owned())
}

fn invalid(message: impl Into<String>) -> Error {
    Error::new(ErrorCode::InvalidInput, message)
}

#[cfg(test)]
mod tests;
