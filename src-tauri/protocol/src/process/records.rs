//! Records of spawned servers in the data directory, so that what a killed host left behind is
//! reaped by the next start of the app or the CLI on that directory. Each child gets a unique
//! token in its environment (`SWITCHBOARD_SPAWN`), which its own children inherit; a record
//! holds the token, the group and its leader's start time, and the host's pid and start time.
//! A record is reaped only when its host is gone, and then only processes that carry its token
//! (grandchildren that left the group or hold the server's stdout included) and the group whose
//! leader still has the recorded start time: a process that merely reuses an id is never touched.

use std::path::{Path, PathBuf};

use serde::{Deserialize, Serialize};

/// The environment variable that marks a spawned server and everything it starts.
pub const TOKEN_VAR: &str = "SWITCHBOARD_SPAWN";

/// The records directory of one data directory; cheap to clone.
#[derive(Debug, Clone)]
pub struct ProcessRecords {
    dir: PathBuf,
}

#[derive(Debug, Serialize, Deserialize)]
struct Record {
    token: String,
    server: String,
    pgid: u32,
    leader_start: Option<u64>,
    host_pid: u32,
    host_start: Option<u64>,
}

/// A fresh token for a child about to be spawned.
pub fn new_token() -> String {
    switchboard_base::canonical::new_id()
}

impl ProcessRecords {
    /// The records kept in `data_dir`.
    pub fn new(data_dir: &Path) -> Self {
        Self {
            dir: data_dir.join("processes"),
        }
    }

    /// Records child `pgid` of server `server`, spawned with `token`. A record that cannot be
    /// written only costs the reaping after a crash, so it is logged, not fatal.
    pub fn record(&self, token: &str, server: &str, pgid: u32) {
        let host_pid = std::process::id();
        let record = Record {
            token: token.to_owned(),
            server: server.to_owned(),
            pgid,
            leader_start: start_time(pgid),
            host_pid,
            host_start: start_time(host_pid),
        };
        let written = std::fs::create_dir_all(&self.dir).and_then(|()| {
            let text = serde_json::to_vec(&record).unwrap_or_default();
            std::fs::write(self.file(token), text)
        });
        if let Err(e) = written {
            tracing::warn!(server, error = %e, "could not record the server's process");
        }
    }

    /// Forgets the record of `token` (its group was shut down).
    pub fn remove(&self, token: &str) {
        let _ = std::fs::remove_file(self.file(token));
    }

    /// Kills what hosts that are gone left behind and removes their records; returns how many
    /// processes were killed. Blocking: reads `/proc`.
    pub fn reap(&self) -> usize {
        let Ok(entries) = std::fs::read_dir(&self.dir) else {
            return 0;
        };
        let mut killed = 0;
        for entry in entries.flatten() {
            let path = entry.path();
            let Some(record) = std::fs::read(&path)
                .ok()
                .and_then(|b| serde_json::from_slice::<Record>(&b).ok())
            else {
                let _ = std::fs::remove_file(&path);
                continue;
            };
            if alive_as(record.host_pid, record.host_start) {
                continue;
            }
            killed += kill_leftovers(&record);
            let _ = std::fs::remove_file(&path);
        }
        killed
    }

    fn file(&self, token: &str) -> PathBuf {
        self.dir.join(format!("{token}.json"))
    }
}

/// Whether process `pid` runs and started at `start` (so it is the one recorded).
fn alive_as(pid: u32, start: Option<u64>) -> bool {
    start.is_some() && start_time(pid) == start
}

#[cfg(target_os = "linux")]
fn kill_leftovers(record: &Record) -> usize {
    let marker = format!("{TOKEN_VAR}={}", record.token);
    let leader_is_ours = alive_as(record.pgid, record.leader_start);
    let mut killed = 0;
    for pid in all_pids() {
        let in_group = leader_is_ours && stat_field(pid, 2) == Some(u64::from(record.pgid));
        if (in_group || carries(pid, &marker)) && kill(pid) {
            killed += 1;
        }
    }
    if killed > 0 {
        tracing::warn!(
            server = record.server,
            killed,
            "reaped processes a stopped host left"
        );
    }
    killed
}

#[cfg(not(target_os = "linux"))]
fn kill_leftovers(_record: &Record) -> usize {
    0
}

#[cfg(target_os = "linux")]
fn all_pids() -> Vec<u32> {
    std::fs::read_dir("/proc")
        .map(|dir| {
            dir.flatten()
                .filter_map(|e| e.file_name().to_str()?.parse().ok())
                .collect()
        })
        .unwrap_or_default()
}

/// Whether process `pid`'s environment holds `marker` (`NAME=value`).
#[cfg(target_os = "linux")]
fn carries(pid: u32, marker: &str) -> bool {
    std::fs::read(format!("/proc/{pid}/environ"))
        .map(|env| env.split(|b| *b == 0).any(|v| v == marker.as_bytes()))
        .unwrap_or(false)
}

#[cfg(target_os = "linux")]
fn kill(pid: u32) -> bool {
    let Ok(pid) = libc::pid_t::try_from(pid) else {
        return false;
    };
    // SAFETY: kill only sends a signal; the pid was matched by the token or the recorded group.
    unsafe { libc::kill(pid, libc::SIGKILL) == 0 }
}

/// When process `pid` started (clock ticks since boot), or `None` if it does not run.
#[cfg(target_os = "linux")]
pub fn start_time(pid: u32) -> Option<u64> {
    stat_field(pid, 19)
}

#[cfg(not(target_os = "linux"))]
pub fn start_time(_pid: u32) -> Option<u64> {
    None
}

/// Field `index` of `/proc/<pid>/stat` counted from the state (0), after the command name.
#[cfg(target_os = "linux")]
fn stat_field(pid: u32, index: usize) -> Option<u64> {
    let stat = std::fs::read_to_string(format!("/proc/{pid}/stat")).ok()?;
    let rest = &stat[stat.rfind(')')? + 1..];
    rest.split_whitespace().nth(index)?.parse().ok()
}

#[cfg(all(test, target_os = "linux"))]
mod tests {
    use super::*;

    #[test]
    fn reaps_only_what_a_gone_host_left_and_only_its_own() {
        let dir = tempfile::tempdir().unwrap();
        let records = ProcessRecords::new(dir.path());
        let token = new_token();
        let mut ours = std::process::Command::new("sleep")
            .arg("30")
            .env(TOKEN_VAR, &token)
            .spawn()
            .unwrap();
        let mut stranger = std::process::Command::new("sleep")
            .arg("30")
            .spawn()
            .unwrap();
        // Recorded by this (live) host: left alone.
        records.record(&token, "s", ours.id());
        assert_eq!(records.reap(), 0);
        assert!(ours.try_wait().unwrap().is_none());

        // The same record as if its host had died: the token's carrier goes, the stranger stays.
        let file = records.file(&token);
        let mut record: Record = serde_json::from_slice(&std::fs::read(&file).unwrap()).unwrap();
        record.host_start = record.host_start.map(|s| s + 1);
        std::fs::write(&file, serde_json::to_vec(&record).unwrap()).unwrap();
        assert_eq!(records.reap(), 1);
        assert!(ours.wait().unwrap().code().is_none(), "killed by a signal");
        assert!(
            stranger.try_wait().unwrap().is_none(),
            "an unrelated process is untouched"
        );
        assert!(!file.exists());
        stranger.kill().unwrap();
        let _ = stranger.wait();
    }
}
