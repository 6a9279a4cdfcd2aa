//! A server's `envFile`: the dotenv file whose variables join its environment, read the same
//! way when it is launched and when its contents are made part of what the person trusts.
//!
//! Read by a parser of its own that never substitutes: `$NAME` and `${NAME}` stay as written in
//! every kind of value, so no way of writing a file can hand the child a host variable (a
//! provider key) that the allow-list keeps from it, and a password with a `$` arrives whole. It
//! takes what dotenv files hold: `export`, comments, unquoted values (a ` #` starts a comment),
//! single quotes (literal), double quotes (escapes, several lines), quoted parts run together.

use std::path::Path;

use crate::config::{EnvFileRead, ServerConfig};

/// `config` with its env file read once (see [`ServerConfig::env_file_read`]); as it is when it
/// names none.
pub fn read_once(config: &ServerConfig) -> ServerConfig {
    let mut read = config.clone();
    read.env_file_read = config
        .env_file
        .as_deref()
        .map(|file| EnvFileRead(std::sync::Arc::new(read_entries(file))));
    read
}

/// The variables of `config`'s env file, from its one reading when it has been read
/// ([`read_once`]), else read now; `None` when it names no file.
pub fn entries_of(
    config: &ServerConfig,
) -> Option<std::result::Result<Vec<(String, String)>, String>> {
    let file = config.env_file.as_deref()?;
    Some(match &config.env_file_read {
        Some(read) => (*read.0).clone(),
        None => read_entries(file),
    })
}

/// The variables of `file`, or why it cannot be read (never quoting a value: it may be secret).
pub fn read_entries(file: &Path) -> std::result::Result<Vec<(String, String)>, String> {
    let text = read_capped(file).map_err(|e| e.to_string())?;
    parse(&text)
}

/// Larger than any real dotenv file: a file that grows without end is refused, not read.
const MAX_BYTES: u64 = 1 << 20;

/// The file's text, if it is a regular file of at most [`MAX_BYTES`]: a FIFO or a device would
/// block or never end.
fn read_capped(file: &Path) -> std::io::Result<String> {
    use std::io::Read;
    if !std::fs::metadata(file)?.is_file() {
        return Err(std::io::Error::other("it is not a regular file"));
    }
    let mut options = std::fs::OpenOptions::new();
    options.read(true);
    #[cfg(unix)]
    std::os::unix::fs::OpenOptionsExt::custom_flags(&mut options, libc::O_NONBLOCK);
    let mut text = String::new();
    options
        .open(file)?
        .take(MAX_BYTES + 1)
        .read_to_string(&mut text)?;
    if text.len() as u64 > MAX_BYTES {
        return Err(std::io::Error::other("it is larger than 1 MiB"));
    }
    Ok(text)
}

/// The `NAME=value` lines of `text`.
fn parse(text: &str) -> std::result::Result<Vec<(String, String)>, String> {
    let mut out = Vec::new();
    let mut at = Cursor {
        chars: text.chars().peekable(),
        line: 1,
    };
    while let Some(c) = at.skip_blank() {
        if c == '#' {
            at.skip_line();
            continue;
        }
        let mut name = at.name();
        if name == "export" && at.peek().is_some_and(|c| c == ' ' || c == '\t') {
            at.skip_spaces();
            name = at.name();
        }
        at.skip_spaces();
        if name.is_empty() || at.next() != Some('=') {
            return Err(format!("line {}: expected NAME=value", at.line));
        }
        at.skip_spaces();
        out.push((name, at.value()?));
    }
    Ok(out)
}

struct Cursor<'a> {
    chars: std::iter::Peekable<std::str::Chars<'a>>,
    line: usize,
}

impl Cursor<'_> {
    fn peek(&mut self) -> Option<char> {
        self.chars.peek().copied()
    }

    fn next(&mut self) -> Option<char> {
        let c = self.chars.next();
        if c == Some('\n') {
            self.line += 1;
        }
        c
    }

    /// Skips whitespace and empty lines; the next character, if any.
    fn skip_blank(&mut self) -> Option<char> {
        while self.peek()?.is_whitespace() {
            self.next();
        }
        self.peek()
    }

    fn skip_spaces(&mut self) {
        while self.peek().is_some_and(|c| c == ' ' || c == '\t') {
            self.next();
        }
    }

    fn skip_line(&mut self) {
        while self.next().is_some_and(|c| c != '\n') {}
    }

    fn name(&mut self) -> String {
        let mut name = String::new();
        while let Some(c) = self
            .peek()
            .filter(|c| c.is_ascii_alphanumeric() || matches!(c, '_' | '.' | '-'))
        {
            name.push(c);
            self.next();
        }
        name
    }

    /// A value up to the end of its line (or of its last quoted part), its parts run together.
    fn value(&mut self) -> std::result::Result<String, String> {
        let mut value = String::new();
        while let Some(c) = self.peek() {
            match c {
                '\n' => {
                    self.next();
                    break;
                }
                // A file written on Windows: CRLF ends the line too.
                '\r' if self.crlf() => {
                    self.next();
                    self.next();
                    break;
                }
                '\'' => self.single_quoted(&mut value)?,
                '"' => self.double_quoted(&mut value)?,
                ' ' | '\t' => {
                    let gap = self.spaces();
                    match self.peek() {
                        None | Some('\n') => {}
                        Some('\r') if self.crlf() => {}
                        Some('#') => {
                            self.skip_line();
                            break;
                        }
                        Some(_) => value.push_str(&gap),
                    }
                }
                '\\' => {
                    self.next();
                    value.extend(self.next());
                }
                c => {
                    self.next();
                    value.push(c);
                }
            }
        }
        Ok(value)
    }

    /// Whether a CR starts here that a LF follows.
    fn crlf(&self) -> bool {
        let mut ahead = self.chars.clone();
        ahead.next() == Some('\r') && ahead.next() == Some('\n')
    }

    fn spaces(&mut self) -> String {
        let mut gap = String::new();
        while let Some(c) = self.peek().filter(|c| *c == ' ' || *c == '\t') {
            gap.push(c);
            self.next();
        }
        gap
    }

    fn single_quoted(&mut self, value: &mut String) -> std::result::Result<(), String> {
        let start = self.line;
        self.next();
        loop {
            match self.next() {
                Some('\'') => return Ok(()),
                Some(c) => value.push(c),
                None => return Err(format!("line {start}: a single quote is never closed")),
            }
        }
    }

    fn double_quoted(&mut self, value: &mut String) -> std::result::Result<(), String> {
        let start = self.line;
        self.next();
        loop {
            match self.next() {
                Some('"') => return Ok(()),
                Some('\\') => match self.next() {
                    Some('n') => value.push('\n'),
                    Some('t') => value.push('\t'),
                    Some('r') => value.push('\r'),
                    Some(c @ ('"' | '\\' | '$' | '\'')) => value.push(c),
                    Some(c) => {
                        value.push('\\');
                        value.push(c);
                    }
                    None => break,
                },
                Some(c) => value.push(c),
                None => break,
            }
        }
        Err(format!("line {start}: a double quote is never closed"))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn no_way_of_writing_a_value_reaches_the_hosts_variables() {
        // SAFETY: set before any thread of this test reads the environment.
        unsafe { std::env::set_var("SWITCHBOARD_ENV_FILE_CANARY", "leaked") };
        let cases = [
            "X=a\\ #${SWITCHBOARD_ENV_FILE_CANARY}",
            "X=a\r#${SWITCHBOARD_ENV_FILE_CANARY}",
            "X=\"$SWITCHBOARD_ENV_FILE_CANARY\"",
            "X=${SWITCHBOARD_ENV_FILE_CANARY}",
            "X='$SWITCHBOARD_ENV_FILE_CANARY'",
            "X=a\\$SWITCHBOARD_ENV_FILE_CANARY",
        ];
        for text in cases {
            let parsed = parse(text).unwrap();
            assert!(
                parsed.iter().all(|(_, v)| !v.contains("leaked")),
                "{text:?}: {parsed:?}"
            );
        }
    }

    #[test]
    fn a_file_written_on_windows_reads_the_same() {
        let parsed = parse("A=1\r\nB=\"two\" # note\r\nC='x' \r\n").unwrap();
        let expected = [("A", "1"), ("B", "two"), ("C", "x")];
        let expected: Vec<(String, String)> = expected
            .iter()
            .map(|(k, v)| (k.to_string(), v.to_string()))
            .collect();
        assert_eq!(parsed, expected);
    }

    #[test]
    fn a_bad_line_is_named_by_its_number_never_its_value() {
        let e = parse("A=1\nB=\"s3cret never closed\n").unwrap_err();
        assert!(e.contains("line 2"), "{e}");
        assert!(!e.contains("s3cret"), "{e}");
        let e = parse("A=1\nnot a line\n").unwrap_err();
        assert_eq!(e, "line 2: expected NAME=value");
    }

    #[cfg(unix)]
    #[test]
    fn a_fifo_is_refused_without_blocking() {
        let dir = tempfile::tempdir().unwrap();
        let fifo = dir.path().join("env");
        let c = std::ffi::CString::new(fifo.to_str().unwrap()).unwrap();
        // SAFETY: a plain system call on a path this test owns.
        assert_eq!(unsafe { libc::mkfifo(c.as_ptr(), 0o600) }, 0);
        let e = read_entries(&fifo).unwrap_err();
        assert!(e.contains("not a regular file"), "{e}");
    }
}
