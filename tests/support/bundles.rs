//! Real MCP Bundles for tests, made by the official `mcpb` CLI (tests/fixtures/node_modules):
//! `tests/fixtures/bundles/memory` (the knowledge-graph memory server from npm) with its
//! dependencies installed, packed, and signed with a self-signed certificate or by a test
//! certificate authority's (tests/fixtures/bundles/certificates.mjs). Hostile archives
//! are written by Python's `zipfile`, as any tool could write them.

#![allow(dead_code)]

use std::path::{Path, PathBuf};
use std::process::Command;
use std::sync::OnceLock;

/// The repository: the root package (the end-to-end tests) or two levels above a crate.
fn repo() -> PathBuf {
    let manifest = PathBuf::from(env!("CARGO_MANIFEST_DIR"));
    if manifest.join("tests/fixtures").is_dir() {
        manifest
    } else {
        manifest.join("../..")
    }
}

fn run(c: &mut Command) {
    let out = c.output().unwrap_or_else(|e| panic!("{c:?}: {e}"));
    assert!(
        out.status.success(),
        "{c:?}: {}{}",
        String::from_utf8_lossy(&out.stdout),
        String::from_utf8_lossy(&out.stderr)
    );
}

fn mcpb() -> PathBuf {
    let cli = repo().join("tests/fixtures/node_modules/.bin/mcpb");
    assert!(
        cli.exists(),
        "{} missing: run scripts/setup-fixtures.sh",
        cli.display()
    );
    cli
}

/// The packed memory bundle and a signed copy, made once per test process.
pub fn memory() -> &'static (PathBuf, PathBuf) {
    static MADE: OnceLock<(PathBuf, PathBuf)> = OnceLock::new();
    MADE.get_or_init(|| {
        let dir = tempfile::Builder::new()
            .prefix("bundles")
            .tempdir()
            .unwrap()
            .keep();
        let src = dir.join("memory");
        std::fs::create_dir(&src).unwrap();
        for file in ["manifest.json", "package.json"] {
            let from = repo().join("tests/fixtures/bundles/memory").join(file);
            std::fs::copy(from, src.join(file)).unwrap();
        }
        run(Command::new("npm")
            .args([
                "install",
                "--silent",
                "--no-audit",
                "--no-fund",
                "--prefer-offline",
            ])
            .current_dir(&src));
        let packed = dir.join("memory.mcpb");
        run(Command::new(mcpb()).arg("pack").arg(&src).arg(&packed));
        let signed = dir.join("memory-signed.mcpb");
        std::fs::copy(&packed, &signed).unwrap();
        run(Command::new(mcpb())
            .args(["sign", "--self-signed"])
            .arg(&signed)
            .current_dir(&dir));
        (packed, signed)
    })
}

/// The memory bundle signed by certificates a test authority issued.
pub struct AuthoritySigned {
    /// The authority's certificate (PEM): what a system that trusts it lists.
    pub ca: PathBuf,
    /// Signed with a certificate for code signing.
    pub for_code: PathBuf,
    /// Signed with a certificate for a web server only.
    pub for_web: PathBuf,
}

/// The memory bundle signed by a test authority's certificates (tests/fixtures/bundles/
/// certificates.mjs), made once per test process.
pub fn authority_signed() -> &'static AuthoritySigned {
    static MADE: OnceLock<AuthoritySigned> = OnceLock::new();
    MADE.get_or_init(|| {
        let (packed, _) = memory();
        let dir = packed.parent().unwrap().join("authority");
        std::fs::create_dir_all(&dir).unwrap();
        run(Command::new("node")
            .arg(repo().join("tests/fixtures/bundles/certificates.mjs"))
            .arg(&dir));
        let sign = |who: &str| {
            let out = dir.join(format!("memory-{who}.mcpb"));
            std::fs::copy(packed, &out).unwrap();
            run(Command::new(mcpb())
                .arg("sign")
                .arg("--cert")
                .arg(dir.join(format!("{who}.pem")))
                .arg("--key")
                .arg(dir.join(format!("{who}.key")))
                .arg(&out));
            out
        };
        AuthoritySigned {
            ca: dir.join("ca.pem"),
            for_code: sign("signer"),
            for_web: sign("web"),
        }
    })
}

/// A zip written by Python with `entries` (name, bytes, unix mode): what a hostile tool makes.
pub fn zip(dir: &Path, name: &str, entries: &[(&str, &[u8], u32)]) -> PathBuf {
    let out = dir.join(name);
    let mut script = String::from(
        "import sys, zipfile\nz = zipfile.ZipFile(sys.argv[1], 'w', zipfile.ZIP_DEFLATED)\n",
    );
    for (i, (entry, _, mode)) in entries.iter().enumerate() {
        script.push_str(&format!(
            "i = zipfile.ZipInfo({entry:?}); i.external_attr = {mode} << 16; \
             i.compress_type = zipfile.ZIP_DEFLATED\n\
             z.writestr(i, open(sys.argv[{}], 'rb').read())\n",
            i + 2
        ));
    }
    script.push_str("z.close()\n");
    let mut files = Vec::new();
    for (i, (_, bytes, _)) in entries.iter().enumerate() {
        let f = dir.join(format!("{name}.{i}"));
        std::fs::write(&f, bytes).unwrap();
        files.push(f);
    }
    run(Command::new("python3")
        .arg("-c")
        .arg(&script)
        .arg(&out)
        .args(&files));
    out
}

/// A valid manifest of version `version`, running `node server.js`.
pub fn manifest(version: &str) -> Vec<u8> {
    serde_json::to_vec(&serde_json::json!({
        "manifest_version": version,
        "name": "tiny",
        "version": "1.0.0",
        "description": "d",
        "author": {"name": "a"},
        "server": {"type": "node", "entry_point": "server.js",
                   "mcp_config": {"command": "node", "args": ["${__dirname}/server.js"]}}
    }))
    .unwrap()
}
