use indexmap::IndexMap;

use super::*;
use crate::registry::Status;
use crate::registry::server_json::Argument;

fn fixture(file: &str) -> Listing {
    let path = format!(
        "{}/../../tests/fixtures/registry/{file}",
        env!("CARGO_MANIFEST_DIR")
    );
    let v: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(path).unwrap()).unwrap();
    Listing {
        registry: "https://registry.example".into(),
        server: serde_json::from_value(v["server"].clone()).unwrap(),
        status: Status::Active,
        status_message: None,
        is_latest: true,
        updated_at: None,
        text: Default::default(),
    }
}

fn values(pairs: &[(&str, &str)]) -> IndexMap<String, String> {
    pairs
        .iter()
        .map(|(k, v)| (k.to_string(), v.to_string()))
        .collect()
}

#[test]
fn npm_is_pinned_and_passed_as_argv() {
    let l = fixture("everything.json");
    let i = installable(&l, Choice::Package(0), "everything", &IndexMap::new()).unwrap();
    assert_eq!(i.config.command.as_deref(), Some("npx"));
    assert_eq!(
        i.config.args,
        [
            "-y",
            "@modelcontextprotocol/server-everything@2026.8.31",
            "stdio"
        ]
    );
    assert_eq!(i.runtime.as_deref(), Some("npx"));
    assert!(i.config.enabled, "an installed server starts");
    let from = i.config.installed_from.unwrap();
    assert_eq!(
        from.name,
        "io.github.modelcontextprotocol/server-everything"
    );
    assert_eq!(from.version, "2026.8.31");
}

#[test]
fn a_required_value_missing_is_named() {
    let l = fixture("filesystem.json");
    let needs = needs(&l, Choice::Package(0)).unwrap();
    assert_eq!(needs[0].key, "directory");
    assert!(needs[0].required);
    let e = installable(&l, Choice::Package(0), "files", &IndexMap::new()).unwrap_err();
    assert!(e.message.contains("directory"), "{}", e.message);
    let i = installable(
        &l,
        Choice::Package(0),
        "files",
        &values(&[("directory", "/srv/x")]),
    )
    .unwrap();
    assert_eq!(i.config.args.last().map(String::as_str), Some("/srv/x"));
}

#[test]
fn pypi_is_pinned_and_an_optional_flag_left_out_unless_given() {
    let l = fixture("time.json");
    let i = installable(&l, Choice::Package(0), "time", &IndexMap::new()).unwrap();
    assert_eq!(i.config.command.as_deref(), Some("uvx"));
    assert_eq!(i.config.args, ["mcp-server-time==2026.10.19"]);
    let tz = values(&[("--local-timezone", "Europe/Paris")]);
    let i = installable(&l, Choice::Package(0), "time", &tz).unwrap();
    assert_eq!(
        i.config.args,
        [
            "mcp-server-time==2026.10.19",
            "--local-timezone",
            "Europe/Paris"
        ]
    );
}

#[test]
fn secrets_go_to_the_keychain_and_the_config_holds_a_reference() {
    let l = fixture("remote-weather.json");
    let given = values(&[("WEATHER_API_KEY", "sk-123")]);
    let i = installable(&l, Choice::Package(0), "weather", &given).unwrap();
    assert_eq!(i.config.command.as_deref(), Some("docker"));
    assert_eq!(
        i.config.args,
        [
            "run",
            "--rm",
            "-i",
            "--cap-drop=ALL",
            "--security-opt=no-new-privileges",
            "-e",
            "WEATHER_API_KEY",
            "-e",
            "WEATHER_UNITS",
            "ghcr.io/example/weather-mcp:1.4.0"
        ]
    );
    assert_eq!(
        i.config.env["WEATHER_API_KEY"],
        "${secret:server/weather/WEATHER_API_KEY}"
    );
    assert_eq!(i.config.env["WEATHER_UNITS"], "metric");
    assert_eq!(
        i.secrets,
        [(
            "server/weather/WEATHER_API_KEY".to_owned(),
            "sk-123".to_owned()
        )]
    );
    let text = serde_json::to_string(&i.config).unwrap();
    assert!(!text.contains("sk-123"), "{text}");
}

#[test]
fn a_remote_fills_its_url_and_keeps_a_secret_header_in_the_keychain() {
    let l = fixture("remote-weather.json");
    let needs = needs(&l, Choice::Remote(0)).unwrap();
    let keys: Vec<_> = needs.iter().map(|n| n.key.as_str()).collect();
    assert_eq!(keys, ["tenant", "api_key"]);
    let given = values(&[("tenant", "eu"), ("api_key", "k")]);
    let i = installable(&l, Choice::Remote(0), "weather", &given).unwrap();
    assert_eq!(
        i.config.url.as_deref(),
        Some("https://eu.weather.example.com/mcp")
    );
    assert_eq!(
        i.config.headers["Authorization"],
        "${secret:server/weather/Authorization}"
    );
    assert_eq!(i.secrets[0].1, "Bearer k");
    let bad = values(&[("tenant", "evil.com/x?"), ("api_key", "k")]);
    let e = installable(&l, Choice::Remote(0), "weather", &bad).unwrap_err();
    assert!(e.message.contains("one of"), "{}", e.message);
}

#[test]
fn shell_text_stays_one_argument_and_runs_nothing() {
    let mut l = fixture("filesystem.json");
    let hostile = "$(touch /tmp/pwned); rm -rf ~ `id` | cat";
    let i = installable(
        &l,
        Choice::Package(0),
        "files",
        &values(&[("directory", hostile)]),
    )
    .unwrap();
    assert_eq!(i.config.args.last().map(String::as_str), Some(hostile));
    assert_eq!(i.config.command.as_deref(), Some("npx"));
    l.server.packages[0].identifier = "--eval=process.exit()".into();
    assert!(installable(&l, Choice::Package(0), "f", &values(&[("directory", "/x")])).is_err());
}

#[test]
fn an_unpinned_or_deprecated_listing_is_not_installed() {
    let mut l = fixture("everything.json");
    l.server.packages[0].version = Some("^2026.8.0".into());
    let e = installable(&l, Choice::Package(0), "e", &IndexMap::new()).unwrap_err();
    assert!(e.message.contains("exact version"), "{}", e.message);
    let mut l = fixture("everything.json");
    l.status = Status::Deprecated;
    let e = installable(&l, Choice::Package(0), "e", &IndexMap::new()).unwrap_err();
    assert!(e.message.contains("deprecated"), "{}", e.message);
}

#[test]
fn a_named_argument_must_be_a_flag_and_a_secret_argument_is_refused() {
    let mut l = fixture("time.json");
    if let Argument::Named(n) = &mut l.server.packages[0].package_arguments[0] {
        n.name = "; rm -rf /".into();
    }
    let tz = values(&[("; rm -rf /", "x")]);
    assert!(installable(&l, Choice::Package(0), "t", &tz).is_err());
    let mut l = fixture("time.json");
    if let Argument::Named(n) = &mut l.server.packages[0].package_arguments[0] {
        n.input.is_secret = true;
    }
    let tz = values(&[("--local-timezone", "x")]);
    let e = installable(&l, Choice::Package(0), "t", &tz).unwrap_err();
    assert!(e.message.contains("command line"), "{}", e.message);
}

#[test]
fn pick_by_kind() {
    let l = fixture("remote-weather.json");
    assert_eq!(pick(&l, None).unwrap(), Choice::Package(0));
    assert_eq!(pick(&l, Some("remote")).unwrap(), Choice::Remote(0));
    assert_eq!(pick(&l, Some("oci")).unwrap(), Choice::Package(0));
    let e = pick(&l, Some("npm")).unwrap_err();
    assert!(e.message.contains("oci, remote"), "{}", e.message);
}

#[test]
fn an_update_repins_the_package_and_keeps_the_rest() {
    let l = fixture("everything.json");
    let args: Vec<String> = [
        "-y",
        "@modelcontextprotocol/server-everything@2026.8.31",
        "stdio",
    ]
    .map(String::from)
    .into();
    let moved = repin(&args, &l, "2026.8.31", "2026.9.1");
    assert_eq!(
        moved,
        [
            "-y",
            "@modelcontextprotocol/server-everything@2026.9.1",
            "stdio"
        ]
    );
    let l = fixture("time.json");
    let args: Vec<String> = ["mcp-server-time==2026.10.19", "--x", "other==2026.10.19"]
        .map(String::from)
        .into();
    let moved = repin(&args, &l, "2026.10.19", "2026.11.1");
    assert_eq!(
        moved,
        ["mcp-server-time==2026.11.1", "--x", "other==2026.10.19"]
    );
    let l = fixture("remote-weather.json");
    let args: Vec<String> = ["run", "ghcr.io/example/weather-mcp:1.4.0"]
        .map(String::from)
        .into();
    assert_eq!(
        repin(&args, &l, "1.4.0", "1.5.0")[1],
        "ghcr.io/example/weather-mcp:1.5.0"
    );
}

#[test]
fn container_arguments_that_break_its_walls_are_refused() {
    let with_runtime = |args: serde_json::Value| {
        let mut l = fixture("remote-weather.json");
        l.server.packages[0].runtime_arguments = serde_json::from_value(args).unwrap();
        let given = values(&[("WEATHER_API_KEY", "k")]);
        installable(&l, Choice::Package(0), "weather", &given)
    };
    for hostile in [
        serde_json::json!([{"type": "positional", "value": "--privileged"}]),
        serde_json::json!([{"type": "named", "name": "--cap-add", "value": "SYS_ADMIN"}]),
        serde_json::json!([{"type": "named", "name": "--network", "value": "host"}]),
        serde_json::json!([{"type": "positional", "value": "--pid=host"}]),
        serde_json::json!([{"type": "named", "name": "-v", "value": "/var/run/docker.sock:/var/run/docker.sock"}]),
        serde_json::json!([{"type": "named", "name": "--security-opt", "value": "seccomp=unconfined"}]),
    ] {
        let e = with_runtime(hostile.clone())
            .err()
            .unwrap_or_else(|| panic!("{hostile}"));
        assert!(
            e.message.contains("out of its container"),
            "{hostile}: {}",
            e.message
        );
    }
    // A folder mounted for it is allowed, and shown as it is.
    let mounted = with_runtime(serde_json::json!([
        {"type": "named", "name": "--mount", "value": "type=bind,src=/srv/data,dst=/data"}
    ]))
    .unwrap();
    assert!(
        mounted
            .config
            .args
            .contains(&"type=bind,src=/srv/data,dst=/data".to_owned())
    );
}
