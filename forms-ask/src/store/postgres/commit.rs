//! The commit: a [`Commit`] sent as one call of the `forms_ask_commit` function (one round
//! trip; uploads and fault tests in an explicit transaction), its refusals read back.

use super::PostgresStore;
use crate::error::StoreError;
use crate::model::RequestId;
use crate::store::{message_by, to_doc, Columns, Commit, Committed, Recorded, Write};

fn version_i64(v: u64) -> i64 {
    i64::try_from(v).unwrap_or(i64::MAX)
}

impl PostgresStore {
    /// [`Store::commit`](crate::Store::commit): one call of `forms_ask_commit` (migration 2), atomic without a
    /// client-side transaction.
    pub(super) fn commit_writes(&self, commit: &Commit) -> Result<Committed, StoreError> {
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
}
