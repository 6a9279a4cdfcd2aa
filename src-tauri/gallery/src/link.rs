//! Install links: `switchboard://install?…`, as a web page or another program hands them to the
//! app. A link names a registry server (`name`, and maybe `version` and `registry`) or carries a
//! server definition inline (`config`: the same JSON VS Code's install links carry: `name`
//! plus `command`/`args`/`env` or `url`/`headers`). Parsing one only says what it asks for: the
//! window opens the install form or the server form with it, and nothing is installed or run
//! until the person fills it in and trusts the definition.

use serde::Serialize;
use switchboard_base::config::ServerConfig;
use switchboard_base::{Error, ErrorCode, Result};
use ts_rs::TS;
use url::Url;

use crate::text;

/// The scheme the app registers.
pub const SCHEME: &str = "switchboard";
/// The longest link read: a definition fits in far less.
const MAX_LINK: usize = 16 * 1024;

/// What a link asks the app to show.
#[derive(Debug, Clone, PartialEq, Serialize, TS)]
#[serde(rename_all = "camelCase", tag = "kind")]
#[ts(export)]
pub enum InstallLink {
    /// A server of a registry: the install form.
    #[serde(rename_all = "camelCase")]
    Registry {
        registry: Option<String>,
        name: String,
        version: Option<String>,
    },
    /// A definition: the server form, filled in.
    #[serde(rename_all = "camelCase")]
    Definition {
        name: String,
        config: Box<ServerConfig>,
    },
}

/// Parses `link`; an error says why it is not one.
pub fn parse(link: &str) -> Result<InstallLink> {
    if link.len() > MAX_LINK {
        return Err(bad("The install link is too long."));
    }
    let url = Url::parse(link).map_err(|_| bad("The install link is not a URL."))?;
    if url.scheme() != SCHEME
        || url.host_str() != Some("install")
        || !matches!(url.path(), "" | "/")
    {
        return Err(bad(
            "The link is not a Switchboard install link (switchboard://install?…).",
        ));
    }
    let get = |key: &str| {
        url.query_pairs()
            .find(|(k, _)| k == key)
            .map(|(_, v)| v.into_owned())
    };
    if let Some(config) = get("config") {
        return definition(&config);
    }
    let name = get("name").ok_or_else(|| bad("The install link names no server."))?;
    if !text::is_server_name(&name) {
        return Err(bad(format!(
            "The install link's server name {:?} is not a registry name.",
            text::shown(&name, 64)
        )));
    }
    let version = get("version").filter(|v| v != "latest");
    if let Some(v) = &version
        && !text::is_exact_version(v)
    {
        return Err(bad("The install link's version is not an exact version."));
    }
    let registry = get("registry");
    if let Some(r) = &registry {
        crate::registry::Registry::new(r)?;
    }
    Ok(InstallLink::Registry {
        registry,
        name,
        version,
    })
}

/// An inline definition: `{"name": …, "command": …}` or `{"name": …, "url": …}`.
fn definition(json: &str) -> Result<InstallLink> {
    let mut value: serde_json::Value = serde_json::from_str(json)
        .map_err(|_| bad("The install link's definition is not JSON."))?;
    let name = value
        .as_object_mut()
        .and_then(|o| o.remove("name"))
        .and_then(|n| n.as_str().map(str::to_owned))
        .ok_or_else(|| bad("The install link's definition has no name."))?;
    let config: ServerConfig = serde_json::from_value(value).map_err(|e| {
        bad(format!(
            "The install link's definition is not a server: {e}."
        ))
    })?;
    if config.command.is_none() == config.url.is_none() {
        return Err(bad(
            "The install link's definition needs a command or a URL, not both.",
        ));
    }
    Ok(InstallLink::Definition {
        name: text::local_name(&format!("x/{name}")),
        config: Box::new(config),
    })
}

fn bad(message: impl Into<String>) -> Error {
    Error::new(ErrorCode::InvalidInput, message)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_registry_link() {
        let l = parse("switchboard://install?name=io.github.x%2Fy&version=1.2.3").unwrap();
        assert_eq!(
            l,
            InstallLink::Registry {
                registry: None,
                name: "io.github.x/y".into(),
                version: Some("1.2.3".into())
            }
        );
        let l =
            parse("switchboard://install?name=io.x/y&version=latest&registry=https://r.example")
                .unwrap();
        assert!(matches!(
            l,
            InstallLink::Registry {
                version: None,
                registry: Some(_),
                ..
            }
        ));
    }

    #[test]
    fn an_inline_definition_like_vs_codes() {
        let config =
            r#"{"name":"my server","command":"npx","args":["-y","pkg@1.0.0"],"env":{"K":"v"}}"#;
        let link = format!(
            "switchboard://install?config={}",
            url::form_urlencoded::byte_serialize(config.as_bytes()).collect::<String>()
        );
        let InstallLink::Definition { name, config } = parse(&link).unwrap() else {
            panic!()
        };
        assert_eq!(name, "my-server");
        assert_eq!(config.command.as_deref(), Some("npx"));
        assert_eq!(config.args, ["-y", "pkg@1.0.0"]);
    }

    #[test]
    fn what_is_not_an_install_link() {
        for bad in [
            "https://install?name=a/b",
            "switchboard://run?name=a/b",
            "switchboard://install?name=../../etc",
            "switchboard://install?name=a/b&version=^1",
            "switchboard://install?name=a/b&registry=http://evil.example",
            "switchboard://install?config=%7B%22name%22%3A%22x%22%7D",
            "switchboard://install",
        ] {
            assert!(parse(bad).is_err(), "{bad}");
        }
        assert!(
            parse(&format!(
                "switchboard://install?name={}",
                "a".repeat(20_000)
            ))
            .is_err()
        );
    }
}
