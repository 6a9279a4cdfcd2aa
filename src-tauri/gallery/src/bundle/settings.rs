//! A bundle's `user_config` as a form, and its `mcp_config` as a server definition: the
//! variables the manifest may use (`${__dirname}`, `${user_config.KEY}`, `${HOME}`, `${/}`…)
//! expanded, a setting with several values spread over as many arguments, a sensitive one
//! kept in the keychain, and each value checked against its type and bounds.

use std::path::Path;

use indexmap::IndexMap;
use serde_json::Value;
use switchboard_base::config::{InstalledFrom, ServerConfig};
use switchboard_base::{Error, ErrorCode, Result, secrets};

use super::manifest::{Manifest, UserConfig};
use super::{Opened, Signature};
use crate::definition::{Installable, Needed, NeededKind};
use crate::text;

/// What the bundle's form asks for.
pub fn needs(m: &Manifest) -> Vec<Needed> {
    m.user_config
        .iter()
        .map(|(key, c)| Needed {
            key: text::shown(key, text::SHORT),
            kind: NeededKind::Setting,
            description: text::shown(&format!("{}: {}", c.title, c.description), text::LONG),
            required: c.required,
            secret: c.sensitive,
            default: c
                .default
                .as_ref()
                .map(|d| text::shown(&default_text(d), text::SHORT)),
            choices: Vec::new(),
            format: text::shown(&c.kind, 16),
            placeholder: None,
            min: c.min,
            max: c.max,
            multiple: c.multiple,
        })
        .collect()
}

/// The definition of `opened`, unpacked in `folder`, installed as `name` with `values`
/// (several values of one setting one per line). `home` expands `${HOME}` and its folders.
pub fn definition(
    opened: &Opened,
    folder: &Path,
    name: &str,
    values: &IndexMap<String, String>,
    home: Option<&Path>,
) -> Result<Installable> {
    let m = &opened.manifest;
    let mut filled = Filled::new(name, folder, home);
    for (key, setting) in &m.user_config {
        filled.setting(key, setting, values.get(key))?;
    }
    filled.finish()?;
    let mut config = m.server.mcp_config.clone();
    if let Some(o) = config.platform_overrides.get(platform()).cloned() {
        config.command = o.command.unwrap_or(config.command);
        config.args = o.args.unwrap_or(config.args);
        config.env.extend(o.env.unwrap_or_default());
    }
    let command = filled.one(&config.command, "its command")?;
    let mut args = Vec::new();
    for arg in &config.args {
        args.extend(filled.many(arg)?);
    }
    let mut env = IndexMap::new();
    for (k, v) in &config.env {
        let value = filled.env(k, v)?;
        env.insert(k.clone(), value);
    }
    let runtime = runtime_of(&m.server.kind, &command, folder)?;
    let config = ServerConfig {
        command: Some(command),
        args,
        env,
        installed_from: Some(InstalledFrom {
            registry: String::new(),
            name: m.name.clone(),
            version: m.version.clone(),
            repository: m.repository.as_ref().map(|r| r.url.clone()),
            bundle: Some(folder.to_path_buf()),
            signature: Some(signature_text(&opened.signature)),
        }),
        enabled: true,
        ..ServerConfig::default()
    };
    Ok(Installable {
        name: name.to_owned(),
        config,
        secrets: filled.secrets,
        runtime,
    })
}

/// How the trust dialog words a signature.
pub fn signature_text(s: &Signature) -> String {
    match s {
        Signature::Unsigned => "unsigned: nobody vouches for who made it".to_owned(),
        Signature::Signed(s) if s.self_signed => format!(
            "signed by {} with a self-signed certificate (SHA-256 {}): nobody else vouches for the name",
            s.publisher, s.fingerprint
        ),
        Signature::Signed(s) => match &s.vouched_for_by {
            Some(root) => format!(
                "signed by {} (certificate issued by {}, vouched for by {}, a certificate \
                 authority this computer trusts; SHA-256 {})",
                s.publisher, s.issuer, root, s.fingerprint
            ),
            None => format!(
                "signed by {}, a name nobody vouches for: its certificate (which says it was \
                 issued by {}, SHA-256 {}) leads to no certificate authority this computer \
                 trusts for code signing",
                s.publisher, s.issuer, s.fingerprint
            ),
        },
    }
}

fn platform() -> &'static str {
    match std::env::consts::OS {
        "macos" => "darwin",
        "windows" => "win32",
        other => other,
    }
}

/// The program that must be on PATH, or the binary that must be in the bundle.
fn runtime_of(kind: &str, command: &str, folder: &Path) -> Result<Option<String>> {
    if kind == "binary" {
        let path = Path::new(command);
        if path.is_absolute() && !(path.starts_with(folder) && path.is_file()) {
            return Err(bad(format!(
                "Its binary {} is not a file inside the bundle.",
                text::shown(command, text::SHORT)
            )));
        }
        return Ok(None);
    }
    Ok((!command.contains('/')).then(|| command.to_owned()))
}

fn default_text(d: &Value) -> String {
    match d {
        Value::String(s) => s.clone(),
        Value::Array(items) => items
            .iter()
            .filter_map(Value::as_str)
            .collect::<Vec<_>>()
            .join("\n"),
        other => other.to_string(),
    }
}

/// The settings' values and the variables, for expanding the manifest's strings.
struct Filled<'a> {
    server: &'a str,
    folder: &'a Path,
    home: Option<&'a Path>,
    values: IndexMap<String, Vec<String>>,
    sensitive: Vec<String>,
    missing: Vec<String>,
    secrets: Vec<(String, String)>,
}

impl<'a> Filled<'a> {
    fn new(server: &'a str, folder: &'a Path, home: Option<&'a Path>) -> Self {
        Self {
            server,
            folder,
            home,
            values: IndexMap::new(),
            sensitive: Vec::new(),
            missing: Vec::new(),
            secrets: Vec::new(),
        }
    }

    /// Checks and keeps one setting's value (given, else its default).
    fn setting(&mut self, key: &str, s: &UserConfig, given: Option<&String>) -> Result<()> {
        let raw = given
            .filter(|v| !v.is_empty())
            .cloned()
            .or_else(|| s.default.as_ref().map(default_text));
        let Some(raw) = raw else {
            if s.required {
                self.missing.push(key.to_owned());
            }
            return Ok(());
        };
        let items: Vec<String> = if s.multiple {
            raw.lines()
                .filter(|l| !l.is_empty())
                .map(str::to_owned)
                .collect()
        } else {
            vec![raw]
        };
        let mut expanded = Vec::new();
        for item in items {
            let item = self.variables(&item);
            check(key, s, &item)?;
            expanded.push(item);
        }
        if s.sensitive {
            self.sensitive.push(key.to_owned());
        }
        self.values.insert(key.to_owned(), expanded);
        Ok(())
    }

    fn finish(&self) -> Result<()> {
        if self.missing.is_empty() {
            return Ok(());
        }
        let names: Vec<String> = self.missing.iter().map(|k| text::shown(k, 64)).collect();
        Err(bad(format!(
            "These settings are required: {}.",
            names.join(", ")
        )))
    }

    /// `${__dirname}`, `${HOME}`, `${DESKTOP}`, `${DOCUMENTS}`, `${DOWNLOADS}`, `${/}` and
    /// `${pathSeparator}` in `s`.
    fn variables(&self, s: &str) -> String {
        let home = self
            .home
            .map(|h| h.to_string_lossy().into_owned())
            .unwrap_or_default();
        let sep = std::path::MAIN_SEPARATOR_STR;
        [
            ("${__dirname}", self.folder.to_string_lossy().into_owned()),
            ("${HOME}", home.clone()),
            ("${DESKTOP}", format!("{home}{sep}Desktop")),
            ("${DOCUMENTS}", format!("{home}{sep}Documents")),
            ("${DOWNLOADS}", format!("{home}{sep}Downloads")),
            ("${/}", sep.to_owned()),
            ("${pathSeparator}", sep.to_owned()),
        ]
        .iter()
        .fold(s.to_owned(), |acc, (var, value)| acc.replace(var, value))
    }

    /// The `${user_config.KEY}` references in `s`, with whether any is sensitive.
    fn settings_in(&self, s: &str) -> (String, bool) {
        let mut out = self.variables(s);
        let mut sensitive = false;
        for (key, values) in &self.values {
            let reference = format!("${{user_config.{key}}}");
            if out.contains(&reference) {
                sensitive |= self.sensitive.contains(key);
                out = out.replace(&reference, &values.join(" "));
            }
        }
        (out, sensitive)
    }

    /// One argument: a setting with several values, referred to alone, becomes several.
    fn many(&self, arg: &str) -> Result<Vec<String>> {
        for (key, values) in &self.values {
            if arg == format!("${{user_config.{key}}}") && !self.sensitive.contains(key) {
                return Ok(values.clone());
            }
        }
        Ok(vec![self.one(arg, "an argument")?])
    }

    /// One string of the command line: never a sensitive setting (any program here can read
    /// a command line).
    fn one(&self, s: &str, what: &str) -> Result<String> {
        let (out, sensitive) = self.settings_in(s);
        if sensitive {
            return Err(bad(format!(
                "It puts a sensitive setting in {what}, where any program on this computer can \
                 read it; Switchboard keeps secrets in the environment only."
            )));
        }
        Ok(out)
    }

    /// An environment value: one that holds a sensitive setting goes to the keychain.
    fn env(&mut self, key: &str, s: &str) -> Result<String> {
        let (out, sensitive) = self.settings_in(s);
        if !sensitive {
            return Ok(out);
        }
        let entry = format!(
            "server/{}/{}",
            self.server,
            text::local_name(&format!("x/{key}"))
        );
        self.secrets.push((entry.clone(), out));
        Ok(secrets::reference(&entry))
    }
}

/// A value as its setting's type and bounds allow.
fn check(key: &str, s: &UserConfig, value: &str) -> Result<()> {
    let name = text::shown(key, 64);
    match s.kind.as_str() {
        "number" => {
            let n: f64 = value
                .trim()
                .parse()
                .map_err(|_| bad(format!("{name} must be a number.")))?;
            if s.min.is_some_and(|min| n < min) || s.max.is_some_and(|max| n > max) {
                return Err(bad(format!(
                    "{name} must be between {} and {}.",
                    s.min.map_or("any".into(), |v| v.to_string()),
                    s.max.map_or("any".into(), |v| v.to_string())
                )));
            }
        }
        "boolean" if !matches!(value, "true" | "false") => {
            return Err(bad(format!("{name} must be true or false.")));
        }
        "directory" | "file" if !Path::new(value).is_absolute() => {
            return Err(bad(format!("{name} must be an absolute path.")));
        }
        _ => {}
    }
    Ok(())
}

fn bad(message: impl Into<String>) -> Error {
    Error::new(ErrorCode::InvalidInput, message)
}
