//! The values a `server.json` asks for, and filling them in. Each is keyed by what the person
//! recognises: an environment variable's or header's name, a named argument's flag, a
//! positional argument's hint, a URL variable's name. A value given is checked against its
//! choices; a secret one becomes a keychain entry of this server's own and a reference to it.

use indexmap::IndexMap;
use serde::Serialize;
use switchboard_base::secrets;
use switchboard_base::{Error, ErrorCode, Result};
use ts_rs::TS;

use crate::registry::server_json::{Argument, Endpoint, Input, KeyValueInput, Package};
use crate::text;

/// Where a value goes.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, TS)]
#[serde(rename_all = "camelCase")]
#[ts(export, rename = "InstallInputKind")]
pub enum NeededKind {
    Environment,
    Argument,
    Header,
    UrlVariable,
    /// A bundle's `user_config` setting.
    Setting,
}

/// One value the install form asks for; its text is safe to show.
#[derive(Debug, Clone, PartialEq, Serialize, TS)]
#[serde(rename_all = "camelCase")]
#[ts(export, rename = "InstallInput")]
pub struct Needed {
    pub key: String,
    pub kind: NeededKind,
    pub description: String,
    pub required: bool,
    pub secret: bool,
    pub default: Option<String>,
    pub choices: Vec<String>,
    /// `string`, `number`, `boolean` or `filepath`.
    pub format: String,
    pub placeholder: Option<String>,
    /// For a number: its bounds.
    pub min: Option<f64>,
    pub max: Option<f64>,
    /// Several values (one per line).
    pub multiple: bool,
}

/// The values a package asks for.
pub fn of_package(p: &Package) -> Vec<Needed> {
    let mut out = Vec::new();
    for (i, a) in p
        .runtime_arguments
        .iter()
        .chain(&p.package_arguments)
        .enumerate()
    {
        let (key, input) = argument_key(a, i);
        asked(&mut out, &key, NeededKind::Argument, input);
    }
    for e in &p.environment_variables {
        asked(&mut out, &e.name, NeededKind::Environment, &e.input);
    }
    out
}

/// The values a remote asks for.
pub fn of_endpoint(e: &Endpoint) -> Vec<Needed> {
    let mut out = Vec::new();
    for (name, input) in &e.variables {
        asked(&mut out, name, NeededKind::UrlVariable, input);
    }
    for h in &e.headers {
        asked(&mut out, &h.name, NeededKind::Header, &h.input);
    }
    out
}

/// Adds what `input` asks for: itself when it has no fixed value, else the variables in it.
fn asked(out: &mut Vec<Needed>, key: &str, kind: NeededKind, input: &Input) {
    if input.value.is_some() {
        for (name, variable) in &input.variables {
            asked(out, name, kind, variable);
        }
        return;
    }
    if out.iter().any(|n| n.key == key) {
        return;
    }
    out.push(Needed {
        key: text::shown(key, text::SHORT),
        kind,
        description: text::shown(input.description.as_deref().unwrap_or(""), text::LONG),
        required: input.is_required,
        secret: input.is_secret,
        default: input
            .default
            .as_deref()
            .map(|d| text::shown(d, text::SHORT)),
        choices: input
            .choices
            .iter()
            .take(100)
            .map(|c| text::shown(c, text::SHORT))
            .collect(),
        format: text::shown(input.format.as_deref().unwrap_or("string"), 16),
        placeholder: input
            .placeholder
            .as_deref()
            .map(|d| text::shown(d, text::SHORT)),
        min: None,
        max: None,
        multiple: false,
    });
}

/// An argument's key: a named one's flag, a positional one's hint (else its place).
fn argument_key(a: &Argument, i: usize) -> (String, &Input) {
    match a {
        Argument::Named(n) => (n.name.clone(), &n.input),
        Argument::Positional(p) => (
            p.value_hint
                .clone()
                .unwrap_or_else(|| format!("argument {}", i + 1)),
            &p.input,
        ),
    }
}

/// Fills in values for one server, collecting the secrets and what is missing.
pub struct Resolver<'a> {
    values: &'a IndexMap<String, String>,
    server: &'a str,
    pub secrets: Vec<(String, String)>,
    missing: Vec<String>,
    index: usize,
}

impl<'a> Resolver<'a> {
    pub fn new(values: &'a IndexMap<String, String>, server: &'a str) -> Self {
        Self {
            values,
            server,
            secrets: Vec::new(),
            missing: Vec::new(),
            index: 0,
        }
    }

    /// An error naming every required value that was not given, if any.
    pub fn finish(&self) -> Result<()> {
        if self.missing.is_empty() {
            return Ok(());
        }
        let names: Vec<String> = self.missing.iter().map(|k| text::shown(k, 64)).collect();
        Err(Error::new(
            ErrorCode::InvalidInput,
            format!("These values are required: {}.", names.join(", ")),
        ))
    }

    /// The value of `key`: its fixed value with its variables filled in, else the one given,
    /// else its default. `Ok(None)` when there is none (recorded when it is required); the
    /// flag says whether it holds a secret.
    fn value(&mut self, key: &str, input: &Input) -> Result<Option<(String, bool)>> {
        if let Some(fixed) = &input.value {
            let mut secret = input.is_secret;
            let mut values = IndexMap::new();
            for (name, variable) in &input.variables {
                let Some((v, s)) = self.value(name, variable)? else {
                    return Ok(None);
                };
                secret |= s;
                values.insert(name.clone(), v);
            }
            return Ok(Some((fill(fixed, &values), secret)));
        }
        let given = self.values.get(key).filter(|v| !v.is_empty());
        let Some(value) = given.or(input.default.as_ref()).cloned() else {
            if input.is_required {
                self.missing.push(key.to_owned());
            }
            return Ok(None);
        };
        if !input.choices.is_empty() && !input.choices.contains(&value) {
            return Err(Error::new(
                ErrorCode::InvalidInput,
                format!(
                    "{} must be one of: {}.",
                    text::shown(key, 64),
                    input
                        .choices
                        .iter()
                        .map(|c| text::shown(c, 64))
                        .collect::<Vec<_>>()
                        .join(", ")
                ),
            ));
        }
        Ok(Some((value, input.is_secret)))
    }

    /// `value` as it may stand in the definition: a secret goes to the keychain, under an entry
    /// only this server may read, and a reference to it stands in its place.
    fn kept(&mut self, key: &str, value: String, secret: bool) -> String {
        if !secret {
            return value;
        }
        let entry = format!(
            "server/{}/{}",
            self.server,
            text::local_name(&format!("x/{key}"))
        );
        self.secrets.push((entry.clone(), value));
        secrets::reference(&entry)
    }

    /// The environment a package declares.
    pub fn environment(&mut self, vars: &[KeyValueInput]) -> Result<IndexMap<String, String>> {
        let mut env = IndexMap::new();
        for v in vars {
            check_variable_name(&v.name)?;
            if let Some((value, secret)) = self.value(&v.name, &v.input)? {
                let kept = self.kept(&v.name, value, secret);
                env.insert(v.name.clone(), kept);
            }
        }
        Ok(env)
    }

    /// A remote's headers.
    pub fn headers(&mut self, headers: &[KeyValueInput]) -> Result<IndexMap<String, String>> {
        let mut out = IndexMap::new();
        for h in headers {
            if h.name.is_empty()
                || !h
                    .name
                    .chars()
                    .all(|c| c.is_ascii_alphanumeric() || c == '-')
            {
                return Err(invalid_name("header", &h.name));
            }
            if let Some((value, secret)) = self.value(&h.name, &h.input)? {
                let kept = self.kept(&h.name, value, secret);
                out.insert(h.name.clone(), kept);
            }
        }
        Ok(out)
    }

    /// Arguments, each value one argv entry (a named one: its flag, then its value).
    pub fn arguments(&mut self, args: &[Argument]) -> Result<Vec<String>> {
        let mut out = Vec::new();
        for a in args {
            let (key, input) = argument_key(a, self.index);
            self.index += 1;
            let Some((value, secret)) = self.value(&key, input)? else {
                continue;
            };
            if secret {
                return Err(Error::new(
                    ErrorCode::InvalidInput,
                    format!(
                        "{} is a secret passed on the command line, where any program on this \
                         computer can read it; Switchboard keeps secrets in the environment only.",
                        text::shown(&key, 64)
                    ),
                ));
            }
            match a {
                Argument::Named(n) => {
                    check_flag(&n.name)?;
                    match input.format.as_deref() {
                        Some("boolean") if value == "true" => out.push(n.name.clone()),
                        Some("boolean") => {}
                        _ => out.extend([n.name.clone(), value]),
                    }
                }
                Argument::Positional(_) => out.push(value),
            }
        }
        Ok(out)
    }

    /// A URL template with its variables filled in (each value escaped as one path segment or
    /// query value), checked to be https or loopback http.
    pub fn url(&mut self, template: &str, variables: &IndexMap<String, Input>) -> Result<String> {
        let mut filled = IndexMap::new();
        for (name, input) in variables {
            let Some((value, secret)) = self.value(name, input)? else {
                continue;
            };
            if secret {
                return Err(Error::new(
                    ErrorCode::InvalidInput,
                    "A secret in a server's URL would be written to the config file; Switchboard \
                     keeps secrets in headers only.",
                ));
            }
            let escaped: String = url::form_urlencoded::byte_serialize(value.as_bytes()).collect();
            filled.insert(name.clone(), escaped);
        }
        let url = fill(template, &filled);
        let parsed = url::Url::parse(&url).map_err(|_| {
            Error::new(
                ErrorCode::InvalidInput,
                format!(
                    "Its URL {:?} is not a valid URL.",
                    text::shown(&url, text::SHORT)
                ),
            )
        })?;
        let loopback = matches!(parsed.host_str(), Some("localhost" | "127.0.0.1" | "[::1]"));
        if parsed.scheme() != "https" && !(parsed.scheme() == "http" && loopback) {
            return Err(Error::new(
                ErrorCode::InvalidInput,
                "A remote server's URL must use https.",
            ));
        }
        Ok(parsed.into())
    }
}

/// `template` with each `{name}` in `values` replaced, in one pass: a value that itself holds
/// `{other}` stays as it is.
fn fill(template: &str, values: &IndexMap<String, String>) -> String {
    let mut out = String::with_capacity(template.len());
    let mut rest = template;
    while let Some(open) = rest.find('{') {
        out.push_str(&rest[..open]);
        let after = &rest[open + 1..];
        match after.find('}').map(|close| (&after[..close], close)) {
            Some((name, close)) if values.contains_key(name) => {
                out.push_str(&values[name]);
                rest = &after[close + 1..];
            }
            _ => {
                out.push('{');
                rest = after;
            }
        }
    }
    out.push_str(rest);
    out
}

fn check_variable_name(name: &str) -> Result<()> {
    let ok = !name.is_empty()
        && !name.starts_with(|c: char| c.is_ascii_digit())
        && name.chars().all(|c| c.is_ascii_alphanumeric() || c == '_');
    if ok {
        Ok(())
    } else {
        Err(invalid_name("environment variable", name))
    }
}

fn check_flag(flag: &str) -> Result<()> {
    let body = flag.trim_start_matches('-');
    let dashes = flag.len() - body.len();
    let ok = (1..=2).contains(&dashes)
        && !body.is_empty()
        && body
            .chars()
            .all(|c| c.is_ascii_alphanumeric() || "-_.".contains(c));
    if ok {
        Ok(())
    } else {
        Err(invalid_name("flag", flag))
    }
}

fn invalid_name(what: &str, name: &str) -> Error {
    Error::new(
        ErrorCode::InvalidInput,
        format!("{:?} is not a valid {what} name.", text::shown(name, 64)),
    )
}
