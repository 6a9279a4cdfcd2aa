//! MCP Bundles made by the official `mcpb` CLI, opened, checked and unpacked; tampered and
//! hostile ones refused, leaving nothing behind.

#[path = "../../../tests/support/bundles.rs"]
mod bundles;

use indexmap::IndexMap;
use switchboard_gallery::bundle::{Opened, Signature, archive, settings, signature};

fn refused(path: &std::path::Path) -> String {
    match Opened::read(path, None) {
        Ok(_) => panic!("{} was opened", path.display()),
        Err(e) => e.message,
    }
}

#[test]
fn a_bundle_packed_by_mcpb_opens_unsigned_and_asks_for_its_settings() {
    let (packed, _) = bundles::memory();
    let b = Opened::read(packed, None).unwrap();
    assert_eq!(b.manifest.name, "memory-bundle");
    assert_eq!(b.signature, Signature::Unsigned);
    let needs = settings::needs(&b.manifest);
    assert_eq!(needs[0].key, "memory_file");
    assert!(needs[0].required);
}

#[test]
fn a_signed_bundle_names_its_signer_and_a_tampered_one_is_refused() {
    let (_, signed) = bundles::memory();
    let b = Opened::read(signed, None).unwrap();
    let Signature::Signed(signer) = &b.signature else {
        panic!("{:?}", b.signature)
    };
    assert!(signer.self_signed, "{signer:?}");
    assert_eq!(signer.fingerprint.len(), 64);
    // One byte of the zip changed after signing.
    let mut bytes = std::fs::read(signed).unwrap();
    bytes[100] ^= 1;
    let e = Opened::from_bytes(bytes.clone(), None).err().unwrap();
    assert!(
        e.message.contains("signature does not hold"),
        "{}",
        e.message
    );
    // The signature's own bytes changed: the digest still matches, the key did not sign it.
    let mut forged = std::fs::read(signed).unwrap();
    let at = forged.len() - b"MCPB_SIG_END".len() - 5;
    forged[at] ^= 1;
    let e = Opened::from_bytes(forged, None).err().unwrap();
    assert!(e.message.contains("key did not make it"), "{}", e.message);
    // The signature block cut short.
    let cut = bytes.len() - 20;
    let e = Opened::from_bytes([&bytes[..cut], b"MCPB_SIG_END"].concat(), None)
        .err()
        .unwrap();
    assert!(e.message.contains("signature"), "{}", e.message);
}

/// The signer `path` is said to be, checked with `roots` (PEM) trusted.
fn signer_trusting(path: &std::path::Path, roots: &[u8]) -> signature::Signer {
    use rustls_pki_types::CertificateDer;
    use rustls_pki_types::pem::PemObject;
    let bytes = std::fs::read(path).unwrap();
    let split = archive::split(&bytes).unwrap();
    let certs: Vec<CertificateDer> = CertificateDer::pem_slice_iter(roots)
        .map(|c| c.unwrap())
        .collect();
    signature::verify_with(
        split.zip,
        split.signature.unwrap(),
        &signature::anchors(&certs),
    )
    .unwrap()
}

#[test]
fn only_a_trusted_authority_vouches_for_a_signers_name() {
    let signed = bundles::authority_signed();
    let ca = std::fs::read(&signed.ca).unwrap();
    let vouched = signer_trusting(&signed.for_code, &ca);
    assert_eq!(vouched.publisher, "Signer Publisher");
    assert!(!vouched.self_signed);
    assert_eq!(
        vouched.vouched_for_by.as_deref(),
        Some("Switchboard Test Root CA")
    );
    // The same bundle where that authority is not trusted: the issuer's name is only the
    // certificate's word.
    let unknown = signer_trusting(&signed.for_code, b"");
    assert_eq!(unknown.issuer, "Switchboard Test Root CA");
    assert_eq!(unknown.vouched_for_by, None);
    let text = settings::signature_text(&Signature::Signed(unknown));
    assert!(text.contains("a name nobody vouches for"), "{text}");
    // A certificate the authority issued for a web server does not vouch for code.
    assert_eq!(signer_trusting(&signed.for_web, &ca).vouched_for_by, None);
    // Opened as the app opens it: the system's authorities do not know the test one.
    let Signature::Signed(s) = Opened::read(&signed.for_code, None).unwrap().signature else {
        panic!("not signed")
    };
    assert_eq!(s.vouched_for_by, None);
    // A self-signed certificate is never vouched for, whoever is trusted.
    let (_, self_signed) = bundles::memory();
    assert_eq!(signer_trusting(self_signed, &ca).vouched_for_by, None);
}

#[test]
fn the_registrys_hash_must_match() {
    let (packed, _) = bundles::memory();
    let e = Opened::read(packed, Some(&"0".repeat(64))).err().unwrap();
    assert!(e.message.contains("SHA-256"), "{}", e.message);
    let good = Opened::read(packed, None).unwrap().sha256;
    assert!(Opened::read(packed, Some(&good)).is_ok());
}

#[test]
fn unpacking_expands_the_manifest_into_a_definition() {
    let (packed, _) = bundles::memory();
    let b = Opened::read(packed, None).unwrap();
    let data = tempfile::tempdir().unwrap();
    let folder = b.unpack(&data.path().join("bundles")).unwrap();
    assert!(
        folder.ends_with("bundles/memory-bundle/2026-8-31"),
        "{folder:?}"
    );
    let entry = folder.join("node_modules/@modelcontextprotocol/server-memory/dist/index.js");
    assert!(entry.is_file());
    let values: IndexMap<String, String> =
        [("memory_file".to_owned(), "/tmp/m.json".to_owned())].into();
    let i = settings::definition(&b, &folder, "memory", &values, None).unwrap();
    assert_eq!(i.config.command.as_deref(), Some("node"));
    assert_eq!(i.config.args, [entry.to_string_lossy()]);
    assert_eq!(i.config.env["MEMORY_FILE_PATH"], "/tmp/m.json");
    assert_eq!(i.runtime.as_deref(), Some("node"));
    assert!(i.config.enabled, "an installed server starts");
    let e = settings::definition(&b, &folder, "memory", &IndexMap::new(), None).unwrap_err();
    assert!(e.message.contains("memory_file"), "{}", e.message);
}

/// A zip entry: its name, bytes and unix mode.
type Entry<'a> = (&'a str, &'a [u8], u32);

#[test]
fn hostile_archives_are_refused_before_anything_is_written() {
    let dir = tempfile::tempdir().unwrap();
    let manifest = bundles::manifest("0.3");
    let big = vec![0u8; (256 << 20) + 1];
    let cases: Vec<(&str, Vec<Entry>, &str)> = vec![
        (
            "slip",
            vec![
                ("manifest.json", &manifest, 0o644),
                ("../evil.js", b"x", 0o644),
            ],
            "leaves its folder",
        ),
        (
            "absolute",
            vec![
                ("manifest.json", &manifest, 0o644),
                ("/etc/evil", b"x", 0o644),
            ],
            "leaves its folder",
        ),
        (
            "link",
            vec![
                ("manifest.json", &manifest, 0o644),
                ("link", b"/etc/passwd", 0o120777),
            ],
            "symbolic link",
        ),
        (
            "big",
            vec![
                ("manifest.json", &manifest, 0o644),
                ("big.bin", &big, 0o644),
            ],
            "more than",
        ),
        (
            "nomanifest",
            vec![("server.js", b"x", 0o644)],
            "no manifest.json",
        ),
    ];
    for (name, entries, says) in cases {
        let path = bundles::zip(dir.path(), &format!("{name}.mcpb"), &entries);
        let why = refused(&path);
        assert!(why.contains(says), "{name}: {why}");
    }
    assert!(!dir.path().join("evil.js").exists());
}

#[test]
fn manifest_versions_are_checked() {
    let dir = tempfile::tempdir().unwrap();
    for version in ["0.1", "0.2", "0.3", "0.4"] {
        let m = bundles::manifest(version);
        let path = bundles::zip(
            dir.path(),
            &format!("v{version}.mcpb"),
            &[("manifest.json", &m, 0o644)],
        );
        assert!(Opened::read(&path, None).is_ok(), "{version}");
    }
    let m = bundles::manifest("0.9");
    let path = bundles::zip(dir.path(), "v09.mcpb", &[("manifest.json", &m, 0o644)]);
    let why = refused(&path);
    assert!(
        why.contains("\"0.9\"") && why.contains("does not read"),
        "{why}"
    );
    // A field 0.1 did not have yet.
    let mut v: serde_json::Value = serde_json::from_slice(&bundles::manifest("0.1")).unwrap();
    v["privacy_policies"] = serde_json::json!([]);
    let m = serde_json::to_vec(&v).unwrap();
    let path = bundles::zip(dir.path(), "v01.mcpb", &[("manifest.json", &m, 0o644)]);
    assert!(refused(&path).contains("does not know"));
    // A field no version has, and a missing required one.
    let mut v: serde_json::Value = serde_json::from_slice(&bundles::manifest("0.3")).unwrap();
    v["server"]["shell"] = serde_json::json!("sh -c");
    let m = serde_json::to_vec(&v).unwrap();
    let path = bundles::zip(dir.path(), "extra.mcpb", &[("manifest.json", &m, 0o644)]);
    assert!(refused(&path).contains("schema 0.3"));
    let mut v: serde_json::Value = serde_json::from_slice(&bundles::manifest("0.3")).unwrap();
    v.as_object_mut().unwrap().remove("author");
    let m = serde_json::to_vec(&v).unwrap();
    let path = bundles::zip(dir.path(), "noauthor.mcpb", &[("manifest.json", &m, 0o644)]);
    assert!(refused(&path).contains("author"));
}

#[test]
fn another_platform_is_refused() {
    let dir = tempfile::tempdir().unwrap();
    let mut v: serde_json::Value = serde_json::from_slice(&bundles::manifest("0.3")).unwrap();
    v["compatibility"] = serde_json::json!({"platforms": ["win32"]});
    let m = serde_json::to_vec(&v).unwrap();
    let path = bundles::zip(dir.path(), "win.mcpb", &[("manifest.json", &m, 0o644)]);
    assert!(refused(&path).contains("win32"));
}

#[test]
fn python_uv_and_binary_servers_become_definitions() {
    let dir = tempfile::tempdir().unwrap();
    let data = dir.path().join("bundles");
    let cases = [
        (
            "0.3",
            "python",
            "python3",
            vec!["${__dirname}/server/main.py"],
            Some("python3"),
        ),
        (
            "0.4",
            "uv",
            "uv",
            vec!["run", "--directory", "${__dirname}", "main.py"],
            Some("uv"),
        ),
        (
            "0.3",
            "binary",
            "${__dirname}/server/tool",
            vec!["--stdio"],
            None,
        ),
    ];
    for (version, kind, command, args, runtime) in cases {
        let mut m: serde_json::Value = serde_json::from_slice(&bundles::manifest(version)).unwrap();
        m["name"] = serde_json::json!(kind);
        m["server"] = serde_json::json!({"type": kind, "entry_point": "server/main",
            "mcp_config": {"command": command, "args": args}});
        let m = serde_json::to_vec(&m).unwrap();
        let file = bundles::zip(
            dir.path(),
            &format!("{kind}.mcpb"),
            &[
                ("manifest.json", &m, 0o644),
                ("server/tool", b"#!/bin/sh\n", 0o755),
                ("server/main.py", b"", 0o644),
            ],
        );
        let b = Opened::read(&file, None).unwrap();
        let folder = b.unpack(&data).unwrap();
        let i = settings::definition(&b, &folder, kind, &IndexMap::new(), None).unwrap();
        assert_eq!(i.runtime.as_deref(), runtime, "{kind}");
        let dirname = folder.to_string_lossy();
        let expected_command = command.replace("${__dirname}", &dirname);
        assert_eq!(
            i.config.command.as_deref(),
            Some(expected_command.as_str()),
            "{kind}"
        );
        assert!(
            i.config.args.iter().all(|a| !a.contains("${")),
            "{kind}: {:?}",
            i.config.args
        );
        if kind == "binary" {
            use std::os::unix::fs::PermissionsExt;
            let mode = std::fs::metadata(folder.join("server/tool"))
                .unwrap()
                .permissions()
                .mode();
            assert_eq!(mode & 0o111, 0o111, "the binary stays executable");
        }
    }
    // uv is a 0.4 server type: a 0.3 manifest may not use it.
    let mut m: serde_json::Value = serde_json::from_slice(&bundles::manifest("0.3")).unwrap();
    m["server"]["type"] = serde_json::json!("uv");
    let m = serde_json::to_vec(&m).unwrap();
    let file = bundles::zip(dir.path(), "uv03.mcpb", &[("manifest.json", &m, 0o644)]);
    assert!(refused(&file).contains("0.3"));
}
