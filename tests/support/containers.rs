//! A real container engine for tests of OCI packages: Podman (Docker's command line, daemonless;
//! scripts/setup-system.sh installs it), answering to `docker` as the definition calls it, and
//! an image of server-everything made here (no container registry is reachable from CI): Node
//! and the npm package in a root filesystem, imported under the name a registry would list.

#![allow(dead_code)]

use std::path::{Path, PathBuf};
use std::process::Command;
use std::sync::OnceLock;

/// The image's name, as the registry fixture lists it.
pub const EVERYTHING_IMAGE: &str = "ghcr.io/modelcontextprotocol/server-everything:2026.8.31";

/// What a test hands the program that runs `docker`: a folder where `docker` is Podman (first
/// on PATH), and Podman's settings for this machine.
pub struct Engine {
    pub bin: PathBuf,
    pub conf: PathBuf,
}

impl Engine {
    /// PATH with `docker` (Podman) first.
    pub fn path(&self) -> String {
        format!(
            "{}:{}",
            self.bin.display(),
            std::env::var("PATH").unwrap_or_default()
        )
    }
}

fn run(c: &mut Command) -> String {
    let out = c.output().unwrap_or_else(|e| panic!("{c:?}: {e}"));
    assert!(
        out.status.success(),
        "{c:?}: {}{}",
        String::from_utf8_lossy(&out.stdout),
        String::from_utf8_lossy(&out.stderr)
    );
    String::from_utf8_lossy(&out.stdout).into_owned()
}

/// The engine, with the image made once per machine.
pub fn engine() -> &'static Engine {
    static MADE: OnceLock<Engine> = OnceLock::new();
    MADE.get_or_init(|| {
        let podman = PathBuf::from("/usr/bin/podman");
        assert!(
            podman.exists(),
            "podman is missing: run scripts/setup-system.sh"
        );
        let dir = tempfile::Builder::new()
            .prefix("engine")
            .tempdir()
            .unwrap()
            .keep();
        let bin = dir.join("bin");
        std::fs::create_dir(&bin).unwrap();
        std::os::unix::fs::symlink(&podman, bin.join("docker")).unwrap();
        // This kind of machine (a VM whose processes may not raise their limits, cgroups in
        // hybrid mode) runs containers with runc and the limits it already has.
        let conf = dir.join("containers.conf");
        std::fs::write(
            &conf,
            "[containers]\ndefault_ulimits = [\"nofile=1024:1024\", \"nproc=4096:4096\"]\n\
             [engine]\nruntime = \"runc\"\n",
        )
        .unwrap();
        let engine = Engine { bin, conf };
        let exists = Command::new(&podman)
            .args(["image", "exists", EVERYTHING_IMAGE])
            .status()
            .unwrap();
        if !exists.success() {
            make_image(&podman, &dir);
        }
        engine
    })
}

/// Node, its libraries and server-everything from npm in a root filesystem, imported as
/// [`EVERYTHING_IMAGE`] running `index.js stdio`.
fn make_image(podman: &Path, dir: &Path) {
    let root = dir.join("root");
    let app = root.join("app");
    std::fs::create_dir_all(&app).unwrap();
    std::fs::create_dir_all(root.join("tmp")).unwrap();
    std::fs::write(app.join("package.json"), "{\"private\":true}").unwrap();
    run(Command::new("npm")
        .args([
            "install",
            "--silent",
            "--no-audit",
            "--no-fund",
            "--prefer-offline",
        ])
        .args([
            "--omit=dev",
            "@modelcontextprotocol/server-everything@2026.8.31",
        ])
        .current_dir(&app));
    let node = PathBuf::from(run(Command::new("sh").args(["-c", "command -v node"])).trim());
    let libs = run(Command::new("ldd").arg(&node));
    let files = libs
        .split_whitespace()
        .filter(|w| w.starts_with('/'))
        .map(PathBuf::from)
        .chain([node.clone()]);
    for file in files {
        let inside = root.join(file.strip_prefix("/").unwrap());
        std::fs::create_dir_all(inside.parent().unwrap()).unwrap();
        std::fs::copy(&file, &inside).unwrap();
    }
    let tar = dir.join("rootfs.tar");
    run(Command::new("tar")
        .arg("-C")
        .arg(&root)
        .arg("-cf")
        .arg(&tar)
        .arg("."));
    let entry = format!(
        "ENTRYPOINT [\"{}\", \"/app/node_modules/@modelcontextprotocol/server-everything/dist/index.js\"]",
        node.display()
    );
    run(Command::new(podman)
        .args(["import", "--quiet", "--change", &entry])
        .args(["--change", "CMD [\"stdio\"]"])
        .arg(&tar)
        .arg(EVERYTHING_IMAGE));
}
