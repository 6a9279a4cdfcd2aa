//! A registry that speaks the MCP Registry's `v0.1` API: the official one, a company's private
//! one, or a mirror. Listings come back checked and safe to show: an entry with a name that is
//! not a registry name is left out (and counted), text is revealed and capped, a deprecated or
//! deleted entry is marked so that nobody is offered it, and a response is read only up to a cap.

pub mod server_json;

use std::time::Duration;

use serde::{Deserialize, Serialize};
use switchboard_base::{Error, ErrorCode, Result};
use ts_rs::TS;
use url::Url;

pub use server_json::ServerDetail;

use crate::text;

/// The official registry.
pub const OFFICIAL: &str = "https://registry.modelcontextprotocol.io";

/// The most a registry's answer may weigh: a page of 100 servers is a few hundred kilobytes.
const MAX_RESPONSE_BYTES: usize = 8 << 20;
/// The most servers asked for at once (the official registry's own cap).
pub const MAX_LIMIT: u32 = 100;
const TIMEOUT: Duration = Duration::from_secs(30);
const OFFICIAL_META: &str = "io.modelcontextprotocol.registry/official";

/// A registry at a base URL.
#[derive(Debug, Clone)]
pub struct Registry {
    base: Url,
    http: reqwest::Client,
}

/// What to list: a search term (a substring of the name), a page, only what changed since.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Query {
    pub search: Option<String>,
    pub cursor: Option<String>,
    pub limit: Option<u32>,
    pub updated_since: Option<String>,
}

/// A server's lifecycle in its registry.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize, Deserialize, TS)]
#[serde(rename_all = "lowercase")]
#[ts(export, rename = "RegistryStatus")]
pub enum Status {
    #[default]
    Active,
    Deprecated,
    Deleted,
}

/// One server version as a registry lists it, with where it came from.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, TS)]
#[serde(rename_all = "camelCase")]
#[ts(export, rename = "RegistryListing")]
pub struct Listing {
    /// The registry's base URL.
    pub registry: String,
    /// The document as published (show its text through [`Listing::shown`]).
    pub server: ServerDetail,
    pub status: Status,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub status_message: Option<String>,
    #[serde(default)]
    pub is_latest: bool,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub updated_at: Option<String>,
    /// Its text as it may be shown (what a window displays; `server` is what it says).
    #[serde(default)]
    pub text: ListingText,
}

/// A page of listings and the cursor of the next one.
#[derive(Debug, Clone, Default, PartialEq, Serialize, TS)]
#[serde(rename_all = "camelCase")]
#[ts(export, rename = "RegistryPage")]
pub struct Page {
    pub servers: Vec<Listing>,
    pub next_cursor: Option<String>,
    /// Entries left out because their name is not a registry server name.
    pub skipped: u32,
    /// The registry could not be reached: this is the last listing kept on this computer.
    pub offline: bool,
}

/// The text of a listing as it may be shown.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize, TS)]
#[serde(rename_all = "camelCase")]
#[ts(export)]
pub struct ListingText {
    pub name: String,
    pub title: String,
    pub description: String,
    pub version: String,
    pub repository: Option<String>,
    pub status_message: Option<String>,
    /// What it ships: `npm`, `pypi`, `oci`, `mcpb`, `remote`.
    pub kinds: Vec<String>,
}

impl Listing {
    /// The listing's text, hidden characters revealed and lengths capped.
    pub fn shown(&self) -> ListingText {
        let s = &self.server;
        ListingText {
            name: text::shown(&s.name, text::SHORT),
            title: text::shown(s.title.as_deref().unwrap_or(&s.name), text::SHORT),
            description: text::shown(&s.description, text::LONG),
            version: text::shown(&s.version, text::SHORT),
            repository: s
                .repository
                .as_ref()
                .map(|r| text::shown(&r.url, text::SHORT)),
            status_message: self
                .status_message
                .as_deref()
                .map(|m| text::shown(m, text::LONG)),
            kinds: self.kinds(),
        }
    }

    /// What it ships, each kind once, packages first.
    pub fn kinds(&self) -> Vec<String> {
        let mut kinds: Vec<String> = Vec::new();
        let packages = self.server.packages.iter();
        let all = packages
            .map(|p| text::shown(&p.registry_type, 16))
            .chain((!self.server.remotes.is_empty()).then(|| "remote".to_owned()));
        for kind in all {
            if !kinds.contains(&kind) {
                kinds.push(kind);
            }
        }
        kinds
    }

    /// Whether it may be installed: neither deprecated nor deleted.
    pub fn offered(&self) -> bool {
        self.status == Status::Active
    }
}

/// The wire's `ServerList`.
#[derive(Deserialize)]
struct WireList {
    servers: Vec<serde_json::Value>,
    #[serde(default)]
    metadata: Option<WireMetadata>,
}

#[derive(Deserialize)]
#[serde(rename_all = "camelCase")]
struct WireMetadata {
    #[serde(default)]
    next_cursor: Option<String>,
}

/// The wire's `ServerResponse`.
#[derive(Deserialize)]
struct WireResponse {
    server: ServerDetail,
    #[serde(default, rename = "_meta")]
    meta: Option<serde_json::Map<String, serde_json::Value>>,
}

#[derive(Deserialize, Default)]
#[serde(rename_all = "camelCase")]
struct Official {
    #[serde(default)]
    status: Option<String>,
    #[serde(default)]
    status_message: Option<String>,
    #[serde(default)]
    is_latest: bool,
    #[serde(default)]
    updated_at: Option<String>,
}

/// `url` as a registry's base URL, as the gallery calls it (no trailing slash): https, or http on
/// this computer's loopback only, never plain http across a network.
pub fn base_url(url: &str) -> Result<Url> {
    let base = Url::parse(url.trim_end_matches('/'))
        .map_err(|e| invalid(format!("The registry URL {url:?} is not a URL: {e}.")))?;
    let loopback = matches!(
        base.host(),
        Some(url::Host::Ipv4(a)) if a.is_loopback()
    ) || matches!(base.host(), Some(url::Host::Ipv6(a)) if a.is_loopback())
        || base.host_str() == Some("localhost");
    if base.scheme() != "https" && !(base.scheme() == "http" && loopback) {
        return Err(invalid(format!(
            "The registry URL {url:?} must use https (plain http only on this computer)."
        )));
    }
    Ok(base)
}

impl Registry {
    /// The registry at `url`: https, or http on this computer's loopback only (a test or a local
    /// mirror), never plain http across a network.
    pub fn new(url: &str) -> Result<Self> {
        let base = base_url(url)?;
        let http = reqwest::Client::builder()
            .timeout(TIMEOUT)
            .build()
            .map_err(|e| Error::new(ErrorCode::Internal, format!("HTTP client: {e}")))?;
        Ok(Self { base, http })
    }

    /// The registry's base URL as given.
    pub fn url(&self) -> &str {
        self.base.as_str().trim_end_matches('/')
    }

    /// One page of the latest version of each server matching `query`.
    pub async fn search(&self, query: &Query) -> Result<Page> {
        let mut url = self.endpoint(&["v0.1", "servers"])?;
        {
            let mut pairs = url.query_pairs_mut();
            pairs.append_pair("version", "latest");
            let limit = query.limit.unwrap_or(30).clamp(1, MAX_LIMIT);
            pairs.append_pair("limit", &limit.to_string());
            for (key, value) in [
                ("search", &query.search),
                ("cursor", &query.cursor),
                ("updated_since", &query.updated_since),
            ] {
                if let Some(v) = value.as_deref().filter(|v| !v.is_empty()) {
                    pairs.append_pair(key, v);
                }
            }
        }
        self.page(url).await
    }

    /// Every version of server `name`, newest first.
    pub async fn versions(&self, name: &str) -> Result<Vec<Listing>> {
        check_name(name)?;
        let url = self.endpoint(&["v0.1", "servers", name, "versions"])?;
        Ok(self.page(url).await?.servers)
    }

    /// Server `name` at `version` (an exact version, or `latest`).
    pub async fn version(&self, name: &str, version: &str) -> Result<Listing> {
        check_name(name)?;
        if version != "latest" && !text::is_exact_version(version) {
            return Err(invalid(format!(
                "{:?} is not an exact version.",
                text::shown(version, 64)
            )));
        }
        let url = self.endpoint(&["v0.1", "servers", name, "versions", version])?;
        let body = self.get(url).await?;
        let one: serde_json::Value = serde_json::from_slice(&body).map_err(|e| bad_answer(&e))?;
        self.listing(one)?
            .ok_or_else(|| bad_answer(&"the server's name is not a registry name"))
    }

    /// `base/v0.1/…` with each segment escaped (a name's `/` becomes `%2F`, as the API says).
    fn endpoint(&self, segments: &[&str]) -> Result<Url> {
        let mut url = self.base.clone();
        url.path_segments_mut()
            .map_err(|()| invalid("The registry URL cannot take a path."))?
            .pop_if_empty()
            .extend(segments);
        Ok(url)
    }

    async fn page(&self, url: Url) -> Result<Page> {
        let body = self.get(url).await?;
        let list: WireList = serde_json::from_slice(&body).map_err(|e| bad_answer(&e))?;
        let mut page = Page {
            next_cursor: list
                .metadata
                .and_then(|m| m.next_cursor)
                .filter(|c| !c.is_empty()),
            ..Page::default()
        };
        for entry in list.servers {
            match self.listing(entry) {
                Ok(Some(listing)) => page.servers.push(listing),
                Ok(None) | Err(_) => page.skipped += 1,
            }
        }
        Ok(page)
    }

    /// One `ServerResponse`; `None` when its name is not a registry name.
    fn listing(&self, entry: serde_json::Value) -> Result<Option<Listing>> {
        let wire: WireResponse = serde_json::from_value(entry).map_err(|e| bad_answer(&e))?;
        if !text::is_server_name(&wire.server.name) {
            tracing::warn!("a registry entry with an invalid name was left out");
            return Ok(None);
        }
        let official: Official = wire
            .meta
            .and_then(|mut m| m.remove(OFFICIAL_META))
            .and_then(|v| serde_json::from_value(v).ok())
            .unwrap_or_default();
        let status = match official.status.as_deref() {
            Some("deprecated") => Status::Deprecated,
            Some("deleted") => Status::Deleted,
            _ => Status::Active,
        };
        let mut listing = Listing {
            registry: self.url().to_owned(),
            server: wire.server,
            status,
            status_message: official.status_message,
            is_latest: official.is_latest,
            updated_at: official.updated_at,
            text: ListingText::default(),
        };
        listing.text = listing.shown();
        Ok(Some(listing))
    }

    /// The body of a GET, read up to the cap.
    async fn get(&self, url: Url) -> Result<Vec<u8>> {
        let unreachable = |e: reqwest::Error| {
            Error::new(
                ErrorCode::ConnectFailed,
                format!("The registry at {} could not be reached.", self.url()),
            )
            .with_details(e.to_string())
        };
        let mut response = self.http.get(url).send().await.map_err(unreachable)?;
        let status = response.status();
        if status == reqwest::StatusCode::NOT_FOUND {
            return Err(Error::new(
                ErrorCode::ServerNotFound,
                "The registry has no such server or version.",
            ));
        }
        if !status.is_success() {
            return Err(Error::new(
                ErrorCode::ServerError,
                format!("The registry answered with HTTP {}.", status.as_u16()),
            ));
        }
        let mut body = Vec::new();
        while let Some(chunk) = response.chunk().await.map_err(unreachable)? {
            if body.len() + chunk.len() > MAX_RESPONSE_BYTES {
                return Err(Error::new(
                    ErrorCode::MessageTooLarge,
                    format!(
                        "The registry's answer is larger than {} MB, so it was not read.",
                        MAX_RESPONSE_BYTES >> 20
                    ),
                ));
            }
            body.extend_from_slice(&chunk);
        }
        Ok(body)
    }
}

fn check_name(name: &str) -> Result<()> {
    if text::is_server_name(name) {
        Ok(())
    } else {
        Err(invalid(format!(
            "{:?} is not a registry server name (namespace/name).",
            text::shown(name, 64)
        )))
    }
}

fn invalid(message: impl Into<String>) -> Error {
    Error::new(ErrorCode::InvalidInput, message)
}

fn bad_answer(why: &dyn std::fmt::Display) -> Error {
    Error::new(
        ErrorCode::ServerError,
        "The registry's answer is not the MCP Registry's format.",
    )
    .with_details(why.to_string())
}
