//! `--trace FILE`: every message to and from the servers of this run, as JSON Lines, written as
//! it crosses the wire (so a run that crashes leaves its trace up to the crash), with the same
//! redaction as the app's traffic screen.

use std::path::{Path, PathBuf};

use switchboard_core::app::{Traffic, TrafficLimits, traffic_trace};
use switchboard_core::{Error, ErrorCode, Result};

/// The trace of this run: the rings it taps and the file they go to.
pub struct TraceRun {
    traffic: Traffic,
    file: traffic_trace::TraceFile,
    path: PathBuf,
}

impl TraceRun {
    pub fn open(path: &Path) -> Result<Self> {
        let (tap, file) = traffic_trace::to_file(path).map_err(|e| {
            Error::new(
                ErrorCode::Io,
                format!("Cannot write the trace to {}: {e}.", path.display()),
            )
        })?;
        let traffic = Traffic::new(TrafficLimits::default());
        traffic.tap(tap);
        Ok(Self {
            traffic,
            file,
            path: path.to_owned(),
        })
    }

    /// Where the run's connections record.
    pub fn traffic(&self) -> Traffic {
        self.traffic.clone()
    }

    /// Writes what is still queued and closes the file; says on stderr what was left out if the
    /// writer fell behind.
    pub fn finish(self) -> Result<()> {
        let (_, dropped) = self.file.finish().map_err(|e| {
            Error::new(
                ErrorCode::Io,
                format!("Cannot write the trace to {}: {e}.", self.path.display()),
            )
        })?;
        if dropped > 0 {
            eprintln!(
                "warning: {dropped} messages were left out of the trace {} (they came faster than \
                 it could be written)",
                self.path.display()
            );
        }
        Ok(())
    }
}
