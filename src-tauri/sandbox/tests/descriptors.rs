//! A built box holds one descriptor, its ruleset: the fifty paths opened to make its rules are
//! closed as they are used. Held together they took a host past the 64 descriptors its table
//! starts with, which the kernel grows for a process with several threads only after an RCU
//! grace period. Its own test binary, so no other test opens descriptors meanwhile.
#![cfg(target_os = "linux")]

use std::path::Path;

use switchboard_base::config::SandboxProfile;
use switchboard_sandbox::grants::Launch;
use switchboard_sandbox::{BoxSpec, Prepared, Support};

fn open_descriptors() -> usize {
    std::fs::read_dir("/proc/self/fd").unwrap().count()
}

#[test]
fn a_built_box_holds_only_its_ruleset_open() {
    let dir = tempfile::tempdir().unwrap();
    let (state_dir, temp_dir) = (dir.path().join("state"), dir.path().join("tmp"));
    for d in [&state_dir, &temp_dir] {
        std::fs::create_dir_all(d).unwrap();
    }
    let spec = BoxSpec {
        profile: SandboxProfile::default(),
        roots: vec![dir.path().to_path_buf()],
        state_dir,
        temp_dir,
        cache_dir: dir.path().join("cache"),
        home: None,
        protected: vec![],
        bundles: None,
        proxy_port: None,
    };
    let grants = spec.grants(Launch {
        program: Path::new("/bin/true"),
        args: &[],
        cwd: None,
        path: Some("/usr/bin:/bin"),
    });
    let granted = grants
        .read
        .iter()
        .chain(&grants.checked)
        .chain(&grants.write)
        .filter(|p| p.exists());
    assert!(granted.count() > 20, "the system's paths are granted");
    let before = open_descriptors();
    let prepared = Prepared::build("descriptors", &grants, Support::detect()).unwrap();
    assert_eq!(
        open_descriptors(),
        before + 1,
        "only the ruleset stays open"
    );
    drop(prepared);
    assert_eq!(open_descriptors(), before);
}
