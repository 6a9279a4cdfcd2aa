//! Whether this computer's runtime is one a bundle's `compatibility.runtimes` accepts: npm-style
//! ranges (`>=18`, `^20.1`, `~3.11`, `>=3.10 <4`, alternatives with `||`). A range it cannot
//! read does not block an install: the server's own start will say what is wrong.

use super::manifest::Manifest;

/// The program whose version a bundle constrains, and the range: `node` for a Node server,
/// `python3` for a Python or uv one.
pub fn requirement(m: &Manifest) -> Option<(&'static str, &str)> {
    let runtimes = m.compatibility.as_ref()?.runtimes.as_ref()?;
    match m.server.kind.as_str() {
        "node" => runtimes.node.as_deref().map(|r| ("node", r)),
        "python" | "uv" => runtimes.python.as_deref().map(|r| ("python3", r)),
        _ => None,
    }
}

/// The version in a `--version` answer (`v20.20.2`, `Python 3.12.1`).
pub fn version_in(answer: &str) -> Option<[u64; 3]> {
    answer
        .split_whitespace()
        .find_map(|w| parse(w.trim_start_matches('v')).filter(|(_, n)| *n > 0))
        .map(|(v, _)| v)
}

/// Whether `version` is in `range`; `None` when the range cannot be read.
pub fn satisfies(range: &str, version: [u64; 3]) -> Option<bool> {
    let mut any = false;
    for alternative in range.split("||") {
        let mut all = true;
        for comparator in alternative.split_whitespace() {
            all &= holds(comparator, version)?;
        }
        any |= all;
    }
    Some(any)
}

fn holds(comparator: &str, v: [u64; 3]) -> Option<bool> {
    let (op, rest) = ["^", "~", ">=", "<=", ">", "<", "="]
        .iter()
        .find_map(|op| comparator.strip_prefix(op).map(|rest| (*op, rest)))
        .unwrap_or(("", comparator));
    let (want, given) = parse(rest.trim_start_matches('v'))?;
    Some(match op {
        ">=" => v >= want,
        ">" => v > want,
        "<=" => v < past(want, given),
        "<" => v < want,
        "^" => v >= want && v < caret(want),
        "~" => v >= want && v < tilde(want, given),
        _ if given == 3 => v == want,
        _ => v >= want && v < past(want, given),
    })
}

/// `x.y.z`, parts missing or `x` read as 0; with how many parts were given.
fn parse(s: &str) -> Option<([u64; 3], usize)> {
    let mut out = [0; 3];
    let mut given = 0;
    for (i, part) in s.split('.').enumerate() {
        if i >= 3 || part.is_empty() {
            return None;
        }
        if matches!(part, "x" | "X" | "*") {
            break;
        }
        out[i] = part.split(['-', '+']).next()?.parse().ok()?;
        given = i + 1;
    }
    Some((out, given))
}

/// The first version past all those a partial one stands for (`1.2` → `1.3.0`, `1.2.3` →
/// `1.2.4`).
fn past(v: [u64; 3], given: usize) -> [u64; 3] {
    match given {
        0 => [u64::MAX, 0, 0],
        1 => [v[0] + 1, 0, 0],
        2 => [v[0], v[1] + 1, 0],
        _ => [v[0], v[1], v[2] + 1],
    }
}

fn caret(v: [u64; 3]) -> [u64; 3] {
    match v {
        [0, 0, p] => [0, 0, p + 1],
        [0, m, _] => [0, m + 1, 0],
        [major, ..] => [major + 1, 0, 0],
    }
}

fn tilde(v: [u64; 3], given: usize) -> [u64; 3] {
    if given <= 1 {
        [v[0] + 1, 0, 0]
    } else {
        [v[0], v[1] + 1, 0]
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn ranges() {
        let v = |s: &str| version_in(s).unwrap();
        assert_eq!(v("v20.20.2"), [20, 20, 2]);
        assert_eq!(v("Python 3.12.1"), [3, 12, 1]);
        for (range, version, ok) in [
            (">=18.0.0", "v20.1.0", true),
            (">=22", "v20.1.0", false),
            ("^20.1", "v20.9.0", true),
            ("^20.1", "v21.0.0", false),
            ("~3.11", "Python 3.11.9", true),
            ("~3.11", "Python 3.12.0", false),
            (">=3.10 <4", "Python 3.12.1", true),
            ("16.x || >=20", "v20.0.0", true),
            ("16.x || >=22", "v20.0.0", false),
            ("20", "v20.4.1", true),
            ("<=20", "v20.4.1", true),
            ("<=20", "v21.0.0", false),
            ("20.4.1", "v20.4.1", true),
        ] {
            assert_eq!(satisfies(range, v(version)), Some(ok), "{range} {version}");
        }
        assert_eq!(satisfies(">=banana", [1, 0, 0]), None);
    }
}
