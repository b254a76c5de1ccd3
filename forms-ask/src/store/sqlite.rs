//! The default store: one SQLite file (the bundled library, so it works on a fresh machine).
//!
//! WAL journal, `synchronous=FULL` (a committed write survives a power cut), `BEGIN
//! IMMEDIATE` for every write (writers queue instead of failing on upgrade), a version
//! column for compare-and-set, an idempotency table keyed by (principal, retry key), and
//! versioned migrations run on open. Waiters in this process are woken by a notification;
//! changes made by other processes are seen by a short bounded poll.

use super::{
    from_doc, to_doc, Commit, Committed, MemberChange, Notifier, NotifierWatch, Recorded, Store,
    Watch, Write,
};
use crate::error::StoreError;
use crate::model::{AuditEvent, ConversationId, Member, Principal, Request, RequestId};
use rusqlite::{params, Connection, ErrorCode, OpenFlags, OptionalExtension, TransactionBehavior};
use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex, MutexGuard};
use std::time::Duration;

/// The `application_id` that marks a forms-ask database ("FASK").
const APPLICATION_ID: i64 = 0x4641_534B;

/// How often a waiter looks for changes made by other processes.
const POLL: Duration = Duration::from_millis(50);

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
];

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
    conn: Mutex<Connection>,
    notifier: Arc<Notifier>,
    options: SqliteOptions,
}

impl std::fmt::Debug for SqliteStore {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("SqliteStore")
            .field("path", &self.path)
            .finish()
    }
}

impl SqliteStore {
    /// Opens (or creates) the database at `path` and brings its schema up to date. A file
    /// that is not a forms-ask database, or is damaged, is refused with a clear error.
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
        let conn = Connection::open_with_flags(
            &path,
            OpenFlags::SQLITE_OPEN_READ_WRITE
                | OpenFlags::SQLITE_OPEN_CREATE
                | OpenFlags::SQLITE_OPEN_NO_MUTEX,
        )
        .map_err(explain)?;
        conn.busy_timeout(Duration::from_secs(30))
            .map_err(explain)?;
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
        let check: String = conn
            .query_row("PRAGMA quick_check(1)", [], |r| r.get(0))
            .map_err(explain)?;
        if check != "ok" {
            return Err(unusable(format!("is a damaged SQLite database: {check}")));
        }
        migrate(&conn, &location).map_err(|e| match e {
            StoreError::Sqlite(e) => explain(e),
            e => e,
        })?;
        Ok(SqliteStore {
            path,
            conn: Mutex::new(conn),
            notifier: Arc::new(Notifier::default()),
            options,
        })
    }

    fn conn(&self) -> Result<MutexGuard<'_, Connection>, StoreError> {
        self.conn
            .lock()
            .map_err(|_| StoreError::Other("the SQLite connection lock is poisoned".into()))
    }
}

/// Marks a fresh file as ours, refuses a foreign one, and applies missing migrations.
fn migrate(conn: &Connection, location: &str) -> Result<(), StoreError> {
    let known = i64::try_from(MIGRATIONS.len()).unwrap_or(i64::MAX);
    let tx = rusqlite::Transaction::new_unchecked(conn, TransactionBehavior::Immediate)?;
    let app_id: i64 = tx.query_row("PRAGMA application_id", [], |r| r.get(0))?;
    let tables: i64 = tx.query_row(
        "SELECT count(*) FROM sqlite_master WHERE type = 'table'",
        [],
        |r| r.get(0),
    )?;
    if app_id == 0 && tables == 0 {
        tx.execute_batch(&format!("PRAGMA application_id = {APPLICATION_ID}"))?;
    } else if app_id != APPLICATION_ID {
        return Err(StoreError::Unusable {
            location: location.to_owned(),
            problem: "is a SQLite database of another program, not a forms-ask database".into(),
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
            tx.execute_batch(&format!("PRAGMA user_version = {version}"))?;
        }
    }
    tx.commit()?;
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
            "SELECT principal, removed, contact_revoked FROM members
             WHERE conversation = ?1 ORDER BY principal",
        )?;
        let rows = stmt
            .query_map([conversation.as_str()], |r| {
                Ok((
                    r.get::<_, String>(0)?,
                    r.get::<_, bool>(1)?,
                    r.get::<_, bool>(2)?,
                ))
            })?
            .collect::<Result<Vec<_>, _>>()?;
        rows.into_iter()
            .map(|(p, removed, contact_revoked)| {
                Ok(Member {
                    principal: Principal::new(p).map_err(|e| StoreError::Corrupt(e.to_string()))?,
                    removed,
                    contact_revoked,
                })
            })
            .collect()
    }

    fn change_member(
        &self,
        conversation: &ConversationId,
        principal: &Principal,
        change: MemberChange,
    ) -> Result<(), StoreError> {
        let mut conn = self.conn()?;
        let tx = conn.transaction_with_behavior(TransactionBehavior::Immediate)?;
        let sql = match change {
            MemberChange::Join => {
                "INSERT INTO members (conversation, principal) VALUES (?1, ?2)
                 ON CONFLICT DO UPDATE SET removed = 0, contact_revoked = 0"
            }
            MemberChange::Remove => {
                "INSERT INTO members (conversation, principal, removed) VALUES (?1, ?2, 1)
                 ON CONFLICT DO UPDATE SET removed = 1"
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
        tx.commit()?;
        drop(conn);
        self.notifier.notify();
        Ok(())
    }

    fn recorded(&self, principal: &Principal, key: &str) -> Result<Option<Recorded>, StoreError> {
        let conn = self.conn()?;
        recorded(&conn, principal, key)
    }

    fn commit(&self, commit: &Commit) -> Result<Committed, StoreError> {
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
        }
        for event in &commit.events {
            tx.prepare_cached("INSERT INTO events (request_id, doc) VALUES (?1, ?2)")?
                .execute(params![event.request.as_str(), to_doc(event)?])?;
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
        self.notifier.notify();
        Ok(Committed::Done)
    }

    fn watch(&self, _id: &RequestId) -> Result<Box<dyn Watch>, StoreError> {
        Ok(Box::new(NotifierWatch {
            seen: self.notifier.generation(),
            notifier: Arc::clone(&self.notifier),
            poll: Some(POLL),
        }))
    }
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
