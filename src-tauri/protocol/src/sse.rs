//! The one Server-Sent Events reader, for LLM provider streams and the legacy HTTP+SSE transport:
//! `event:` and `data:` fields, multi-line data, comments, CRLF. Lines and events are capped so a
//! misbehaving endpoint cannot grow memory without bound, and each byte is scanned for a line end
//! once, however the stream is chunked.

use bytes::{Buf, BytesMut};

/// One dispatched event.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct SseEvent {
    /// The `event:` field, empty when absent.
    pub event: String,
    /// The `data:` lines joined with `\n`.
    pub data: String,
}

/// Incremental parser: feed bytes, take complete events.
#[derive(Debug)]
pub struct SseReader {
    buf: BytesMut,
    /// The longest line, and the largest event, accepted.
    max: usize,
    /// How much of `buf` is known to hold no line end.
    scanned: usize,
    event: String,
    data: Vec<String>,
    /// The bytes of `data`.
    data_len: usize,
}

/// The longest line, and the largest event, accepted from a provider stream.
pub const MAX_LINE: usize = 8 * 1024 * 1024;

impl Default for SseReader {
    fn default() -> Self {
        Self::with_limit(MAX_LINE)
    }
}

impl SseReader {
    /// A reader refusing lines and events longer than `max` bytes.
    pub fn with_limit(max: usize) -> Self {
        Self {
            buf: BytesMut::new(),
            max,
            scanned: 0,
            event: String::new(),
            data: Vec::new(),
            data_len: 0,
        }
    }

    /// Adds bytes and returns the events they completed.
    pub fn feed(&mut self, chunk: &[u8]) -> Result<Vec<SseEvent>, String> {
        self.buf.extend_from_slice(chunk);
        let mut out = Vec::new();
        while let Some(offset) = self.buf[self.scanned..].iter().position(|&b| b == b'\n') {
            let pos = self.scanned + offset;
            self.scanned = 0;
            let mut line = self.buf.split_to(pos + 1);
            line.truncate(pos);
            if line.last() == Some(&b'\r') {
                line.truncate(pos - 1);
            }
            let line = String::from_utf8_lossy(&line).into_owned();
            if let Some(ev) = self.line(&line) {
                out.push(ev);
            }
            if self.data_len > self.max {
                let max = self.max;
                self.reset();
                return Err(format!("a stream event exceeded {max} bytes"));
            }
        }
        self.scanned = self.buf.len();
        if self.buf.len() > self.max {
            let max = self.max;
            self.reset();
            return Err(format!("a stream line exceeded {max} bytes"));
        }
        Ok(out)
    }

    fn reset(&mut self) {
        self.buf.advance(self.buf.len());
        self.scanned = 0;
        self.event.clear();
        self.data.clear();
        self.data_len = 0;
    }

    /// Dispatches what is left at the end of the stream.
    pub fn finish(&mut self) -> Option<SseEvent> {
        if !self.buf.is_empty() {
            let rest = String::from_utf8_lossy(&self.buf).into_owned();
            self.buf.clear();
            self.scanned = 0;
            self.line(&rest);
        }
        self.dispatch()
    }

    fn line(&mut self, line: &str) -> Option<SseEvent> {
        if line.is_empty() {
            return self.dispatch();
        }
        if line.starts_with(':') {
            return None;
        }
        let (field, value) = match line.split_once(':') {
            Some((f, v)) => (f, v.strip_prefix(' ').unwrap_or(v)),
            None => (line, ""),
        };
        match field {
            "event" => self.event = value.to_owned(),
            "data" => {
                self.data_len += value.len() + 1;
                self.data.push(value.to_owned());
            }
            _ => {}
        }
        None
    }

    fn dispatch(&mut self) -> Option<SseEvent> {
        self.data_len = 0;
        if self.data.is_empty() {
            self.event.clear();
            return None;
        }
        Some(SseEvent {
            event: std::mem::take(&mut self.event),
            data: std::mem::take(&mut self.data).join("\n"),
        })
    }
}

#[cfg(test)]
mod tests {
    use proptest::prelude::*;

    use super::*;

    #[test]
    fn split_across_chunks_with_crlf_and_comments() {
        let mut r = SseReader::default();
        let mut evs = r.feed(b": ping\r\nevent: message_start\r\nda").unwrap();
        assert!(evs.is_empty());
        evs.extend(
            r.feed(b"ta: {\"a\":1}\r\n\r\ndata: x\ndata: y\n\n")
                .unwrap(),
        );
        assert_eq!(
            evs,
            vec![
                SseEvent {
                    event: "message_start".into(),
                    data: "{\"a\":1}".into()
                },
                SseEvent {
                    event: String::new(),
                    data: "x\ny".into()
                },
            ]
        );
        assert!(r.feed(b"data: tail").unwrap().is_empty());
        assert_eq!(r.finish().unwrap().data, "tail");
    }

    #[test]
    fn a_long_line_in_small_chunks_arrives_whole() {
        let mut r = SseReader::default();
        let text = "x".repeat(100_000);
        let line = format!("data: {text}\n\n");
        let mut evs = Vec::new();
        for chunk in line.as_bytes().chunks(7) {
            evs.extend(r.feed(chunk).unwrap());
        }
        assert_eq!(evs.len(), 1);
        assert_eq!(evs[0].data, text);
    }

    #[test]
    fn oversized_lines_and_events_are_refused() {
        let mut r = SseReader::default();
        let big = vec![b'x'; MAX_LINE + 1];
        assert!(r.feed(&big).unwrap_err().contains("line exceeded"));
        // Many small data lines that never end the event.
        let mut r = SseReader::default();
        let line = format!("data: {}\n", "y".repeat(1024 * 1024));
        let mut error = None;
        for _ in 0..9 {
            if let Err(e) = r.feed(line.as_bytes()) {
                error = Some(e);
                break;
            }
        }
        assert!(error.is_some_and(|e| e.contains("event exceeded")));
        // The reader recovers for what follows.
        assert_eq!(r.feed(b"data: ok\n\n").unwrap()[0].data, "ok");
    }

    /// One event as written: a comment or not, an `event:` field or not, its `data:` lines, and
    /// for each line whether it ends in CRLF.
    type Written = (Option<String>, bool, Vec<String>, Vec<bool>);

    fn written() -> impl Strategy<Value = Written> {
        (
            prop::option::of(crate::fuzz::text(8)),
            any::<bool>(),
            // A leading space would be taken as the field's separator.
            prop::collection::vec(
                crate::fuzz::text(40).prop_map(|d| d.trim_start_matches(' ').to_owned()),
                1..4,
            ),
            prop::collection::vec(any::<bool>(), 6),
        )
    }

    /// A well-formed stream of `written` events and the events it carries.
    fn stream(written: &[Written]) -> (Vec<u8>, Vec<SseEvent>) {
        let (mut bytes, mut events) = (Vec::new(), Vec::new());
        for (comment, named, data, crlf) in written {
            let event = if *named { "message" } else { "" }.to_owned();
            let mut lines: Vec<String> = comment.iter().map(|c| format!(": {c}")).collect();
            if *named {
                lines.push(format!("event: {event}"));
            }
            lines.extend(data.iter().map(|d| format!("data: {d}")));
            lines.push(String::new());
            for (i, line) in lines.iter().enumerate() {
                bytes.extend_from_slice(line.as_bytes());
                let end: &[u8] = if crlf[i % crlf.len()] { b"\r\n" } else { b"\n" };
                bytes.extend_from_slice(end);
            }
            events.push(SseEvent {
                event,
                data: data.join("\n"),
            });
        }
        (bytes, events)
    }

    fn read_all(chunks: &[Vec<u8>]) -> Vec<SseEvent> {
        let mut r = SseReader::default();
        let mut out = Vec::new();
        for chunk in chunks {
            out.extend(r.feed(chunk).unwrap());
        }
        out.extend(r.finish());
        out
    }

    proptest! {
        #![proptest_config(crate::fuzz::config(20_000))]

        #[test]
        fn any_chunking_of_a_stream_yields_its_events(
            written in prop::collection::vec(written(), 0..6),
            cuts in crate::fuzz::cuts(),
        ) {
            let (bytes, events) = stream(&written);
            let chunks = crate::fuzz::chunks(&bytes, &cuts);
            prop_assert_eq!(read_all(&chunks), events);
        }

        #[test]
        fn random_bytes_never_panic_nor_grow_past_the_limit(
            bytes in crate::fuzz::bytes(512),
            cuts in crate::fuzz::cuts(),
            finish in any::<bool>(),
        ) {
            const LIMIT: usize = 256;
            let mut r = SseReader::with_limit(LIMIT);
            for chunk in crate::fuzz::chunks(&bytes, &cuts) {
                // An error drops what was buffered; the reader goes on with what follows.
                let _ = r.feed(&chunk);
                let held =
                    r.buf.len() + r.data.iter().map(String::len).sum::<usize>() + r.event.len();
                prop_assert!(held <= 3 * LIMIT, "{} bytes held", held);
            }
            if finish {
                let _ = r.finish();
            }
        }
    }

    #[test]
    fn a_smaller_limit_applies_to_lines_and_events() {
        let mut r = SseReader::with_limit(16);
        assert!(r.feed(b"data: 0123456789abcdefghij").is_err());
        let mut r = SseReader::with_limit(16);
        assert!(r.feed(b"data: 0123456789\ndata: abcdefghij\n").is_err());
    }
}
