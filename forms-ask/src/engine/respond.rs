//! Responding: an eligible principal's outcome and answer (a form's host response, with
//! the files sent with it) saved on an open request.

use super::change::{check_current, transition};
use super::form_bridge::checked_response;
use super::pipeline::{Plan, RespondInput, UploadInput};
use super::AsPrincipal;
use crate::error::AskError;
use crate::limits;
use crate::model::{EventKind, Outcome, Request, RequestId, State};
use crate::retry::InputHash;
use crate::store::Write;
use crate::upload::Upload;
use serde_json::json;

impl AsPrincipal<'_> {
    /// Responds with the version read, a typed outcome valid for the kind and an optional
    /// answer (required, and one of the offered values, when the question has choices). A
    /// stale version, or a request already decided, is a [`AskError::Conflict`] carrying the
    /// latest state; nothing is overwritten.
    ///
    /// For a question carrying a form the answer is required and is the host response as
    /// JSON text (`{"action":"accept","content":{…}}`, `{"action":"decline"}` or
    /// `{"action":"cancel"}`), checked against the stored form with the runtime's answer
    /// checker (rules V1–V8): a response it refuses is [`AskError::Form`]
    /// (`invalid_response`, with the findings) and nothing changes; an accepted one is saved
    /// as given in [`Request::response`], whatever the person's action, with the outcome
    /// `answered` ([`AsPrincipal::respond_form`] says the same in fewer words).
    pub fn respond(
        &self,
        id: &RequestId,
        version: u64,
        outcome: Outcome,
        answer: Option<&str>,
        key: &str,
    ) -> Result<Request, AskError> {
        self.respond_with_uploads(id, version, outcome, answer, &[], key)
    }

    /// [`AsPrincipal::respond`] with files sent with a form's answer: a `files` answer of a
    /// request that waits names each file sent as `upload:<name>` ([`Upload::reference`]),
    /// never by a path. The files are stored with the response in the same transaction
    /// (at most [`crate::UPLOAD_BYTES_MAX`] bytes each, [`crate::UPLOADS_BYTES_MAX`] and
    /// [`crate::UPLOADS_MAX`] files an answer), and the saved response names each with the
    /// store's URI (`file:///forms-ask/uploads/<request>/<n>/<name>`); the requester's
    /// [`crate::FormRequest`] decode gives `T` a file it writes into its own directory. A
    /// user-added `file://` URI, a reference to no file sent, or a file sent but not named
    /// is refused as `invalid_response` and nothing is stored (see [`crate::upload`]).
    pub fn respond_with_uploads(
        &self,
        id: &RequestId,
        version: u64,
        outcome: Outcome,
        answer: Option<&str>,
        uploads: &[Upload],
        key: &str,
    ) -> Result<Request, AskError> {
        if let Some(answer) = answer {
            limits::answer(answer)?;
        }
        limits::uploads(uploads)?;
        let input = InputHash::of(
            "respond",
            &RespondInput {
                id,
                version,
                outcome,
                answer,
                uploads: uploads
                    .iter()
                    .map(|u| UploadInput {
                        name: u.name(),
                        sha256: crate::upload::sha256_of(u.data()),
                    })
                    .collect(),
            },
        );
        self.write_with_uploads("respond", input, key, || {
            let (r, member) = self.asks.current_for(id, &self.me)?;
            // The read observed the store's high-water mark: `now` is not behind it.
            let now = self.asks.now();
            self.eligibility_with(&r, member)?;
            // The version and the state first: a late responder learns of the decision
            // already saved (and sees it), whatever its own answer would have been.
            check_current(&r, version)?;
            if !r.kind.outcomes().contains(&outcome) {
                return Err(AskError::InvalidOutcome {
                    kind: r.kind,
                    outcome,
                });
            }
            if r.form.is_none() && !uploads.is_empty() {
                return Err(AskError::InvalidAnswer(
                    "only an answer to a question carrying a form sends files".into(),
                ));
            }
            let mut stored = Vec::new();
            let response = match (&r.form, answer) {
                (Some(form), Some(text)) => {
                    let (response, files) = checked_response(form, &r.id, text, uploads)?;
                    stored = files;
                    Some(response)
                }
                (Some(_), None) => {
                    return Err(AskError::InvalidAnswer(
                        "this question carries a form: the answer is the host response, \
                         {\"action\":\"accept\",\"content\":{…}}, {\"action\":\"decline\"} or \
                         {\"action\":\"cancel\"}"
                            .into(),
                    ))
                }
                (None, Some(a)) => {
                    limits::chars("answer", a, limits::ANSWER_CHARS_MAX)?;
                    None
                }
                (None, None) => None,
            };
            if let Some(choices) = &r.choices {
                match answer {
                    None => {
                        return Err(AskError::InvalidAnswer(
                            "this question offers choices: the answer must be one of them".into(),
                        ))
                    }
                    Some(a) if !choices.iter().any(|c| c == a) => {
                        return Err(AskError::InvalidAnswer(format!(
                            "{a:?} is not one of the offered choices {choices:?}"
                        )))
                    }
                    Some(_) => {}
                }
            }
            let mut next = transition(&r, State::Resolved, now.max(r.updated_at));
            next.outcome = Some(outcome);
            next.responder = Some(self.me.clone());
            let detail = match &response {
                // The log names the person's action; the response itself is the request's.
                Some(response) => json!({ "outcome": outcome, "action": response.get("action") }),
                None => json!({ "outcome": outcome, "answer": answer }),
            };
            if response.is_some() {
                next.response = response;
            } else {
                next.answer = answer.map(str::to_owned);
            }
            let responded = self.my_event(&next, EventKind::Responded, next.updated_at, detail);
            Ok((
                Plan {
                    eligible: Some((r.conversation.clone(), self.me.clone())),
                    writes: vec![Write::Update {
                        expected: r.version,
                        request: next.clone(),
                    }],
                    events: vec![responded],
                    result: next,
                },
                stored,
            ))
        })
    }
}
