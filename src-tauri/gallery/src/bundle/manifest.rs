//! A bundle's `manifest.json`, checked as the manifest schemas of versions 0.1 to 0.4 say: the
//! required fields, no field a version does not know (every object of the schema closes its
//! properties), the server types of each version. An unknown `manifest_version` is refused by
//! name rather than read as the nearest known one.

use indexmap::IndexMap;
use serde::{Deserialize, Serialize};
use serde_json::Value;
use switchboard_base::{Error, ErrorCode, Result};
use ts_rs::TS;

use crate::text;

/// The manifest versions Switchboard reads.
pub const VERSIONS: [&str; 4] = ["0.1", "0.2", "0.3", "0.4"];

/// What Switchboard uses of a manifest; [`parse`] has checked the rest.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, TS)]
#[ts(export, rename = "BundleManifest")]
pub struct Manifest {
    #[serde(default, rename = "$schema", skip_serializing)]
    #[ts(skip)]
    pub schema: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub dxt_version: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub manifest_version: Option<String>,
    pub name: String,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub display_name: Option<String>,
    pub version: String,
    pub description: String,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub long_description: Option<String>,
    pub author: Author,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub repository: Option<Repository>,
    pub server: Server,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub compatibility: Option<Compatibility>,
    #[serde(default, skip_serializing_if = "IndexMap::is_empty")]
    pub user_config: IndexMap<String, UserConfig>,
    /// Fields shown nowhere but allowed by the schema (homepage, tools, icons…).
    #[serde(flatten)]
    #[ts(skip)]
    pub other: IndexMap<String, Value>,
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, TS)]
#[serde(deny_unknown_fields)]
#[ts(export, rename = "BundleAuthor")]
pub struct Author {
    pub name: String,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub email: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub url: Option<String>,
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, TS)]
#[serde(deny_unknown_fields)]
#[ts(export, rename = "BundleRepository")]
pub struct Repository {
    #[serde(rename = "type")]
    pub kind: String,
    pub url: String,
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, TS)]
#[serde(deny_unknown_fields)]
#[ts(export, rename = "BundleServer")]
pub struct Server {
    /// `node`, `python`, `binary`, or (0.4) `uv`.
    #[serde(rename = "type")]
    pub kind: String,
    pub entry_point: String,
    pub mcp_config: McpConfig,
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, TS)]
#[serde(deny_unknown_fields)]
#[ts(export, rename = "BundleMcpConfig")]
pub struct McpConfig {
    pub command: String,
    #[serde(default)]
    pub args: Vec<String>,
    #[serde(default)]
    pub env: IndexMap<String, String>,
    #[serde(default, skip_serializing_if = "IndexMap::is_empty")]
    pub platform_overrides: IndexMap<String, Override>,
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, TS)]
#[serde(deny_unknown_fields)]
#[ts(export, rename = "BundleOverride")]
pub struct Override {
    #[serde(default)]
    pub command: Option<String>,
    #[serde(default)]
    pub args: Option<Vec<String>>,
    #[serde(default)]
    pub env: Option<IndexMap<String, String>>,
}

#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize, TS)]
#[serde(deny_unknown_fields)]
#[ts(export, rename = "BundleCompatibility")]
pub struct Compatibility {
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub claude_desktop: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub platforms: Option<Vec<String>>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub runtimes: Option<Runtimes>,
}

#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize, TS)]
#[serde(deny_unknown_fields)]
#[ts(export, rename = "BundleRuntimes")]
pub struct Runtimes {
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub python: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub node: Option<String>,
}

/// One value the bundle asks the person for.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, TS)]
#[serde(deny_unknown_fields)]
#[ts(export, rename = "BundleUserConfig")]
pub struct UserConfig {
    /// `string`, `number`, `boolean`, `directory` or `file`.
    #[serde(rename = "type")]
    pub kind: String,
    pub title: String,
    pub description: String,
    #[serde(default)]
    pub required: bool,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[ts(type = "string | number | boolean | Array<string> | null")]
    pub default: Option<Value>,
    #[serde(default)]
    pub multiple: bool,
    #[serde(default)]
    pub sensitive: bool,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub min: Option<f64>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub max: Option<f64>,
}

/// Top-level fields each version allows besides those [`Manifest`] names.
const OTHER_FIELDS: [(&str, &str); 13] = [
    ("homepage", "0.1"),
    ("documentation", "0.1"),
    ("support", "0.1"),
    ("icon", "0.1"),
    ("screenshots", "0.1"),
    ("tools", "0.1"),
    ("tools_generated", "0.1"),
    ("prompts", "0.1"),
    ("prompts_generated", "0.1"),
    ("keywords", "0.1"),
    ("license", "0.1"),
    ("privacy_policies", "0.2"),
    ("icons", "0.3"),
];
/// Fields 0.3 added besides `icons`.
const SINCE_0_3: [&str; 2] = ["localization", "_meta"];

/// Reads and checks `bytes` as a manifest.
pub fn parse(bytes: &[u8]) -> Result<Manifest> {
    let raw: Value = serde_json::from_slice(bytes)
        .map_err(|e| invalid(format!("Its manifest.json is not JSON: {e}.")))?;
    let version = declared_version(&raw)?;
    let manifest: Manifest = serde_path_to_error::deserialize(&raw).map_err(|e| {
        invalid(format!(
            "Its manifest.json does not follow the manifest schema {version}: at {}: {}.",
            e.path(),
            e.inner()
        ))
    })?;
    for key in manifest.other.keys() {
        let since = OTHER_FIELDS
            .iter()
            .find(|(k, _)| k == key)
            .map(|(_, v)| *v)
            .or(SINCE_0_3.contains(&key.as_str()).then_some("0.3"));
        match since {
            Some(since) if since <= version.as_str() => {}
            _ => {
                return Err(invalid(format!(
                    "Its manifest.json has a field the manifest schema {version} does not know: {:?}.",
                    text::shown(key, 64)
                )));
            }
        }
    }
    let types: &[&str] = if version == "0.4" {
        &["node", "python", "binary", "uv"]
    } else {
        &["node", "python", "binary"]
    };
    if !types.contains(&manifest.server.kind.as_str()) {
        return Err(invalid(format!(
            "Its server type {:?} is not one manifest {version} allows ({}).",
            text::shown(&manifest.server.kind, 32),
            types.join(", ")
        )));
    }
    for (key, field) in &manifest.user_config {
        let kinds = ["string", "number", "boolean", "directory", "file"];
        if !kinds.contains(&field.kind.as_str()) {
            return Err(invalid(format!(
                "Its setting {:?} has an unknown type.",
                text::shown(key, 64)
            )));
        }
    }
    Ok(manifest)
}

/// `manifest_version` (or the older `dxt_version`), when it is one Switchboard reads.
fn declared_version(raw: &Value) -> Result<String> {
    let declared = raw
        .get("manifest_version")
        .or_else(|| raw.get("dxt_version"))
        .and_then(Value::as_str)
        .ok_or_else(|| invalid("Its manifest.json gives no manifest_version."))?;
    if VERSIONS.contains(&declared) {
        Ok(declared.to_owned())
    } else {
        Err(invalid(format!(
            "Its manifest_version is {:?}, which this Switchboard does not read (it reads {}): \
             a newer Switchboard may.",
            text::shown(declared, 16),
            VERSIONS.join(", ")
        )))
    }
}

fn invalid(message: impl Into<String>) -> Error {
    Error::new(ErrorCode::InvalidInput, message)
}
