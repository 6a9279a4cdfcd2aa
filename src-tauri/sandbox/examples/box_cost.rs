//! What building a box costs, step by step, and what a start costs started each way (not a
//! test: it prints microseconds). `box_cost [PROGRAM [ARGS…]]`, `/bin/true` by default;
//! `BALLAST_MB` sizes the parent, as a host is sized. `FLOOR_OUT=DIR` also writes the box's rules
//! and seccomp program for `scripts/box-floor.sh`.
use std::path::{Path, PathBuf};
use std::time::Instant;

use switchboard_base::config::SandboxProfile;
use switchboard_sandbox::grants::Launch;
use switchboard_sandbox::{BoxPlace, Prepared, Support};

fn main() -> Result<(), Box<dyn std::error::Error>> {
    let dir = std::env::temp_dir().join("box-cost");
    let place = BoxPlace {
        dir: dir.clone(),
        home: std::env::var_os("HOME").map(PathBuf::from),
        protected: vec![],
        bundles: None,
    };
    let program = std::env::args()
        .nth(1)
        .unwrap_or_else(|| "/bin/true".into());
    let args: Vec<String> = std::env::args().skip(2).collect();
    let launch = Launch {
        program: Path::new(&program),
        args: &args,
        cwd: None,
        path: Some("/usr/bin:/bin"),
    };
    let n: u32 = std::env::var("N")
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(200);
    let (mut spec_us, mut grants_us, mut build_us) = (0u128, 0u128, 0u128);
    for _ in 0..n {
        let t = Instant::now();
        let spec = place.spec("bench", SandboxProfile::default(), vec![])?;
        spec_us += t.elapsed().as_micros();
        let t = Instant::now();
        let grants = spec.grants(launch);
        grants_us += t.elapsed().as_micros();
        let t = Instant::now();
        let prepared = Prepared::build("bench", &grants, Support::detect())?;
        build_us += t.elapsed().as_micros();
        drop(prepared);
    }
    let n = n as u128;
    println!(
        "spec {} µs, grants {} µs, build {} µs",
        spec_us / n,
        grants_us / n,
        build_us / n
    );
    let spec = place.spec("bench", SandboxProfile::default(), vec![])?;
    let grants = spec.grants(launch);
    println!(
        "{} paths to read, {} to write",
        grants.read.len() + grants.checked.len(),
        grants.write.len()
    );
    #[cfg(target_os = "linux")]
    if let Some(dir) = std::env::var_os("FLOOR_OUT") {
        write_floor_inputs(Path::new(&dir), &grants)?;
    }
    let prepared = std::sync::Arc::new(Prepared::build("bench", &grants, Support::detect())?);
    // A parent the size of a host (BALLAST_MB of touched memory, 20 by default): fork copies
    // its page tables, posix_spawn (what an unboxed start uses: no pre_exec) does not.
    let ballast_mb: usize = std::env::var("BALLAST_MB")
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(20);
    let ballast: Vec<u8> = vec![1; ballast_mb << 20];
    let ways = [
        "posix_spawn (no pre_exec)",
        "fork, empty pre_exec",
        "fork, the box",
    ];
    let mut times = [Vec::new(), Vec::new(), Vec::new()];
    for i in 0..3 * n as usize {
        let way = i % 3;
        let t = Instant::now();
        let mut cmd = std::process::Command::new(&program);
        cmd.args(&args)
            .stdin(std::process::Stdio::null())
            .stdout(std::process::Stdio::null());
        let p = prepared.clone();
        // SAFETY: enter() makes only system calls; the other closure does nothing.
        unsafe {
            use std::os::unix::process::CommandExt;
            match way {
                1 => {
                    cmd.pre_exec(|| Ok(()));
                }
                2 => {
                    cmd.pre_exec(move || p.enter());
                }
                _ => {}
            }
        }
        cmd.status()?;
        times[way].push(t.elapsed().as_micros());
    }
    for (way, mut t) in ways.iter().zip(times) {
        t.sort_unstable();
        println!("spawn+exit, {way}: median {} µs", t[t.len() / 2]);
    }
    println!("(parent with {} MiB touched)", ballast.len() >> 20);
    Ok(())
}

/// For `scripts/box-floor.c`, the same box as plain kernel calls: `rules` (a line a path that
/// exists: `r` or `w`, `d` for a folder or `f` for a file, the path) and `filter.h` (the seccomp
/// program as C initialisers).
#[cfg(target_os = "linux")]
fn write_floor_inputs(dir: &Path, grants: &switchboard_sandbox::Grants) -> std::io::Result<()> {
    use std::fmt::Write;
    let mut rules = String::new();
    let reads = grants.read.iter().chain(&grants.checked).map(|p| ('r', p));
    for (kind, path) in reads.chain(grants.write.iter().map(|p| ('w', p))) {
        let Ok(meta) = std::fs::metadata(path) else {
            continue;
        };
        let shape = if meta.is_dir() { 'd' } else { 'f' };
        let _ = writeln!(rules, "{kind} {shape} {}", path.display());
    }
    std::fs::create_dir_all(dir)?;
    std::fs::write(dir.join("rules"), rules)?;
    let program = switchboard_sandbox::linux::seccomp_program(grants.network)
        .map_err(std::io::Error::other)?;
    let mut filter = String::new();
    for i in &program {
        let _ = writeln!(filter, "{{{:#x}, {}, {}, {:#x}}},", i.code, i.jt, i.jf, i.k);
    }
    std::fs::write(dir.join("filter.h"), filter)
}
