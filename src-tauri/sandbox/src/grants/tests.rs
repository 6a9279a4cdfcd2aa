use super::*;

impl Grants {
    /// Every path it may read, named or found.
    fn reads(&self) -> Vec<PathBuf> {
        self.read.iter().chain(&self.checked).cloned().collect()
    }
}
use switchboard_base::config::{NetworkSetting, SandboxProfile};

fn spec(home: &Path) -> BoxSpec {
    BoxSpec {
        profile: SandboxProfile::default(),
        roots: vec![],
        state_dir: home.join("state"),
        temp_dir: home.join("tmp"),
        cache_dir: home.join("cache"),
        home: Some(home.to_path_buf()),
        protected: vec![home.join("switchboard-data")],
        bundles: Some(home.join("switchboard-data/bundles")),
        proxy_port: None,
    }
}

fn launch<'a>(program: &'a Path, args: &'a [String]) -> Launch<'a> {
    Launch {
        program,
        args,
        cwd: None,
        path: Some("/usr/bin:/bin"),
    }
}

fn granted(paths: &[PathBuf], p: &Path) -> bool {
    paths.iter().any(|g| p.starts_with(g))
}

#[test]
fn the_system_is_readable_but_not_its_named_secrets() {
    let home = tempfile::tempdir().unwrap();
    let g = spec(home.path()).grants(launch(Path::new("/bin/true"), &[]));
    assert!(granted(&g.reads(), Path::new("/etc/passwd")));
    assert!(granted(&g.reads(), Path::new("/usr/lib")));
    assert!(!granted(&g.reads(), Path::new("/etc/shadow")));
    assert!(!granted(
        &g.reads(),
        Path::new("/etc/ssh/ssh_host_ed25519_key")
    ));
    assert!(!granted(&g.reads(), Path::new("/etc/ssl/private/x")));
    assert!(!granted(&g.reads(), Path::new("/etc/sudoers")));
    assert!(granted(
        &g.reads(),
        Path::new("/etc/ssl/certs/ca-certificates.crt")
    ));
    assert!(granted(&g.reads(), Path::new("/etc/resolv.conf")));
    assert!(!granted(&g.reads(), home.path()));
    assert!(!granted(&g.write, home.path()));
}

#[test]
fn a_script_in_the_home_directory_gets_itself_not_the_home_directory() {
    let home = tempfile::tempdir().unwrap();
    let script = home.path().join("server.sh");
    std::fs::write(&script, "#!/bin/sh\n").unwrap();
    std::fs::create_dir(home.path().join(".ssh")).unwrap();
    let args = [script.to_string_lossy().into_owned()];
    let g = spec(home.path()).grants(launch(Path::new("/bin/sh"), &args));
    let script = std::fs::canonicalize(&script).unwrap();
    assert!(g.reads().contains(&script), "{:?}", g.reads());
    assert!(!granted(&g.reads(), &home.path().join(".ssh")));
}

#[test]
fn a_program_in_dot_local_bin_gets_itself_not_the_keyring_beside_it() {
    let home = tempfile::tempdir().unwrap();
    let local = home.path().join(".local");
    for dir in ["bin", "lib", "share/keyrings"] {
        std::fs::create_dir_all(local.join(dir)).unwrap();
    }
    let tool = local.join("bin/tool");
    std::fs::write(&tool, "").unwrap();
    // Switchboard's data directory elsewhere, so that it does not keep `~/.local` out itself.
    let g = spec(home.path()).grants(launch(&tool, &[]));
    let keyring = local.join("share/keyrings/login.keyring");
    assert!(!granted(&g.reads(), &keyring), "{:?}", g.reads());
    assert!(granted(&g.reads(), &std::fs::canonicalize(&tool).unwrap()));
}

#[test]
fn a_script_in_a_project_gets_its_directory() {
    let home = tempfile::tempdir().unwrap();
    let project = home.path().join("project");
    std::fs::create_dir(&project).unwrap();
    std::fs::write(project.join("server.js"), "").unwrap();
    let args = [project.join("server.js").to_string_lossy().into_owned()];
    let g = spec(home.path()).grants(launch(Path::new("/bin/sh"), &args));
    let project = std::fs::canonicalize(&project).unwrap();
    assert!(g.reads().contains(&project), "{:?}", g.reads());
    // The folder's rule holds the script: a rule of its own would only cost the start.
    assert!(
        !g.reads().contains(&project.join("server.js")),
        "{:?}",
        g.reads()
    );
}

#[test]
fn a_program_in_a_system_folder_adds_no_rule_of_its_own() {
    let home = tempfile::tempdir().unwrap();
    let env = std::fs::canonicalize("/usr/bin/env").unwrap();
    assert!(in_system(&env), "{}", env.display());
    let args = ["/usr/bin/true".to_owned()];
    let g = spec(home.path()).grants(launch(&env, &args));
    let beneath = |p: &PathBuf| SYSTEM.iter().any(|s| p.starts_with(s) && p != Path::new(s));
    assert!(!g.reads().iter().any(beneath), "{:?}", g.reads());
    assert!(granted(&g.reads(), &env) && granted(&g.reads(), Path::new("/usr/bin/true")));
}

#[cfg(unix)]
#[test]
fn a_venv_grants_itself_and_the_python_it_was_made_from() {
    let home = tempfile::tempdir().unwrap();
    let base = home.path().join("pythons/3.11");
    std::fs::create_dir_all(base.join("bin")).unwrap();
    std::fs::create_dir_all(base.join("lib")).unwrap();
    std::fs::write(base.join("bin/python3"), "").unwrap();
    let venv = home.path().join("work/.venv");
    std::fs::create_dir_all(venv.join("bin")).unwrap();
    std::fs::write(
        venv.join("pyvenv.cfg"),
        format!("home = {}\n", base.join("bin").display()),
    )
    .unwrap();
    std::os::unix::fs::symlink(base.join("bin/python3"), venv.join("bin/python")).unwrap();
    let program = venv.join("bin/python");
    let g = spec(home.path()).grants(launch(&program, &[]));
    assert!(
        granted(&g.reads(), &venv.join("pyvenv.cfg")),
        "{:?}",
        g.reads()
    );
    let base = std::fs::canonicalize(&base).unwrap();
    assert!(granted(&g.reads(), &base.join("lib")), "{:?}", g.reads());
}

#[cfg(unix)]
#[test]
fn a_node_script_gets_its_whole_node_modules_and_an_npm_cache_of_its_own() {
    let home = tempfile::tempdir().unwrap();
    let modules = home.path().join("app/node_modules");
    let dist = modules.join("@scope/server/dist");
    std::fs::create_dir_all(&dist).unwrap();
    std::fs::create_dir_all(modules.join(".bin")).unwrap();
    std::fs::write(dist.join("index.js"), "#!/usr/bin/env node\n").unwrap();
    std::os::unix::fs::symlink(dist.join("index.js"), modules.join(".bin/server")).unwrap();
    let bin = tempfile::tempdir().unwrap();
    std::fs::write(bin.path().join("node"), "").unwrap();
    let path = bin.path().to_string_lossy().into_owned();
    let program = modules.join(".bin/server");
    let g = spec(home.path()).grants(Launch {
        path: Some(&path),
        ..launch(&program, &[])
    });
    let modules = std::fs::canonicalize(&modules).unwrap();
    assert!(g.reads().contains(&modules), "{:?}", g.reads());
    let own = home.path().join("cache/npm");
    assert_eq!(g.env, vec![("NPM_CONFIG_CACHE", own.clone())]);
    assert!(g.write.contains(&own), "{:?}", g.write);
    assert!(own.is_dir(), "made, so that it can be granted");
    assert!(
        !granted(&g.write, &home.path().join(".npm")),
        "{:?}",
        g.write
    );
}

/// The user's shared caches hold packages their unboxed programs run later: a box that could
/// write them could plant code that runs outside it. uv gets a cache of its own, and only reads
/// the Pythons and tools the user installed with it.
#[cfg(unix)]
#[test]
fn uv_gets_a_cache_of_its_own_and_only_reads_what_the_user_installed() {
    let home = tempfile::tempdir().unwrap();
    let home = std::fs::canonicalize(home.path()).unwrap();
    for shared in [".cache/uv", ".local/share/uv/python"] {
        std::fs::create_dir_all(home.join(shared)).unwrap();
    }
    let bin = tempfile::tempdir().unwrap();
    let uvx = bin.path().join("uvx");
    std::fs::write(&uvx, "").unwrap();
    let g = spec(&home).grants(launch(&uvx, &[]));
    let (own, tools) = (home.join("cache/uv"), home.join("cache/uv-tools"));
    assert_eq!(
        g.env,
        vec![
            ("UV_CACHE_DIR", own.clone()),
            ("UV_TOOL_DIR", tools.clone())
        ]
    );
    assert!(
        g.write.contains(&own) && g.write.contains(&tools),
        "{:?}",
        g.write
    );
    for shared in [".cache/uv", ".local/share/uv"] {
        assert!(!granted(&g.write, &home.join(shared)), "{:?}", g.write);
    }
    assert!(
        g.reads().contains(&home.join(".local/share/uv")),
        "{:?}",
        g.reads()
    );
}

#[test]
fn roots_are_writable_unless_marked_read_only() {
    let home = tempfile::tempdir().unwrap();
    let mut s = spec(home.path());
    s.roots = vec!["/data/a".into(), "/data/b".into()];
    s.profile.read_only_roots = vec!["/data/b".into()];
    let g = s.grants(launch(Path::new("/bin/true"), &[]));
    assert!(g.write.contains(&PathBuf::from("/data/a")));
    assert!(!g.write.contains(&PathBuf::from("/data/b")));
    assert!(g.reads().contains(&PathBuf::from("/data/b")));
}

#[test]
fn nothing_automatic_contains_switchboards_own_files() {
    let home = tempfile::tempdir().unwrap();
    let data = home.path().join("switchboard-data");
    std::fs::create_dir_all(data.join("sub")).unwrap();
    std::fs::write(data.join("sub/tool"), "").unwrap();
    let args = [data.join("sub/tool").to_string_lossy().into_owned()];
    let mut s = spec(home.path());
    s.protected = vec![std::fs::canonicalize(&data).unwrap()];
    let g = s.grants(launch(Path::new("/bin/true"), &args));
    assert!(
        !granted(&g.reads(), &data.join("switchboard.db")),
        "{:?}",
        g.reads()
    );
}

#[test]
fn the_network_follows_the_profile() {
    let home = tempfile::tempdir().unwrap();
    let mut s = spec(home.path());
    let net = |s: &BoxSpec| s.grants(launch(Path::new("/bin/true"), &[])).network;
    assert_eq!(net(&s), Network::On);
    s.profile.network = NetworkSetting::Enabled(false);
    assert_eq!(net(&s), Network::Off);
    s.profile.network = NetworkSetting::Hosts(vec!["example.com".into()]);
    assert_eq!(net(&s), Network::Off, "no proxy, no network");
    s.proxy_port = Some(4000);
    assert_eq!(net(&s), Network::Proxy { port: 4000 });
}

#[test]
fn a_server_without_a_working_directory_starts_in_its_state_directory() {
    let home = tempfile::tempdir().unwrap();
    let g = spec(home.path()).grants(launch(Path::new("/bin/true"), &[]));
    assert_eq!(g.cwd, Some(home.path().join("state")));
}

#[test]
fn a_script_named_as_an_argument_gets_its_whole_node_modules() {
    let home = tempfile::tempdir().unwrap();
    let modules = home.path().join("app/node_modules");
    let dist = modules.join("server/dist");
    std::fs::create_dir_all(&dist).unwrap();
    std::fs::create_dir_all(modules.join("@scope/sdk")).unwrap();
    std::fs::write(dist.join("index.js"), "").unwrap();
    let args = [dist.join("index.js").to_string_lossy().into_owned()];
    let g = spec(home.path()).grants(launch(Path::new("/usr/bin/node"), &args));
    let sdk = std::fs::canonicalize(modules.join("@scope/sdk")).unwrap();
    assert!(granted(&g.reads(), &sdk), "{:?}", g.reads());
}

#[test]
fn an_installed_bundle_gets_its_own_folder_and_no_other() {
    let home = tempfile::tempdir().unwrap();
    let bundles = home.path().join("switchboard-data/bundles");
    let mine = bundles.join("memory/1.0.0/node_modules/pkg/dist");
    let other = bundles.join("other/2.0.0");
    std::fs::create_dir_all(&mine).unwrap();
    std::fs::create_dir_all(&other).unwrap();
    std::fs::write(mine.join("index.js"), "").unwrap();
    let args = [mine.join("index.js").to_string_lossy().into_owned()];
    let g = spec(home.path()).grants(launch(Path::new("/usr/bin/node"), &args));
    assert!(
        granted(&g.reads(), &mine.join("index.js")),
        "{:?}",
        g.reads()
    );
    assert!(!granted(&g.reads(), &other));
    assert!(!granted(
        &g.reads(),
        &home.path().join("switchboard-data/switchboard.db")
    ));
    // An argument naming the bundles folder itself, or one bundle's name folder, opens nothing.
    for above in [bundles.clone(), bundles.join("memory")] {
        let args = [above.to_string_lossy().into_owned()];
        let g = spec(home.path()).grants(launch(Path::new("/usr/bin/node"), &args));
        assert!(!granted(&g.reads(), &above), "{above:?}: {:?}", g.reads());
    }
}

/// The files of `/etc` and the devices get the rights of files at once: on this system each one
/// that exists is a file (or a device), and each folder named among them is a folder.
#[test]
fn the_system_files_said_to_be_files_are_files() {
    assert!(ETC_FOLDERS.iter().all(|f| ETC.contains(f)));
    for path in ETC.iter().chain(DEVICES).map(Path::new) {
        let Ok(meta) = std::fs::metadata(path) else {
            continue;
        };
        assert_eq!(is_system_file(path), !meta.is_dir(), "{}", path.display());
    }
    assert!(!is_system_file(Path::new("/usr")));
    assert!(!is_system_file(Path::new("/etc/shadow")));
}

/// Whether any grant, its symlinks and `..` followed as the kernel follows them, holds `p`.
fn really_granted(paths: &[PathBuf], p: &Path) -> bool {
    paths
        .iter()
        .any(|g| p.starts_with(std::fs::canonicalize(g).unwrap_or_else(|_| g.clone())))
}

#[test]
fn a_working_folder_that_climbs_back_into_home_grants_nothing_of_it() {
    let home = tempfile::tempdir().unwrap();
    let home = std::fs::canonicalize(home.path()).unwrap();
    std::fs::create_dir(home.join("project")).unwrap();
    std::os::unix::fs::symlink(&home, home.join("project/link-home")).unwrap();
    let secret = home.join("notes.txt");
    std::fs::write(&secret, "secret").unwrap();
    for cwd in [home.join("project/.."), home.join("project/link-home")] {
        let mut l = launch(Path::new("/bin/true"), &[]);
        l.cwd = Some(&cwd);
        let g = spec(&home).grants(l);
        assert!(
            !really_granted(&g.reads(), &secret),
            "{cwd:?}: {:?}",
            g.reads()
        );
    }
    let mut l = launch(Path::new("/bin/true"), &[]);
    l.cwd = Some(Path::new("."));
    let g = spec(&home).grants(l);
    assert!(g.reads().iter().all(|r| r.is_absolute()), "{:?}", g.reads());
}

#[test]
fn an_argument_inside_a_secret_folder_of_home_is_not_granted() {
    let home = tempfile::tempdir().unwrap();
    let home = std::fs::canonicalize(home.path()).unwrap();
    let token = home.join(".config/gh/hosts.yml");
    let profile = home.join(".mozilla/firefox/profiles.ini");
    for file in [&token, &profile] {
        std::fs::create_dir_all(file.parent().unwrap()).unwrap();
        std::fs::write(file, "secret").unwrap();
    }
    let args = [
        token.to_string_lossy().into_owned(),
        home.join(".mozilla").to_string_lossy().into_owned(),
    ];
    let g = spec(&home).grants(launch(Path::new("/bin/cat"), &args));
    assert!(!really_granted(&g.reads(), &token), "{:?}", g.reads());
    assert!(!really_granted(&g.reads(), &profile), "{:?}", g.reads());
}

#[test]
fn a_path_an_env_option_names_in_a_shebang_is_not_taken_for_the_interpreter() {
    let home = tempfile::tempdir().unwrap();
    let home = std::fs::canonicalize(home.path()).unwrap();
    std::fs::create_dir_all(home.join(".local/bin")).unwrap();
    std::fs::create_dir_all(home.join("Documents")).unwrap();
    let private = home.join("Documents/private.txt");
    std::fs::write(&private, "secret").unwrap();
    let script = home.join("project/server.js");
    std::fs::create_dir_all(script.parent().unwrap()).unwrap();
    std::fs::write(
        &script,
        "#!/usr/bin/env -u ../../Documents/private.txt node\n",
    )
    .unwrap();
    let path = format!("{}:/usr/bin:/bin", home.join(".local/bin").display());
    let mut l = launch(&script, &[]);
    l.path = Some(&path);
    let g = spec(&home).grants(l);
    assert!(!really_granted(&g.reads(), &private), "{:?}", g.reads());
}

/// A folder `real` under `root` and a symlink `link` beside it that leads there.
fn linked_folder(root: &Path, real: &str, link: &str) -> (PathBuf, PathBuf) {
    let (real, link) = (root.join(real), root.join(link));
    std::fs::create_dir_all(&real).unwrap();
    std::os::unix::fs::symlink(&real, &link).unwrap();
    (real, link)
}

/// A box's spec as `BoxPlace` makes it, with boxes under `root`.
fn placed_spec(root: &Path, home: Option<PathBuf>, protected: Vec<PathBuf>) -> BoxSpec {
    let place = BoxPlace {
        dir: root.join("boxes"),
        home,
        protected,
        bundles: None,
    };
    place.spec("s", SandboxProfile::default(), vec![]).unwrap()
}

#[test]
fn a_home_reached_through_a_symlink_is_still_not_granted() {
    let root = tempfile::tempdir().unwrap();
    let root = std::fs::canonicalize(root.path()).unwrap();
    let (real, link) = linked_folder(&root, "data/u", "home-u");
    let script = real.join("server.sh");
    std::fs::write(&script, "#!/bin/sh\n").unwrap();
    let spec = placed_spec(&root, Some(link), vec![root.join("elsewhere")]);
    let args = [script.to_string_lossy().into_owned()];
    let g = spec.grants(launch(Path::new("/bin/sh"), &args));
    assert!(
        !really_granted(&g.reads(), &real.join("notes.txt")),
        "{:?}",
        g.reads()
    );
    assert!(really_granted(&g.reads(), &script), "{:?}", g.reads());
}

#[test]
fn a_data_directory_reached_through_a_symlink_is_still_protected() {
    let root = tempfile::tempdir().unwrap();
    let root = std::fs::canonicalize(root.path()).unwrap();
    let (real, link) = linked_folder(&root, "disk/switchboard", "data-link");
    let database = real.join("switchboard.db");
    std::fs::write(&database, "").unwrap();
    let spec = placed_spec(&root, None, vec![link]);
    let args = [database.to_string_lossy().into_owned()];
    let g = spec.grants(launch(Path::new("/bin/cat"), &args));
    assert!(!really_granted(&g.reads(), &database), "{:?}", g.reads());
}

/// Two names with the same safe characters whose 32-bit FNV-1a hashes are equal (found by
/// search): the hash the directory names once carried would have given both servers one
/// directory, its state and its caches.
#[test]
fn servers_whose_names_a_short_hash_confuses_get_directories_of_their_own() {
    let place = BoxPlace {
        dir: PathBuf::from("/boxes"),
        home: None,
        protected: vec![],
        bundles: None,
    };
    let (a, b) = ("files.. *=+", "files.$=$)@");
    assert_ne!(place.state_dir(a), place.state_dir(b));
    let named = place.state_dir(a).to_string_lossy().into_owned();
    assert!(named.starts_with("/boxes/files______-"), "{named}");
}

/// A program in a folder all users share (as `/tmp`) gets itself, and a working folder there
/// nothing: the other files in it are other programs' (a Kerberos ticket, say).
#[cfg(unix)]
#[test]
fn a_program_in_a_shared_temp_folder_gets_itself_not_the_folder() {
    use std::os::unix::fs::PermissionsExt;
    let home = tempfile::tempdir().unwrap();
    let shared = tempfile::tempdir().unwrap();
    let shared = std::fs::canonicalize(shared.path()).unwrap();
    std::fs::set_permissions(&shared, std::fs::Permissions::from_mode(0o1777)).unwrap();
    let (program, ticket) = (shared.join("server"), shared.join("krb5cc_1000"));
    std::fs::write(&program, "").unwrap();
    std::fs::write(&ticket, "TICKET").unwrap();
    let mut l = launch(&program, &[]);
    l.cwd = Some(&shared);
    let g = spec(home.path()).grants(l);
    assert!(g.reads().contains(&program), "{:?}", g.reads());
    assert!(!granted(&g.reads(), &ticket), "{:?}", g.reads());
}
