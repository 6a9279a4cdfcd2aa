//! What Switchboard's log may say, whichever level is asked for. rmcp's service loop prints
//! every message it sends or receives at debug and trace level: the answer to an elicitation
//! (a password typed into a form), tool arguments and sampling content. The app and the CLI
//! build their log filter with [`filter`], which holds that module at info when the filter
//! asks for more; a filter that names `rmcp::service` itself still gets its messages, on purpose.

use tracing_subscriber::EnvFilter;
use tracing_subscriber::filter::LevelFilter;

/// The module whose debug and trace events carry message contents.
const MESSAGES: &str = "rmcp::service";

/// The filter for the spec a person chose (`SWITCHBOARD_LOG`, `-vv`: `trace`,
/// `info,rmcp=warn`, …), or `None` when it does not parse. One that lets debug or trace through
/// holds [`MESSAGES`] at info unless it names that module.
pub fn filter(spec: &str) -> Option<EnvFilter> {
    let filter = EnvFilter::try_new(spec).ok()?;
    let quiet_already = filter
        .max_level_hint()
        .is_some_and(|level| level <= LevelFilter::INFO);
    if quiet_already || spec.contains(MESSAGES) {
        return Some(filter);
    }
    let quiet = format!("{MESSAGES}=info").parse().ok()?;
    Some(filter.add_directive(quiet))
}

#[cfg(test)]
mod tests {
    use std::sync::{Arc, Mutex};

    use super::*;

    /// What a log with filter `spec` writes of an rmcp message dump, an rmcp notice and a core
    /// trace line.
    fn logged(spec: &str) -> String {
        let out = Arc::new(Mutex::new(Vec::new()));
        let sink = out.clone();
        let subscriber = tracing_subscriber::fmt()
            .with_env_filter(filter(spec).unwrap())
            .with_ansi(false)
            .with_writer(move || Sink(sink.clone()))
            .finish();
        tracing::subscriber::with_default(subscriber, || {
            tracing::debug!(target: "rmcp::service", "message dump");
            tracing::info!(target: "rmcp::service", "service notice");
            tracing::trace!(target: "switchboard_core::connection", "core detail");
        });
        String::from_utf8(out.lock().unwrap().clone()).unwrap()
    }

    struct Sink(Arc<Mutex<Vec<u8>>>);

    impl std::io::Write for Sink {
        fn write(&mut self, buf: &[u8]) -> std::io::Result<usize> {
            self.0.lock().unwrap().extend_from_slice(buf);
            Ok(buf.len())
        }
        fn flush(&mut self) -> std::io::Result<()> {
            Ok(())
        }
    }

    #[test]
    fn message_contents_stay_out_at_any_level_unless_asked_for_by_name() {
        for spec in ["trace", "debug", "rmcp=trace,info", "rmcp"] {
            let log = logged(spec);
            assert!(!log.contains("message dump"), "{spec}: {log}");
        }
        let log = logged("trace");
        assert!(
            log.contains("service notice") && log.contains("core detail"),
            "{log}"
        );
        assert!(logged("info,rmcp::service=debug").contains("message dump"));
        assert_eq!(logged("off"), "", "a quiet log stays quiet");
        assert!(!logged("info,rmcp=warn").contains("service notice"));
        assert!(filter("not a = filter [").is_none());
    }
}
