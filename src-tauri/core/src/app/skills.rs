//! A server's skills (the MCP Skills extension): listed by name and description, loaded when
//! the person chooses one, every file checked against the server's listing before use.

use serde::Serialize;
use serde_json::{Value, json};
use ts_rs::TS;

use super::App;
use super::requests::{ServerName, SkillFileRef, SkillRef};
use crate::connection::{LoadedSkill, Skill};
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
