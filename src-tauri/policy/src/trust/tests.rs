use std::path::PathBuf;

use super::*;

fn server() -> ServerConfig {
    ServerConfig::stdio("npx", vec!["-y".into(), "@scope/server".into()])
}

fn trust() -> (Arc<Store>, Trust) {
    let store = Arc::new(Store::in_memory().unwrap());
    let trust = Trust::load(store.clone()).unwrap();
    (store, trust)
}

#[test]
fn the_digest_covers_what_runs_and_nothing_else() {
    let base = launch_digest(&server());
    let mut settings = server();
    settings.enabled = false;
    settings.request_timeout_secs = Some(5);
    settings.max_total_secs = Some(50);
    assert_eq!(launch_digest(&settings), base, "settings are not launch");

    let changes: Vec<fn(&mut ServerConfig)> = vec![
        |c| c.command = Some("npx2".into()),
        |c| c.args.push("--evil".into()),
        |c| c.cwd = Some("/tmp".into()),
        |c| {
            c.env
                .insert("NODE_OPTIONS".into(), "--require /tmp/x.js".into());
        },
        |c| c.env_file = Some("/tmp/.env".into()),
        |c| {
            c.headers.insert("X".into(), "y".into());
        },
        |c| c.kind = Some("sse".into()),
        // What widens its reach or what Switchboard does for it.
        |c| c.roots = Some(vec![PathBuf::from("/tmp")]),
        |c| c.sampling = Some(Default::default()),
        |c| c.max_message_bytes = Some(1 << 30),
        |c| c.oauth = Some(Default::default()),
    ];
    for change in changes {
        let mut c = server();
        change(&mut c);
        assert_ne!(launch_digest(&c), base, "{c:?}");
    }
    let remote = ServerConfig::remote("https://a.example/mcp", Default::default());
    let mut other = remote.clone();
    other.url = Some("https://b.example/mcp".into());
    assert_ne!(launch_digest(&remote), launch_digest(&other));
    other.url = remote.url.clone();
    other.transport = crate::config::RemoteTransport::Sse;
    assert_ne!(launch_digest(&remote), launch_digest(&other));
}

/// The global roots a local server inherits are what its box may write, so they are trusted like
/// its own; a remote server cannot reach this computer's files through them.
#[test]
fn a_local_server_is_trusted_with_the_global_roots_it_inherits() {
    let global = vec![PathBuf::from("/home/me/projects")];
    let inheriting = |config: &ServerConfig, roots: &[PathBuf]| {
        let mut c = config.clone();
        c.inherit_roots(roots);
        launch_digest(&c)
    };
    let local = server();
    // None inherited: as before global roots counted, so earlier trust holds.
    assert_eq!(inheriting(&local, &[]), launch_digest(&local));
    assert_ne!(inheriting(&local, &global), launch_digest(&local));
    let mut wider = global.clone();
    wider.push(PathBuf::from("/home/me/.ssh"));
    assert_ne!(inheriting(&local, &wider), inheriting(&local, &global));
    // The same folders are the same reach, whether its own or inherited.
    let mut own = local.clone();
    own.roots = Some(global.clone());
    assert_eq!(inheriting(&local, &global), launch_digest(&own));
    assert_eq!(inheriting(&own, &wider), launch_digest(&own), "its own win");

    let remote = ServerConfig::remote("https://a.example/mcp", Default::default());
    assert_eq!(inheriting(&remote, &global), launch_digest(&remote));

    let mut shown = local.clone();
    shown.inherit_roots(&wider);
    let (_store, trust) = trust();
    let text = LaunchReview::of("fs", &shown, &trust).text();
    assert!(
        text.contains("Roots (the global ones): \"/home/me/projects\", \"/home/me/.ssh\""),
        "{text}"
    );
}

#[test]
fn trust_is_per_definition_kept_across_a_rename_and_asked_again_on_a_change() {
    let (store, trust) = trust();
    assert_eq!(trust.verdict("fs", &server()), TrustVerdict::New);
    assert!(!trust.admit("fs", &server()));
    trust.grant("fs", &server()).unwrap();
    assert!(trust.admit("fs", &server()));
    // Renamed by hand: the same definition under a new name still runs.
    assert!(trust.admit("files", &server()));

    let mut changed = server();
    changed.args.push("--evil".into());
    assert_eq!(trust.verdict("fs", &changed), TrustVerdict::Changed);
    assert!(!trust.admit("fs", &changed));
    let e = trust.refusal("fs", &changed);
    assert_eq!(e.code, ErrorCode::NotTrusted);
    assert!(e.message.contains("switchboard-cli trust fs"), "{e}");

    // Survives a restart of the app.
    let again = Trust::load(store).unwrap();
    assert_eq!(again.verdict("fs", &server()), TrustVerdict::Trusted);
    assert_eq!(again.verdict("fs", &changed), TrustVerdict::Changed);
}

#[test]
fn a_name_that_turns_up_with_another_trusted_definition_asks_again() {
    let (_store, trust) = trust();
    let mut evil = server();
    evil.command = Some("/tmp/evil".into());
    trust.grant("github", &server()).unwrap();
    trust.grant("toy", &evil).unwrap();
    // Someone moves the trusted "toy" definition under the name that holds the rules.
    assert_eq!(trust.verdict("github", &evil), TrustVerdict::Changed);
    assert!(!trust.admit("github", &evil));
}

#[test]
fn renames_move_the_binding_and_removal_revokes_an_unused_definition() {
    let (store, trust) = trust();
    trust.grant("a", &server()).unwrap();
    trust.rename("a", "b").unwrap();
    assert_eq!(trust.verdict("b", &server()), TrustVerdict::Trusted);
    let mut other = server();
    other.args.clear();
    // "a" is free again: a different definition there is just new.
    assert_eq!(trust.verdict("a", &other), TrustVerdict::New);

    let copy = server();
    trust.forget("b", &[&copy]).unwrap();
    assert_eq!(
        trust.verdict("c", &server()),
        TrustVerdict::Trusted,
        "still in use"
    );
    trust.grant("c", &server()).unwrap();
    trust.forget("c", &[]).unwrap();
    assert_eq!(trust.verdict("c", &server()), TrustVerdict::New);
    assert_eq!(
        Trust::load(store).unwrap().verdict("d", &server()),
        TrustVerdict::New
    );
}

#[test]
fn the_review_shows_every_field_with_hidden_characters_revealed() {
    let mut c = server();
    c.args.push("ok\u{e0041}\u{e0042}".into());
    c.env
        .insert("TOKEN".into(), "${secret:server/fs/env/TOKEN}".into());
    c.cwd = Some("/work dir".into());
    c.env_file = Some("/home/me/.env".into());
    let (_store, trust) = trust();
    let review = LaunchReview::of("fs", &c, &trust);
    assert_eq!(review.digest, launch_digest(&c));
    assert_eq!(review.verdict, TrustVerdict::New);
    assert!(review.hidden_characters);
    let text = review.text();
    for shown in [
        "Command: \"npx\"",
        "Arguments:\n  1. \"-y\"\n  2. \"@scope/server\"\n  3. \"ok⟨U+E0041⟩⟨U+E0042⟩\"\n",
        "Working directory: \"/work dir\"",
        "Environment file: \"/home/me/.env\"",
        "TOKEN=\"${secret:server/fs/env/TOKEN}\"",
        "hidden characters",
    ] {
        assert!(text.contains(shown), "{shown:?} missing from:\n{text}");
    }
}

#[test]
fn a_changed_definition_is_shown_field_by_field_with_each_argument_quoted() {
    let (store, trust) = trust();
    trust.grant("fs", &server()).unwrap();
    let mut changed = server();
    changed.args = vec!["-y".into(), "@scope/server two".into()];
    changed.env.insert("LD_PRELOAD".into(), "/tmp/x.so".into());
    let review = LaunchReview::of("fs", &changed, &trust);
    assert_eq!(review.verdict, TrustVerdict::Changed);
    let fields: Vec<&str> = review.changes.iter().map(|c| c.path.as_str()).collect();
    assert_eq!(fields, ["/args", "/env/LD_PRELOAD"]);
    let text = review.text();
    assert!(
        text.contains("  1. \"-y\"\n  2. \"@scope/server two\"\n"),
        "{text}"
    );
    assert!(
        text.contains(
            "  \"args\"\n    was: \"-y\", \"@scope/server\"\n    now: \"-y\", \"@scope/server two\"\n"
        ),
        "{text}"
    );
    assert!(
        text.contains("  \"env\" › \"LD_PRELOAD\"\n    was: (not set)\n    now: \"/tmp/x.so\"\n"),
        "{text}"
    );
    // Kept across restarts: a new process compares with the same trusted definition.
    let again = Trust::load(store).unwrap();
    assert_eq!(
        LaunchReview::of("fs", &changed, &again).changes,
        review.changes
    );
}

#[test]
fn the_sandbox_is_part_of_what_is_trusted() {
    use crate::config::{NetworkSetting, SandboxProfile, SandboxSetting};
    let base = launch_digest(&server());
    let mut default_on = server();
    default_on.sandbox = Some(SandboxSetting::Enabled(true));
    assert_eq!(
        launch_digest(&default_on),
        base,
        "the default box is no change"
    );
    let widened: Vec<SandboxSetting> = vec![
        SandboxSetting::Enabled(false),
        SandboxSetting::Profile(SandboxProfile {
            read: vec![PathBuf::from("/home/u/.aws")],
            ..SandboxProfile::default()
        }),
        SandboxSetting::Profile(SandboxProfile {
            network: NetworkSetting::Hosts(vec!["evil.example".into()]),
            ..SandboxProfile::default()
        }),
    ];
    for setting in widened {
        let mut c = server();
        c.sandbox = Some(setting.clone());
        assert_ne!(launch_digest(&c), base, "{setting:?}");
    }
}

#[test]
fn the_review_shows_what_the_box_lets_it_reach() {
    use crate::config::{NetworkSetting, SandboxProfile, SandboxSetting};
    let (_store, trust) = trust();
    let text = LaunchReview::of("s", &server(), &trust).text();
    assert!(text.contains("Sandbox: on."), "{text}");
    assert!(text.contains("Network: any host"), "{text}");
    let mut c = server();
    c.sandbox = Some(SandboxSetting::Profile(SandboxProfile {
        write: vec![PathBuf::from("/srv/out")],
        network: NetworkSetting::Enabled(false),
        ..SandboxProfile::default()
    }));
    let text = LaunchReview::of("s", &c, &trust).text();
    assert!(text.contains("Also writes: \"/srv/out\""), "{text}");
    assert!(text.contains("Network: none"), "{text}");
    c.sandbox = Some(SandboxSetting::Enabled(false));
    let text = LaunchReview::of("s", &c, &trust).text();
    assert!(text.contains("Sandbox: OFF."), "{text}");
}

#[test]
fn a_server_trusted_before_sandboxing_runs_as_it_did_until_sandboxed() {
    use crate::config::SandboxSetting;
    let (store, trust) = trust();
    trust.grant("old", &server()).unwrap();
    // What migration 0009 wrote for every name bound before it ran.
    store
        .with(|c| {
            c.execute(
                "INSERT INTO unsandboxed_launches (server, digest) SELECT server, digest FROM server_launches",
                [],
            )
            .map(drop)
        })
        .unwrap();
    let trust = Trust::load(store.clone()).unwrap();
    assert_eq!(
        trust.sandbox_state("old", &server()),
        SandboxState::TrustedBefore
    );
    assert_eq!(trust.sandbox("old", &server()), None);
    // Another name, or another definition, is new: sandboxed.
    assert_eq!(
        trust.sandbox_state("new", &server()),
        SandboxState::Sandboxed
    );
    let mut changed = server();
    changed.args.push("--more".into());
    assert_eq!(
        trust.sandbox_state("old", &changed),
        SandboxState::Sandboxed
    );
    // "Sandbox it": the default box, the same digest, still trusted.
    let mut boxed = server();
    boxed.sandbox = Some(SandboxSetting::Enabled(true));
    trust.forget_unsandboxed("old").unwrap();
    assert_eq!(trust.verdict("old", &boxed), TrustVerdict::Trusted);
    let reloaded = Trust::load(store).unwrap();
    assert_eq!(
        reloaded.sandbox_state("old", &server()),
        SandboxState::Sandboxed
    );
}

#[test]
fn a_container_is_its_own_box_unless_the_definition_names_switchboards() {
    use crate::config::SandboxSetting;
    let (_, trust) = trust();
    let run = |command: &str, args: &[&str]| ServerConfig {
        command: Some(command.into()),
        args: args.iter().map(|a| a.to_string()).collect(),
        ..server()
    };
    let docker = run(
        "docker",
        &["run", "--rm", "-i", "ghcr.io/example/weather:1.4.0"],
    );
    assert_eq!(trust.sandbox_state("w", &docker), SandboxState::Container);
    assert_eq!(
        trust.sandbox("w", &docker),
        None,
        "no box around the engine's client"
    );
    let podman = run("/usr/bin/podman", &["run", "-i", "quay.io/example/x:1"]);
    assert_eq!(trust.sandbox_state("p", &podman), SandboxState::Container);
    let mut off = docker.clone();
    off.sandbox = Some(SandboxSetting::Enabled(false));
    assert_eq!(trust.sandbox_state("w", &off), SandboxState::Container);
    // Asked for by name, Switchboard's box is applied (whether the engine then works is the
    // person's call).
    let mut named = docker.clone();
    named.sandbox = Some(SandboxSetting::Enabled(true));
    assert_eq!(trust.sandbox_state("w", &named), SandboxState::Sandboxed);
    // Not a container run: the engine's other commands, a program merely called docker-ish.
    for other in [
        run("docker", &["ps"]),
        run("docker-compose", &["run", "x"]),
        run("node", &["run"]),
    ] {
        assert_eq!(
            trust.sandbox_state("o", &other),
            SandboxState::Sandboxed,
            "{other:?}"
        );
    }
    let text = LaunchReview::of("w", &docker, &trust).text();
    assert!(text.contains("Sandbox: its container"), "{text}");
    // Held by its container or by the box: two things to trust, not one.
    trust.grant("w", &docker).unwrap();
    assert_eq!(trust.verdict("w", &docker), TrustVerdict::Trusted);
    assert_ne!(trust.verdict("w", &named), TrustVerdict::Trusted);
}

/// The check and the spawn share one reading of the env file: a start checked on a reading
/// keeps that reading's verdict (and the spawn uses the same variables), while the next start
/// reads the file again and sees the edit.
#[test]
fn a_start_is_judged_on_the_one_reading_of_the_env_file_it_spawns_with() {
    let dir = tempfile::tempdir().unwrap();
    let file = dir.path().join(".env");
    std::fs::write(&file, "LOG_LEVEL=debug\n").unwrap();
    let mut config = server();
    config.env_file = Some(file.clone());
    let (_store, trust) = trust();
    trust.grant("fs", &config).unwrap();
    let this_start = env_file::read_once(&config);
    std::fs::write(&file, "LOG_LEVEL=debug\nLD_PRELOAD=/tmp/evil.so\n").unwrap();
    assert!(trust.admit("fs", &this_start));
    assert!(!trust.admit("fs", &env_file::read_once(&config)));
}

#[test]
fn what_the_env_file_holds_is_trusted_and_an_edit_to_it_asks_again() {
    let dir = tempfile::tempdir().unwrap();
    let file = dir.path().join(".env");
    std::fs::write(&file, "API_TOKEN=s3cret-value\nLOG_LEVEL=debug\n").unwrap();
    let mut config = server();
    config.env_file = Some(file.clone());
    let (store, trust) = trust();
    trust.grant("fs", &config).unwrap();
    assert!(trust.admit("fs", &config));

    // Someone adds a library to preload: the same config no longer runs.
    std::fs::write(
        &file,
        "API_TOKEN=s3cret-value\nLOG_LEVEL=debug\nLD_PRELOAD=/tmp/evil.so\n",
    )
    .unwrap();
    assert_eq!(trust.verdict("fs", &config), TrustVerdict::Changed);
    assert!(!trust.admit("fs", &config));
    let review = LaunchReview::of("fs", &config, &trust);
    let text = review.text();
    assert!(text.contains("  LD_PRELOAD=\"/tmp/evil.so\"\n"), "{text}");
    assert!(
        text.contains("\"envFileEntries\" › \"LD_PRELOAD\""),
        "{text}"
    );
    // A secret-looking value is masked in the dialog and kept nowhere.
    assert!(text.contains("API_TOKEN=(secret, 12 characters)"), "{text}");
    assert!(!text.contains("s3cret"), "{text}");
    let kept: Vec<String> = store
        .with(|c| {
            let mut q = c.prepare("SELECT definition FROM launch_definitions")?;
            let rows = q.query_map([], |r| r.get(0))?;
            rows.collect::<rusqlite::Result<Vec<String>>>()
        })
        .unwrap();
    assert!(kept.iter().all(|d| !d.contains("s3cret")), "{kept:?}");

    trust.grant("fs", &config).unwrap();
    assert!(trust.admit("fs", &config));
    // A file that is gone asks again too.
    std::fs::remove_file(&file).unwrap();
    assert!(!trust.admit("fs", &config));
    assert!(
        LaunchReview::of("fs", &config, &trust)
            .text()
            .contains("(cannot be read)")
    );
}

#[test]
fn the_review_shows_the_settings_that_widen_reach() {
    let (_store, trust) = trust();
    let mut config = server();
    config.roots = Some(vec![PathBuf::from("/home/me/project")]);
    config.max_message_bytes = Some(1 << 20);
    config.sampling = Some(Default::default());
    let text = LaunchReview::of("fs", &config, &trust).text();
    assert!(text.contains("Roots: \"/home/me/project\"\n"), "{text}");
    assert!(text.contains("Largest message: 1048576 bytes\n"), "{text}");
    assert!(
        text.contains("Sampling limits: 10 requests a minute"),
        "{text}"
    );
}

/// Binding a sign-in's tokens (DPoP) is shown, and asking for it is a change to trust.
#[test]
fn binding_the_tokens_is_shown_and_trusted() {
    let (_store, trust) = trust();
    let mut config = ServerConfig::remote("https://wiki.example/mcp", Default::default());
    config.oauth = Some(crate::config::OAuthClient::default());
    trust.grant("wiki", &config).unwrap();
    if let Some(o) = config.oauth.as_mut() {
        o.dpop = true;
    }
    assert!(!trust.admit("wiki", &config));
    let text = LaunchReview::of("wiki", &config, &trust).text();
    assert!(
        text.contains("tokens bound to a key in the keychain (DPoP)"),
        "{text}"
    );
}

/// A machine grant signs in by itself once trusted: the dialog names the grant and every
/// credential reference it will use, and a change to any of them asks again.
#[test]
fn a_machine_grant_and_its_credentials_are_shown_and_trusted() {
    let (_store, trust) = trust();
    let mut config = ServerConfig::remote("https://reports.example/mcp", Default::default());
    config.oauth = Some(crate::config::OAuthClient {
        grant: crate::config::OAuthGrant::ClientCredentials,
        client_id: Some("bot".into()),
        private_key: Some("${secret:server/reports/key}".into()),
        signing_algorithm: Some("RS256".into()),
        ..Default::default()
    });
    let text = LaunchReview::of("reports", &config, &trust).text();
    assert!(
        text.contains("signs in with no person present (client credentials)"),
        "{text}"
    );
    assert!(
        text.contains("private key \"${secret:server/reports/key}\""),
        "{text}"
    );
    trust.grant("reports", &config).unwrap();
    assert!(trust.admit("reports", &config));
    if let Some(o) = config.oauth.as_mut() {
        o.private_key = Some("${secret:elsewhere}".into());
    }
    assert!(!trust.admit("reports", &config));

    // A key written into the config itself is masked in the dialog and kept nowhere in clear;
    // changing it asks again.
    let pem = "-----BEGIN PRIVATE KEY-----canary-----END PRIVATE KEY-----";
    if let Some(o) = config.oauth.as_mut() {
        o.private_key = Some(pem.into());
    }
    let text = LaunchReview::of("reports", &config, &trust).text();
    assert!(
        !text.contains("canary") && text.contains("written in the config"),
        "{text}"
    );
    trust.grant("reports", &config).unwrap();
    let kept = trust.last_ran("reports").unwrap().to_string();
    assert!(!kept.contains("canary"), "{kept}");
    if let Some(o) = config.oauth.as_mut() {
        o.private_key = Some(pem.replace("canary", "other"));
    }
    assert!(!trust.admit("reports", &config));
}

#[test]
fn plain_http_to_another_computer_is_marked() {
    let (_store, trust) = trust();
    for (url, marked) in [
        ("http://mcp.example.com/mcp", true),
        ("http://192.168.1.20:8080/mcp", true),
        ("https://mcp.example.com/mcp", false),
        ("http://127.0.0.1:3000/mcp", false),
        ("http://localhost:3000/mcp", false),
        ("http://[::1]:3000/mcp", false),
    ] {
        let config = ServerConfig::remote(url, Default::default());
        let review = LaunchReview::of("r", &config, &trust);
        assert_eq!(review.plain_http, marked, "{url}");
        assert_eq!(review.text().contains("plain http://"), marked, "{url}");
    }
}

#[test]
fn no_value_can_fake_a_line_of_the_dialog() {
    let (_store, trust) = trust();
    let mut c = server();
    c.command = Some("npx\nSandbox: on.".into());
    c.env.insert(
        "X".into(),
        "1\nSandbox: on. It may read nothing\tat all".into(),
    );
    c.env.insert("Y\nZ".into(), "2".into());
    c.cwd = Some("/tmp\r\nWorking directory: /safe".into());
    let text = LaunchReview::of("fs\nServer: trusted", &c, &trust).text();
    for shown in [
        "Server: \"fs\\nServer: trusted\"\n",
        "Command: \"npx\\nSandbox: on.\"\n",
        "  X=\"1\\nSandbox: on. It may read nothing\\tat all\"\n",
        "  \"Y\\nZ\"=\"2\"\n",
        "Working directory: \"/tmp⟨U+000D⟩\\nWorking directory: /safe\"\n",
    ] {
        assert!(text.contains(shown), "{shown:?} missing from:\n{text}");
    }
    // Every line is one the dialog wrote: none starts with a value's text.
    assert!(
        !text
            .lines()
            .any(|l| l.starts_with("Sandbox: on. It may read nothing")),
        "{text}"
    );
    let starts = text.lines().filter(|l| l.starts_with("Working directory:"));
    assert_eq!(starts.count(), 1, "{text}");
}

/// Read when used: a grant kept by an earlier run is seen at the first question, and nothing is
/// read (nor the database made) before it.
#[test]
fn trust_read_when_used_sees_what_was_kept_at_its_first_question() {
    let dir = tempfile::tempdir().unwrap();
    let data = dir.path().join("data");
    Trust::load(Arc::new(Store::open(&data).unwrap()))
        .unwrap()
        .grant("s", &server())
        .unwrap();
    let store = Arc::new(Store::open_when_used(&data).unwrap());
    let trust = Trust::load_when_used(store.clone());
    assert!(!store.is_opened());
    assert_eq!(trust.verdict("s", &server()), TrustVerdict::Trusted);
    assert!(store.is_opened());
}

/// A database that cannot be read is said by `ready`, not taken for "nothing trusted" in
/// silence; meanwhile nothing is trusted.
#[test]
fn trust_that_cannot_be_read_says_why() {
    let dir = tempfile::tempdir().unwrap();
    std::fs::write(
        dir.path().join(switchboard_base::store::DATABASE_FILE),
        vec![0x5a_u8; 8192],
    )
    .unwrap();
    let trust = Trust::load_when_used(Arc::new(Store::open_when_used(dir.path()).unwrap()));
    let e = trust.ready().unwrap_err();
    assert_eq!(e.code, ErrorCode::Storage);
    assert_eq!(trust.verdict("s", &server()), TrustVerdict::New);
}
