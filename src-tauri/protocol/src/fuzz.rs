//! What the framing property tests share: a seeded generator (the seed is printed, and
//! `SWITCHBOARD_FUZZ_SEED` replays it), the number of cases (`SWITCHBOARD_FUZZ_CASES`, at least
//! 100,000 by default), random chunkings of a byte stream, and random text that exercises UTF-8.

use rand::rngs::StdRng;
use rand::{Rng, SeedableRng};

/// How many cases each property runs.
pub fn cases() -> usize {
    std::env::var("SWITCHBOARD_FUZZ_CASES")
        .ok()
        .and_then(|n| n.parse().ok())
        .unwrap_or(100_000)
}

/// A generator and its seed (random unless `SWITCHBOARD_FUZZ_SEED` names one).
pub fn rng() -> (StdRng, u64) {
    let seed = std::env::var("SWITCHBOARD_FUZZ_SEED")
        .ok()
        .and_then(|s| s.parse().ok())
        .unwrap_or_else(rand::random);
    eprintln!("fuzz seed {seed} (replay with SWITCHBOARD_FUZZ_SEED={seed})");
    (StdRng::seed_from_u64(seed), seed)
}

/// `bytes` cut at random places (splitting CRLF pairs and UTF-8 sequences too).
pub fn chunks(bytes: &[u8], rng: &mut StdRng) -> Vec<Vec<u8>> {
    let mut out = Vec::new();
    let mut rest = bytes;
    while !rest.is_empty() {
        // Mostly small pieces, sometimes the whole rest.
        let n = if rng.random_bool(0.1) {
            rest.len()
        } else {
            rng.random_range(1..=rest.len().min(16))
        };
        let (head, tail) = rest.split_at(n);
        out.push(head.to_vec());
        rest = tail;
    }
    out
}

/// Text of up to `max` characters with no line ends: ASCII, quotes, backslashes, colons,
/// multi-byte characters and separators that are not line ends.
pub fn text(rng: &mut StdRng, max: usize) -> String {
    const POOL: &[char] = &[
        'a', 'z', 'Q', '0', ' ', ':', '"', '\\', '{', '}', 'é', 'ß', '😀', '\u{2028}', '\u{feff}',
        '\t', '\u{7f}',
    ];
    let n = rng.random_range(0..=max);
    (0..n)
        .map(|_| POOL[rng.random_range(0..POOL.len())])
        .collect()
}

/// Random bytes, with line ends more often than chance would put them.
pub fn bytes(rng: &mut StdRng, max: usize) -> Vec<u8> {
    let n = rng.random_range(0..=max);
    (0..n)
        .map(|_| match rng.random_range(0..10) {
            0 => b'\n',
            1 => b'\r',
            _ => rng.random(),
        })
        .collect()
}
