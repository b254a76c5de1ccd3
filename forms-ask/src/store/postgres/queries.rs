//! [`Store`] for [`PostgresStore`]: each read and membership change as prepared
//! statements; commits, watches and the change feed handed to their modules.

use super::{redact, PostgresStore};
use crate::error::StoreError;
use crate::model::{
    AuditEvent, ConversationId, Listed, Member, MemberEvent, Principal, Request, RequestId,
};
use crate::store::{
    from_doc, listed_from, to_doc, Changes, Commit, Committed, MemberChange, Recorded, Store,
};
use crate::time::Timestamp;
use crate::upload::StoredUpload;
use std::sync::Arc;

/// Reads a retry key's record.
const RECORDED: &str =
    "SELECT input_hash, result FROM idempotency WHERE principal = $1 AND retry_key = $2";

/// [`Store::list`]: the principal's rows of the conversation by index, ordered as
/// [`crate::store::list_order`] orders them (IDs bytewise: `COLLATE "C"`); only the returned rows'
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

/// The store's high-water mark of time, in milliseconds.
const HIGH_WATER: &str = "SELECT max(at) FROM events";

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
        self.watch(id)
    }

    fn unwatch_requests(&self, ids: &[RequestId]) -> Result<(), StoreError> {
        self.unwatch(ids)
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
        self.commit_writes(commit)
    }

    fn claim_once(
        &self,
        key: &str,
        expires_at: Timestamp,
        now: Timestamp,
    ) -> Result<bool, StoreError> {
        crate::store::check_once_key(key)?;
        self.with(|c| {
            let st = c.prepare(CLAIM_ONCE)?;
            let rows = c.client.query(
                &st,
                &[
                    &key,
                    &expires_at.millis(),
                    &now.millis(),
                    &crate::store::ONCE_PRUNE_MAX,
                ],
            )?;
            Ok(!rows.is_empty())
        })
    }
    fn changes(&self) -> Result<Arc<Changes>, StoreError> {
        self.listen_for_changes()
    }
}
