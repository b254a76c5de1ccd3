//! Files sent with a form's answer: a request that waits takes a `files` answer as uploads,
//! never as a path the responder names.
//!
//! In a live ask the host is the person's own machine, so a user-added `file://` URI names a
//! file there. A request that waits is answered from anywhere (another machine, a remote MCP
//! client), and a path the responder names would be read by the requester's program on *its*
//! machine. So the responder sends the file's bytes with the answer ([`Upload`]), names each
//! in the `files` value as `upload:<name>` ([`UPLOAD_PREFIX`]), and the engine stores them
//! with the response in the same transaction. The saved response names each upload with a
//! store-made URI (`file:///forms-ask/uploads/<request>/<n>/<name>`, never a path the
//! responder chose), and the requester's decode ([`crate::FormRequest::decode`]) writes
//! each upload into a directory the requester owns and gives `T` the `file://` URIs of those
//! files. A user-added `file://` URI in a durable answer is refused (`invalid_response`,
//! saying how to send the file); offered URIs (the form's own options) pass unchanged.
//!
//! Limits: [`crate::UPLOAD_BYTES_MAX`] per file, [`crate::UPLOADS_BYTES_MAX`] and
//! [`crate::UPLOADS_MAX`] per response, a name of at most [`crate::UPLOAD_NAME_BYTES_MAX`]
//! bytes.

use crate::error::{AskError, StoreError};
use crate::limits::{UPLOADS_BYTES_MAX, UPLOADS_MAX, UPLOAD_BYTES_MAX, UPLOAD_NAME_BYTES_MAX};
use crate::model::RequestId;
use forms_runtime::data::QuestionSpec;
use forms_runtime::rules::Rule;
use forms_runtime::{DataForm, ErrorCode, Finding, FormError, JsonPath};
use serde_json::Value;
use sha2::{Digest, Sha256};
use std::collections::HashMap;
use std::path::{Path, PathBuf};

/// How a `files` answer names a file sent with it: `upload:<name>`.
pub const UPLOAD_PREFIX: &str = "upload:";

/// The root of the URIs the store gives uploads in a saved response.
pub const STORED_URI_ROOT: &str = "file:///forms-ask/uploads/";

/// One file sent with a form's answer: its name (a file name, no directory) and its bytes.
#[derive(Clone, PartialEq, Eq)]
pub struct Upload {
    name: String,
    data: Vec<u8>,
}

impl std::fmt::Debug for Upload {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Upload")
            .field("name", &self.name)
            .field("bytes", &self.data.len())
            .finish()
    }
}

impl Upload {
    /// A file named `name` (a plain file name: no `/`, `\`, control characters, not `.` or
    /// `..`, at most [`UPLOAD_NAME_BYTES_MAX`] bytes) holding `data` (at most
    /// [`UPLOAD_BYTES_MAX`] bytes).
    pub fn new(name: impl Into<String>, data: Vec<u8>) -> Result<Upload, AskError> {
        let name = name.into();
        check_name(&name)?;
        if data.len() > UPLOAD_BYTES_MAX {
            return Err(too_large(&name, data.len()));
        }
        Ok(Upload { name, data })
    }

    /// [`Upload::new`] with the bytes in standard base64 (padding optional).
    pub fn from_base64(name: impl Into<String>, data: &str) -> Result<Upload, AskError> {
        let name = name.into();
        // Refuse an oversized upload before decoding it.
        if data.len() / 4 * 3 > UPLOAD_BYTES_MAX + 3 {
            return Err(too_large(&name, data.len() / 4 * 3));
        }
        let bytes = base64_decode(data).ok_or_else(|| {
            AskError::InvalidInput(format!("upload {name:?}: the data is not base64"))
        })?;
        Upload::new(name, bytes)
    }

    /// The local file at `path`, named by its file name: its size is checked before it is
    /// read.
    pub fn read(path: &Path) -> Result<Upload, AskError> {
        let name = path
            .file_name()
            .and_then(|n| n.to_str())
            .ok_or_else(|| AskError::InvalidInput(format!("{}: not a file name", path.display())))?
            .to_owned();
        let unreadable =
            |e: std::io::Error| AskError::InvalidInput(format!("{}: {e}", path.display()));
        let size = std::fs::metadata(path).map_err(unreadable)?.len();
        if size > UPLOAD_BYTES_MAX as u64 {
            return Err(too_large(
                &name,
                usize::try_from(size).unwrap_or(usize::MAX),
            ));
        }
        let data = std::fs::read(path).map_err(unreadable)?;
        Upload::new(name, data)
    }

    /// The file name.
    pub fn name(&self) -> &str {
        &self.name
    }

    /// The bytes.
    pub fn data(&self) -> &[u8] {
        &self.data
    }

    /// How the answer's `files` value names this file: `upload:<name>`.
    pub fn reference(&self) -> String {
        format!("{UPLOAD_PREFIX}{}", self.name)
    }
}

/// An upload as stored with a response.
#[derive(Clone, PartialEq, Eq)]
pub struct StoredUpload {
    /// The request answered.
    pub request: RequestId,
    /// Its place among the response's uploads, from 0.
    pub index: u32,
    /// The file name the responder gave.
    pub name: String,
    /// The SHA-256 of the bytes, in hex.
    pub sha256: String,
    /// The bytes.
    pub data: Vec<u8>,
}

impl std::fmt::Debug for StoredUpload {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("StoredUpload")
            .field("request", &self.request)
            .field("index", &self.index)
            .field("name", &self.name)
            .field("sha256", &self.sha256)
            .field("bytes", &self.data.len())
            .finish()
    }
}

impl StoredUpload {
    /// The URI the saved response names it with:
    /// `file:///forms-ask/uploads/<request>/<index>/<name>` (the name percent-encoded).
    pub fn uri(&self) -> String {
        format!(
            "{STORED_URI_ROOT}{}/{}/{}",
            self.request.as_str(),
            self.index,
            percent_encode(&self.name)
        )
    }
}

/// The SHA-256 of `data`, in hex.
pub(crate) fn sha256_of(data: &[u8]) -> String {
    crate::retry::hex(&Sha256::digest(data))
}

fn too_large(name: &str, n: usize) -> AskError {
    AskError::TooLarge {
        field: format!("uploads[{name:?}]"),
        problem: format!("a file is at most {UPLOAD_BYTES_MAX} bytes, got {n}"),
    }
}

fn check_name(name: &str) -> Result<(), AskError> {
    let bad = if name.is_empty() {
        Some("is empty")
    } else if name.len() > UPLOAD_NAME_BYTES_MAX {
        Some("is too long")
    } else if name == "." || name == ".." {
        Some("is not a file name")
    } else if name
        .chars()
        .any(|c| c == '/' || c == '\\' || c.is_control())
    {
        Some("holds `/`, `\\` or a control character")
    } else {
        None
    };
    match bad {
        Some(why) => Err(AskError::InvalidInput(format!(
            "upload name {name:?} {why}: a name is a plain file name of 1 to \
             {UPLOAD_NAME_BYTES_MAX} bytes"
        ))),
        None => Ok(()),
    }
}

/// What a responder is told of a `files` item that names a path.
pub(crate) fn how_to_send(item: &str) -> String {
    format!(
        "{item:?} names a file by its path; a request that waits is answered from anywhere, \
         so it takes no paths: send the file's bytes with the answer (the tool ask_respond's \
         `uploads` [{{\"name\":\"report.csv\",\"data\":\"<base64>\"}}], \
         `forms ask respond --upload PATH`, or `forms ask fill`/`forms ask page`, which send \
         the file you pick) and name it here as \"{UPLOAD_PREFIX}<name>\"; at most \
         {UPLOAD_BYTES_MAX} bytes a file, {UPLOADS_BYTES_MAX} bytes and {UPLOADS_MAX} files \
         an answer"
    )
}

/// An `invalid_response` refusal of item `i` of the `files` answer to `id` (rule V6: what a
/// `files` answer holds).
fn refused_at(id: &str, i: usize, problem: String) -> AskError {
    AskError::Form(FormError::invalid_response(Finding::new(
        JsonPath::response().key("content").key(id).index(i),
        Some(Rule::V6),
        problem,
    )))
}

fn refused(message: String) -> AskError {
    AskError::Form(FormError::new(ErrorCode::InvalidResponse, message))
}

/// The ids of the form's `files` questions, with their offered URIs.
fn files_questions(form: &DataForm) -> Vec<(&str, Vec<&str>)> {
    form.questions()
        .iter()
        .filter(|q| matches!(q.kind, QuestionSpec::Files { .. }))
        .map(|q| {
            (
                q.id.as_str(),
                q.kind
                    .resource_options()
                    .iter()
                    .map(|o| o.uri.as_str())
                    .collect(),
            )
        })
        .collect()
}

/// A responder's answer with uploads, made ready to save: every `upload:<name>` of a `files`
/// value becomes the stored upload's URI, any other item that is not an offered URI is
/// refused with [`how_to_send`], and every upload must be named exactly once. Returns
/// `None` when the answer names no file and there are no uploads (saved as given), else the
/// rewritten response and the uploads to store.
pub(crate) fn prepare(
    form: &DataForm,
    request: &RequestId,
    text: &str,
    uploads: &[Upload],
) -> Result<Option<(Value, Vec<StoredUpload>)>, AskError> {
    let mut by_name: HashMap<&str, usize> = HashMap::with_capacity(uploads.len());
    for (i, u) in uploads.iter().enumerate() {
        if by_name.insert(u.name.as_str(), i).is_some() {
            return Err(AskError::InvalidInput(format!(
                "uploads: the name {:?} is given twice",
                u.name
            )));
        }
    }
    let questions = files_questions(form);
    // Text that is not JSON: the form's own check says why.
    let Ok(mut value) = serde_json::from_str::<Value>(text) else {
        form.check_response(text).map_err(AskError::Form)?;
        return Err(refused("the response is not JSON".into()));
    };
    let accept = value.get("action").and_then(Value::as_str) == Some("accept");
    let mut used = vec![false; uploads.len()];
    let mut rewrote = false;
    if let (true, Some(content)) = (
        accept,
        value.get_mut("content").and_then(Value::as_object_mut),
    ) {
        for (id, offered) in &questions {
            let Some(items) = content.get_mut(*id).and_then(Value::as_array_mut) else {
                continue;
            };
            for (i, item) in items.iter_mut().enumerate() {
                let Some(s) = item.as_str() else { continue };
                if offered.contains(&s) {
                    continue;
                }
                let Some(name) = s.strip_prefix(UPLOAD_PREFIX) else {
                    // A user-added file (any `file:` URI not offered) is a path; anything
                    // else is the answer rules' to refuse.
                    if s.get(..5).is_some_and(|p| p.eq_ignore_ascii_case("file:")) {
                        return Err(refused_at(id, i, how_to_send(s)));
                    }
                    continue;
                };
                let Some(&n) = by_name.get(name) else {
                    return Err(refused_at(
                        id,
                        i,
                        format!(
                            "{s:?} names no file sent with the answer (sent: {:?})",
                            uploads.iter().map(|u| u.name.as_str()).collect::<Vec<_>>()
                        ),
                    ));
                };
                if used.get(n).copied().unwrap_or(true) {
                    return Err(refused_at(id, i, format!("{s:?} is named more than once")));
                }
                if let Some(u) = used.get_mut(n) {
                    *u = true;
                }
                let index = u32::try_from(n).unwrap_or(u32::MAX);
                *item = Value::String(stored_uri(request, index, name));
                rewrote = true;
            }
        }
    }
    if let Some(n) = used.iter().position(|u| !u) {
        let name = uploads.get(n).map_or("", |u| u.name.as_str());
        return Err(refused(format!(
            "uploads: {name:?} is sent but not named in the answer; name it in a files \
             answer as \"{UPLOAD_PREFIX}{name}\", or leave it out"
        )));
    }
    if !rewrote {
        return Ok(None);
    }
    let stored = uploads
        .iter()
        .enumerate()
        .map(|(n, u)| StoredUpload {
            request: request.clone(),
            index: u32::try_from(n).unwrap_or(u32::MAX),
            name: u.name.clone(),
            sha256: sha256_of(&u.data),
            data: u.data.clone(),
        })
        .collect();
    Ok(Some((value, stored)))
}

fn stored_uri(request: &RequestId, index: u32, name: &str) -> String {
    format!(
        "{STORED_URI_ROOT}{}/{index}/{}",
        request.as_str(),
        percent_encode(name)
    )
}

/// A saved response as the requester's decode gives it: every upload written under `dir`
/// (`<dir>/<request>/<n>/<name>`) and named by that file's `file://` URI. A user-added file
/// that is not an upload of this request (a path saved before uploads existed) is refused.
/// Returns the response unchanged when it names no user-added file.
pub(crate) fn materialize(
    form: &DataForm,
    request: &RequestId,
    response: &Value,
    load: impl FnOnce() -> Result<Vec<StoredUpload>, StoreError>,
    dir: impl FnOnce() -> Result<PathBuf, AskError>,
) -> Result<Value, AskError> {
    let questions = files_questions(form);
    let local = |s: &str, offered: &[&str]| !offered.contains(&s);
    let content = match (
        response.get("action").and_then(Value::as_str),
        response.get("content").and_then(Value::as_object),
    ) {
        (Some("accept"), Some(c)) => c,
        _ => return Ok(response.clone()),
    };
    let any = questions.iter().any(|(id, offered)| {
        content
            .get(*id)
            .and_then(Value::as_array)
            .is_some_and(|items| {
                items
                    .iter()
                    .any(|v| v.as_str().is_some_and(|s| local(s, offered)))
            })
    });
    if !any {
        return Ok(response.clone());
    }
    let uploads = load()?;
    let dir = dir()?;
    let mut written: HashMap<String, String> = HashMap::new();
    for u in &uploads {
        if sha256_of(&u.data) != u.sha256 {
            return Err(AskError::Store(StoreError::Corrupt(format!(
                "upload {} of request {}: its bytes do not match its SHA-256",
                u.index, request
            ))));
        }
        check_name(&u.name)
            .map_err(|e| AskError::Store(StoreError::Corrupt(format!("a stored upload: {e}"))))?;
        let folder = dir.join(request.as_str()).join(u.index.to_string());
        let io = |e: std::io::Error| {
            AskError::InvalidInput(format!(
                "cannot write the uploaded file {:?} under {}: {e}",
                u.name,
                dir.display()
            ))
        };
        std::fs::create_dir_all(&folder).map_err(io)?;
        let path = folder.join(&u.name);
        std::fs::write(&path, &u.data).map_err(io)?;
        written.insert(u.uri(), file_uri(&path)?);
    }
    let mut out = response.clone();
    if let Some(content) = out.get_mut("content").and_then(Value::as_object_mut) {
        for (id, offered) in &questions {
            let Some(items) = content.get_mut(*id).and_then(Value::as_array_mut) else {
                continue;
            };
            for (i, item) in items.iter_mut().enumerate() {
                let Some(s) = item.as_str() else { continue };
                if !local(s, offered) {
                    continue;
                }
                match written.get(s) {
                    Some(uri) => *item = Value::String(uri.clone()),
                    None => {
                        return Err(refused_at(
                            id,
                            i,
                            format!(
                                "{s:?} names a file by a path the responder chose, not a file \
                                 uploaded with the answer: it is not given to the requester"
                            ),
                        ))
                    }
                }
            }
        }
    }
    Ok(out)
}

/// For a surface that runs on the responder's own machine (`forms ask fill`, `forms ask
/// page`): the host response it collected, with every user-added `file://` URI of a `files`
/// answer (a file the person picked there) read into an [`Upload`] and named by its
/// reference, `upload:<name>`, ready for [`crate::AsPrincipal::respond_with_uploads`]. The
/// name is the file's own (made unique with a `2-`, `3-`… prefix when two share one); each
/// file is held to [`UPLOAD_BYTES_MAX`] before it is read. A response naming no such file is
/// returned as it is. Never use it on a response from elsewhere: it reads local paths.
pub fn local_files(form: &DataForm, response: &str) -> Result<(String, Vec<Upload>), AskError> {
    let Ok(forms_runtime::Outcome::Accepted(answers)) = form.check_response(response) else {
        // Declined, cancelled or refused: the engine says what it says of it.
        return Ok((response.to_owned(), Vec::new()));
    };
    let mut uploads: Vec<Upload> = Vec::new();
    let mut named: HashMap<String, String> = HashMap::new();
    for (id, _) in files_questions(form) {
        for item in answers.files(id).unwrap_or_default() {
            let forms_runtime::FileRefView::Local { uri, path } = item else {
                continue;
            };
            if named.contains_key(uri) {
                continue;
            }
            let mut upload = Upload::read(Path::new(path))?;
            let base = upload.name.clone();
            let mut k = 2;
            while uploads.iter().any(|u| u.name == upload.name) {
                upload.name = format!("{k}-{base}");
                k += 1;
            }
            check_name(&upload.name)?;
            named.insert(uri.to_owned(), upload.reference());
            uploads.push(upload);
        }
    }
    if uploads.is_empty() {
        return Ok((response.to_owned(), uploads));
    }
    let mut value: Value = serde_json::from_str(response)
        .map_err(|e| refused(format!("the response is not JSON: {e}")))?;
    if let Some(content) = value.get_mut("content").and_then(Value::as_object_mut) {
        for (id, _) in files_questions(form) {
            let Some(items) = content.get_mut(id).and_then(Value::as_array_mut) else {
                continue;
            };
            for item in items.iter_mut() {
                if let Some(reference) = item.as_str().and_then(|s| named.get(s)) {
                    *item = Value::String(reference.clone());
                }
            }
        }
    }
    Ok((value.to_string(), uploads))
}

/// The `file://` URI of an absolute local path.
fn file_uri(path: &Path) -> Result<String, AskError> {
    let text = path
        .to_str()
        .filter(|p| p.starts_with('/'))
        .ok_or_else(|| {
            AskError::InvalidInput(format!(
                "the uploads directory must be an absolute UTF-8 path, not {}",
                path.display()
            ))
        })?;
    Ok(format!("file://{}", percent_encode_path(text)))
}

fn percent_encode_path(path: &str) -> String {
    path.split('/')
        .map(percent_encode)
        .collect::<Vec<_>>()
        .join("/")
}

/// Percent-encodes every byte but the unreserved ones (`A-Z a-z 0-9 - . _ ~`).
fn percent_encode(s: &str) -> String {
    let mut out = String::with_capacity(s.len());
    for b in s.bytes() {
        if b.is_ascii_alphanumeric() || matches!(b, b'-' | b'.' | b'_' | b'~') {
            out.push(char::from(b));
        } else {
            out.push_str(&format!("%{b:02X}"));
        }
    }
    out
}

/// Decodes standard base64 (`A-Z a-z 0-9 + /`, padding optional; no whitespace).
pub(crate) fn base64_decode(text: &str) -> Option<Vec<u8>> {
    let text = text.trim_end_matches('=');
    let mut out = Vec::with_capacity(text.len() / 4 * 3 + 2);
    let (mut acc, mut bits) = (0u32, 0u32);
    for c in text.bytes() {
        let v = match c {
            b'A'..=b'Z' => c - b'A',
            b'a'..=b'z' => c - b'a' + 26,
            b'0'..=b'9' => c - b'0' + 52,
            b'+' => 62,
            b'/' => 63,
            _ => return None,
        };
        acc = (acc << 6) | u32::from(v);
        bits += 6;
        if bits >= 8 {
            bits -= 8;
            out.push(u8::try_from((acc >> bits) & 0xFF).ok()?);
        }
    }
    // A lone sixth of a byte is not base64.
    if bits >= 6 {
        return None;
    }
    Some(out)
}

/// Encodes standard base64 with padding (for the surfaces that send uploads).
pub fn base64_encode(data: &[u8]) -> String {
    const ABC: &[u8; 64] = b"ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
    let mut out = String::with_capacity(data.len().div_ceil(3) * 4);
    for chunk in data.chunks(3) {
        let b = [
            chunk.first().copied().unwrap_or(0),
            chunk.get(1).copied().unwrap_or(0),
            chunk.get(2).copied().unwrap_or(0),
        ];
        let n = (u32::from(b[0]) << 16) | (u32::from(b[1]) << 8) | u32::from(b[2]);
        for (i, shift) in [18u32, 12, 6, 0].into_iter().enumerate() {
            if i <= chunk.len() {
                let k = usize::try_from((n >> shift) & 63).unwrap_or(0);
                out.push(char::from(ABC.get(k).copied().unwrap_or(b'=')));
            } else {
                out.push('=');
            }
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn base64_round_trips() {
        for n in 0..70usize {
            let data: Vec<u8> = (0..n).map(|i| (i * 37 % 256) as u8).collect();
            let text = base64_encode(&data);
            assert_eq!(base64_decode(&text).unwrap(), data, "{n}");
        }
        assert_eq!(base64_encode(b"hello"), "aGVsbG8=");
        assert!(base64_decode("a").is_none());
        assert!(base64_decode("aGV sbG8=").is_none());
    }

    #[test]
    fn names_are_plain_file_names() {
        for bad in ["", ".", "..", "a/b", "..\\x", "a\nb", &"x".repeat(256)] {
            assert!(Upload::new(bad, vec![]).is_err(), "{bad:?}");
        }
        assert!(Upload::new("q3 sales.csv", vec![1]).is_ok());
    }
}
