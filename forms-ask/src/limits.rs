//! Size limits of every argument, checked before any other work so a call's cost is bounded
//! by them. A value over its limit is refused with [`AskError::TooLarge`] (code
//! `invalid_arguments`), naming the field. Lengths are counted in Unicode scalar values
//! (characters), as JSON Schema's `maxLength` counts them.

use crate::error::AskError;
use crate::model::{NewRequest, Redeem, Replacement};
use crate::upload::Upload;
use std::collections::HashSet;

/// The longest title, in characters.
pub const TITLE_CHARS_MAX: usize = 200;
/// The longest body of a request, in characters.
pub const BODY_CHARS_MAX: usize = 16_000;
/// The most choices a question offers.
pub const CHOICES_MAX: usize = 100;
/// The longest choice, in characters.
pub const CHOICE_CHARS_MAX: usize = 200;
/// The most principals an explicit audience names.
pub const AUDIENCE_MAX: usize = 1_000;
/// The longest answer, in characters.
pub const ANSWER_CHARS_MAX: usize = 16_000;
/// The largest form a question carries, in bytes of compact JSON: the Data contract's own
/// bound on its arguments (rule R4, 1 MiB), which the form's check applies exactly.
pub const FORM_BYTES_MAX: usize = 1 << 20;
/// The largest answer to a question carrying a form (a host response), in bytes of JSON.
/// An answer to a question without a form stays within [`ANSWER_CHARS_MAX`].
pub const RESPONSE_BYTES_MAX: usize = 1 << 20;
/// The largest file sent with a form's answer (an upload, see [`crate::upload`]), in bytes.
/// A durable form's `files` answer is uploads, never paths: the bytes are stored with the
/// response, in the same transaction.
pub const UPLOAD_BYTES_MAX: usize = 1 << 20;
/// The most bytes of uploads one answer sends, all files together. A request is answered
/// once, so what a principal stores in uploads is at most this per request it answers (and
/// the requests it may answer are bounded by the requesters' own caps). It keeps an
/// `ask_respond` call, base64 and all, within the MCP server's 4 MiB body limit.
pub const UPLOADS_BYTES_MAX: usize = 2 << 20;
/// The most files one answer sends.
pub const UPLOADS_MAX: usize = 24;
/// The longest name of an upload, in bytes (a plain file name).
pub const UPLOAD_NAME_BYTES_MAX: usize = 255;
/// The longest follow-up message, in characters.
pub const MESSAGE_CHARS_MAX: usize = 16_000;
/// The longest execution report detail, in characters.
pub const DETAIL_CHARS_MAX: usize = 4_000;
/// The longest executor, resource version or operation key of a bound action, in characters.
pub const ACTION_FIELD_CHARS_MAX: usize = 200;
/// The largest arguments of a bound action, in bytes of compact JSON.
pub const ACTION_ARGUMENTS_BYTES_MAX: usize = 16_384;

/// The most requests one `list` returns.
pub const LIST_MAX: usize = 500;
/// How many requests `list` returns when no limit is given.
pub const LIST_DEFAULT: usize = 50;
/// The longest one `wait` call waits, in seconds (the CLI and the MCP tool alike): a
/// longer wait is a loop of waits, so no call holds a wait slot for long.
pub const WAIT_SECONDS_MAX: u64 = 900;
/// How long `wait` waits when no timeout is given, in seconds.
pub const WAIT_SECONDS_DEFAULT: u64 = 30;

/// The most events one `log` page returns.
pub const LOG_MAX: usize = 200;
/// How many events a `log` page returns when no limit is given.
pub const LOG_DEFAULT: usize = 50;

/// How many requests one principal may have open at once, by default (see [`Quotas`]).
pub const OPEN_REQUESTS_DEFAULT: usize = 100;
/// How many follow-up messages one principal may post on one request, by default (see
/// [`Quotas`]).
pub const MESSAGES_PER_REQUEST_DEFAULT: usize = 100;

/// What one principal may store, whatever its token allows: with the argument limits above
/// they bound the bytes a principal can make the store hold (at the defaults, 100 open
/// requests of at most a 1 MiB form each, and 100 messages of at most 16,000 characters per
/// request). A write past a quota is refused with [`AskError::Quota`] (code
/// `quota_exceeded`) and changes nothing.
///
/// The quotas are checked when the write is planned: writers racing past the last free
/// place can overshoot by at most one each. A replacement supersedes what it replaces, so it
/// never counts against the open-requests quota.
///
/// ```
/// use forms_ask::Quotas;
/// let q = Quotas::default();
/// assert_eq!((q.open_requests, q.messages_per_request), (100, 100));
/// ```
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Quotas {
    /// The most requests one principal may have open at once (open and not past their
    /// expiry); [`OPEN_REQUESTS_DEFAULT`] by default.
    pub open_requests: usize,
    /// The most follow-up messages one principal may post on one request;
    /// [`MESSAGES_PER_REQUEST_DEFAULT`] by default.
    pub messages_per_request: usize,
}

impl Default for Quotas {
    fn default() -> Quotas {
        Quotas {
            open_requests: OPEN_REQUESTS_DEFAULT,
            messages_per_request: MESSAGES_PER_REQUEST_DEFAULT,
        }
    }
}

impl Quotas {
    /// The environment variable that sets [`Quotas::open_requests`].
    pub const OPEN_REQUESTS_VAR: &'static str = "FORMS_ASK_OPEN_REQUESTS_MAX";
    /// The environment variable that sets [`Quotas::messages_per_request`].
    pub const MESSAGES_VAR: &'static str = "FORMS_ASK_MESSAGES_MAX";

    /// The defaults, with each quota whose environment variable is set
    /// ([`Quotas::OPEN_REQUESTS_VAR`], [`Quotas::MESSAGES_VAR`]) taken from it: a whole
    /// number from 1. A value that is not is an error naming the variable.
    pub fn from_env() -> Result<Quotas, String> {
        let mut q = Quotas::default();
        for (var, slot) in [
            (Quotas::OPEN_REQUESTS_VAR, &mut q.open_requests),
            (Quotas::MESSAGES_VAR, &mut q.messages_per_request),
        ] {
            match std::env::var(var) {
                Ok(text) => match text.trim().parse::<usize>() {
                    Ok(n) if n >= 1 => *slot = n,
                    _ => return Err(format!("{var} must be a whole number from 1, not {text:?}")),
                },
                Err(std::env::VarError::NotPresent) => {}
                Err(std::env::VarError::NotUnicode(_)) => {
                    return Err(format!("{var} must be a whole number from 1"))
                }
            }
        }
        Ok(q)
    }
}

/// Refuses `text` longer than `max` characters.
pub(crate) fn chars(field: &str, text: &str, max: usize) -> Result<(), AskError> {
    // A UTF-8 string has at most as many characters as bytes: most texts are settled by
    // their length alone.
    if text.len() <= max {
        return Ok(());
    }
    let n = text.chars().count();
    if n > max {
        return Err(AskError::TooLarge {
            field: field.to_owned(),
            problem: format!("at most {max} characters, got {n}"),
        });
    }
    Ok(())
}

/// Refuses a count outside `1..=max`.
pub(crate) fn count(field: &str, n: usize, max: usize) -> Result<(), AskError> {
    if n == 0 || n > max {
        return Err(AskError::TooLarge {
            field: field.to_owned(),
            problem: format!("from 1 to {max}, got {n}"),
        });
    }
    Ok(())
}

fn arguments(field: &str, value: &serde_json::Value) -> Result<(), AskError> {
    let n = serde_json::to_vec(value).map_or(usize::MAX, |v| v.len());
    if n > ACTION_ARGUMENTS_BYTES_MAX {
        return Err(AskError::TooLarge {
            field: field.to_owned(),
            problem: format!("at most {ACTION_ARGUMENTS_BYTES_MAX} bytes of JSON, got {n}"),
        });
    }
    Ok(())
}

/// A new request's limits, and its choices' uniqueness (in linear time).
pub(crate) fn new_request(new: &NewRequest) -> Result<(), AskError> {
    if let Some(title) = &new.title {
        chars("title", title, TITLE_CHARS_MAX)?;
    }
    chars("body", &new.body, BODY_CHARS_MAX)?;
    if let Some(audience) = &new.audience {
        if audience.len() > AUDIENCE_MAX {
            return Err(AskError::TooLarge {
                field: "audience".into(),
                problem: format!("at most {AUDIENCE_MAX} principals, got {}", audience.len()),
            });
        }
    }
    if let Some(choices) = &new.choices {
        if choices.len() > CHOICES_MAX {
            return Err(AskError::TooLarge {
                field: "choices".into(),
                problem: format!("at most {CHOICES_MAX} choices, got {}", choices.len()),
            });
        }
        let mut seen = HashSet::with_capacity(choices.len());
        for (i, c) in choices.iter().enumerate() {
            chars(&format!("choices[{i}]"), c, CHOICE_CHARS_MAX)?;
            if !seen.insert(c.as_str()) {
                return Err(AskError::InvalidInput(format!(
                    "choices[{i}]: the choice {c:?} is offered twice"
                )));
            }
        }
    }
    if let Some(form) = &new.form {
        let n = serde_json::to_vec(form).map_or(usize::MAX, |v| v.len());
        if n > FORM_BYTES_MAX {
            return Err(AskError::TooLarge {
                field: "form".into(),
                problem: format!("at most {FORM_BYTES_MAX} bytes of JSON, got {n}"),
            });
        }
    }
    if let Some(action) = &new.action {
        chars("action.executor", &action.executor, ACTION_FIELD_CHARS_MAX)?;
        chars(
            "action.resource_version",
            &action.resource_version,
            ACTION_FIELD_CHARS_MAX,
        )?;
        chars(
            "action.operation_key",
            &action.operation_key,
            ACTION_FIELD_CHARS_MAX,
        )?;
        arguments("action.arguments", &action.arguments)?;
    }
    Ok(())
}

/// An answer's limit before the request is read: a host response (a form's answer) may be up
/// to [`RESPONSE_BYTES_MAX`] bytes; an answer to a question without a form is held to
/// [`ANSWER_CHARS_MAX`] once the request shows it carries none.
pub(crate) fn answer(answer: &str) -> Result<(), AskError> {
    if answer.len() > RESPONSE_BYTES_MAX {
        return Err(AskError::TooLarge {
            field: "answer".into(),
            problem: format!("at most {RESPONSE_BYTES_MAX} bytes, got {}", answer.len()),
        });
    }
    Ok(())
}

/// A replacement's limits.
pub(crate) fn replacement(r: &Replacement) -> Result<(), AskError> {
    if let Some(title) = &r.title {
        chars("title", title, TITLE_CHARS_MAX)?;
    }
    if let Some(body) = &r.body {
        chars("body", body, BODY_CHARS_MAX)?;
    }
    Ok(())
}

/// A redemption's limits.
pub(crate) fn redeem(r: &Redeem) -> Result<(), AskError> {
    chars("executor", &r.executor, ACTION_FIELD_CHARS_MAX)?;
    chars(
        "resource_version",
        &r.resource_version,
        ACTION_FIELD_CHARS_MAX,
    )?;
    chars("operation_key", &r.operation_key, ACTION_FIELD_CHARS_MAX)?;
    arguments("arguments", &r.arguments)
}

/// How long one `wait` call waits: `seconds` (0 to [`WAIT_SECONDS_MAX`]), by default
/// [`WAIT_SECONDS_DEFAULT`]. The one wait rule of every surface.
pub(crate) fn wait(seconds: Option<f64>) -> Result<std::time::Duration, AskError> {
    let Some(secs) = seconds else {
        return Ok(std::time::Duration::from_secs(WAIT_SECONDS_DEFAULT));
    };
    if !(secs.is_finite() && (0.0..=WAIT_SECONDS_MAX as f64).contains(&secs)) {
        return Err(AskError::TooLarge {
            field: "timeout_seconds".into(),
            problem: format!(
                "seconds from 0 to {WAIT_SECONDS_MAX} (a longer wait is a loop of waits), not {secs}"
            ),
        });
    }
    Ok(std::time::Duration::from_secs_f64(secs))
}

/// The principals of one membership change: from 1 to [`AUDIENCE_MAX`].
pub(crate) fn principals(n: usize) -> Result<(), AskError> {
    if n == 0 || n > AUDIENCE_MAX {
        return Err(AskError::TooLarge {
            field: "principals".into(),
            problem: format!("from 1 to {AUDIENCE_MAX} principals, got {n}"),
        });
    }
    Ok(())
}

/// How many files one answer sends: at most [`UPLOADS_MAX`] (checked before any is decoded).
pub(crate) fn files(n: usize) -> Result<(), AskError> {
    if n > UPLOADS_MAX {
        return Err(AskError::TooLarge {
            field: "uploads".into(),
            problem: format!("at most {UPLOADS_MAX} files, got {n}"),
        });
    }
    Ok(())
}

/// The uploads of one answer: at most [`UPLOADS_MAX`] files of at most [`UPLOADS_BYTES_MAX`]
/// bytes together (each file's own limit, [`UPLOAD_BYTES_MAX`], is [`Upload::new`]'s).
pub(crate) fn uploads(uploads: &[Upload]) -> Result<(), AskError> {
    files(uploads.len())?;
    let total: usize = uploads.iter().map(|u| u.data().len()).sum();
    if total > UPLOADS_BYTES_MAX {
        return Err(AskError::TooLarge {
            field: "uploads".into(),
            problem: format!("at most {UPLOADS_BYTES_MAX} bytes an answer, got {total}"),
        });
    }
    Ok(())
}
