//! Switchboard's database: one SQLite file in the data directory (rusqlite, bundled), opened in WAL
//! mode and brought up to date by embedded, numbered migrations. Other modules (audit, policies,
//! pins, sampling usage, chats, providers, tasks) own their tables. Async code reaches the database only
//! through [`Store::run`] (or [`Store::detach`] where nothing can wait), which queue the work for
//! the store's own worker thread: SQLite may wait up to the busy timeout for another process, and
//! that wait must never hold up the window or a runtime worker. The queue is first in, first
//! out, so writes land in the order they were asked for. [`Store::with`] is for code that is
//! already off the runtime. [`Store::open_when_used`] opens the file at its first use instead of
//! at once (the CLI: most commands need no database). The connection lock is only held for one
//! short statement batch, never across an `.await`.

use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex, OnceLock};
use std::time::{SystemTime, UNIX_EPOCH};

use rusqlite::Connection;

use crate::error::{Error, ErrorCode, Result};

/// The migrations, in order; the database's `user_version` is how many have run.
const MIGRATIONS: &[&str] = &[
    include_str!("store/migrations/0001_init.sql"),
    include_str!("store/migrations/0002_providers.sql"),
    include_str!("store/migrations/0003_chat.sql"),
    include_str!("store/migrations/0004_audit_search.sql"),
    include_str!("store/migrations/0005_trust.sql"),
    include_str!("store/migrations/0006_tasks.sql"),
    include_str!("store/migrations/0007_launch_definitions.sql"),
    include_str!("store/migrations/0008_keychain_index.sql"),
    include_str!("store/migrations/0009_unsandboxed.sql"),
    include_str!("store/migrations/0010_registry_cache.sql"),
    include_str!("store/migrations/0011_tool_switches.sql"),
    include_str!("store/migrations/0012_kept_traffic.sql"),
    include_str!("store/migrations/0013_model_prices.sql"),
];

/// The file name of the database inside the data directory.
pub const DATABASE_FILE: &str = "switchboard.sqlite3";

/// Work queued for the store's worker thread.
type Job = Box<dyn FnOnce(&Database) + Send>;

/// The open database, or the database to open at its first use.
pub struct Store {
    db: Arc<Database>,
    worker: std::sync::mpsc::Sender<Job>,
}

/// Where the connection comes from, and the connection once made (or why it could not be).
struct Database {
    path: PathBuf,
    /// The data directory to open the file in; `None`: in memory.
    folder: Option<PathBuf>,
    conn: OnceLock<Result<Mutex<Connection>>>,
}

impl std::fmt::Debug for Store {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Store")
            .field("path", &self.db.path)
            .finish()
    }
}

impl Store {
    /// Opens (creating if needed) the database in `data_dir` and runs pending migrations.
    pub fn open(data_dir: &Path) -> Result<Self> {
        let store = Self::open_when_used(data_dir)?;
        store.db.conn()?;
        Ok(store)
    }

    /// The database in `data_dir`, opened (and created and migrated) only when something first
    /// reads or writes it: a CLI command that needs no database never makes or touches one. An
    /// error opening it is the error of that first use, and of every use after it.
    pub fn open_when_used(data_dir: &Path) -> Result<Self> {
        Self::start(Database {
            path: data_dir.join(DATABASE_FILE),
            folder: Some(data_dir.to_owned()),
            conn: OnceLock::new(),
        })
    }

    /// A private in-memory database (tests and throwaway CLI runs).
    pub fn in_memory() -> Result<Self> {
        let store = Self::start(Database {
            path: PathBuf::from(":memory:"),
            folder: None,
            conn: OnceLock::new(),
        })?;
        store.db.conn()?;
        Ok(store)
    }

    /// Whether the database has been opened (or an attempt made).
    pub fn is_opened(&self) -> bool {
        self.db.conn.get().is_some()
    }

    fn start(db: Database) -> Result<Self> {
        let db = Arc::new(db);
        let (worker, jobs) = std::sync::mpsc::channel::<Job>();
        let shared = db.clone();
        std::thread::Builder::new()
            .name("switchboard-store".into())
            .spawn(move || {
                // Ends when the store (the only sender) is dropped.
                while let Ok(job) = jobs.recv() {
                    // A job that panics must not stop the store for the rest of the session.
                    let ran =
                        std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| job(&shared)));
                    if ran.is_err() {
                        tracing::error!("a database job panicked; the store goes on");
                    }
                }
            })
            .map_err(|e| Error::new(ErrorCode::Io, format!("cannot start the store: {e}")))?;
        Ok(Self { db, worker })
    }

    /// The database file.
    pub fn path(&self) -> &Path {
        &self.db.path
    }

    /// Runs `f` with the connection on the store's worker thread and waits for it without
    /// blocking the caller's thread. Whatever `f` writes is committed when this returns.
    pub async fn run<T: Send + 'static>(
        &self,
        f: impl FnOnce(&mut Connection) -> rusqlite::Result<T> + Send + 'static,
    ) -> Result<T> {
        let (tx, rx) = tokio::sync::oneshot::channel();
        self.enqueue(Box::new(move |db| {
            let _ = tx.send(locked(db, f));
        }))?;
        rx.await
            .map_err(|_| Error::new(ErrorCode::Internal, "the store's worker stopped"))?
    }

    /// Queues `f` for the worker and returns at once (for a `Drop`, which cannot wait). It runs
    /// after everything queued before it and before everything queued after it.
    pub fn detach(&self, f: impl FnOnce(&mut Connection) -> rusqlite::Result<()> + Send + 'static) {
        let queued = self.enqueue(Box::new(move |db| {
            if let Err(e) = locked(db, f) {
                tracing::error!(error = %e, "a background database write failed");
            }
        }));
        if let Err(e) = queued {
            tracing::error!(error = %e, "could not queue a database write");
        }
    }

    fn enqueue(&self, job: Job) -> Result<()> {
        self.worker
            .send(job)
            .map_err(|_| Error::new(ErrorCode::Internal, "the store's worker stopped"))
    }

    /// Runs `f` with the connection on the calling thread: only for code that is not on the async
    /// runtime (a blocking task, a test, the CLI before its runtime starts).
    pub fn with<T>(&self, f: impl FnOnce(&mut Connection) -> rusqlite::Result<T>) -> Result<T> {
        locked(&self.db, f)
    }
}

impl Database {
    /// The connection, opened on the first call.
    fn conn(&self) -> Result<&Mutex<Connection>> {
        self.conn
            .get_or_init(|| self.connect().map(Mutex::new))
            .as_ref()
            .map_err(Clone::clone)
    }

    fn connect(&self) -> Result<Connection> {
        let Some(folder) = &self.folder else {
            let conn = Connection::open_in_memory().map_err(|e| db_error(&self.path, e))?;
            return prepared(conn, &self.path);
        };
        let path = &self.path;
        crate::private::dir(folder).map_err(|e| {
            Error::new(
                ErrorCode::Io,
                format!("cannot create data directory {}: {e}", folder.display()),
            )
        })?;
        let conn = Connection::open(path).map_err(|e| db_error(path, e))?;
        // SQLite gives its journal files the database's mode.
        crate::private::file(path).map_err(|e| {
            Error::new(
                ErrorCode::Io,
                format!("cannot make {} private: {e}", path.display()),
            )
        })?;
        prepared(conn, path).map_err(|e| match e.code {
            // Kept for the person (or a backup tool) to look at; the next start begins anew,
            // because they were told, never silently.
            ErrorCode::Storage if is_damaged(path) => set_aside(path, e),
            _ => e,
        })
    }
}

/// `conn` in WAL mode and migrated.
fn prepared(mut conn: Connection, path: &Path) -> Result<Connection> {
    // The busy timeout comes first: switching to WAL and migrating take write locks, and the
    // CLI and the app (or two CLIs) may open the same fresh file at the same moment.
    conn.busy_timeout(BUSY_TIMEOUT)
        .map_err(|e| db_error(path, e))?;
    // SQLite answers "busy" at once, without waiting, in a few cases the busy timeout does not
    // cover (switching a file another connection is opening to WAL, WAL recovery): those are
    // retried for as long as the timeout would have waited.
    let started = std::time::Instant::now();
    loop {
        match prepare(&mut conn) {
            Ok(()) => return Ok(conn),
            Err(e) if is_busy(&e) && started.elapsed() < BUSY_TIMEOUT => {
                std::thread::sleep(std::time::Duration::from_millis(20));
            }
            Err(e) => return Err(db_error(path, e)),
        }
    }
}

/// Runs blocking work (SQLite, the keychain) on tokio's blocking pool and waits for it without
/// blocking the caller's thread.
pub async fn off_thread<T: Send + 'static>(
    work: impl FnOnce() -> Result<T> + Send + 'static,
) -> Result<T> {
    tokio::task::spawn_blocking(work)
        .await
        .map_err(|e| Error::new(ErrorCode::Internal, format!("background work failed: {e}")))?
}

fn locked<T>(db: &Database, f: impl FnOnce(&mut Connection) -> rusqlite::Result<T>) -> Result<T> {
    let conn = db.conn()?;
    // A panic while holding the connection leaves no half-done work: an open transaction is
    // rolled back when it is dropped. So a poisoned lock is taken over, not given up on.
    let mut conn = conn.lock().unwrap_or_else(|poisoned| poisoned.into_inner());
    f(&mut conn).map_err(|e| db_error(&db.path, e))
}

/// How long opening the database waits for other processes holding it.
const BUSY_TIMEOUT: std::time::Duration = std::time::Duration::from_secs(5);

/// Sets the connection up and migrates. Safe to repeat after a "busy".
///
/// WAL + NORMAL: every committed row survives the process being killed (only an OS crash can
/// lose the last transactions).
fn prepare(conn: &mut Connection) -> rusqlite::Result<()> {
    conn.pragma_update(None, "journal_mode", "WAL")?;
    conn.pragma_update(None, "synchronous", "NORMAL")?;
    conn.pragma_update(None, "foreign_keys", "ON")?;
    migrate(conn)
}

fn is_busy(e: &rusqlite::Error) -> bool {
    matches!(
        e.sqlite_error_code(),
        Some(rusqlite::ErrorCode::DatabaseBusy | rusqlite::ErrorCode::DatabaseLocked)
    )
}

fn migrate(conn: &mut Connection) -> rusqlite::Result<()> {
    loop {
        // IMMEDIATE takes the write lock before reading the version, so of two processes opening
        // the same file, one migrates and the other then sees the new version and skips it.
        let tx = conn.transaction_with_behavior(rusqlite::TransactionBehavior::Immediate)?;
        let done: usize = tx.pragma_query_value(None, "user_version", |r| r.get(0))?;
        let Some(sql) = MIGRATIONS.get(done) else {
            return Ok(());
        };
        tx.execute_batch(sql)?;
        tx.pragma_update(None, "user_version", done + 1)?;
        tx.commit()?;
        tracing::info!(migration = done + 1, "database migrated");
    }
}

fn db_error(path: &Path, e: rusqlite::Error) -> Error {
    use rusqlite::ErrorCode as C;
    let shown = path.display();
    let message = match e.sqlite_error_code() {
        Some(C::DiskFull) => format!(
            "The disk is full, so Switchboard could not save to its database {shown}: free some \
             space. What was being saved was not written at all, and everything else goes on."
        ),
        Some(C::DatabaseBusy | C::DatabaseLocked) => format!(
            "Switchboard's database {shown} is locked by another program (another Switchboard, \
             or a tool that has it open): close that program and try again."
        ),
        Some(C::NotADatabase | C::DatabaseCorrupt) => {
            format!("Switchboard's database {shown} is damaged and cannot be read.")
        }
        Some(C::ReadOnly | C::CannotOpen | C::PermissionDenied) => format!(
            "Switchboard cannot write its database {shown}: check that the folder is yours and \
             writable."
        ),
        _ => format!("Switchboard's database {shown} failed."),
    };
    Error::new(ErrorCode::Storage, message).with_details(e.to_string())
}

/// Whether the file at `path` is not a database SQLite can read (as opposed to busy or missing).
fn is_damaged(path: &Path) -> bool {
    let probe = Connection::open_with_flags(path, rusqlite::OpenFlags::SQLITE_OPEN_READ_ONLY)
        .and_then(|c| c.query_row("PRAGMA schema_version", [], |r| r.get::<_, i64>(0)));
    matches!(
        probe.map_err(|e| e.sqlite_error_code()),
        Err(Some(
            rusqlite::ErrorCode::NotADatabase | rusqlite::ErrorCode::DatabaseCorrupt
        ))
    )
}

/// Moves a damaged database (and its journal files) aside, and says where it went.
fn set_aside(path: &Path, e: Error) -> Error {
    let aside = path.with_extension(format!("sqlite3.damaged-{}", now_ms()));
    let moved = std::fs::rename(path, &aside);
    for journal in ["-wal", "-shm"] {
        let mut from = path.as_os_str().to_owned();
        from.push(journal);
        let mut to = aside.as_os_str().to_owned();
        to.push(journal);
        let _ = std::fs::rename(&from, &to);
    }
    let message = match moved {
        Ok(()) => format!(
            "Switchboard's database {} is damaged and cannot be read. It was moved aside to {} \
             (nothing was deleted): start Switchboard again to begin with a new one, or put a \
             backup in its place first.",
            path.display(),
            aside.display()
        ),
        Err(why) => format!(
            "{} It could not be moved aside ({why}): move or restore it yourself, then start \
             Switchboard again.",
            e.message
        ),
    };
    Error::new(ErrorCode::Storage, message).with_details(e.details.unwrap_or_default())
}

/// Milliseconds since the Unix epoch.
pub fn now_ms() -> i64 {
    SystemTime::now()
        .duration_since(UNIX_EPOCH)
        .map(|d| d.as_millis() as i64)
        .unwrap_or(0)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The data folder and the database (with its journal) are the person's alone, whatever
    /// the umask made of them.
    #[cfg(unix)]
    #[test]
    fn the_data_folder_and_database_are_private() {
        use std::os::unix::fs::PermissionsExt;
        let mode = |p: &Path| std::fs::metadata(p).unwrap().permissions().mode() & 0o777;
        let tmp = tempfile::tempdir().unwrap();
        let data = tmp.path().join("data");
        std::fs::create_dir(&data).unwrap();
        std::fs::set_permissions(&data, std::fs::Permissions::from_mode(0o755)).unwrap();
        let store = Store::open(&data).unwrap();
        store
            .with(|c| c.execute_batch("CREATE TABLE t (x); INSERT INTO t VALUES (1);"))
            .unwrap();
        assert_eq!(mode(&data), 0o700);
        for entry in std::fs::read_dir(&data).unwrap() {
            let path = entry.unwrap().path();
            assert_eq!(mode(&path), 0o600, "{}", path.display());
        }
    }

    /// A file that is not a database (damaged, or something else in its place) is never
    /// recreated empty in silence: the error says so and where the file went, and the file is
    /// there, as it was.
    #[test]
    fn a_damaged_database_is_kept_aside_and_said() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join(DATABASE_FILE);
        let garbage = vec![0x5a_u8; 8192];
        std::fs::write(&path, &garbage).unwrap();
        let e = Store::open(dir.path()).unwrap_err();
        assert_eq!(e.code, ErrorCode::Storage);
        assert!(
            e.message.contains("damaged") && e.message.contains("moved aside"),
            "{}",
            e.message
        );
        assert!(!path.exists(), "the damaged file is still in the way");
        let aside: Vec<_> = std::fs::read_dir(dir.path())
            .unwrap()
            .map(|f| f.unwrap().path())
            .filter(|p| p.to_string_lossy().contains(".damaged-"))
            .collect();
        assert_eq!(aside.len(), 1, "{aside:?}");
        assert!(
            e.message.contains(&aside[0].display().to_string()),
            "{}",
            e.message
        );
        assert_eq!(std::fs::read(&aside[0]).unwrap(), garbage);
        // The next start, told, begins anew.
        Store::open(dir.path()).unwrap();
    }

    /// Another program holding the database: a clear error after the busy wait, and the file is
    /// left alone (locked is not damaged).
    #[test]
    fn a_database_locked_by_another_program_is_said_and_left_alone() {
        let dir = tempfile::tempdir().unwrap();
        drop(Store::open(dir.path()).unwrap());
        let path = dir.path().join(DATABASE_FILE);
        let holder = Connection::open(&path).unwrap();
        holder
            .execute_batch("PRAGMA locking_mode = EXCLUSIVE; BEGIN EXCLUSIVE;")
            .unwrap();
        let e = Store::open(dir.path()).unwrap_err();
        assert_eq!(e.code, ErrorCode::Storage);
        assert!(
            e.message.contains("locked by another program"),
            "{}",
            e.message
        );
        assert!(path.exists());
        drop(holder);
        Store::open(dir.path()).unwrap();
    }

    /// Opened when used: nothing is made on disk until a first read or write, which then opens
    /// (and migrates) it on the store's own thread.
    #[tokio::test]
    async fn a_store_opened_when_used_touches_nothing_until_then() {
        let tmp = tempfile::tempdir().unwrap();
        let data = tmp.path().join("data");
        let store = Store::open_when_used(&data).unwrap();
        assert!(!store.is_opened());
        assert!(!data.exists(), "the data folder was made before any use");
        let version: usize = store
            .run(|c| c.pragma_query_value(None, "user_version", |r| r.get(0)))
            .await
            .unwrap();
        assert_eq!(version, MIGRATIONS.len());
        assert!(store.is_opened());
        assert!(data.join(DATABASE_FILE).exists());
    }

    /// A database that cannot be opened is the error of the first use (and of each after it),
    /// with the same sentences as opening it at once.
    #[tokio::test]
    async fn a_store_opened_when_used_says_why_it_cannot_open_at_each_use() {
        let dir = tempfile::tempdir().unwrap();
        std::fs::write(dir.path().join(DATABASE_FILE), vec![0x5a_u8; 8192]).unwrap();
        let store = Store::open_when_used(dir.path()).unwrap();
        let first = store.run(|_| Ok(())).await.unwrap_err();
        assert_eq!(first.code, ErrorCode::Storage);
        assert!(first.message.contains("moved aside"), "{}", first.message);
        let again = store.with(|_| Ok(())).unwrap_err();
        assert_eq!(again, first);
    }

    #[test]
    fn migrates_once_and_reopens() {
        let dir = tempfile::tempdir().unwrap();
        let store = Store::open(dir.path()).unwrap();
        let version: usize = store
            .with(|c| c.pragma_query_value(None, "user_version", |r| r.get(0)))
            .unwrap();
        assert_eq!(version, MIGRATIONS.len());
        drop(store);
        let again = Store::open(dir.path()).unwrap();
        let tables: i64 = again
            .with(|c| {
                c.query_row(
                    "SELECT count(*) FROM sqlite_master WHERE type = 'table' AND name = 'audit'",
                    [],
                    |r| r.get(0),
                )
            })
            .unwrap();
        assert_eq!(tables, 1);
    }

    #[test]
    fn many_openers_of_a_fresh_file_all_succeed() {
        // The CLI, the app and a test reading the audit log may all open a new file at once.
        for _ in 0..5 {
            let dir = tempfile::tempdir().unwrap();
            let openers: Vec<_> = (0..8)
                .map(|_| {
                    let path = dir.path().to_owned();
                    std::thread::spawn(move || Store::open(&path).map(|_| ()))
                })
                .collect();
            for o in openers {
                o.join().unwrap().unwrap();
            }
            let store = Store::open(dir.path()).unwrap();
            let version: usize = store
                .with(|c| c.pragma_query_value(None, "user_version", |r| r.get(0)))
                .unwrap();
            assert_eq!(version, MIGRATIONS.len());
        }
    }
}
