//! The client side of the Skills extension (SEP-2640, `io.modelcontextprotocol/skills`).
//!
//! A server's skills are listed by their entries only (name, description, the files each
//! holds): nothing of a skill is fetched ahead of need, not on connecting, listing or showing.
//! A skill's `SKILL.md` is read when the person loads it, a supporting file when it is asked
//! for; every read is checked against the entry held (size, then sha256 digest, and for
//! `SKILL.md` its frontmatter field by field) and content that fails is never used. Only the
//! files the entry lists are read, only from the server that listed them. All of it is the
//! server's text: hostile until the person has seen it. A server that lists directories
//! (`directoryRead`) has a skill's folder listed with `resources/directory/read`: names only,
//! each a direct child of the folder asked for.

use base64::Engine;
use rmcp::model::{ClientRequest, CustomRequest, ResourceContents, ServerResult};
use serde::{Deserialize, Serialize};
use serde_json::{Map, Value, json};
use sha2::Digest;
use ts_rs::TS;

use super::Connection;
use crate::error::{Error, ErrorCode, Result};

/// The extension's identifier, under `capabilities.extensions`.
pub const EXTENSION: &str = "io.modelcontextprotocol/skills";

/// The most files and bytes of one skill a host must accept; more is refused.
pub const MAX_FILES: usize = 512;
pub const MAX_SKILL_BYTES: u64 = 16 << 20;

/// Bounds on one server's listing.
const MAX_PAGES: usize = 100;
const MAX_SKILLS: usize = 10_000;

/// The longest frontmatter read (the YAML between the `---` lines).
const MAX_FRONTMATTER: usize = 64 * 1024;

/// One skill as its server lists it.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, TS)]
#[serde(rename_all = "camelCase")]
#[ts(export)]
pub struct Skill {
    /// The URI of its `SKILL.md`.
    pub uri: String,
    /// `frontmatter.name`.
    pub name: String,
    /// `frontmatter.description`.
    pub description: String,
    /// The whole frontmatter as the server sent it.
    #[ts(type = "Record<string, unknown>")]
    pub frontmatter: Map<String, Value>,
    /// Every file of the skill (`SKILL.md` too), or `None` when the server says the set is
    /// dynamic (then `SKILL.md` is checked by its frontmatter alone, and the other files of its
    /// folder have nothing to be checked by).
    pub files: Option<Vec<SkillFile>>,
}

/// One file of a skill as its entry lists it.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, TS)]
#[ts(export)]
pub struct SkillFile {
    pub uri: String,
    /// `sha256:` and 64 lowercase hex digits.
    pub digest: String,
    /// Bytes.
    #[ts(type = "number")]
    pub size: u64,
}

/// One child of a directory resource, as `resources/directory/read` lists it (the server's
/// word: names are shown revealed, nothing is read).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, TS)]
#[serde(rename_all = "camelCase")]
#[ts(export)]
pub struct DirectoryEntry {
    pub uri: String,
    pub name: String,
    pub mime_type: Option<String>,
    /// A directory (`inode/directory`): listed again to go down into it.
    pub directory: bool,
}

/// The most children of one directory kept.
const MAX_DIRECTORY_ENTRIES: usize = 10_000;

/// A skill's `SKILL.md`, read and checked.
#[derive(Debug, Clone, PartialEq, Serialize, TS)]
#[serde(rename_all = "camelCase")]
#[ts(export)]
pub struct LoadedSkill {
    pub skill: Skill,
    /// The whole `SKILL.md`, frontmatter included.
    pub text: String,
}

impl Connection {
    /// Whether the server offers skills (declares the extension and resources).
    pub fn offers_skills(&self) -> bool {
        let caps = &self.summary().capabilities;
        caps.get("extensions")
            .and_then(|e| e.get(EXTENSION))
            .is_some_and(Value::is_object)
            && self.has_capability("resources")
    }

    /// Every skill the server lists, following every cursor. An entry that breaks the
    /// extension's rules is left out (and logged); the others are kept.
    pub async fn list_skills(&self) -> Result<Vec<Skill>> {
        self.require_skills()?;
        let (mut skills, mut cursor, mut seen) = (Vec::new(), None::<String>, Vec::new());
        for _ in 0..MAX_PAGES {
            let params = cursor
                .as_ref()
                .map_or(json!({}), |c| json!({ "cursor": c }));
            let page = self.skills_request("skills/list", params).await?;
            for entry in page
                .get("skills")
                .and_then(Value::as_array)
                .into_iter()
                .flatten()
            {
                match Skill::from_entry(entry) {
                    Ok(skill) => skills.push(skill),
                    Err(why) => {
                        tracing::warn!(server = %self.inner.server, "skill left out: {why}")
                    }
                }
            }
            if skills.len() > MAX_SKILLS {
                return Err(self.list_too_long(format!("more than {MAX_SKILLS} skills")));
            }
            match page.get("nextCursor").and_then(Value::as_str) {
                Some(next) if !next.is_empty() => {
                    if seen.iter().any(|s| s == next) {
                        return Err(self.list_too_long(format!("the cursor {next:?} twice")));
                    }
                    seen.push(next.to_owned());
                    cursor = Some(next.to_owned());
                }
                _ => return Ok(skills),
            }
        }
        Err(self.list_too_long(format!("more than {MAX_PAGES} pages")))
    }

    /// The server's current entry for the skill whose `SKILL.md` is `uri`.
    pub async fn get_skill(&self, uri: &str) -> Result<Skill> {
        self.require_skills()?;
        let answer = self
            .skills_request("skills/get", json!({ "uri": uri }))
            .await?;
        let entry = answer.get("skill").unwrap_or(&Value::Null);
        Skill::from_entry(entry).map_err(|why| self.bad_skill(why))
    }

    /// The entry to check skill `reference` by (the URI of its `SKILL.md`, or its name when
    /// only one skill of the server has it): the one the server lists, else (a listing may be
    /// partial) the one it gives for that URI.
    pub async fn held_skill(&self, reference: &str) -> Result<Skill> {
        let listed = self.list_skills().await?;
        if let Some(skill) = listed.iter().find(|s| s.uri == reference) {
            return Ok(skill.clone());
        }
        let named: Vec<&Skill> = listed.iter().filter(|s| s.name == reference).collect();
        match named.as_slice() {
            [one] => Ok((*one).clone()),
            [] => self.get_skill(reference).await,
            many => Err(Error::new(
                ErrorCode::InvalidInput,
                format!(
                    "server {:?} has {} skills named {:?}; give one's URI: {}",
                    self.inner.server,
                    many.len(),
                    crate::visible::reveal(reference),
                    many.iter()
                        .map(|s| crate::visible::reveal(&s.uri).into_owned())
                        .collect::<Vec<_>>()
                        .join(", ")
                ),
            )),
        }
    }

    /// Reads `skill`'s `SKILL.md` and checks it against the entry: size and digest when the
    /// entry lists its files, and the frontmatter field by field always. A skill that fails is
    /// not loaded.
    pub async fn load_skill(&self, skill: &Skill) -> Result<LoadedSkill> {
        let bytes = self.read_skill_file(skill, &skill.uri).await?;
        let text = String::from_utf8(bytes)
            .map_err(|_| self.unverified(skill, &skill.uri, "it is not UTF-8 text"))?;
        let read = frontmatter(&text).map_err(|why| self.unverified(skill, &skill.uri, &why))?;
        if read != skill.frontmatter {
            let field = differing_field(&read, &skill.frontmatter);
            return Err(self.unverified(
                skill,
                &skill.uri,
                &format!("its frontmatter's {field:?} differs from the listing"),
            ));
        }
        Ok(LoadedSkill {
            skill: skill.clone(),
            text,
        })
    }

    /// Reads file `uri` of `skill` and checks it against the entry. Only a file the entry lists
    /// is read; for a dynamic skill (no list to check by), its `SKILL.md` or a file in its
    /// folder, bounded by a skill's size.
    pub async fn read_skill_file(&self, skill: &Skill, uri: &str) -> Result<Vec<u8>> {
        let listed = match &skill.files {
            Some(files) => match files.iter().find(|f| f.uri == uri) {
                Some(file) => Some(file.clone()),
                None => {
                    return Err(self.unverified(
                        skill,
                        uri,
                        "the skill's listing does not name it",
                    ));
                }
            },
            None if uri == skill.uri || in_folder(&skill.uri, uri) => None,
            None => {
                return Err(self.unverified(skill, uri, "it is not in the skill's folder"));
            }
        };
        let read = self.read_resource(uri).await?;
        let bytes =
            contents_bytes(&read.contents, uri).map_err(|why| self.unverified(skill, uri, &why))?;
        if let Some(file) = listed {
            check_file(&bytes, &file).map_err(|why| self.unverified(skill, uri, &why))?;
        } else if bytes.len() as u64 > MAX_SKILL_BYTES {
            return Err(self.unverified(skill, uri, "it is larger than a skill may be"));
        }
        Ok(bytes)
    }

    /// Whether the server lists directories (`directoryRead` in its skills extension).
    pub fn reads_directories(&self) -> bool {
        self.summary()
            .capabilities
            .get("extensions")
            .and_then(|e| e.get(EXTENSION))
            .and_then(|s| s.get("directoryRead"))
            .and_then(Value::as_bool)
            .unwrap_or(false)
    }

    /// The direct children of directory `uri` (`resources/directory/read`, every page), only
    /// where the server declared it lists directories. A child whose URI is not directly
    /// beneath `uri` is left out (and logged): a listing names its own directory's children.
    pub async fn read_directory(&self, uri: &str) -> Result<Vec<DirectoryEntry>> {
        if !self.reads_directories() {
            return Err(Error::new(
                ErrorCode::NotSupported,
                format!("server {:?} does not list directories", self.inner.server),
            ));
        }
        let (mut entries, mut cursor, mut seen) = (Vec::new(), None::<String>, Vec::new());
        for _ in 0..MAX_PAGES {
            let mut params = json!({ "uri": uri });
            if let Some(c) = &cursor {
                params["cursor"] = json!(c);
            }
            let page = self
                .skills_request("resources/directory/read", params)
                .await?;
            let listed = page.get("resources").and_then(Value::as_array);
            for r in listed.into_iter().flatten() {
                match child_of(uri, r) {
                    Some(entry) => entries.push(entry),
                    None => tracing::warn!(
                        server = %self.inner.server,
                        "directory entry left out: not a child of {uri:?}"
                    ),
                }
            }
            if entries.len() > MAX_DIRECTORY_ENTRIES {
                return Err(
                    self.list_too_long(format!("more than {MAX_DIRECTORY_ENTRIES} entries"))
                );
            }
            match page.get("nextCursor").and_then(Value::as_str) {
                Some(next) if !next.is_empty() && !seen.iter().any(|s| s == next) => {
                    seen.push(next.to_owned());
                    cursor = Some(next.to_owned());
                }
                Some(next) if !next.is_empty() => {
                    return Err(self.list_too_long(format!("the cursor {next:?} twice")));
                }
                _ => return Ok(entries),
            }
        }
        Err(self.list_too_long(format!("more than {MAX_PAGES} pages")))
    }

    fn require_skills(&self) -> Result<()> {
        if self.offers_skills() {
            return Ok(());
        }
        Err(Error::new(
            ErrorCode::NotSupported,
            format!("server {:?} offers no skills", self.inner.server),
        ))
    }

    async fn skills_request(&self, method: &str, params: Value) -> Result<Value> {
        let request = ClientRequest::CustomRequest(CustomRequest::new(method, Some(params)));
        let answer = self.request(request, None).await?;
        // rmcp decodes a result by its shape: whatever variant it chose, its JSON is the answer.
        let value = match answer {
            ServerResult::CustomResult(r) => r.0,
            other => serde_json::to_value(other).unwrap_or(Value::Null),
        };
        Ok(value)
    }

    fn bad_skill(&self, why: String) -> Error {
        Error::new(
            ErrorCode::ServerError,
            format!(
                "server {:?} sent a skill Switchboard cannot use: {why}",
                self.inner.server
            ),
        )
    }

    fn unverified(&self, skill: &Skill, uri: &str, why: &str) -> Error {
        Error::new(
            ErrorCode::ServerError,
            format!(
                "server {:?}'s skill {:?}: {} was not used: {why}",
                self.inner.server,
                crate::visible::reveal(&skill.name),
                crate::visible::reveal(uri)
            ),
        )
    }
}

impl Skill {
    /// A listing entry, if it keeps the extension's rules: a `uri`, a frontmatter with a
    /// string `name` and `description` (the name, for a `skill://` URI, the last segment of its
    /// path), and `resources`: `"dynamic"` or at most [`MAX_FILES`] files of at most
    /// [`MAX_SKILL_BYTES`] together, `SKILL.md` among them, each with a sha256 digest.
    fn from_entry(entry: &Value) -> std::result::Result<Self, String> {
        let uri = entry.get("uri").and_then(Value::as_str).ok_or("no uri")?;
        let frontmatter = entry
            .get("frontmatter")
            .and_then(Value::as_object)
            .ok_or("no frontmatter")?
            .clone();
        let text = |k: &str| {
            frontmatter
                .get(k)
                .and_then(Value::as_str)
                .map(str::to_owned)
        };
        let name = text("name").ok_or("the frontmatter has no name")?;
        let description = text("description").ok_or("the frontmatter has no description")?;
        if let Some(path) = uri.strip_prefix("skill://") {
            let dir = path
                .strip_suffix("/SKILL.md")
                .ok_or("its uri does not end in /SKILL.md")?;
            if dir.rsplit('/').next() != Some(name.as_str()) {
                return Err(format!("its uri {uri:?} does not end in its name {name:?}"));
            }
        }
        let files = match entry.get("resources") {
            Some(Value::String(s)) if s == "dynamic" => None,
            Some(Value::Array(list)) => Some(listed_files(list, uri)?),
            _ => return Err("no resources".into()),
        };
        Ok(Self {
            uri: uri.to_owned(),
            name,
            description,
            frontmatter,
            files,
        })
    }
}

/// A listed resource, if it is a direct child of `dir`: its URI is `dir`, a `/` and one
/// segment (a server's listing names its own directory's children, nothing else).
/// The folder of the skill whose `SKILL.md` is `skill_md`; `None` when it is not in one.
pub fn skill_folder(skill_md: &str) -> Option<&str> {
    skill_md
        .strip_suffix("/SKILL.md")
        .filter(|root| !root.is_empty())
}

/// Whether `uri` is beneath the folder of the skill whose `SKILL.md` is `skill_md`: its URI
/// goes on from the folder's with a path of plain names (no `.` or `..`, escaped or not, and no
/// query or fragment), so it cannot name a resource outside the skill.
pub fn in_folder(skill_md: &str, uri: &str) -> bool {
    let Some(rest) = skill_folder(skill_md).and_then(|root| uri.strip_prefix(root)) else {
        return false;
    };
    let Some(path) = rest.strip_prefix('/') else {
        return false;
    };
    let plain = |segment: &str| {
        let unescaped = segment.to_ascii_lowercase().replace("%2e", ".");
        !segment.is_empty() && unescaped != "." && unescaped != ".."
    };
    !path.contains(['?', '#', '\\']) && path.split('/').all(plain)
}

fn child_of(dir: &str, r: &Value) -> Option<DirectoryEntry> {
    let uri = r.get("uri").and_then(Value::as_str)?;
    let rest = uri.strip_prefix(dir)?.strip_prefix('/')?;
    if rest.is_empty() || rest.contains('/') {
        return None;
    }
    let mime_type = r.get("mimeType").and_then(Value::as_str).map(str::to_owned);
    Some(DirectoryEntry {
        uri: uri.to_owned(),
        name: r
            .get("name")
            .and_then(Value::as_str)
            .unwrap_or(rest)
            .to_owned(),
        directory: mime_type.as_deref() == Some("inode/directory"),
        mime_type,
    })
}

fn listed_files(list: &[Value], skill_md: &str) -> std::result::Result<Vec<SkillFile>, String> {
    if list.len() > MAX_FILES {
        return Err(format!("more than {MAX_FILES} files"));
    }
    let files: Vec<SkillFile> = list
        .iter()
        .map(|f| serde_json::from_value::<SkillFile>(f.clone()).map_err(|e| e.to_string()))
        .collect::<std::result::Result<_, _>>()?;
    let total = files
        .iter()
        .try_fold(0u64, |sum, f| sum.checked_add(f.size))
        .filter(|t| *t <= MAX_SKILL_BYTES);
    if total.is_none() {
        return Err("larger than a skill may be".into());
    }
    if let Some(bad) = files.iter().find(|f| hex_digest(&f.digest).is_none()) {
        return Err(format!("the digest of {:?} is not sha256", bad.uri));
    }
    if !files.iter().any(|f| f.uri == skill_md) {
        return Err("its files do not include its SKILL.md".into());
    }
    Ok(files)
}

/// The 64 lowercase hex digits of a `sha256:` digest.
fn hex_digest(digest: &str) -> Option<&str> {
    let hex = digest.strip_prefix("sha256:")?;
    (hex.len() == 64
        && hex
            .bytes()
            .all(|b| b.is_ascii_digit() || (b'a'..=b'f').contains(&b)))
    .then_some(hex)
}

/// Size first (a mismatch is a failure whatever the digest), then the digest.
fn check_file(bytes: &[u8], file: &SkillFile) -> std::result::Result<(), String> {
    if bytes.len() as u64 != file.size {
        return Err(format!(
            "it is {} bytes where the listing says {}",
            bytes.len(),
            file.size
        ));
    }
    let hash = sha2::Sha256::digest(bytes);
    let hex: String = hash.iter().map(|b| format!("{b:02x}")).collect();
    if Some(hex.as_str()) != hex_digest(&file.digest) {
        return Err("its digest differs from the listing".into());
    }
    Ok(())
}

/// The bytes of the one content `uri` names in a `resources/read` answer.
fn contents_bytes(
    contents: &[ResourceContents],
    uri: &str,
) -> std::result::Result<Vec<u8>, String> {
    let found = contents
        .iter()
        .filter_map(|c| serde_json::to_value(c).ok())
        .find(|c| c.get("uri").and_then(Value::as_str) == Some(uri))
        .ok_or("the server's answer holds no content for it")?;
    if let Some(text) = found.get("text").and_then(Value::as_str) {
        return Ok(text.as_bytes().to_vec());
    }
    let blob = found
        .get("blob")
        .and_then(Value::as_str)
        .ok_or("its content is neither text nor a blob")?;
    base64::engine::general_purpose::STANDARD
        .decode(blob)
        .map_err(|_| "its content is not base64".to_owned())
}

/// The YAML frontmatter of a `SKILL.md`, as JSON.
fn frontmatter(text: &str) -> std::result::Result<Map<String, Value>, String> {
    let rest = text
        .strip_prefix("---\n")
        .or_else(|| text.strip_prefix("---\r\n"))
        .ok_or("it has no frontmatter")?;
    let end = rest
        .match_indices("\n---")
        .map(|(i, _)| i)
        .find(|&i| matches!(rest[i + 4..].chars().next(), None | Some('\n' | '\r')))
        .ok_or("its frontmatter does not end")?;
    let yaml = &rest[..=end];
    if yaml.len() > MAX_FRONTMATTER {
        return Err("its frontmatter is too long".into());
    }
    let value: Value =
        serde_yaml_ng::from_str(yaml).map_err(|e| format!("its frontmatter is not YAML: {e}"))?;
    match value {
        Value::Object(map) => Ok(map),
        _ => Err("its frontmatter is not a mapping".into()),
    }
}

/// The first field `a` and `b` disagree on.
fn differing_field(a: &Map<String, Value>, b: &Map<String, Value>) -> String {
    a.keys()
        .chain(b.keys())
        .find(|k| a.get(*k) != b.get(*k))
        .cloned()
        .unwrap_or_default()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_dynamic_skill_s_file_is_one_beneath_its_folder() {
        let md = "skill://acme/report/SKILL.md";
        for inside in [
            "skill://acme/report/data/today.csv",
            "skill://acme/report/a.md",
        ] {
            assert!(in_folder(md, inside), "{inside}");
        }
        for outside in [
            "skill://acme/report",
            "skill://acme/report/",
            "skill://acme/reports/x",
            "skill://acme/other/x",
            "skill://acme/report/../other/SKILL.md",
            "skill://acme/report/data/%2E%2e/../x",
            "skill://acme/report/./x",
            "skill://acme/report//x",
            "skill://acme/report/x?y=1",
            "skill://acme/report/a\\..\\b",
            "file:///etc/passwd",
        ] {
            assert!(!in_folder(md, outside), "{outside}");
        }
        assert!(
            !in_folder("SKILL.md", "/x"),
            "a SKILL.md in no folder has none"
        );
    }

    const MD: &str = "---\nname: pdf\ndescription: Fill PDFs\n---\n\nBody.\n";

    fn digest(bytes: &[u8]) -> String {
        let hash = sha2::Sha256::digest(bytes);
        format!(
            "sha256:{}",
            hash.iter().map(|b| format!("{b:02x}")).collect::<String>()
        )
    }

    fn entry() -> Value {
        json!({
            "uri": "skill://docs/pdf/SKILL.md",
            "frontmatter": { "name": "pdf", "description": "Fill PDFs" },
            "resources": [
                { "uri": "skill://docs/pdf/SKILL.md", "digest": digest(MD.as_bytes()), "size": MD.len() },
            ],
        })
    }

    #[test]
    fn an_entry_keeps_the_extensions_rules_or_is_left_out() {
        let skill = Skill::from_entry(&entry()).unwrap();
        assert_eq!(
            (skill.name.as_str(), skill.files.as_ref().map(Vec::len)),
            ("pdf", Some(1))
        );
        let mut dynamic = entry();
        dynamic["resources"] = json!("dynamic");
        assert_eq!(Skill::from_entry(&dynamic).unwrap().files, None);
        let broken: [(&str, Value); 6] = [
            ("uri", json!("skill://docs/other/SKILL.md")),
            ("uri", json!("skill://docs/pdf/README.md")),
            ("frontmatter", json!({ "name": "pdf" })),
            ("resources", Value::Null),
            (
                "resources",
                json!([{ "uri": "skill://docs/pdf/SKILL.md", "digest": "md5:00", "size": 1 }]),
            ),
            (
                "resources",
                json!([{ "uri": "skill://docs/pdf/x.md", "digest": digest(b""), "size": 0 }]),
            ),
        ];
        for (field, value) in broken {
            let mut e = entry();
            e[field] = value.clone();
            assert!(Skill::from_entry(&e).is_err(), "{field}: {value}");
        }
        let mut many = entry();
        let file = json!({ "uri": "skill://docs/pdf/SKILL.md", "digest": digest(b""), "size": 0 });
        many["resources"] = Value::Array(vec![file; MAX_FILES + 1]);
        assert!(Skill::from_entry(&many).is_err());
        let mut huge = entry();
        huge["resources"][0]["size"] = json!(MAX_SKILL_BYTES + 1);
        assert!(Skill::from_entry(&huge).is_err());
    }

    #[test]
    fn a_file_is_checked_by_size_then_digest() {
        let file = SkillFile {
            uri: "u".into(),
            digest: digest(b"abc"),
            size: 3,
        };
        assert!(check_file(b"abc", &file).is_ok());
        assert!(check_file(b"abcd", &file).unwrap_err().contains("4 bytes"));
        assert!(check_file(b"abd", &file).unwrap_err().contains("digest"));
        let upper = SkillFile {
            digest: digest(b"abc").to_uppercase().replace("SHA256", "sha256"),
            ..file
        };
        assert!(
            check_file(b"abc", &upper).is_err(),
            "digests are lowercase hex"
        );
    }

    #[test]
    fn the_frontmatter_is_read_as_yaml_between_its_lines() {
        let read = frontmatter(MD).unwrap();
        assert_eq!(
            Value::Object(read),
            json!({ "name": "pdf", "description": "Fill PDFs" })
        );
        let crlf = MD.replace('\n', "\r\n");
        assert_eq!(frontmatter(&crlf).unwrap()["name"], "pdf");
        for bad in [
            "no frontmatter",
            "---\nname: x\n",
            "---\n- a list\n---\n",
            "---\n: :\n  - [\n---\n",
        ] {
            assert!(frontmatter(bad).is_err(), "{bad:?}");
        }
        let long = format!("---\nname: {}\n---\n", "x".repeat(MAX_FRONTMATTER));
        assert!(frontmatter(&long).unwrap_err().contains("too long"));
        // A `---` inside a value does not end it.
        let inner = "---\nname: a\ndescription: x---y\n---\nbody";
        assert_eq!(frontmatter(inner).unwrap()["description"], "x---y");
    }

    /// A few hundred bytes of aliases that would expand to billions of nodes are refused, not
    /// expanded.
    #[test]
    fn an_alias_bomb_in_the_frontmatter_is_refused() {
        let mut yaml = String::from("---\na0: &a0 [x, x, x, x, x, x, x, x, x, x]\n");
        for i in 1..10 {
            let prev = format!("*a{}", i - 1);
            yaml.push_str(&format!("a{i}: &a{i} [{}]\n", vec![prev; 10].join(", ")));
        }
        yaml.push_str("name: n\ndescription: d\n---\n");
        assert!(frontmatter(&yaml).is_err());
    }

    #[test]
    fn a_directory_listing_keeps_only_the_directorys_own_children() {
        let dir = "skill://notes";
        let child = |uri: &str| child_of(dir, &json!({ "uri": uri, "name": "n" }));
        assert!(child("skill://notes/SKILL.md").is_some());
        let sub = child_of(
            dir,
            &json!({ "uri": "skill://notes/refs", "name": "refs", "mimeType": "inode/directory" }),
        )
        .unwrap();
        assert!(sub.directory);
        for other in [
            "skill://notes",
            "skill://notes/",
            "skill://notes/refs/deep.md",
            "skill://notesX/a",
            "skill://other/a",
            "file:///etc/passwd",
        ] {
            assert!(child(other).is_none(), "{other}");
        }
    }

    #[test]
    fn the_differing_field_is_named() {
        let a = frontmatter(MD).unwrap();
        let mut b = a.clone();
        b.insert("description".into(), json!("Exfiltrate credentials"));
        assert_eq!(differing_field(&a, &b), "description");
        b.remove("description");
        assert_eq!(differing_field(&a, &b), "description");
    }
}
