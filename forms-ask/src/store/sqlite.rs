//! The default store: one SQLite file (the bundled library, so it works on a fresh machine).
//!
//! WAL journal, `synchronous=FULL` (a committed write survives a power cut), `BEGIN
//! IMMEDIATE` for every write (writers queue instead of failing on upgrade), a version
//! column for compare-and-set, an idempotency table keyed by (principal, retry key), and
//! versioned migrations run on open. Every commit reports its requests to the store's change
//! feed at once; changes made by other processes are seen by the store's one watcher, which
//! reads the audit events written since its last look every 50 ms (only once someone waits).
//!
//! Nothing is written to a file before it is known to be ours: its header is read first
//! (the `application_id` "FASK", or an empty database), then its schema, and only then is
//! the WAL journal switched on and the schema brought up to date. Another program's file,
//! reached directly or through a symlink, stays byte-identical. A forms-ask file this process
//! may not write is opened read-only: `show`, `log` and `wait` work, a write is refused with
//! [`StoreError::ReadOnly`].

use super::{
    from_doc, listed_from, message_by, to_doc, written, Changes, Columns, Commit, Committed,
    MemberChange, Recorded, Store, Write,
};
use crate::error::StoreError;
use crate::model::{
    AuditEvent, ConversationId, Listed, Member, MemberEvent, Principal, Request, RequestId,
};
use crate::time::Timestamp;
use crate::upload::StoredUpload;
use rusqlite::{
    params, Connection, DatabaseName, ErrorCode, OpenFlags, OptionalExtension, TransactionBehavior,
};
use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex, MutexGuard};
use std::time::Duration;

/// The `application_id` that marks a forms-ask database ("FASK").
const APPLICATION_ID: i64 = 0x4641_534B;

/// How often the store's watcher looks for changes made by other processes.
const POLL: Duration = Duration::from_millis(50);

/// What a refused foreign file is told.
const FOREIGN: &str = "is a SQLite database of another program, not a forms-ask database";

/// The migrations, in order; the database records the last one applied.
const MIGRATIONS: &[&str] = &[
    // 1: the first schema.
    "CREATE TABLE members (
        conversation TEXT NOT NULL,
        principal TEXT NOT NULL,
        removed INTEGER NOT NULL DEFAULT 0,
        contact_revoked INTEGER NOT NULL DEFAULT 0,
        PRIMARY KEY (conversation, principal)
    ) WITHOUT ROWID;
    CREATE TABLE requests (
        id TEXT PRIMARY KEY,
        conversation TEXT NOT NULL,
        version INTEGER NOT NULL,
        state TEXT NOT NULL,
        doc TEXT NOT NULL
    ) WITHOUT ROWID;
    CREATE TABLE events (
        seq INTEGER PRIMARY KEY, -- rows are never deleted, so rowids only grow
        request_id TEXT NOT NULL REFERENCES requests(id),
        doc TEXT NOT NULL
    );
    CREATE INDEX events_by_request ON events (request_id, seq);
    CREATE TABLE idempotency (
        principal TEXT NOT NULL,
        retry_key TEXT NOT NULL,
        input_hash TEXT NOT NULL,
        result TEXT NOT NULL,
        PRIMARY KEY (principal, retry_key)
    ) WITHOUT ROWID;",
    // 2: each event's time in milliseconds, indexed: the store's high-water mark of time is
    // the newest one.
    "ALTER TABLE events ADD COLUMN at INTEGER;
    UPDATE events SET at = CAST(round(
        (julianday(json_extract(doc, '$.at')) - 2440587.5) * 86400000.0) AS INTEGER);
    CREATE INDEX events_by_at ON events (at);",
    // 3: managers, the membership log, and a conversation's requests found by index.
    "ALTER TABLE members ADD COLUMN manager INTEGER NOT NULL DEFAULT 0;
    CREATE TABLE member_events (
        seq INTEGER PRIMARY KEY,
        conversation TEXT NOT NULL,
        doc TEXT NOT NULL
    );
    CREATE INDEX member_events_by_conversation ON member_events (conversation, seq);
    CREATE INDEX requests_by_conversation ON requests (conversation);",
    // 4: single-use keys (`Store::claim_once`), kept until they expire.
    "CREATE TABLE once_keys (
        key TEXT PRIMARY KEY,
        expires_at INTEGER NOT NULL
    ) WITHOUT ROWID;
    CREATE INDEX once_keys_by_expiry ON once_keys (expires_at);",
    // 5: questions that carry a Data form (answered with a host response checked against
    // it). The documents hold them as they are; the version itself is the change: it keeps
    // older programs out, which would answer such a question with plain text and drop its
    // form on their next write (a database found newer than a program knows is refused).
    "",
    // 6: what lists and quotas read, beside the documents, in a table of its own: a
    // request's list entry (`brief`, the document without its form and response), its state
    // and times, its requester; the principals it names (an index per conversation and
    // principal); and the author of each follow-up message. Not columns of `requests`: a
    // column stored after a document of a mebibyte is read by walking the document's
    // overflow pages. Filled for existing rows by `backfill` right after.
    "CREATE TABLE listing (
        id TEXT PRIMARY KEY,
        state TEXT NOT NULL,
        brief TEXT NOT NULL,
        has_form INTEGER NOT NULL,
        response_action TEXT,
        updated_at INTEGER NOT NULL,
        expires_at INTEGER,
        requester TEXT NOT NULL
    ) WITHOUT ROWID;
    CREATE INDEX listing_by_requester ON listing (requester, state);
    CREATE TABLE request_names (
        conversation TEXT NOT NULL,
        principal TEXT NOT NULL,
        request_id TEXT NOT NULL,
        PRIMARY KEY (conversation, principal, request_id)
    ) WITHOUT ROWID;
    ALTER TABLE events ADD COLUMN message_by TEXT;
    CREATE INDEX events_messages ON events (request_id, message_by)
        WHERE message_by IS NOT NULL;",
    // 7: uploads: the files sent with a form's answer, stored with the response in the
    // same transaction (a durable `files` answer is uploads, never a responder's path).
    "CREATE TABLE uploads (
        request_id TEXT NOT NULL REFERENCES requests(id),
        n INTEGER NOT NULL,
        name TEXT NOT NULL,
        sha256 TEXT NOT NULL,
        size INTEGER NOT NULL,
        data BLOB NOT NULL,
        PRIMARY KEY (request_id, n)
    ) WITHOUT ROWID;",
];

/// [`Store::list`]: the principal's rows of the conversation by index, ordered as
/// [`super::list_order`] orders them; only the returned rows' list entries are read.
const LIST: &str = "SELECT r.brief, r.has_form, r.response_action
    FROM request_names n JOIN listing r ON r.id = n.request_id
    WHERE n.conversation = ?1 AND n.principal = ?2
    ORDER BY (r.state = 'open' AND (r.expires_at IS NULL
                                    OR r.expires_at > max(?3, r.updated_at))) DESC,
             CASE WHEN r.state = 'open' AND r.expires_at <= max(?3, r.updated_at)
                  THEN max(?3, r.updated_at) ELSE r.updated_at END DESC,
             r.id ASC
    LIMIT ?4";

/// The migration that added the list columns (`backfill` fills them for older rows).
const LIST_COLUMNS: i64 = 6;

/// Options for [`SqliteStore::open_with`].
#[derive(Debug, Clone, Default)]
#[doc(hidden)]
pub struct SqliteOptions {
    /// Sleep this long inside every write transaction, after the writes and before the
    /// commit: lets fault tests kill a process mid-transaction.
    pub pause_before_commit: Option<Duration>,
}

/// The default store: a SQLite file.
pub struct SqliteStore {
    path: PathBuf,
    conn: Arc<Mutex<Connection>>,
    changes: Arc<Changes>,
    /// Whether the watcher thread runs.
    watching: Mutex<bool>,
    options: SqliteOptions,
    read_only: bool,
}

impl std::fmt::Debug for SqliteStore {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("SqliteStore")
            .field("path", &self.path)
            .field("read_only", &self.read_only)
            .finish()
    }
}

/// What an existing file's first bytes say, read before SQLite opens it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Header {
    /// Zero bytes: a new file, ours to initialize.
    Empty,
    /// A SQLite database marked as ours, or one with no schema yet: SQLite looks closer.
    Candidate,
    /// Another program's SQLite database.
    Foreign,
    /// Not a SQLite database at all.
    NotSqlite,
}

/// Reads the database header (100 bytes) and the header of page 1's b-tree (8 bytes).
fn read_header(path: &Path) -> std::io::Result<Header> {
    let head = first_bytes(path, 108)?;
    if head.is_empty() {
        return Ok(Header::Empty);
    }
    if head.len() < 108 || !head.starts_with(b"SQLite format 3\0") {
        return Ok(Header::NotSqlite);
    }
    let be32 = |at: usize| {
        head.get(at..at + 4)
            .and_then(|b| <[u8; 4]>::try_from(b).ok())
            .map_or(0, u32::from_be_bytes)
    };
    let app_id = i64::from(be32(68));
    if app_id == APPLICATION_ID {
        return Ok(Header::Candidate);
    }
    if app_id != 0 {
        return Ok(Header::Foreign);
    }
    // No application id: only an empty database may become ours. Its schema table is one
    // leaf page (type 13) without cells. (What a WAL may hold beyond this, SQLite checks.)
    let page_type = head.get(100).copied();
    let cells = head
        .get(103..105)
        .and_then(|b| <[u8; 2]>::try_from(b).ok())
        .map_or(u16::MAX, u16::from_be_bytes);
    Ok(if page_type == Some(13) && cells == 0 {
        Header::Candidate
    } else {
        Header::Foreign
    })
}

/// The first `n` bytes of the file at `path`, read through a descriptor this process keeps
/// open until it exits.
///
/// SQLite's locks are POSIX advisory locks, which belong to the process: closing any
/// descriptor of a file drops every lock the process holds on it. A descriptor opened and
/// closed here while another store of this process has the file open would drop that
/// store's locks; another process would then take itself for the file's last user when it
/// closes, checkpoint and delete the write-ahead log, and the first store's later writes
/// would go to a deleted file no one else reads. So each database file's descriptor is
/// opened once per process and kept (one descriptor per file the process ever opened).
#[cfg(unix)]
fn first_bytes(path: &Path, n: usize) -> std::io::Result<Vec<u8>> {
    use std::collections::HashMap;
    use std::os::unix::fs::MetadataExt;
    use std::sync::LazyLock;

    /// The kept descriptors, by device and inode.
    static KEPT: LazyLock<Mutex<HashMap<(u64, u64), std::fs::File>>> =
        LazyLock::new(Mutex::default);

    let meta = std::fs::metadata(path)?;
    let mut kept = KEPT
        .lock()
        .unwrap_or_else(std::sync::PoisonError::into_inner);
    let file = match kept.entry((meta.dev(), meta.ino())) {
        std::collections::hash_map::Entry::Occupied(e) => e.into_mut(),
        std::collections::hash_map::Entry::Vacant(e) => {
            let file = std::fs::File::open(path)?;
            let opened = file.metadata()?;
            if (opened.dev(), opened.ino()) != (meta.dev(), meta.ino()) {
                // Replaced between the two looks: read it, and keep the descriptor of what
                // was opened under its own identity.
                let identity = (opened.dev(), opened.ino());
                let file = kept.entry(identity).or_insert(file);
                return read_at_start(file, n);
            }
            e.insert(file)
        }
    };
    read_at_start(file, n)
}

/// Up to `n` bytes from the start of `file`, without moving a shared cursor.
#[cfg(unix)]
fn read_at_start(file: &std::fs::File, n: usize) -> std::io::Result<Vec<u8>> {
    use std::os::unix::fs::FileExt;
    let mut head = vec![0; n];
    let mut filled = 0;
    while let Some(rest) = head.get_mut(filled..).filter(|r| !r.is_empty()) {
        match file.read_at(rest, filled as u64) {
            Ok(0) => break,
            Ok(k) => filled += k,
            Err(e) if e.kind() == std::io::ErrorKind::Interrupted => {}
            Err(e) => return Err(e),
        }
    }
    head.truncate(filled);
    Ok(head)
}

/// The first `n` bytes of the file at `path` (a lock elsewhere is per handle: closing this
/// one drops none of SQLite's).
#[cfg(not(unix))]
fn first_bytes(path: &Path, n: usize) -> std::io::Result<Vec<u8>> {
    use std::io::Read;
    let mut head = Vec::with_capacity(n);
    std::fs::File::open(path)?
        .take(n as u64)
        .read_to_end(&mut head)?;
    Ok(head)
}

/// What SQLite says the database is, read without writing.
#[derive(Debug, Clone, Copy)]
struct Identity {
    application_id: i64,
    schema_objects: i64,
    user_version: i64,
}

fn identify(conn: &Connection) -> rusqlite::Result<Identity> {
    Ok(Identity {
        application_id: conn.query_row("PRAGMA application_id", [], |r| r.get(0))?,
        schema_objects: conn.query_row("SELECT count(*) FROM sqlite_master", [], |r| r.get(0))?,
        user_version: conn.query_row("PRAGMA user_version", [], |r| r.get(0))?,
    })
}

/// A `file:` URI for `path`, with `query`.
fn file_uri(path: &Path, query: &str) -> String {
    let mut uri = String::from("file:");
    for c in path.display().to_string().chars() {
        match c {
            '%' => uri.push_str("%25"),
            '?' => uri.push_str("%3f"),
            '#' => uri.push_str("%23"),
            c => uri.push(c),
        }
    }
    uri.push('?');
    uri.push_str(query);
    uri
}

impl SqliteStore {
    /// Opens (or creates) the database at `path` and brings its schema up to date. A file
    /// that is not a forms-ask database, or is damaged, is refused with a clear error before
    /// anything is written to it; a forms-ask file this process may not write is opened
    /// read-only.
    pub fn open(path: impl AsRef<Path>) -> Result<SqliteStore, StoreError> {
        Self::open_with(path, SqliteOptions::default())
    }

    #[doc(hidden)]
    pub fn open_with(
        path: impl AsRef<Path>,
        options: SqliteOptions,
    ) -> Result<SqliteStore, StoreError> {
        let path = path.as_ref().to_path_buf();
        let location = path.display().to_string();
        let unusable = |problem: String| StoreError::Unusable {
            location: location.clone(),
            problem,
        };
        let explain = |e: rusqlite::Error| match e.sqlite_error_code() {
            Some(ErrorCode::NotADatabase) => {
                unusable("is not a SQLite database (or it is encrypted or damaged)".into())
            }
            Some(ErrorCode::DatabaseCorrupt) => unusable("is a damaged SQLite database".into()),
            _ => StoreError::Sqlite(e),
        };
        // 1. The file's own bytes (through a symlink, its target's), before SQLite opens it.
        // An empty file is new, unless a write-ahead log beside it holds what it will be.
        let fresh = match std::fs::metadata(&path) {
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => !pending_wal(&path),
            Err(e) => return Err(unusable(format!("cannot be read: {e}"))),
            Ok(m) if m.is_dir() => return Err(unusable("is a directory".into())),
            Ok(_) => match read_header(&path) {
                Err(e) => return Err(unusable(format!("cannot be read: {e}"))),
                Ok(Header::Empty) => !pending_wal(&path),
                Ok(Header::Candidate) => false,
                Ok(Header::Foreign) => return Err(unusable(FOREIGN.into())),
                Ok(Header::NotSqlite) => {
                    return Err(unusable(
                        "is not a SQLite database (or it is encrypted or damaged)".into(),
                    ))
                }
            },
        };
        // 2. What SQLite reads (the WAL included), through a read-only connection: one that
        // never checkpoints another program's WAL into its file when it closes.
        let looked = if fresh {
            None
        } else {
            let flags = OpenFlags::SQLITE_OPEN_READ_ONLY | OpenFlags::SQLITE_OPEN_NO_MUTEX;
            let conn = Connection::open_with_flags(&path, flags).map_err(explain)?;
            conn.busy_timeout(Duration::from_secs(30))
                .map_err(explain)?;
            Some(match identify(&conn) {
                Ok(identity) => (conn, identity),
                Err(e) if is_read_only_failure(&e) => {
                    // A WAL database whose shared-memory file this process can neither open
                    // nor create (no writer has it open, and the directory is not ours to
                    // write): read it as an immutable file. That is exact while no
                    // write-ahead log is pending beside it and no one writes it meanwhile.
                    open_immutable(&path).map_err(|e| match e {
                        Some(e) => explain(e),
                        None => unusable(
                            "is read-only and has a write-ahead log this process cannot \
                             read; open it once with write access"
                                .into(),
                        ),
                    })?
                }
                Err(e) => return Err(explain(e)),
            })
        };
        let identity = match &looked {
            Some((_, identity)) => *identity,
            None => Identity {
                application_id: 0,
                schema_objects: 0,
                user_version: 0,
            },
        };
        let known = i64::try_from(MIGRATIONS.len()).unwrap_or(i64::MAX);
        let empty = identity.application_id == 0 && identity.schema_objects == 0;
        if identity.application_id != APPLICATION_ID && !empty {
            return Err(unusable(FOREIGN.into()));
        }
        if identity.user_version > known {
            return Err(StoreError::NewerSchema {
                location: location.clone(),
                found: identity.user_version,
                known,
            });
        }
        if let Some((reader, _)) = &looked {
            let check: String = reader
                .query_row("PRAGMA quick_check(1)", [], |r| r.get(0))
                .map_err(explain)?;
            if check != "ok" {
                return Err(unusable(format!("is a damaged SQLite database: {check}")));
            }
        }
        // 3. Ours (or empty): open it for writing, unless this process may not write it.
        let mut flags = OpenFlags::SQLITE_OPEN_READ_WRITE | OpenFlags::SQLITE_OPEN_NO_MUTEX;
        if fresh {
            flags |= OpenFlags::SQLITE_OPEN_CREATE;
        }
        let mut conn = Connection::open_with_flags(&path, flags).map_err(explain)?;
        let read_only = conn.is_readonly(DatabaseName::Main).map_err(explain)?;
        if read_only {
            if let Some((reader, _)) = looked {
                conn = reader;
            }
        } else {
            drop(looked);
            conn.busy_timeout(Duration::from_secs(30))
                .map_err(explain)?;
        }
        if read_only {
            if empty || identity.user_version < known {
                return Err(unusable(
                    "is read-only and not yet a forms-ask database of this version; open it \
                     once with write access"
                        .into(),
                ));
            }
        } else {
            // 4. From here on it may be written.
            let mode: String = conn
                .query_row("PRAGMA journal_mode=WAL", [], |r| r.get(0))
                .map_err(explain)?;
            if !mode.eq_ignore_ascii_case("wal") {
                return Err(unusable(format!(
                    "cannot use the WAL journal (journal mode stays {mode})"
                )));
            }
            conn.execute_batch("PRAGMA synchronous=FULL; PRAGMA foreign_keys=ON;")
                .map_err(explain)?;
            migrate(&conn, &location).map_err(|e| match e {
                StoreError::Sqlite(e) => explain(e),
                e => e,
            })?;
        }
        Ok(SqliteStore {
            path,
            conn: Arc::new(Mutex::new(conn)),
            changes: Arc::new(Changes::default()),
            watching: Mutex::new(false),
            options,
            read_only,
        })
    }

    /// Whether the file was opened read-only (this process may not write it).
    pub fn is_read_only(&self) -> bool {
        self.read_only
    }

    fn conn(&self) -> Result<MutexGuard<'_, Connection>, StoreError> {
        self.conn
            .lock()
            .map_err(|_| StoreError::Other("the SQLite connection lock is poisoned".into()))
    }

    fn writable(&self) -> Result<(), StoreError> {
        if self.read_only {
            Err(StoreError::ReadOnly {
                location: self.location(),
            })
        } else {
            Ok(())
        }
    }
}

/// Whether reading failed because a read-only connection could not set up the WAL's shared
/// memory.
fn is_read_only_failure(e: &rusqlite::Error) -> bool {
    matches!(
        e.sqlite_error_code(),
        Some(ErrorCode::ReadOnly | ErrorCode::CannotOpen)
    )
}

/// Opens a read-only WAL database whose shared-memory file cannot be made, as an immutable
/// file; `Err(None)` when a non-empty write-ahead log lies beside it (an immutable read
/// would miss what it holds).
fn open_immutable(path: &Path) -> Result<(Connection, Identity), Option<rusqlite::Error>> {
    if pending_wal(path) {
        return Err(None);
    }
    let target = std::fs::canonicalize(path).unwrap_or_else(|_| path.to_path_buf());
    let conn = Connection::open_with_flags(
        file_uri(&target, "immutable=1"),
        OpenFlags::SQLITE_OPEN_READ_ONLY
            | OpenFlags::SQLITE_OPEN_URI
            | OpenFlags::SQLITE_OPEN_NO_MUTEX,
    )
    .map_err(Some)?;
    let identity = identify(&conn).map_err(Some)?;
    Ok((conn, identity))
}

/// Whether a non-empty write-ahead log lies beside the database (beside the path given, or
/// beside the file a symlink points to).
fn pending_wal(path: &Path) -> bool {
    let target = std::fs::canonicalize(path).unwrap_or_else(|_| path.to_path_buf());
    let pending = [path, target.as_path()].into_iter().any(|base| {
        let mut wal = base.as_os_str().to_owned();
        wal.push("-wal");
        std::fs::metadata(&wal).is_ok_and(|m| m.len() > 0)
    });
    pending
}

/// Marks a fresh file as ours, refuses a foreign one, and applies missing migrations.
fn migrate(conn: &Connection, location: &str) -> Result<(), StoreError> {
    let known = i64::try_from(MIGRATIONS.len()).unwrap_or(i64::MAX);
    let tx = rusqlite::Transaction::new_unchecked(conn, TransactionBehavior::Immediate)?;
    let app_id: i64 = tx.query_row("PRAGMA application_id", [], |r| r.get(0))?;
    let objects: i64 = tx.query_row("SELECT count(*) FROM sqlite_master", [], |r| r.get(0))?;
    if app_id == 0 && objects == 0 {
        tx.execute_batch(&format!("PRAGMA application_id = {APPLICATION_ID}"))?;
    } else if app_id != APPLICATION_ID {
        return Err(StoreError::Unusable {
            location: location.to_owned(),
            problem: FOREIGN.into(),
        });
    }
    let current: i64 = tx.query_row("PRAGMA user_version", [], |r| r.get(0))?;
    if current > known {
        return Err(StoreError::NewerSchema {
            location: location.to_owned(),
            found: current,
            known,
        });
    }
    for (n, sql) in MIGRATIONS.iter().enumerate() {
        let version = i64::try_from(n).unwrap_or(i64::MAX) + 1;
        if version > current {
            tx.execute_batch(sql)?;
            if version == LIST_COLUMNS {
                backfill(&tx)?;
            }
            tx.execute_batch(&format!("PRAGMA user_version = {version}"))?;
        }
    }
    tx.commit()?;
    Ok(())
}

/// Fills the list columns of the rows written before them, a page of rows at a time (one
/// document in memory at once).
fn backfill(tx: &Connection) -> Result<(), StoreError> {
    let mut after = String::new();
    loop {
        let page: Vec<(String, String)> = tx
            .prepare("SELECT id, doc FROM requests WHERE id > ?1 ORDER BY id LIMIT 64")?
            .query_map([&after], |r| Ok((r.get(0)?, r.get(1)?)))?
            .collect::<Result<_, _>>()?;
        let Some((last, _)) = page.last() else { break };
        after = last.clone();
        for (_, doc) in page {
            let r: Request = from_doc(&doc)?;
            write_columns(tx, &r, true)?;
        }
    }
    let mut after = 0_i64;
    loop {
        let page: Vec<(i64, String)> = tx
            .prepare("SELECT seq, doc FROM events WHERE seq > ?1 ORDER BY seq LIMIT 256")?
            .query_map([after], |r| Ok((r.get(0)?, r.get(1)?)))?
            .collect::<Result<_, _>>()?;
        let Some((last, _)) = page.last() else { break };
        after = *last;
        for (seq, doc) in page {
            let e: AuditEvent = from_doc(&doc)?;
            if let Some(by) = message_by(&e) {
                tx.execute(
                    "UPDATE events SET message_by = ?2 WHERE seq = ?1",
                    params![seq, by],
                )?;
            }
        }
    }
    Ok(())
}

/// Writes a request's list columns and, when `names`, the principals it names (a request
/// names the same principals all its life: they are written once, with the request).
fn write_columns(tx: &Connection, r: &Request, names: bool) -> Result<(), StoreError> {
    let c = Columns::of(r)?;
    tx.prepare_cached(
        "INSERT OR REPLACE INTO listing (id, brief, has_form, response_action, updated_at,
                                         expires_at, requester, state)
         VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8)",
    )?
    .execute(params![
        r.id.as_str(),
        c.brief,
        c.has_form,
        c.response_action,
        c.updated_at,
        c.expires_at,
        c.requester,
        r.state.as_str()
    ])?;
    if !names {
        return Ok(());
    }
    let mut name = tx.prepare_cached(
        "INSERT INTO request_names (conversation, principal, request_id) VALUES (?1, ?2, ?3)
         ON CONFLICT DO NOTHING",
    )?;
    for principal in &c.names {
        name.execute(params![r.conversation.as_str(), principal, r.id.as_str()])?;
    }
    Ok(())
}

impl Store for SqliteStore {
    fn location(&self) -> String {
        self.path.display().to_string()
    }

    fn load(&self, id: &RequestId) -> Result<Option<Request>, StoreError> {
        let conn = self.conn()?;
        let doc: Option<String> = conn
            .query_row(
                "SELECT doc FROM requests WHERE id = ?1",
                [id.as_str()],
                |r| r.get(0),
            )
            .optional()?;
        doc.map(|d| from_doc(&d)).transpose()
    }

    fn high_water(&self) -> Result<Option<Timestamp>, StoreError> {
        let conn = self.conn()?;
        high_water(&conn)
    }

    fn load_at(&self, id: &RequestId) -> Result<(Option<Request>, Option<Timestamp>), StoreError> {
        let conn = self.conn()?;
        let doc: Option<String> = conn
            .prepare_cached("SELECT doc FROM requests WHERE id = ?1")?
            .query_row([id.as_str()], |r| r.get(0))
            .optional()?;
        let request = doc.map(|d| from_doc(&d)).transpose()?;
        Ok((request, high_water(&conn)?))
    }

    fn events(&self, id: &RequestId) -> Result<Vec<AuditEvent>, StoreError> {
        let conn = self.conn()?;
        let mut stmt =
            conn.prepare_cached("SELECT doc FROM events WHERE request_id = ?1 ORDER BY seq")?;
        let docs = stmt
            .query_map([id.as_str()], |r| r.get::<_, String>(0))?
            .collect::<Result<Vec<_>, _>>()?;
        docs.iter().map(|d| from_doc(d)).collect()
    }

    fn members(&self, conversation: &ConversationId) -> Result<Vec<Member>, StoreError> {
        let conn = self.conn()?;
        let mut stmt = conn.prepare_cached(
            "SELECT principal, removed, contact_revoked, manager FROM members
             WHERE conversation = ?1 ORDER BY principal",
        )?;
        let rows = stmt
            .query_map([conversation.as_str()], |r| {
                Ok((
                    r.get::<_, String>(0)?,
                    r.get::<_, bool>(1)?,
                    r.get::<_, bool>(2)?,
                    r.get::<_, bool>(3)?,
                ))
            })?
            .collect::<Result<Vec<_>, _>>()?;
        rows.into_iter()
            .map(|(p, removed, contact_revoked, manager)| {
                Ok(Member {
                    principal: Principal::new(p).map_err(|e| StoreError::Corrupt(e.to_string()))?,
                    removed,
                    contact_revoked,
                    manager,
                })
            })
            .collect()
    }

    fn change_member(
        &self,
        conversation: &ConversationId,
        principal: &Principal,
        change: MemberChange,
        event: &MemberEvent,
    ) -> Result<(), StoreError> {
        self.writable()?;
        let doc = to_doc(event)?;
        let mut conn = self.conn()?;
        let tx = conn.transaction_with_behavior(TransactionBehavior::Immediate)?;
        let sql = match change {
            MemberChange::Join => {
                "INSERT INTO members (conversation, principal) VALUES (?1, ?2)
                 ON CONFLICT DO UPDATE SET removed = 0, contact_revoked = 0"
            }
            MemberChange::JoinAsManager => {
                "INSERT INTO members (conversation, principal, manager) VALUES (?1, ?2, 1)
                 ON CONFLICT DO UPDATE SET removed = 0, contact_revoked = 0, manager = 1"
            }
            MemberChange::Remove => {
                "INSERT INTO members (conversation, principal, removed) VALUES (?1, ?2, 1)
                 ON CONFLICT DO UPDATE SET removed = 1, manager = 0"
            }
            MemberChange::RevokeContact => {
                "INSERT INTO members (conversation, principal, removed, contact_revoked)
                 VALUES (?1, ?2, 1, 1) ON CONFLICT DO UPDATE SET contact_revoked = 1"
            }
            MemberChange::RestoreContact => {
                "UPDATE members SET contact_revoked = 0 WHERE conversation = ?1 AND principal = ?2"
            }
        };
        tx.execute(sql, params![conversation.as_str(), principal.as_str()])?;
        tx.execute(
            "INSERT INTO member_events (conversation, doc) VALUES (?1, ?2)",
            params![conversation.as_str(), doc],
        )?;
        tx.commit()?;
        drop(conn);
        Ok(())
    }

    fn member_events(&self, conversation: &ConversationId) -> Result<Vec<MemberEvent>, StoreError> {
        let conn = self.conn()?;
        let mut stmt = conn
            .prepare_cached("SELECT doc FROM member_events WHERE conversation = ?1 ORDER BY seq")?;
        let docs = stmt
            .query_map([conversation.as_str()], |r| r.get::<_, String>(0))?
            .collect::<Result<Vec<_>, _>>()?;
        docs.iter().map(|d| from_doc(d)).collect()
    }

    fn list(
        &self,
        conversation: &ConversationId,
        principal: &Principal,
        now: Timestamp,
        limit: usize,
    ) -> Result<Vec<Listed>, StoreError> {
        let conn = self.conn()?;
        let mut stmt = conn.prepare_cached(LIST)?;
        let rows = stmt
            .query_map(
                params![
                    conversation.as_str(),
                    principal.as_str(),
                    now.millis(),
                    i64::try_from(limit).unwrap_or(i64::MAX)
                ],
                |r| {
                    Ok((
                        r.get::<_, String>(0)?,
                        r.get::<_, bool>(1)?,
                        r.get::<_, Option<String>>(2)?,
                    ))
                },
            )?
            .collect::<Result<Vec<_>, _>>()?;
        rows.into_iter()
            .map(|(brief, has_form, action)| listed_from(&brief, has_form, action))
            .collect()
    }

    fn sees(
        &self,
        conversation: &ConversationId,
        principal: &Principal,
    ) -> Result<bool, StoreError> {
        let conn = self.conn()?;
        let sees = conn
            .prepare_cached(
                "SELECT EXISTS (SELECT 1 FROM members WHERE conversation = ?1 AND principal = ?2)
                     OR EXISTS (SELECT 1 FROM request_names
                                WHERE conversation = ?1 AND principal = ?2)",
            )?
            .query_row(params![conversation.as_str(), principal.as_str()], |r| {
                r.get(0)
            })?;
        Ok(sees)
    }

    fn events_after(
        &self,
        id: &RequestId,
        after: u64,
        limit: usize,
    ) -> Result<Vec<(u64, AuditEvent)>, StoreError> {
        let conn = self.conn()?;
        let mut stmt = conn.prepare_cached(
            "SELECT seq, doc FROM events WHERE request_id = ?1 AND seq > ?2 ORDER BY seq LIMIT ?3",
        )?;
        let rows = stmt
            .query_map(
                params![
                    id.as_str(),
                    i64::try_from(after).unwrap_or(i64::MAX),
                    i64::try_from(limit).unwrap_or(i64::MAX)
                ],
                |r| Ok((r.get::<_, i64>(0)?, r.get::<_, String>(1)?)),
            )?
            .collect::<Result<Vec<_>, _>>()?;
        rows.into_iter()
            .map(|(seq, doc)| Ok((u64::try_from(seq).unwrap_or(0), from_doc(&doc)?)))
            .collect()
    }

    fn open_requests_of(&self, requester: &Principal, now: Timestamp) -> Result<usize, StoreError> {
        let conn = self.conn()?;
        let n: i64 = conn
            .prepare_cached(
                "SELECT count(*) FROM listing WHERE requester = ?1 AND state = 'open'
                 AND (expires_at IS NULL OR expires_at > max(?2, updated_at))",
            )?
            .query_row(params![requester.as_str(), now.millis()], |r| r.get(0))?;
        Ok(usize::try_from(n).unwrap_or(usize::MAX))
    }

    fn messages_by(&self, id: &RequestId, principal: &Principal) -> Result<usize, StoreError> {
        let conn = self.conn()?;
        let n: i64 = conn
            .prepare_cached(
                "SELECT count(*) FROM events WHERE request_id = ?1 AND message_by = ?2",
            )?
            .query_row(params![id.as_str(), principal.as_str()], |r| r.get(0))?;
        Ok(usize::try_from(n).unwrap_or(usize::MAX))
    }

    fn uploads(&self, id: &RequestId) -> Result<Vec<StoredUpload>, StoreError> {
        let conn = self.conn()?;
        let mut st = conn.prepare_cached(
            "SELECT n, name, sha256, data FROM uploads WHERE request_id = ?1 ORDER BY n",
        )?;
        let rows = st.query_map(params![id.as_str()], |r| {
            Ok((
                r.get::<_, i64>(0)?,
                r.get::<_, String>(1)?,
                r.get::<_, String>(2)?,
                r.get::<_, Vec<u8>>(3)?,
            ))
        })?;
        let mut out = Vec::new();
        for row in rows {
            let (n, name, sha256, data) = row?;
            out.push(StoredUpload {
                request: id.clone(),
                index: u32::try_from(n)
                    .map_err(|_| StoreError::Corrupt(format!("an upload's index {n}")))?,
                name,
                sha256,
                data,
            });
        }
        Ok(out)
    }

    fn recorded(&self, principal: &Principal, key: &str) -> Result<Option<Recorded>, StoreError> {
        let conn = self.conn()?;
        recorded(&conn, principal, key)
    }

    fn commit(&self, commit: &Commit) -> Result<Committed, StoreError> {
        self.writable()?;
        let mut conn = self.conn()?;
        let tx = conn.transaction_with_behavior(TransactionBehavior::Immediate)?;
        if let Some((principal, key, _)) = &commit.retry {
            if let Some(first) = recorded(&tx, principal, key)? {
                return Ok(Committed::Replayed(first));
            }
        }
        if let Some((conversation, principal)) = &commit.eligible {
            let active: Option<bool> = tx
                .query_row(
                    "SELECT removed = 0 AND contact_revoked = 0 FROM members
                     WHERE conversation = ?1 AND principal = ?2",
                    params![conversation.as_str(), principal.as_str()],
                    |r| r.get(0),
                )
                .optional()?;
            if active != Some(true) {
                return Ok(Committed::NotEligible);
            }
        }
        for write in &commit.writes {
            let r = write.request();
            let doc = to_doc(r)?;
            let version = i64::try_from(r.version).unwrap_or(i64::MAX);
            match write {
                Write::Insert(_) => {
                    tx.prepare_cached(
                        "INSERT INTO requests (id, conversation, version, state, doc)
                         VALUES (?1, ?2, ?3, ?4, ?5)",
                    )?
                    .execute(params![
                        r.id.as_str(),
                        r.conversation.as_str(),
                        version,
                        r.state.as_str(),
                        doc
                    ])?;
                }
                Write::Update { expected, .. } => {
                    let expected = i64::try_from(*expected).unwrap_or(i64::MAX);
                    let changed = tx
                        .prepare_cached(
                            "UPDATE requests SET version = ?2, state = ?3, doc = ?4
                             WHERE id = ?1 AND version = ?5",
                        )?
                        .execute(params![
                            r.id.as_str(),
                            version,
                            r.state.as_str(),
                            doc,
                            expected
                        ])?;
                    if changed != 1 {
                        return Ok(Committed::VersionConflict(r.id.clone()));
                    }
                }
            }
            write_columns(&tx, r, matches!(write, Write::Insert(_)))?;
        }
        for event in &commit.events {
            tx.prepare_cached(
                "INSERT INTO events (request_id, doc, at, message_by) VALUES (?1, ?2, ?3, ?4)",
            )?
            .execute(params![
                event.request.as_str(),
                to_doc(event)?,
                event.at.millis(),
                message_by(event)
            ])?;
        }
        for u in &commit.uploads {
            tx.prepare_cached(
                "INSERT INTO uploads (request_id, n, name, sha256, size, data)
                 VALUES (?1, ?2, ?3, ?4, ?5, ?6)",
            )?
            .execute(params![
                u.request.as_str(),
                i64::from(u.index),
                u.name,
                u.sha256,
                i64::try_from(u.data.len()).unwrap_or(i64::MAX),
                u.data
            ])?;
        }
        if let Some((principal, key, record)) = &commit.retry {
            tx.prepare_cached(
                "INSERT INTO idempotency (principal, retry_key, input_hash, result)
                 VALUES (?1, ?2, ?3, ?4)",
            )?
            .execute(params![
                principal.as_str(),
                key,
                record.input_hash,
                record.result
            ])?;
        }
        if let Some(pause) = self.options.pause_before_commit {
            std::thread::sleep(pause);
        }
        tx.commit()?;
        drop(conn);
        self.changes.push(written(commit));
        Ok(Committed::Done)
    }

    fn claim_once(
        &self,
        key: &str,
        expires_at: Timestamp,
        now: Timestamp,
    ) -> Result<bool, StoreError> {
        super::check_once_key(key)?;
        self.writable()?;
        let mut conn = self.conn()?;
        let tx = conn.transaction_with_behavior(TransactionBehavior::Immediate)?;
        tx.prepare_cached(
            "DELETE FROM once_keys WHERE key IN (
                SELECT key FROM once_keys WHERE expires_at <= ?1 AND key <> ?2
                ORDER BY expires_at LIMIT ?3)",
        )?
        .execute(params![now.millis(), key, super::ONCE_PRUNE_MAX])?;
        // A key already recorded counts only while it has not expired.
        let claimed = tx
            .prepare_cached(
                "INSERT INTO once_keys (key, expires_at) VALUES (?1, ?2)
                 ON CONFLICT (key) DO UPDATE SET expires_at = excluded.expires_at
                 WHERE once_keys.expires_at <= ?3",
            )?
            .execute(params![key, expires_at.millis(), now.millis()])?;
        tx.commit()?;
        drop(conn);
        Ok(claimed == 1)
    }

    fn changes(&self) -> Result<Arc<Changes>, StoreError> {
        let mut watching = self
            .watching
            .lock()
            .map_err(|_| StoreError::Other("the SQLite watcher lock is poisoned".into()))?;
        if !*watching {
            // The starting point is taken now, so a change made after this call is seen.
            let (seen, _) = changed_since(&*self.conn()?, None)?;
            let conn = Arc::downgrade(&self.conn);
            let changes = Arc::downgrade(&self.changes);
            std::thread::Builder::new()
                .name("forms-ask-sqlite-watch".into())
                .spawn(move || watch(&conn, &changes, seen))
                .map_err(|e| {
                    StoreError::Other(format!("cannot start the store's watcher thread: {e}"))
                })?;
            *watching = true;
        }
        Ok(Arc::clone(&self.changes))
    }
}

/// The store's one watcher: every [`POLL`] it reads, on the store's own connection, the
/// audit events written since its last look (by this process or another; every write adds
/// one) and reports their requests. It ends when the store is dropped.
fn watch(
    conn: &std::sync::Weak<Mutex<Connection>>,
    changes: &std::sync::Weak<Changes>,
    mut seen: i64,
) {
    loop {
        let Some(conn) = conn.upgrade() else { return };
        let Some(changes) = changes.upgrade() else {
            return;
        };
        let found = match conn.lock() {
            Ok(c) => changed_since(&c, Some(seen)),
            Err(_) => return,
        };
        drop(conn);
        match found {
            Ok((last, ids)) => {
                if !ids.is_empty() {
                    changes.push(ids.iter().map(|id| Some(id.as_str())));
                }
                seen = last;
            }
            // The database could not be read this time (busy, or damaged): let every
            // reader recheck rather than miss a change.
            Err(_) => changes.push([None]),
        }
        drop(changes);
        std::thread::sleep(POLL);
    }
}

/// The requests with audit events after sequence number `seen` (all of them when `None`
/// only establishes the starting point), and the newest sequence number.
fn changed_since(
    conn: &Connection,
    seen: Option<i64>,
) -> Result<(i64, Vec<String>), rusqlite::Error> {
    let Some(seen) = seen else {
        let last: Option<i64> = conn
            .prepare_cached("SELECT max(seq) FROM events")?
            .query_row([], |r| r.get(0))?;
        return Ok((last.unwrap_or(0), Vec::new()));
    };
    let rows = conn
        .prepare_cached(
            "SELECT seq, request_id FROM events WHERE seq > ?1 ORDER BY seq LIMIT 4096",
        )?
        .query_map([seen], |r| {
            Ok((r.get::<_, i64>(0)?, r.get::<_, String>(1)?))
        })?
        .collect::<Result<Vec<_>, _>>()?;
    let last = rows.last().map_or(seen, |(n, _)| *n);
    let ids = rows.into_iter().map(|(_, id)| id).collect();
    Ok((last, ids))
}

fn recorded(
    conn: &Connection,
    principal: &Principal,
    key: &str,
) -> Result<Option<Recorded>, StoreError> {
    Ok(conn
        .prepare_cached(
            "SELECT input_hash, result FROM idempotency WHERE principal = ?1 AND retry_key = ?2",
        )?
        .query_row(params![principal.as_str(), key], |r| {
            Ok(Recorded {
                input_hash: r.get(0)?,
                result: r.get(1)?,
            })
        })
        .optional()?)
}

fn high_water(conn: &Connection) -> Result<Option<Timestamp>, StoreError> {
    let at: Option<i64> = conn
        .prepare_cached("SELECT max(at) FROM events")?
        .query_row([], |r| r.get(0))?;
    Ok(at.map(Timestamp::from_millis))
}
