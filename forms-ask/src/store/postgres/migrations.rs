//! The schema's migrations, in order, and how a store brings a database up to date with them.

use crate::error::StoreError;
use crate::model::{AuditEvent, Request};
use crate::store::{from_doc, message_by, Columns};
use postgres::Client;

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

/// Brings the schema up to date. A schema already at this version is confirmed by two reads
/// without a lock; only a migration takes the advisory lock that serializes migrators.
pub(super) fn migrate(client: &mut Client, location: &str) -> Result<(), StoreError> {
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
