//! A server's `envFile`: the dotenv file whose variables join its environment, read the same
//! way when it is launched and when its contents are made part of what the person trusts.

use std::path::Path;

use crate::error::{Error, ErrorCode, Result};

/// The variables of a dotenv file, read by `dotenvy` (quotes, escapes, `export`, comments,
/// multi-line values) without touching the host's own environment. Values are literal: `$NAME`
/// is not expanded, so a file cannot hand the child a host variable (a provider key) that the
/// allow-list keeps from it, and a password with a `$` arrives whole.
pub fn read(file: &Path, server: &str) -> Result<Vec<(String, String)>> {
    read_entries(file).map_err(|why| {
        Error::new(
            ErrorCode::ConfigInvalid,
            format!("server {server:?}: envFile {}: {why}", file.display()),
        )
    })
}

/// The variables of `file`, or why it cannot be read.
pub fn read_entries(file: &Path) -> std::result::Result<Vec<(String, String)>, String> {
    let text = read_capped(file).map_err(|e| e.to_string())?;
    let literal = literal_dollars(&text);
    dotenvy::from_read_iter(literal.as_bytes())
        .map(|item| item.map_err(|e| e.to_string()))
        .collect()
}

/// Larger than any real dotenv file: a file that grows without end is refused, not read.
const MAX_BYTES: u64 = 1 << 20;

fn read_capped(file: &Path) -> std::io::Result<String> {
    use std::io::Read;
    let mut text = String::new();
    std::fs::File::open(file)?
        .take(MAX_BYTES + 1)
        .read_to_string(&mut text)?;
    if text.len() as u64 > MAX_BYTES {
        return Err(std::io::Error::other("it is larger than 1 MiB"));
    }
    Ok(text)
}

/// Escapes every `$` that dotenvy would expand (outside single quotes and comments), so it reads
/// as a plain `$`.
fn literal_dollars(text: &str) -> String {
    let mut out = String::with_capacity(text.len() + 8);
    let (mut single, mut double, mut escaped, mut comment) = (false, false, false, false);
    let mut previous = '\n';
    for c in text.chars() {
        if comment {
            comment = c != '\n';
        } else if escaped {
            escaped = false;
        } else if single {
            single = c != '\'';
        } else {
            match c {
                '\\' => escaped = true,
                '"' => double = !double,
                '\'' if !double => single = true,
                '#' if !double && previous.is_whitespace() => comment = true,
                '$' => out.push('\\'),
                _ => {}
            }
        }
        out.push(c);
        previous = c;
    }
    out
}
