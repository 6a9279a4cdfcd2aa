//! A server's skills (the MCP Skills extension): listed by name and description, loaded when
//! the person chooses one, every file checked against the server's listing before use.

use serde::Serialize;
use serde_json::{Value, json};
use ts_rs::TS;

use super::App;
use super::requests::{ServerName, SkillFileRef, SkillFolderRef, SkillRef};
use crate::connection::{DirectoryEntry, LoadedSkill, Skill, in_folder, skill_folder};
use crate::error::{Error, ErrorCode, Result};
use crate::visible::reveal;

/// A skill loaded for a chat: its checked `SKILL.md`, and the message content that brings it
/// into a conversation, marked with the server it came from.
#[derive(Debug, Clone, Serialize, TS)]
#[serde(rename_all = "camelCase")]
#[ts(export)]
pub struct SkillForChat {
    pub server: String,
    pub loaded: LoadedSkill,
    /// Its server lists folders (`directoryRead`): the skill's folder can be shown.
    pub folder_listed: bool,
    /// Content blocks for a user message: a note naming the skill and its server (and the
    /// skill's other files, which are not read until asked for), then `SKILL.md` as an embedded
    /// resource.
    #[ts(type = "unknown[]")]
    pub content: Value,
}

impl App {
    /// The skills server `args.server` lists (entries only: nothing of a skill is read).
    pub async fn list_skills(&self, args: ServerName) -> Result<Vec<Skill>> {
        self.connection(&args.server)?.list_skills().await
    }

    /// Loads skill `args.uri` of server `args.server`: its `SKILL.md`, checked against the
    /// entry the server lists for it.
    pub async fn load_skill(&self, args: SkillRef) -> Result<SkillForChat> {
        let connection = self.connection(&args.server)?;
        let skill = connection.held_skill(&args.uri).await?;
        let loaded = connection.load_skill(&skill).await?;
        let content = chat_content(&args.server, &loaded);
        Ok(SkillForChat {
            server: args.server,
            loaded,
            folder_listed: connection.reads_directories(),
            content,
        })
    }

    /// One file of a skill as text, checked against the skill's entry.
    pub async fn read_skill_file(&self, args: SkillFileRef) -> Result<String> {
        let connection = self.connection(&args.server)?;
        let skill = connection.held_skill(&args.skill).await?;
        let bytes = connection.read_skill_file(&skill, &args.uri).await?;
        String::from_utf8(bytes).map_err(|_| {
            Error::new(
                ErrorCode::NotSupported,
                format!("{} is not text", reveal(&args.uri)),
            )
        })
    }
}

impl App {
    /// What a folder of a skill holds (its root when `args.uri` is null), as its server lists
    /// it: names only, nothing read. Only the skill's own folder and those beneath it.
    pub async fn skill_folder(&self, args: SkillFolderRef) -> Result<Vec<DirectoryEntry>> {
        let connection = self.connection(&args.server)?;
        let skill = connection.held_skill(&args.skill).await?;
        let folder = folder_of(&skill.uri, args.uri.as_deref())?;
        connection.read_directory(&folder).await
    }
}

/// The folder `asked` of the skill whose `SKILL.md` is `skill_md` (its root when none is
/// asked): the root or a folder beneath it, else refused.
fn folder_of(skill_md: &str, asked: Option<&str>) -> Result<String> {
    let refused = |why: &str| Error::new(ErrorCode::InvalidInput, why.to_owned());
    let root =
        skill_folder(skill_md).ok_or_else(|| refused("the skill's SKILL.md is not in a folder"))?;
    let Some(asked) = asked else {
        return Ok(root.to_owned());
    };
    let folder = asked.trim_end_matches('/');
    if folder == root || in_folder(skill_md, folder) {
        Ok(folder.to_owned())
    } else {
        Err(refused(&format!(
            "{} is not a folder of the skill {}",
            reveal(asked),
            reveal(root)
        )))
    }
}

/// The content that brings `loaded` into a conversation. The note says where it came from
/// (the person's name for the server, never what the server calls itself) and that it is the
/// server's text, not the person's.
fn chat_content(server: &str, loaded: &LoadedSkill) -> Value {
    let skill = &loaded.skill;
    let others: Vec<String> = skill
        .files
        .iter()
        .flatten()
        .filter(|f| f.uri != skill.uri)
        .map(|f| reveal(&f.uri).into_owned())
        .collect();
    let mut note = format!(
        "Skill {:?} from server {:?}, loaded by the user. Its instructions follow; they are the \
         server's text.",
        reveal(&skill.name),
        reveal(server)
    );
    if !others.is_empty() {
        note.push_str(&format!(
            " Its other files (not loaded; ask the user for one if you need it): {}.",
            others.join(", ")
        ));
    }
    let end = format!(
        "End of skill {:?} from server {:?}; what follows is the user's own.",
        reveal(&skill.name),
        reveal(server)
    );
    json!([
        { "type": "text", "text": note },
        {
            "type": "resource",
            "resource": { "uri": skill.uri, "mimeType": "text/markdown", "text": loaded.text },
        },
        { "type": "text", "text": end },
    ])
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::connection::SkillFile;

    #[test]
    fn only_a_skills_own_folders_are_listed() {
        let md = "skill://acme/notes/SKILL.md";
        assert_eq!(folder_of(md, None).unwrap(), "skill://acme/notes");
        for ok in [
            "skill://acme/notes",
            "skill://acme/notes/refs",
            "skill://acme/notes/refs/",
        ] {
            assert!(folder_of(md, Some(ok)).is_ok(), "{ok}");
        }
        for refused in [
            "skill://acme",
            "skill://acme/notes2",
            "skill://acme/notes/../other",
            "skill://other/notes",
            "file:///etc",
        ] {
            assert!(folder_of(md, Some(refused)).is_err(), "{refused}");
        }
        assert!(folder_of("skill://notes.md", None).is_err());
    }

    #[test]
    fn a_loaded_skill_comes_into_a_chat_marked_with_its_server_and_its_files_unread() {
        let file = |uri: &str| SkillFile {
            uri: uri.into(),
            digest: String::new(),
            size: 0,
        };
        let loaded = LoadedSkill {
            skill: Skill {
                uri: "skill://notes/SKILL.md".into(),
                name: "notes\u{202e}".into(),
                description: "d".into(),
                frontmatter: Default::default(),
                files: Some(vec![
                    file("skill://notes/SKILL.md"),
                    file("skill://notes/STYLE.md"),
                ]),
            },
            text: "---\nname: notes\n---\nDo this.".into(),
        };
        let content = chat_content("docs", &loaded);
        let note = content[0]["text"].as_str().unwrap();
        assert!(note.contains("from server \"docs\""), "{note}");
        assert!(
            note.contains("skill://notes/STYLE.md") && !note.contains('\u{202e}'),
            "{note}"
        );
        assert_eq!(content[1]["resource"]["text"], loaded.text);
        assert_eq!(content[1]["resource"]["uri"], "skill://notes/SKILL.md");
        // The server's text is closed off: what follows it is the person's.
        assert!(
            content[2]["text"]
                .as_str()
                .unwrap()
                .starts_with("End of skill")
        );
    }
}
