//! What building a box costs, step by step (not a test: it prints microseconds).
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
        let grants = spec.grants(Launch {
            program: Path::new(&program),
            args: &[],
            cwd: None,
            path: Some("/usr/bin:/bin"),
        });
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
    let grants = spec.grants(Launch {
        program: Path::new(&program),
        args: &[],
        cwd: None,
        path: Some("/usr/bin:/bin"),
    });
    let prepared = std::sync::Arc::new(Prepared::build("bench", &grants, Support::detect())?);
    let mut times = [Vec::new(), Vec::new()];
    for i in 0..2 * n {
        let boxed = i % 2 == 1;
        let t = Instant::now();
        let mut cmd = std::process::Command::new(&program);
        cmd.stdin(std::process::Stdio::null())
            .stdout(std::process::Stdio::null());
        let p = prepared.clone();
        // SAFETY: enter() makes only system calls; the other closure does nothing.
        unsafe {
            use std::os::unix::process::CommandExt;
            if boxed {
                cmd.pre_exec(move || p.enter());
            } else {
                cmd.pre_exec(|| Ok(()));
            }
        }
        cmd.status()?;
        times[usize::from(boxed)].push(t.elapsed().as_micros());
    }
    for (boxed, mut t) in times.into_iter().enumerate() {
        t.sort_unstable();
        println!(
            "spawn+exit boxed={}: median {} µs",
            boxed == 1,
            t[t.len() / 2]
        );
    }
    Ok(())
}
