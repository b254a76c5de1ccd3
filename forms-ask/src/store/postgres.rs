//! The scale path: one PostgreSQL database shared by many server instances.
//!
//! A write is one call of the `forms_ask_commit` function (migration 2): one round trip and
//! one statement, so it is atomic without a client-side transaction. Inside it the retry-key
//! row is inserted first, so a concurrent retry with the same key waits on it and then
//! replays the first result; the responder's membership row is read `FOR SHARE`, so a
//! revocation cannot slip between the check and the write; updates are compare-and-set
//! (`UPDATE … WHERE version = expected`). Every write sends `NOTIFY forms_ask, '<request
//! id>'`; the store's one listener connection (started by the first wait) `LISTEN`s and
//! feeds every waiter of the process.
//!
//! Connections come from an [`r2d2`] pool (the blocking `postgres` client keeps this crate
//! synchronous; `deadpool-postgres` would need an asynchronous runtime in every program that
//! links it). Each pooled connection keeps its prepared statements. The schema is checked
//! once, when the store is made (a process makes one and shares it), never per call: a
//! schema already up to date is confirmed by two reads without a lock; the advisory lock
//! that serializes migrators is taken only when a migration is due.

use super::{
    from_doc, listed_from, message_by, to_doc, Changes, Columns, Commit, Committed, MemberChange,
    Recorded, Store, Write,
};
use crate::error::{with_causes, StoreError};
use crate::model::{
    AuditEvent, ConversationId, Listed, Member, MemberEvent, Principal, Request, RequestId,
};
use crate::time::Timestamp;
use crate::upload::StoredUpload;
use postgres::fallible_iterator::FallibleIterator;
use postgres::{Client, Config, NoTls, Statement};
use std::collections::HashMap;
use std::sync::atomic::{AtomicBool, AtomicI32, Ordering};
use std::sync::{Arc, Mutex, PoisonError, Weak};
use std::time::Duration;

/// The most connections a store's pool opens (waits hold none).
pub const POOL_MAX: u32 = 16;

/// How long a call waits for a pooled connection before it is refused with the cause.
const POOL_WAIT: Duration = Duration::from_secs(10);

/// How long the listener blocks before it looks whether its store is gone.
const LISTEN_TICK: Duration = Duration::from_millis(500);

/// Reads a retry key's record.
const RECORDED: &str =
    "SELECT input_hash, result FROM idempotency WHERE principal = $1 AND retry_key = $2";

/// The migrations, in order; `forms_ask_schema` records the ones applied.
const MIGRATIONS: &[&str] = &[
    // 1: the first schema.
    "CREATE TABLE members (
        conversation TEXT NOT NULL,
        principal TEXT NOT NULL,
        removed BOOLEAN NOT NULL DEFAULT FALSE,
        contact_revoked BOOLEAN NOT NULL DEFAULT FALSE,
        PRIMARY KEY (conversation, principal)
    );
    CREATE TABLE requests (
        id TEXT PRIMARY KEY,
        conversation TEXT NOT NULL,
        version BIGINT NOT NULL,
        state TEXT NOT NULL,
        doc TEXT NOT NULL
    );
    CREATE TABLE events (
        seq BIGSERIAL PRIMARY KEY,
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
    );",
    // 2: one commit, one round trip. The retry key is inserted first (a concurrent retry
    // with the same key waits on it, then replays); a refusal raises FA001 (version
    // conflict, the request ID in the message) or FA002 (not eligible), which undoes all.
    "CREATE FUNCTION forms_ask_commit(
        p_principal TEXT, p_key TEXT, p_hash TEXT, p_result TEXT,
        p_conversation TEXT, p_member TEXT,
        w_id TEXT[], w_conversation TEXT[], w_version BIGINT[], w_state TEXT[],
        w_doc TEXT[], w_expected BIGINT[],
        e_request TEXT[], e_doc TEXT[]
    ) RETURNS TABLE (replayed_hash TEXT, replayed_result TEXT) LANGUAGE plpgsql AS $fn$
    DECLARE
        i INT;
        active BOOLEAN;
    BEGIN
        IF p_key IS NOT NULL THEN
            INSERT INTO idempotency (principal, retry_key, input_hash, result)
            VALUES (p_principal, p_key, p_hash, p_result) ON CONFLICT DO NOTHING;
            IF NOT FOUND THEN
                RETURN QUERY SELECT d.input_hash, d.result FROM idempotency d
                    WHERE d.principal = p_principal AND d.retry_key = p_key;
                RETURN;
            END IF;
        END IF;
        IF p_member IS NOT NULL THEN
            SELECT NOT m.removed AND NOT m.contact_revoked INTO active FROM members m
                WHERE m.conversation = p_conversation AND m.principal = p_member FOR SHARE;
            IF active IS NOT TRUE THEN
                RAISE EXCEPTION 'not eligible' USING ERRCODE = 'FA002';
            END IF;
        END IF;
        FOR i IN 1 .. coalesce(array_length(w_id, 1), 0) LOOP
            IF w_expected[i] IS NULL THEN
                INSERT INTO requests (id, conversation, version, state, doc)
                VALUES (w_id[i], w_conversation[i], w_version[i], w_state[i], w_doc[i]);
            ELSE
                UPDATE requests SET version = w_version[i], state = w_state[i], doc = w_doc[i]
                    WHERE id = w_id[i] AND version = w_expected[i];
                IF NOT FOUND THEN
                    RAISE EXCEPTION '%', w_id[i] USING ERRCODE = 'FA001';
                END IF;
            END IF;
            PERFORM pg_notify('forms_ask', w_id[i]);
        END LOOP;
        FOR i IN 1 .. coalesce(array_length(e_request, 1), 0) LOOP
            INSERT INTO events (request_id, doc) VALUES (e_request[i], e_doc[i]);
            IF NOT (e_request[i] = ANY (coalesce(w_id, '{}'))) THEN
                PERFORM pg_notify('forms_ask', e_request[i]);
            END IF;
        END LOOP;
    END
    $fn$;",
    // 3: each event's time in milliseconds, indexed: the store's high-water mark of time is
    // the newest one. A trigger fills it from the event document, so the commit function
    // keeps its signature.
    "ALTER TABLE events ADD COLUMN at BIGINT;
    CREATE FUNCTION forms_ask_event_at(doc TEXT) RETURNS BIGINT LANGUAGE sql STABLE AS
        $fn$ SELECT round(extract(epoch FROM (doc::jsonb ->> 'at')::timestamptz) * 1000)::bigint $fn$;
    UPDATE events SET at = forms_ask_event_at(doc);
    CREATE INDEX events_by_at ON events (at);
    CREATE FUNCTION forms_ask_events_at() RETURNS trigger LANGUAGE plpgsql AS $fn$
    BEGIN
        NEW.at := forms_ask_event_at(NEW.doc);
        RETURN NEW;
    END
    $fn$;
    CREATE TRIGGER events_at BEFORE INSERT ON events
        FOR EACH ROW EXECUTE FUNCTION forms_ask_events_at();",
    // 4: a commit notifies only for a request some process waits on. In PostgreSQL a
    // transaction that notifies holds a database-wide lock from before its commit until
    // after it (its WAL flush included), so notifying commits cannot share a flush; a commit
    // nobody waits for need not pay that. A process's listener records each request its
    // waiters wait on here (with its backend's pid) before their first read.
    "CREATE TABLE forms_ask_watched (
        request_id TEXT NOT NULL,
        pid INT NOT NULL,
        PRIMARY KEY (request_id, pid)
    );
    CREATE OR REPLACE FUNCTION forms_ask_commit(
        p_principal TEXT, p_key TEXT, p_hash TEXT, p_result TEXT,
        p_conversation TEXT, p_member TEXT,
        w_id TEXT[], w_conversation TEXT[], w_version BIGINT[], w_state TEXT[],
        w_doc TEXT[], w_expected BIGINT[],
        e_request TEXT[], e_doc TEXT[]
    ) RETURNS TABLE (replayed_hash TEXT, replayed_result TEXT) LANGUAGE plpgsql AS $fn$
    DECLARE
        i INT;
        active BOOLEAN;
    BEGIN
        IF p_key IS NOT NULL THEN
            INSERT INTO idempotency (principal, retry_key, input_hash, result)
            VALUES (p_principal, p_key, p_hash, p_result) ON CONFLICT DO NOTHING;
            IF NOT FOUND THEN
                RETURN QUERY SELECT d.input_hash, d.result FROM idempotency d
                    WHERE d.principal = p_principal AND d.retry_key = p_key;
                RETURN;
            END IF;
        END IF;
        IF p_member IS NOT NULL THEN
            SELECT NOT m.removed AND NOT m.contact_revoked INTO active FROM members m
                WHERE m.conversation = p_conversation AND m.principal = p_member FOR SHARE;
            IF active IS NOT TRUE THEN
                RAISE EXCEPTION 'not eligible' USING ERRCODE = 'FA002';
            END IF;
        END IF;
        FOR i IN 1 .. coalesce(array_length(w_id, 1), 0) LOOP
            IF w_expected[i] IS NULL THEN
                INSERT INTO requests (id, conversation, version, state, doc)
                VALUES (w_id[i], w_conversation[i], w_version[i], w_state[i], w_doc[i]);
            ELSE
                UPDATE requests SET version = w_version[i], state = w_state[i], doc = w_doc[i]
                    WHERE id = w_id[i] AND version = w_expected[i];
                IF NOT FOUND THEN
                    RAISE EXCEPTION '%', w_id[i] USING ERRCODE = 'FA001';
                END IF;
            END IF;
            IF EXISTS (SELECT 1 FROM forms_ask_watched WHERE request_id = w_id[i]) THEN
                PERFORM pg_notify('forms_ask', w_id[i]);
            END IF;
        END LOOP;
        FOR i IN 1 .. coalesce(array_length(e_request, 1), 0) LOOP
            INSERT INTO events (request_id, doc) VALUES (e_request[i], e_doc[i]);
            IF NOT (e_request[i] = ANY (coalesce(w_id, '{}')))
               AND EXISTS (SELECT 1 FROM forms_ask_watched WHERE request_id = e_request[i]) THEN
                PERFORM pg_notify('forms_ask', e_request[i]);
            END IF;
        END LOOP;
    END
    $fn$;",
    // 5: managers, the membership log, and a conversation's requests found by index.
    "ALTER TABLE members ADD COLUMN manager BOOLEAN NOT NULL DEFAULT FALSE;
    CREATE TABLE member_events (
        seq BIGSERIAL PRIMARY KEY,
        conversation TEXT NOT NULL,
        doc TEXT NOT NULL
    );
    CREATE INDEX member_events_by_conversation ON member_events (conversation, seq);
    CREATE INDEX requests_by_conversation ON requests (conversation);",
    // 6: single-use keys (`Store::claim_once`), kept until they expire.
    "CREATE TABLE forms_ask_once (
        key TEXT PRIMARY KEY,
        expires_at BIGINT NOT NULL
    );
    CREATE INDEX forms_ask_once_by_expiry ON forms_ask_once (expires_at);",
    // 7: questions that carry a Data form (answered with a host response checked against
    // it). The documents hold them as they are; the version is the change: it keeps older
    // programs out, which would answer such a question with plain text and drop its form on
    // their next write (a database found newer than a program knows is refused).
    // Also: an event's time is read from its text, not by parsing the document as `jsonb`,
    // which refuses the `\u0000` an answer or a body may hold. The event's `at` is its first
    // `"at":"` (it comes before `detail`, and a quote inside a JSON string is escaped);
    // a document written otherwise is still read as `jsonb`.
    "CREATE OR REPLACE FUNCTION forms_ask_event_at(doc TEXT) RETURNS BIGINT LANGUAGE sql
        STABLE AS $fn$
        SELECT round(extract(epoch FROM coalesce(
            substring(doc FROM '\"at\":\"([^\"]*)\"'),
            doc::jsonb ->> 'at')::timestamptz) * 1000)::bigint
        $fn$;",
    // 8: what lists and quotas read, beside the documents: a request's list entry (`brief`,
    // the document without its form and response), its times, its requester, the principals
    // it names (an index per conversation and principal), and the author of each follow-up
    // message; the commit function takes them with the writes. Filled for existing rows by
    // `backfill` right after (in Rust: the documents may hold `\u0000`, which `jsonb`
    // refuses).
    "ALTER TABLE requests ADD COLUMN brief TEXT;
    ALTER TABLE requests ADD COLUMN has_form BOOLEAN NOT NULL DEFAULT FALSE;
    ALTER TABLE requests ADD COLUMN response_action TEXT;
    ALTER TABLE requests ADD COLUMN updated_at BIGINT;
    ALTER TABLE requests ADD COLUMN expires_at BIGINT;
    ALTER TABLE requests ADD COLUMN requester TEXT;
    CREATE INDEX requests_by_requester ON requests (requester, state);
    CREATE TABLE request_names (
        conversation TEXT NOT NULL,
        principal TEXT NOT NULL,
        request_id TEXT NOT NULL,
        PRIMARY KEY (conversation, principal, request_id)
    );
    ALTER TABLE events ADD COLUMN message_by TEXT;
    CREATE INDEX events_messages ON events (request_id, message_by)
        WHERE message_by IS NOT NULL;
    DROP FUNCTION forms_ask_commit(TEXT, TEXT, TEXT, TEXT, TEXT, TEXT, TEXT[], TEXT[],
        BIGINT[], TEXT[], TEXT[], BIGINT[], TEXT[], TEXT[]);
    CREATE FUNCTION forms_ask_commit(
        p_principal TEXT, p_key TEXT, p_hash TEXT, p_result TEXT,
        p_conversation TEXT, p_member TEXT,
        w_id TEXT[], w_conversation TEXT[], w_version BIGINT[], w_state TEXT[],
        w_doc TEXT[], w_expected BIGINT[],
        e_request TEXT[], e_doc TEXT[],
        w_brief TEXT[], w_has_form BOOLEAN[], w_action TEXT[], w_updated BIGINT[],
        w_expires BIGINT[], w_requester TEXT[],
        n_conversation TEXT[], n_principal TEXT[], n_request TEXT[],
        e_message_by TEXT[]
    ) RETURNS TABLE (replayed_hash TEXT, replayed_result TEXT) LANGUAGE plpgsql AS $fn$
    DECLARE
        i INT;
        active BOOLEAN;
    BEGIN
        IF p_key IS NOT NULL THEN
            INSERT INTO idempotency (principal, retry_key, input_hash, result)
            VALUES (p_principal, p_key, p_hash, p_result) ON CONFLICT DO NOTHING;
            IF NOT FOUND THEN
                RETURN QUERY SELECT d.input_hash, d.result FROM idempotency d
                    WHERE d.principal = p_principal AND d.retry_key = p_key;
                RETURN;
            END IF;
        END IF;
        IF p_member IS NOT NULL THEN
            SELECT NOT m.removed AND NOT m.contact_revoked INTO active FROM members m
                WHERE m.conversation = p_conversation AND m.principal = p_member FOR SHARE;
            IF active IS NOT TRUE THEN
                RAISE EXCEPTION 'not eligible' USING ERRCODE = 'FA002';
            END IF;
        END IF;
        FOR i IN 1 .. coalesce(array_length(w_id, 1), 0) LOOP
            IF w_expected[i] IS NULL THEN
                INSERT INTO requests (id, conversation, version, state, doc, brief, has_form,
                                      response_action, updated_at, expires_at, requester)
                VALUES (w_id[i], w_conversation[i], w_version[i], w_state[i], w_doc[i],
                        w_brief[i], w_has_form[i], w_action[i], w_updated[i], w_expires[i],
                        w_requester[i]);
            ELSE
                UPDATE requests SET version = w_version[i], state = w_state[i], doc = w_doc[i],
                        brief = w_brief[i], has_form = w_has_form[i],
                        response_action = w_action[i], updated_at = w_updated[i],
                        expires_at = w_expires[i], requester = w_requester[i]
                    WHERE id = w_id[i] AND version = w_expected[i];
                IF NOT FOUND THEN
                    RAISE EXCEPTION '%', w_id[i] USING ERRCODE = 'FA001';
                END IF;
            END IF;
            IF EXISTS (SELECT 1 FROM forms_ask_watched WHERE request_id = w_id[i]) THEN
                PERFORM pg_notify('forms_ask', w_id[i]);
            END IF;
        END LOOP;
        INSERT INTO request_names (conversation, principal, request_id)
            SELECT * FROM unnest(n_conversation, n_principal, n_request)
            ON CONFLICT DO NOTHING;
        FOR i IN 1 .. coalesce(array_length(e_request, 1), 0) LOOP
            INSERT INTO events (request_id, doc, message_by)
                VALUES (e_request[i], e_doc[i], e_message_by[i]);
            IF NOT (e_request[i] = ANY (coalesce(w_id, '{}')))
               AND EXISTS (SELECT 1 FROM forms_ask_watched WHERE request_id = e_request[i]) THEN
                PERFORM pg_notify('forms_ask', e_request[i]);
            END IF;
        END LOOP;
    END
    $fn$;",
    // 9: uploads: the files sent with a form's answer, stored with the response in the
    // same transaction (a durable `files` answer is uploads, never a responder's path).
    "CREATE TABLE uploads (
        request_id TEXT NOT NULL REFERENCES requests(id),
        n INTEGER NOT NULL,
        name TEXT NOT NULL,
        sha256 TEXT NOT NULL,
        size BIGINT NOT NULL,
        data BYTEA NOT NULL,
        PRIMARY KEY (request_id, n)
    );",
];

/// The migration that added the list columns (`backfill` fills them for older rows).
const LIST_COLUMNS: i64 = 8;

/// [`Store::list`]: the principal's rows of the conversation by index, ordered as
/// [`super::list_order`] orders them (IDs bytewise: `COLLATE "C"`); only the returned rows'
/// list entries are read.
const LIST: &str = "SELECT r.brief, r.has_form, r.response_action
    FROM request_names n JOIN requests r ON r.id = n.request_id
    WHERE n.conversation = $1 AND n.principal = $2
    ORDER BY (r.state = 'open' AND (r.expires_at IS NULL
                                    OR r.expires_at > GREATEST($3, r.updated_at))) DESC,
             CASE WHEN r.state = 'open' AND r.expires_at <= GREATEST($3, r.updated_at)
                  THEN GREATEST($3, r.updated_at) ELSE r.updated_at END DESC,
             r.id COLLATE \"C\" ASC
    LIMIT $4";

/// Claims a single-use key in one statement: prunes up to `$4` expired keys (skipping rows
/// another claim holds, so claims never wait on each other's pruning), then inserts the key;
/// a concurrent claim of the same key waits on the inserted row and then finds it recorded.
/// A recorded key counts only while it has not expired. Returns a row when claimed.
const CLAIM_ONCE: &str = "WITH pruned AS (
        DELETE FROM forms_ask_once WHERE key IN (
            SELECT key FROM forms_ask_once WHERE expires_at <= $3 AND key <> $1
            ORDER BY expires_at LIMIT $4 FOR UPDATE SKIP LOCKED))
    INSERT INTO forms_ask_once (key, expires_at) VALUES ($1, $2)
    ON CONFLICT (key) DO UPDATE SET expires_at = EXCLUDED.expires_at
        WHERE forms_ask_once.expires_at <= $3
    RETURNING 1";

/// What a listener runs: listens, forgets the watches of backends that are gone, and takes
/// over those of the backend it replaces (after a reconnection); returns its pid.
const REGISTER: &str = "LISTEN forms_ask";

/// Forgets the watches of backends that are gone.
const PRUNE: &str =
    "DELETE FROM forms_ask_watched WHERE pid NOT IN (SELECT pid FROM pg_stat_activity)";

/// The store's high-water mark of time, in milliseconds.
const HIGH_WATER: &str = "SELECT max(at) FROM events";

/// A pooled connection and its prepared statements (one round trip per statement after the
/// first use, instead of a parse on every call).
struct Conn {
    client: Client,
    statements: HashMap<&'static str, Statement>,
}

impl Conn {
    fn prepare(&mut self, sql: &'static str) -> Result<Statement, StoreError> {
        if let Some(s) = self.statements.get(sql) {
            return Ok(s.clone());
        }
        let s = self.client.prepare(sql)?;
        self.statements.insert(sql, s.clone());
        Ok(s)
    }
}

/// A failure to connect, with every cause in its message (the pool keeps only the text).
#[derive(Debug)]
struct ConnectError(String);

impl std::fmt::Display for ConnectError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(&self.0)
    }
}

impl std::error::Error for ConnectError {}

/// Opens connections for the pool: the one that checked the schema first, then new ones.
struct Manager {
    config: Config,
    schema: Option<String>,
    first: Mutex<Option<Client>>,
}

impl r2d2::ManageConnection for Manager {
    type Connection = Conn;
    type Error = ConnectError;

    fn connect(&self) -> Result<Conn, ConnectError> {
        let first = self
            .first
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
            .take();
        let client = match first {
            Some(c) => c,
            None => open_client(&self.config, self.schema.as_deref())
                .map_err(|e| ConnectError(with_causes(&e)))?,
        };
        Ok(Conn {
            client,
            statements: HashMap::new(),
        })
    }

    fn is_valid(&self, conn: &mut Conn) -> Result<(), ConnectError> {
        conn.client
            .simple_query("")
            .map(|_| ())
            .map_err(|e| ConnectError(with_causes(&e)))
    }

    fn has_broken(&self, conn: &mut Conn) -> bool {
        conn.client.is_closed()
    }
}

/// A new connection, inside `schema` (created if missing) when one is given.
fn open_client(config: &Config, schema: Option<&str>) -> Result<Client, postgres::Error> {
    let mut client = config.connect(NoTls)?;
    if let Some(schema) = schema {
        let q = quote_ident(schema);
        client.batch_execute(&format!(
            "CREATE SCHEMA IF NOT EXISTS {q}; SET search_path TO {q}"
        ))?;
    }
    Ok(client)
}

/// The PostgreSQL store: a pool of connections to one database (optionally inside one
/// schema), and one listener connection shared by every waiter once someone waits.
pub struct PostgresStore {
    url: String,
    config: Config,
    schema: Option<String>,
    /// `None` only while the store is dropped.
    pool: Option<r2d2::Pool<Manager>>,
    pause_before_commit: Option<std::time::Duration>,
    changes: Arc<Changes>,
    /// Whether the listener runs.
    listening: Mutex<bool>,
    /// The listener's backend pid (0 before it runs): the owner of this process's watches.
    listener_pid: Arc<AtomicI32>,
    /// The requests this process watches, with their number of watchers (engines sharing
    /// this store each count once); held while a watch row is written or removed.
    watched: Arc<Mutex<HashMap<String, usize>>>,
    /// Tells the listener to stop.
    stop: Arc<AtomicBool>,
}

impl Drop for PostgresStore {
    /// Stops the listener, and closes the pooled connections on a thread of their own: the
    /// blocking client closes a connection by running a runtime of its own, which panics on
    /// a thread that drives asynchronous tasks, and the last owner of a store (an engine, a
    /// form request) may well be dropped on one.
    fn drop(&mut self) {
        self.stop.store(true, Ordering::SeqCst);
        if let Some(pool) = self.pool.take() {
            // Without a thread to be had, the failed spawn drops the pool here.
            let _ = std::thread::Builder::new()
                .name("forms-ask-pg-close".into())
                .spawn(move || drop(pool));
        }
    }
}

impl std::fmt::Debug for PostgresStore {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("PostgresStore")
            .field("location", &self.location())
            .finish()
    }
}

/// The URL without its password, for messages.
fn redact(url: &str) -> String {
    match (url.find("://"), url.rfind('@')) {
        (Some(s), Some(at)) if at > s => {
            let userinfo = url.get(s + 3..at).unwrap_or("");
            match userinfo.split_once(':') {
                Some((user, _)) => format!(
                    "{}{user}:***{}",
                    url.get(..s + 3).unwrap_or(""),
                    url.get(at..).unwrap_or("")
                ),
                None => url.to_owned(),
            }
        }
        _ => url.to_owned(),
    }
}

fn quote_ident(name: &str) -> String {
    format!("\"{}\"", name.replace('"', "\"\""))
}

impl PostgresStore {
    /// Connects to the database at `url` (`postgres://user@host:port/db` or a key=value
    /// string) and brings the schema up to date.
    pub fn connect(url: &str) -> Result<PostgresStore, StoreError> {
        Self::connect_in_schema(url, None)
    }

    /// Like [`PostgresStore::connect`], keeping the tables in `schema` (created if missing):
    /// several independent stores in one database, as the tests use.
    pub fn connect_in_schema(url: &str, schema: Option<&str>) -> Result<PostgresStore, StoreError> {
        let location = redact(url);
        let config: Config = url
            .parse()
            .map_err(|e: postgres::Error| StoreError::Unusable {
                location: location.clone(),
                problem: format!("is not a usable PostgreSQL URL: {}", with_causes(&e)),
            })?;
        let unreachable = |e: postgres::Error| StoreError::Unusable {
            location: location.clone(),
            problem: format!("cannot be reached: {}", with_causes(&e)),
        };
        // The first connection checks the schema (once per store: a process opens one and
        // shares it), then joins the pool.
        let mut client = open_client(&config, schema).map_err(unreachable)?;
        migrate(&mut client, &location)?;
        let manager = Manager {
            config: config.clone(),
            schema: schema.map(str::to_owned),
            first: Mutex::new(Some(client)),
        };
        let pool = r2d2::Pool::builder()
            .max_size(POOL_MAX)
            // No idle connection kept in reserve: a checkout takes one or opens one, so a quiet
            // process holds one connection (and the listener, once someone waits).
            .min_idle(Some(0))
            // Connections opened for a burst are closed after a minute of rest.
            .idle_timeout(Some(Duration::from_secs(60)))
            .connection_timeout(POOL_WAIT)
            .test_on_check_out(false)
            .build_unchecked(manager);
        Ok(PostgresStore {
            url: url.to_owned(),
            config,
            schema: schema.map(str::to_owned),
            pool: Some(pool),
            pause_before_commit: None,
            changes: Arc::new(Changes::default()),
            listening: Mutex::new(false),
            listener_pid: Arc::new(AtomicI32::new(0)),
            watched: Arc::new(Mutex::new(HashMap::new())),
            stop: Arc::new(AtomicBool::new(false)),
        })
    }

    /// Sleeps this long inside every write transaction, before the commit: lets fault tests
    /// kill a process mid-transaction.
    #[doc(hidden)]
    pub fn pause_before_commit(mut self, pause: std::time::Duration) -> Self {
        self.pause_before_commit = Some(pause);
        self
    }

    /// Runs `f` on a pooled connection. A connection that cannot be had within
    /// [`POOL_WAIT`] is refused with the cause the server gave (`too many clients`, a
    /// refused connection, a failed authentication).
    fn with<T>(&self, f: impl FnOnce(&mut Conn) -> Result<T, StoreError>) -> Result<T, StoreError> {
        let pool = self.pool.as_ref().ok_or_else(|| StoreError::Unusable {
            location: redact(&self.url),
            problem: "is closed".into(),
        })?;
        let mut conn = pool.get().map_err(|e| StoreError::Unusable {
            location: redact(&self.url),
            problem: format!("cannot be reached: {e}"),
        })?;
        f(&mut conn)
    }
}

/// Brings the schema up to date. A schema already at this version is confirmed by two reads
/// without a lock; only a migration takes the advisory lock that serializes migrators.
fn migrate(client: &mut Client, location: &str) -> Result<(), StoreError> {
    let known = i64::try_from(MIGRATIONS.len()).unwrap_or(i64::MAX);
    let ours: bool = client
        .query_one(
            "SELECT EXISTS (SELECT 1 FROM information_schema.tables
                            WHERE table_schema = current_schema()
                            AND table_name = 'forms_ask_schema')",
            &[],
        )?
        .get(0);
    if ours {
        let current: i64 = client
            .query_one(
                "SELECT coalesce(max(version), 0) FROM forms_ask_schema",
                &[],
            )?
            .get(0);
        if current > known {
            return Err(StoreError::NewerSchema {
                location: location.to_owned(),
                found: current,
                known,
            });
        }
        if current == known {
            return Ok(());
        }
    }
    let mut tx = client.transaction()?;
    // One migrator at a time, across every instance.
    tx.batch_execute("SELECT pg_advisory_xact_lock(1178686283)")?;
    let foreign: i64 = tx
        .query_one(
            "SELECT count(*) FROM information_schema.tables
             WHERE table_schema = current_schema() AND table_name = 'requests'
             AND NOT EXISTS (SELECT 1 FROM information_schema.tables
                             WHERE table_schema = current_schema()
                             AND table_name = 'forms_ask_schema')",
            &[],
        )?
        .get(0);
    if foreign > 0 {
        return Err(StoreError::Unusable {
            location: location.to_owned(),
            problem: "holds a `requests` table of another program, not a forms-ask schema".into(),
        });
    }
    tx.batch_execute(
        "CREATE TABLE IF NOT EXISTS forms_ask_schema (
            version BIGINT PRIMARY KEY,
            applied_at TIMESTAMPTZ NOT NULL DEFAULT now()
        )",
    )?;
    let current: i64 = tx
        .query_one(
            "SELECT coalesce(max(version), 0) FROM forms_ask_schema",
            &[],
        )?
        .get(0);
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
            tx.batch_execute(sql)?;
            if version == LIST_COLUMNS {
                backfill(&mut tx)?;
            }
            tx.execute(
                "INSERT INTO forms_ask_schema (version) VALUES ($1)",
                &[&version],
            )?;
        }
    }
    tx.commit()?;
    Ok(())
}

/// Fills the list columns of the rows written before them, a page of rows at a time (one
/// page of documents in memory at once).
fn backfill(tx: &mut postgres::Transaction<'_>) -> Result<(), StoreError> {
    let mut after = String::new();
    loop {
        let page = tx.query(
            "SELECT id, doc FROM requests WHERE id > $1 ORDER BY id LIMIT 64",
            &[&after],
        )?;
        let Some(last) = page.last() else { break };
        after = last.get(0);
        for row in &page {
            let r: Request = from_doc(row.get::<_, &str>(1))?;
            let c = Columns::of(&r)?;
            tx.execute(
                "UPDATE requests SET brief = $2, has_form = $3, response_action = $4,
                        updated_at = $5, expires_at = $6, requester = $7
                 WHERE id = $1",
                &[
                    &r.id.as_str(),
                    &c.brief,
                    &c.has_form,
                    &c.response_action,
                    &c.updated_at,
                    &c.expires_at,
                    &c.requester,
                ],
            )?;
            for principal in &c.names {
                tx.execute(
                    "INSERT INTO request_names (conversation, principal, request_id)
                     VALUES ($1, $2, $3) ON CONFLICT DO NOTHING",
                    &[&r.conversation.as_str(), principal, &r.id.as_str()],
                )?;
            }
        }
    }
    let mut after = 0_i64;
    loop {
        let page = tx.query(
            "SELECT seq, doc FROM events WHERE seq > $1 ORDER BY seq LIMIT 256",
            &[&after],
        )?;
        let Some(last) = page.last() else { break };
        after = last.get(0);
        for row in &page {
            let e: AuditEvent = from_doc(row.get::<_, &str>(1))?;
            if let Some(by) = message_by(&e) {
                let seq: i64 = row.get(0);
                tx.execute(
                    "UPDATE events SET message_by = $2 WHERE seq = $1",
                    &[&seq, &by],
                )?;
            }
        }
    }
    Ok(())
}

/// The store's one listener: forwards every notification on the channel to the change
/// feed. If its connection breaks, it tells every reader that anything may have changed
/// (once a second until it is back), and reconnects. It ends when the store is dropped.
fn listen(
    mut client: Client,
    config: &Config,
    schema: Option<&str>,
    changes: &Weak<Changes>,
    stop: &AtomicBool,
    owner: &AtomicI32,
    watched: &Mutex<HashMap<String, usize>>,
) {
    loop {
        if stop.load(Ordering::SeqCst) || changes.strong_count() == 0 {
            // Commits stop notifying for this process's watches.
            let _ =
                client.batch_execute("DELETE FROM forms_ask_watched WHERE pid = pg_backend_pid()");
            return;
        }
        let mut ids: Vec<String> = Vec::new();
        let mut broken = false;
        {
            let mut notifications = client.notifications();
            match notifications.timeout_iter(LISTEN_TICK).next() {
                Ok(Some(n)) => ids.push(n.payload().to_owned()),
                Ok(None) => {}
                Err(_) => broken = true,
            }
            if !broken {
                // Whatever else has arrived, without waiting.
                let mut pending = notifications.iter();
                loop {
                    match pending.next() {
                        Ok(Some(n)) => ids.push(n.payload().to_owned()),
                        Ok(None) => break,
                        Err(_) => {
                            broken = true;
                            break;
                        }
                    }
                }
            }
        }
        broken |= client.is_closed();
        let Some(feed) = changes.upgrade() else {
            return;
        };
        if !ids.is_empty() {
            feed.push(ids.iter().map(|id| Some(id.as_str())));
        }
        if broken {
            loop {
                feed.push([None]);
                if stop.load(Ordering::SeqCst) {
                    return;
                }
                std::thread::sleep(Duration::from_secs(1));
                if let Ok(mut c) = open_client(config, schema) {
                    // Listen, and record this process's watches again under the new
                    // backend (the old one's may already be pruned).
                    let ids: Vec<String> = watched
                        .lock()
                        .unwrap_or_else(PoisonError::into_inner)
                        .keys()
                        .cloned()
                        .collect();
                    let pid = c.batch_execute(REGISTER).and_then(|()| {
                        let pid: i32 = c.query_one("SELECT pg_backend_pid()", &[])?.get(0);
                        c.execute(
                            "INSERT INTO forms_ask_watched (request_id, pid)
                             SELECT unnest($1::text[]), $2 ON CONFLICT DO NOTHING",
                            &[&ids, &pid],
                        )?;
                        Ok(pid)
                    });
                    if let Ok(pid) = pid {
                        owner.store(pid, Ordering::SeqCst);
                        client = c;
                        // What was written while it was away.
                        feed.push([None]);
                        break;
                    }
                }
            }
        }
    }
}

fn version_i64(v: u64) -> i64 {
    i64::try_from(v).unwrap_or(i64::MAX)
}

impl Store for PostgresStore {
    fn location(&self) -> String {
        redact(&self.url)
    }

    fn load(&self, id: &RequestId) -> Result<Option<Request>, StoreError> {
        self.with(|c| {
            let st = c.prepare("SELECT doc FROM requests WHERE id = $1")?;
            let row = c.client.query_opt(&st, &[&id.as_str()])?;
            row.map(|r| from_doc(r.get::<_, &str>(0))).transpose()
        })
    }

    fn high_water(&self) -> Result<Option<Timestamp>, StoreError> {
        self.with(|c| {
            let st = c.prepare(HIGH_WATER)?;
            let at: Option<i64> = c.client.query_one(&st, &[])?.get(0);
            Ok(at.map(Timestamp::from_millis))
        })
    }

    fn load_at(&self, id: &RequestId) -> Result<(Option<Request>, Option<Timestamp>), StoreError> {
        self.with(|c| {
            let st = c.prepare(
                "SELECT (SELECT doc FROM requests WHERE id = $1), (SELECT max(at) FROM events)",
            )?;
            let row = c.client.query_one(&st, &[&id.as_str()])?;
            let request = row.get::<_, Option<&str>>(0).map(from_doc).transpose()?;
            let at: Option<i64> = row.get(1);
            Ok((request, at.map(Timestamp::from_millis)))
        })
    }

    fn events(&self, id: &RequestId) -> Result<Vec<AuditEvent>, StoreError> {
        self.with(|c| {
            let st = c.prepare("SELECT doc FROM events WHERE request_id = $1 ORDER BY seq")?;
            c.client
                .query(&st, &[&id.as_str()])?
                .iter()
                .map(|r| from_doc(r.get::<_, &str>(0)))
                .collect()
        })
    }

    fn members(&self, conversation: &ConversationId) -> Result<Vec<Member>, StoreError> {
        self.with(|c| {
            let st = c.prepare(
                "SELECT principal, removed, contact_revoked, manager FROM members
                 WHERE conversation = $1 ORDER BY principal",
            )?;
            c.client
                .query(&st, &[&conversation.as_str()])?
                .iter()
                .map(|r| {
                    Ok(Member {
                        principal: Principal::new(r.get::<_, String>(0))
                            .map_err(|e| StoreError::Corrupt(e.to_string()))?,
                        removed: r.get(1),
                        contact_revoked: r.get(2),
                        manager: r.get(3),
                    })
                })
                .collect()
        })
    }

    fn load_for(
        &self,
        id: &RequestId,
        principal: &Principal,
    ) -> Result<(Option<Request>, Option<Timestamp>, Option<Member>), StoreError> {
        self.with(|c| {
            let st = c.prepare(
                "SELECT r.doc, (SELECT max(at) FROM events), m.removed, m.contact_revoked,
                        m.manager
                 FROM (SELECT 1) one
                 LEFT JOIN requests r ON r.id = $1
                 LEFT JOIN members m ON m.conversation = r.conversation AND m.principal = $2",
            )?;
            let row = c
                .client
                .query_one(&st, &[&id.as_str(), &principal.as_str()])?;
            let request: Option<Request> =
                row.get::<_, Option<&str>>(0).map(from_doc).transpose()?;
            let at: Option<i64> = row.get(1);
            let removed: Option<bool> = row.get(2);
            let contact_revoked: Option<bool> = row.get(3);
            let manager: Option<bool> = row.get(4);
            let member = match (removed, contact_revoked) {
                (Some(removed), Some(contact_revoked)) => Some(Member {
                    principal: principal.clone(),
                    removed,
                    contact_revoked,
                    manager: manager.unwrap_or(false),
                }),
                _ => None,
            };
            Ok((request, at.map(Timestamp::from_millis), member))
        })
    }

    fn watch_request(&self, id: &RequestId) -> Result<(), StoreError> {
        let pid = self.listener_pid.load(Ordering::SeqCst);
        let mut watched = self
            .watched
            .lock()
            .map_err(|_| StoreError::Other("the PostgreSQL watch lock is poisoned".into()))?;
        let count = watched.get(id.as_str()).copied().unwrap_or(0);
        if count > 0 {
            watched.insert(id.as_str().to_owned(), count + 1);
            return Ok(());
        }
        self.with(|c| {
            let st = c.prepare(
                "INSERT INTO forms_ask_watched (request_id, pid) VALUES ($1, $2)
                 ON CONFLICT DO NOTHING",
            )?;
            c.client.execute(&st, &[&id.as_str(), &pid])?;
            Ok(())
        })?;
        watched.insert(id.as_str().to_owned(), 1);
        Ok(())
    }

    fn unwatch_requests(&self, ids: &[RequestId]) -> Result<(), StoreError> {
        let pid = self.listener_pid.load(Ordering::SeqCst);
        let mut watched = self
            .watched
            .lock()
            .map_err(|_| StoreError::Other("the PostgreSQL watch lock is poisoned".into()))?;
        let mut gone: Vec<&str> = Vec::new();
        for id in ids {
            match watched.get_mut(id.as_str()) {
                Some(n) if *n > 1 => *n -= 1,
                Some(_) => {
                    watched.remove(id.as_str());
                    gone.push(id.as_str());
                }
                None => {}
            }
        }
        if gone.is_empty() {
            return Ok(());
        }
        let ids = gone;
        self.with(|c| {
            let st =
                c.prepare("DELETE FROM forms_ask_watched WHERE pid = $1 AND request_id = ANY($2)")?;
            c.client.execute(&st, &[&pid, &ids])?;
            Ok(())
        })
    }

    fn members_at(
        &self,
        conversation: &ConversationId,
    ) -> Result<(Vec<Member>, Option<Timestamp>), StoreError> {
        self.with(|c| {
            // One row per member, or one row of NULLs when there is none; the high-water
            // mark on every row.
            let st = c.prepare(
                "SELECT m.principal, m.removed, m.contact_revoked, h.at, m.manager
                 FROM (SELECT max(at) AS at FROM events) h
                 LEFT JOIN members m ON m.conversation = $1
                 ORDER BY m.principal",
            )?;
            let rows = c.client.query(&st, &[&conversation.as_str()])?;
            let at: Option<i64> = rows.first().and_then(|r| r.get(3));
            let members = rows
                .iter()
                .filter_map(|r| {
                    let principal: Option<String> = r.get(0);
                    principal.map(|p| {
                        Ok(Member {
                            principal: Principal::new(p)
                                .map_err(|e| StoreError::Corrupt(e.to_string()))?,
                            removed: r.get(1),
                            contact_revoked: r.get(2),
                            manager: r.get(4),
                        })
                    })
                })
                .collect::<Result<Vec<_>, StoreError>>()?;
            Ok((members, at.map(Timestamp::from_millis)))
        })
    }

    fn change_member(
        &self,
        conversation: &ConversationId,
        principal: &Principal,
        change: MemberChange,
        event: &MemberEvent,
    ) -> Result<(), StoreError> {
        // One statement: the change and its log entry commit together.
        let sql = match change {
            MemberChange::Join => {
                "WITH m AS (INSERT INTO members (conversation, principal) VALUES ($1, $2)
                 ON CONFLICT (conversation, principal)
                 DO UPDATE SET removed = FALSE, contact_revoked = FALSE RETURNING 1)
                 INSERT INTO member_events (conversation, doc) VALUES ($1, $3)"
            }
            MemberChange::JoinAsManager => {
                "WITH m AS (INSERT INTO members (conversation, principal, manager)
                 VALUES ($1, $2, TRUE) ON CONFLICT (conversation, principal)
                 DO UPDATE SET removed = FALSE, contact_revoked = FALSE, manager = TRUE
                 RETURNING 1)
                 INSERT INTO member_events (conversation, doc) VALUES ($1, $3)"
            }
            MemberChange::Remove => {
                "WITH m AS (INSERT INTO members (conversation, principal, removed)
                 VALUES ($1, $2, TRUE) ON CONFLICT (conversation, principal)
                 DO UPDATE SET removed = TRUE, manager = FALSE RETURNING 1)
                 INSERT INTO member_events (conversation, doc) VALUES ($1, $3)"
            }
            MemberChange::RevokeContact => {
                "WITH m AS (INSERT INTO members (conversation, principal, removed, contact_revoked)
                 VALUES ($1, $2, TRUE, TRUE)
                 ON CONFLICT (conversation, principal) DO UPDATE SET contact_revoked = TRUE
                 RETURNING 1)
                 INSERT INTO member_events (conversation, doc) VALUES ($1, $3)"
            }
            MemberChange::RestoreContact => {
                "WITH m AS (UPDATE members SET contact_revoked = FALSE
                 WHERE conversation = $1 AND principal = $2 RETURNING 1)
                 INSERT INTO member_events (conversation, doc) VALUES ($1, $3)"
            }
        };
        let doc = to_doc(event)?;
        self.with(|c| {
            let st = c.prepare(sql)?;
            c.client
                .execute(&st, &[&conversation.as_str(), &principal.as_str(), &doc])?;
            Ok(())
        })
    }

    fn member_events(&self, conversation: &ConversationId) -> Result<Vec<MemberEvent>, StoreError> {
        self.with(|c| {
            let st =
                c.prepare("SELECT doc FROM member_events WHERE conversation = $1 ORDER BY seq")?;
            c.client
                .query(&st, &[&conversation.as_str()])?
                .iter()
                .map(|r| from_doc(r.get::<_, &str>(0)))
                .collect()
        })
    }

    fn list(
        &self,
        conversation: &ConversationId,
        principal: &Principal,
        now: Timestamp,
        limit: usize,
    ) -> Result<Vec<Listed>, StoreError> {
        let limit = i64::try_from(limit).unwrap_or(i64::MAX);
        self.with(|c| {
            let st = c.prepare(LIST)?;
            c.client
                .query(
                    &st,
                    &[
                        &conversation.as_str(),
                        &principal.as_str(),
                        &now.millis(),
                        &limit,
                    ],
                )?
                .iter()
                .map(|r| listed_from(r.get::<_, &str>(0), r.get(1), r.get(2)))
                .collect()
        })
    }

    fn sees(
        &self,
        conversation: &ConversationId,
        principal: &Principal,
    ) -> Result<bool, StoreError> {
        self.with(|c| {
            let st = c.prepare(
                "SELECT EXISTS (SELECT 1 FROM members WHERE conversation = $1 AND principal = $2)
                     OR EXISTS (SELECT 1 FROM request_names
                                WHERE conversation = $1 AND principal = $2)",
            )?;
            Ok(c.client
                .query_one(&st, &[&conversation.as_str(), &principal.as_str()])?
                .get(0))
        })
    }

    fn events_after(
        &self,
        id: &RequestId,
        after: u64,
        limit: usize,
    ) -> Result<Vec<(u64, AuditEvent)>, StoreError> {
        let after = i64::try_from(after).unwrap_or(i64::MAX);
        let limit = i64::try_from(limit).unwrap_or(i64::MAX);
        self.with(|c| {
            let st = c.prepare(
                "SELECT seq, doc FROM events WHERE request_id = $1 AND seq > $2
                 ORDER BY seq LIMIT $3",
            )?;
            c.client
                .query(&st, &[&id.as_str(), &after, &limit])?
                .iter()
                .map(|r| {
                    let seq: i64 = r.get(0);
                    Ok((
                        u64::try_from(seq).unwrap_or(0),
                        from_doc(r.get::<_, &str>(1))?,
                    ))
                })
                .collect()
        })
    }

    fn uploads(&self, id: &RequestId) -> Result<Vec<StoredUpload>, StoreError> {
        self.with(|c| {
            let rows = c.client.query(
                "SELECT n, name, sha256, data FROM uploads WHERE request_id = $1 ORDER BY n",
                &[&id.as_str()],
            )?;
            rows.iter()
                .map(|r| {
                    let n: i32 = r.get(0);
                    Ok(StoredUpload {
                        request: id.clone(),
                        index: u32::try_from(n)
                            .map_err(|_| StoreError::Corrupt(format!("an upload's index {n}")))?,
                        name: r.get(1),
                        sha256: r.get(2),
                        data: r.get(3),
                    })
                })
                .collect()
        })
    }

    fn open_requests_of(&self, requester: &Principal, now: Timestamp) -> Result<usize, StoreError> {
        self.with(|c| {
            let st = c.prepare(
                "SELECT count(*) FROM requests WHERE requester = $1 AND state = 'open'
                 AND (expires_at IS NULL OR expires_at > GREATEST($2, updated_at))",
            )?;
            let n: i64 = c
                .client
                .query_one(&st, &[&requester.as_str(), &now.millis()])?
                .get(0);
            Ok(usize::try_from(n).unwrap_or(usize::MAX))
        })
    }

    fn messages_by(&self, id: &RequestId, principal: &Principal) -> Result<usize, StoreError> {
        self.with(|c| {
            let st =
                c.prepare("SELECT count(*) FROM events WHERE request_id = $1 AND message_by = $2")?;
            let n: i64 = c
                .client
                .query_one(&st, &[&id.as_str(), &principal.as_str()])?
                .get(0);
            Ok(usize::try_from(n).unwrap_or(usize::MAX))
        })
    }

    fn recorded(&self, principal: &Principal, key: &str) -> Result<Option<Recorded>, StoreError> {
        self.with(|c| {
            let st = c.prepare(RECORDED)?;
            Ok(c.client
                .query_opt(&st, &[&principal.as_str(), &key])?
                .map(|r| Recorded {
                    input_hash: r.get(0),
                    result: r.get(1),
                }))
        })
    }

    fn commit(&self, commit: &Commit) -> Result<Committed, StoreError> {
        let (principal, key, hash, result) = match &commit.retry {
            Some((p, k, r)) => (
                Some(p.as_str()),
                Some(k.as_str()),
                Some(r.input_hash.as_str()),
                Some(r.result.as_str()),
            ),
            None => (None, None, None, None),
        };
        let (conversation, member) = match &commit.eligible {
            Some((c, p)) => (Some(c.as_str()), Some(p.as_str())),
            None => (None, None),
        };
        let mut w_id = Vec::new();
        let mut w_conversation = Vec::new();
        let mut w_version = Vec::new();
        let mut w_state = Vec::new();
        let mut w_doc = Vec::new();
        let mut w_expected: Vec<Option<i64>> = Vec::new();
        let mut w_brief = Vec::new();
        let mut w_has_form = Vec::new();
        let mut w_action = Vec::new();
        let mut w_updated = Vec::new();
        let mut w_expires = Vec::new();
        let mut w_requester = Vec::new();
        let mut n_conversation = Vec::new();
        let mut n_principal = Vec::new();
        let mut n_request = Vec::new();
        for write in &commit.writes {
            let r = write.request();
            let columns = Columns::of(r)?;
            w_id.push(r.id.as_str());
            w_conversation.push(r.conversation.as_str());
            w_version.push(version_i64(r.version));
            w_state.push(r.state.as_str());
            w_doc.push(to_doc(r)?);
            w_expected.push(match write {
                Write::Insert(_) => None,
                Write::Update { expected, .. } => Some(version_i64(*expected)),
            });
            if matches!(write, Write::Insert(_)) {
                for principal in &columns.names {
                    n_conversation.push(r.conversation.as_str());
                    n_principal.push(*principal);
                    n_request.push(r.id.as_str());
                }
            }
            w_brief.push(columns.brief);
            w_has_form.push(columns.has_form);
            w_action.push(columns.response_action);
            w_updated.push(columns.updated_at);
            w_expires.push(columns.expires_at);
            w_requester.push(columns.requester);
        }
        let e_request: Vec<&str> = commit.events.iter().map(|e| e.request.as_str()).collect();
        let e_message_by: Vec<Option<&str>> = commit.events.iter().map(message_by).collect();
        let e_doc = commit
            .events
            .iter()
            .map(to_doc)
            .collect::<Result<Vec<_>, _>>()?;
        self.with(|c| {
            let call = c.prepare(
                "SELECT * FROM forms_ask_commit($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11,
                                                $12, $13, $14, $15, $16, $17, $18, $19, $20,
                                                $21, $22, $23, $24)",
            )?;
            let params: [&(dyn postgres::types::ToSql + Sync); 24] = [
                &principal,
                &key,
                &hash,
                &result,
                &conversation,
                &member,
                &w_id,
                &w_conversation,
                &w_version,
                &w_state,
                &w_doc,
                &w_expected,
                &e_request,
                &e_doc,
                &w_brief,
                &w_has_form,
                &w_action,
                &w_updated,
                &w_expires,
                &w_requester,
                &n_conversation,
                &n_principal,
                &n_request,
                &e_message_by,
            ];
            let outcome = match (self.pause_before_commit, commit.uploads.is_empty()) {
                (None, true) => c.client.query(&call, &params),
                (pause, _) => {
                    // Uploads, and fault tests: the same writes inside an explicit
                    // transaction, which stores the uploads once the writes went through
                    // (and, for fault tests, waits before its commit).
                    let mut tx = c.client.transaction()?;
                    let rows = tx.query(&call, &params);
                    if let Ok(rows) = &rows {
                        if rows.is_empty() {
                            for u in &commit.uploads {
                                tx.execute(
                                    "INSERT INTO uploads (request_id, n, name, sha256, size, data)
                                     VALUES ($1, $2, $3, $4, $5, $6)",
                                    &[
                                        &u.request.as_str(),
                                        &i32::try_from(u.index).unwrap_or(i32::MAX),
                                        &u.name,
                                        &u.sha256,
                                        &i64::try_from(u.data.len()).unwrap_or(i64::MAX),
                                        &u.data,
                                    ],
                                )?;
                            }
                        }
                        if let Some(pause) = pause {
                            std::thread::sleep(pause);
                        }
                        tx.commit()?;
                    }
                    rows
                }
            };
            match outcome {
                Ok(rows) => Ok(match rows.first() {
                    Some(row) => Committed::Replayed(Recorded {
                        input_hash: row.get(0),
                        result: row.get(1),
                    }),
                    None => Committed::Done,
                }),
                Err(e) => {
                    let code = e.code().map(|c| c.code().to_owned());
                    match code.as_deref() {
                        Some("FA001") => {
                            let id = e
                                .as_db_error()
                                .map(|d| d.message().to_owned())
                                .unwrap_or_default();
                            Ok(Committed::VersionConflict(
                                RequestId::new(id)
                                    .map_err(|e| StoreError::Corrupt(e.to_string()))?,
                            ))
                        }
                        Some("FA002") => Ok(Committed::NotEligible),
                        _ => Err(StoreError::Postgres(e)),
                    }
                }
            }
        })
    }

    fn claim_once(
        &self,
        key: &str,
        expires_at: Timestamp,
        now: Timestamp,
    ) -> Result<bool, StoreError> {
        super::check_once_key(key)?;
        self.with(|c| {
            let st = c.prepare(CLAIM_ONCE)?;
            let rows = c.client.query(
                &st,
                &[
                    &key,
                    &expires_at.millis(),
                    &now.millis(),
                    &super::ONCE_PRUNE_MAX,
                ],
            )?;
            Ok(!rows.is_empty())
        })
    }

    fn changes(&self) -> Result<Arc<Changes>, StoreError> {
        let mut listening = self
            .listening
            .lock()
            .map_err(|_| StoreError::Other("the PostgreSQL listener lock is poisoned".into()))?;
        if !*listening {
            let mut client = open_client(&self.config, self.schema.as_deref()).map_err(|e| {
                StoreError::Unusable {
                    location: redact(&self.url),
                    problem: format!("cannot be reached: {}", with_causes(&e)),
                }
            })?;
            client.batch_execute(REGISTER)?;
            client.batch_execute(PRUNE)?;
            let pid: i32 = client.query_one("SELECT pg_backend_pid()", &[])?.get(0);
            self.listener_pid.store(pid, Ordering::SeqCst);
            let owner = Arc::clone(&self.listener_pid);
            let watched = Arc::clone(&self.watched);
            let config = self.config.clone();
            let schema = self.schema.clone();
            let changes = Arc::downgrade(&self.changes);
            let stop = Arc::clone(&self.stop);
            std::thread::Builder::new()
                .name("forms-ask-pg-listen".into())
                .spawn(move || {
                    listen(
                        client,
                        &config,
                        schema.as_deref(),
                        &changes,
                        &stop,
                        &owner,
                        &watched,
                    );
                })
                .map_err(|e| {
                    StoreError::Other(format!("cannot start the store's listener thread: {e}"))
                })?;
            *listening = true;
        }
        Ok(Arc::clone(&self.changes))
    }
}
