//! Where bad input enters the base layer, on `proptest`: the config file, `${…}` references and
//! what a person can see of text. Each property must hold for any input; the number of cases is
//! `SWITCHBOARD_FUZZ_CASES` (else each target's default; `scripts/fuzz.sh` runs them long), and a
//! failing input is kept in `proptest-regressions/` and replayed first on every run.

use proptest::prelude::*;
use serde_json::Value;

use crate::config::Config as SwitchboardConfig;
use crate::fuzzing::{config, words};
use crate::secrets::{MemoryStore, SecretStore, expand_in};
use crate::visible::{has_hidden, is_stripped, reveal, strip};

/// A value a config field might hold.
fn field_value() -> impl Strategy<Value = Value> {
    const TEXT: &[&str] = &[
        "npx",
        "/usr/bin/x",
        "https://a.example/mcp",
        "${secret:",
        "}",
        "/",
        " ",
        "é",
        "\n",
        "http://",
    ];
    let leaf = prop_oneof![
        Just(Value::Null),
        any::<bool>().prop_map(Value::Bool),
        any::<u64>().prop_map(Value::from),
        any::<i64>().prop_map(Value::from),
        words(TEXT, 4).prop_map(Value::String),
    ];
    leaf.prop_recursive(3, 32, 6, |inner| {
        prop_oneof![
            prop::collection::vec(inner.clone(), 0..4).prop_map(Value::Array),
            prop::collection::btree_map(
                prop::sample::select(&["read", "write", "network", "a", "type"][..])
                    .prop_map(str::to_owned),
                inner,
                0..4
            )
            .prop_map(|m| Value::Object(m.into_iter().collect())),
        ]
    })
}

/// A server entry: fields Switchboard knows and some it does not, with any values.
fn server() -> impl Strategy<Value = Value> {
    const KEYS: &[&str] = &[
        "command",
        "args",
        "env",
        "envFile",
        "cwd",
        "url",
        "headers",
        "transport",
        "type",
        "enabled",
        "requestTimeoutSecs",
        "maxTotalSecs",
        "maxMessageBytes",
        "sampling",
        "oauth",
        "roots",
        "sandbox",
        "installedFrom",
        "somethingElse",
    ];
    prop::collection::btree_map(
        prop::sample::select(KEYS).prop_map(str::to_owned),
        field_value(),
        0..6,
    )
    .prop_map(|m| Value::Object(m.into_iter().collect()))
}

proptest! {
    #![proptest_config(config(5_000))]

    /// Any config file is read or refused with a sentence; one that is read saves and reads
    /// back the same, and every server in it has a valid way to be reached.
    #[test]
    fn any_config_is_read_or_refused_and_round_trips(
        servers in prop::collection::btree_map("[a-z/ é]{0,6}", server(), 0..4),
        roots in field_value(),
    ) {
        let file = std::path::Path::new("/tmp/fuzz.json");
        let text = serde_json::json!({"mcpServers": servers, "roots": roots}).to_string();
        match SwitchboardConfig::parse(&text, file) {
            Err(e) => {
                // A sentence for a person: no Rust type or Debug output in it.
                let debug_like = e.message.contains("Error {") || e.message.contains("Some(");
                prop_assert!(!e.message.is_empty() && !debug_like, "{}", e.message);
            }
            Ok(parsed) => {
                for (name, server) in &parsed.mcp_servers {
                    prop_assert!(server.endpoint(file, name).is_ok());
                }
                // A bad entry costs no other server, says why in a sentence, and is kept.
                for invalid in parsed.invalid_servers.values() {
                    let why = &invalid.problem.message;
                    prop_assert!(!why.contains("Error {") && !why.contains("Some("), "{}", why);
                }
                let again = serde_json::to_string(&parsed.as_written()).unwrap();
                prop_assert_eq!(SwitchboardConfig::parse(&again, file).ok(), Some(parsed));
            }
        }
    }

    /// `${…}` references: never a panic, and a server reads no secret but its own and the ones
    /// nobody reserved.
    #[test]
    fn a_reference_expands_to_no_one_elses_secret(
        value in words(&["${", "}", "secret:", "env:", "server/", "s", "t", "/env/KEY", "provider:x", "$", "{", "input/k", "HOME"], 10),
    ) {
        let store = MemoryStore::default();
        for (name, secret) in [
            ("server/s/env/KEY", "MINE"), ("server/t/env/KEY", "THEIRS"),
            ("provider:x", "PROVIDER"), ("input/k", "INPUT"),
        ] {
            store.set(name, secret).unwrap();
        }
        if let Ok(out) = expand_in(&value, &store, "s", &|_| Some("ENV".into())) {
            prop_assert!(!out.contains("THEIRS") && !out.contains("PROVIDER"), "{:?} → {:?}", value, out);
        }
    }

    /// What a person sees of any text has no hidden character left, and what a model gets has
    /// none of the stripped ones.
    #[test]
    fn revealed_text_hides_nothing_and_stripped_text_carries_nothing(s in any::<String>()) {
        prop_assert!(!has_hidden(&reveal(&s)));
        prop_assert!(!strip(&s).chars().any(is_stripped));
    }
}
