//! What every crate's fuzz targets share (tests only: built with `cfg(test)` here and with the
//! `fuzzing` feature for the crates above): how many cases a target runs
//! (`SWITCHBOARD_FUZZ_CASES`, else the target's default; `scripts/fuzz.sh` runs them long),
//! failing inputs kept beside the source in `proptest-regressions/` and replayed first, and text
//! made of the words a parser under test cares about.

use proptest::prelude::*;
use proptest::test_runner::{Config, FileFailurePersistence};

/// The runner's configuration: `default` cases unless `SWITCHBOARD_FUZZ_CASES` says.
pub fn config(default: u32) -> Config {
    let cases = std::env::var("SWITCHBOARD_FUZZ_CASES")
        .ok()
        .and_then(|n| n.parse().ok())
        .unwrap_or(default);
    Config {
        cases,
        failure_persistence: Some(Box::new(FileFailurePersistence::SourceParallel(
            "proptest-regressions",
        ))),
        ..Config::default()
    }
}

/// Text made of up to `max` words from `pool`, run together.
pub fn words(pool: &'static [&'static str], max: usize) -> impl Strategy<Value = String> + Clone {
    prop::collection::vec(prop::sample::select(pool), 0..=max).prop_map(|w| w.concat())
}
