//! The MCP Skills extension against the official TypeScript SDK's own skills support
//! (tests/fixtures/skills_server.mjs, @modelcontextprotocol/server's `ext/skills`): the skills are
//! listed by their entries, a skill's SKILL.md is loaded and checked against its entry, and a
//! supporting file is read (checked too) only when asked for. Tampered content is refused by the
//! conformance suite's scenarios (switchboard-cli's `conformance_client_scenarios_pass`).

use crate::support::{Harness, node_bin, repo_root, stdio};

#[tokio::test]
async fn a_servers_skills_are_listed_loaded_and_read_checked_against_their_entries() {
    let server = repo_root().join("tests/fixtures/skills_server.mjs");
    let h = Harness::new();
    let live = h
        .connect("docs", stdio(&node_bin(), &[&server.to_string_lossy()]))
        .await;
    let c = &live.connection;
    assert!(c.offers_skills());

    let skills = c.list_skills().await.unwrap();
    assert_eq!(skills.len(), 1, "{skills:?}");
    let skill = &skills[0];
    assert_eq!(skill.name, "release-notes");
    assert_eq!(skill.uri, "skill://release-notes/SKILL.md");
    assert!(skill.description.starts_with("Write release notes"));
    let files = skill.files.as_ref().unwrap();
    assert_eq!(files.len(), 2, "{files:?}");

    let loaded = c.load_skill(skill).await.unwrap();
    assert!(loaded.text.contains("# Release notes"), "{}", loaded.text);
    // By name too, as the CLI and the window refer to it.
    assert_eq!(c.held_skill("release-notes").await.unwrap(), *skill);

    let style = "skill://release-notes/references/STYLE.md";
    let bytes = c.read_skill_file(skill, style).await.unwrap();
    assert!(
        String::from_utf8(bytes)
            .unwrap()
            .starts_with("Use the past tense")
    );
    // A file the entry does not list is not read, whatever the server would answer.
    let e = c
        .read_skill_file(skill, "skill://release-notes/../../secrets")
        .await
        .unwrap_err();
    assert!(e.message.contains("does not name it"), "{}", e.message);
    live.shutdown().await;
}

/// A skill whose files are dynamic (the SDK's `SkillSource`, `resources: "dynamic"`): its
/// SKILL.md loads (checked by its frontmatter), a file of its folder that no listing names is
/// read when asked for, and a resource outside the folder is never asked for, though the server
/// would serve it.
#[tokio::test]
async fn a_dynamic_skill_reads_the_files_of_its_folder_and_nothing_outside() {
    let server = repo_root().join("tests/fixtures/dynamic_skills_server.mjs");
    let h = Harness::new();
    let live = h
        .connect("reports", stdio(&node_bin(), &[&server.to_string_lossy()]))
        .await;
    let c = &live.connection;
    let skills = c.list_skills().await.unwrap();
    let skill = &skills[0];
    assert_eq!(skill.files, None, "{skill:?}");
    let loaded = c.load_skill(skill).await.unwrap();
    assert!(loaded.text.contains("# Daily report"), "{}", loaded.text);

    let data = c
        .read_skill_file(skill, "skill://daily-report/data/today.csv")
        .await
        .unwrap();
    assert_eq!(data, b"day,figure\nFriday,42\n");
    for outside in [
        "skill://secrets/key",
        "skill://daily-report/../secrets/key",
        "skill://daily-report/data/%2e%2e/../../secrets/key",
    ] {
        let e = c.read_skill_file(skill, outside).await.unwrap_err();
        assert!(
            e.message.contains("not in the skill's folder"),
            "{outside}: {}",
            e.message
        );
        assert!(!e.message.contains("canary"), "{}", e.message);
    }
    live.shutdown().await;
}
