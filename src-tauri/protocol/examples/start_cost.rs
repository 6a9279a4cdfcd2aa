//! What a child's start costs, started each way from a parent of a host's size (not a test: it
//! prints microseconds). `BALLAST_MB` of touched memory sizes the parent (20 by default), `N`
//! starts of each way (300), taking turns; the program is `/bin/true` unless one is given.
//! Switchboard's way ([`Launch::start`]) is the vfork way on Linux, boxed or not.
use std::collections::BTreeMap;
use std::os::unix::process::CommandExt;
use std::path::{Path, PathBuf};
use std::time::Instant;

use switchboard_base::config::SandboxProfile;
use switchboard_protocol::process::launch::Launch;
use switchboard_sandbox::{BoxPlace, Prepared, Support};

const WAYS: [&str; 4] = [
    "posix_spawn (std, no pre_exec)",
    "fork (std, an empty pre_exec)",
    "Switchboard's start",
    "Switchboard's start, boxed",
];

fn main() -> Result<(), Box<dyn std::error::Error>> {
    let program: PathBuf = std::env::args().nth(1).unwrap_or("/bin/true".into()).into();
    let number = |name: &str, default: usize| {
        std::env::var(name)
            .ok()
            .and_then(|v| v.parse().ok())
            .unwrap_or(default)
    };
    let (n, ballast_mb) = (number("N", 300), number("BALLAST_MB", 20));
    let ballast: Vec<u8> = vec![1; ballast_mb << 20];
    let runtime = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()?;
    let mut times: [Vec<u128>; 4] = Default::default();
    for i in 0..WAYS.len() * n {
        let way = i % WAYS.len();
        let t = Instant::now();
        match way {
            0 => {
                std::process::Command::new(&program).status()?;
            }
            1 => {
                let mut cmd = std::process::Command::new(&program);
                // SAFETY: the hook does nothing.
                unsafe { cmd.pre_exec(|| Ok(())) };
                cmd.status()?;
            }
            _ => runtime.block_on(switchboard_start(&program, way == 3))?,
        }
        times[way].push(t.elapsed().as_micros());
    }
    for (way, mut t) in WAYS.iter().zip(times) {
        t.sort_unstable();
        println!("start and exit, {way}: median {} µs", t[t.len() / 2]);
    }
    println!(
        "(parent with {} MiB touched, {n} starts each)",
        ballast.len() >> 20
    );
    Ok(())
}

/// One start and exit the way Switchboard starts a server, the box built for it when `boxed`.
async fn switchboard_start(program: &Path, boxed: bool) -> std::io::Result<()> {
    let sandbox = boxed.then(|| the_box(program)).transpose()?;
    let launch = Launch {
        program: program.to_owned(),
        args: vec![],
        env: BTreeMap::from([("PATH".into(), "/usr/bin:/bin".into())]),
        cwd: None,
        sandbox,
    };
    launch.start()?.child.wait().await.map(drop)
}

fn the_box(program: &Path) -> std::io::Result<Prepared> {
    let place = BoxPlace {
        dir: std::env::temp_dir().join("start-cost"),
        home: std::env::var_os("HOME").map(PathBuf::from),
        protected: vec![],
        bundles: None,
    };
    let spec = (place.spec("bench", SandboxProfile::default(), vec![]))
        .map_err(|e| std::io::Error::other(e.to_string()))?;
    let grants = spec.grants(switchboard_sandbox::grants::Launch {
        program,
        args: &[],
        cwd: None,
        path: Some("/usr/bin:/bin"),
    });
    Prepared::build("bench", &grants, Support::detect())
        .map_err(|e| std::io::Error::other(e.to_string()))
}
