//! What every command shares: where an input comes from, the two documents it reads, what it
//! prints, and the usage error.

use forms_runtime::rules::Rule;
use forms_runtime::{DataForm, Finding, FormError, JsonPath};
use serde::Serialize;
use std::ffi::{OsStr, OsString};
use std::io::{Read, Write};
use std::path::PathBuf;

/// Where an input comes from: a missing `FILE`, or `-`, is standard input.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Input {
    /// Standard input.
    Stdin,
    /// A file.
    File(PathBuf),
}

impl Input {
    /// The input an optional `FILE` argument names.
    pub fn from_arg(arg: Option<OsString>) -> Input {
        match arg {
            None => Input::Stdin,
            Some(a) if a == "-" => Input::Stdin,
            Some(a) => Input::File(PathBuf::from(a)),
        }
    }

    /// All of the input's bytes; an unreadable file or standard input is a usage error.
    pub fn read(&self) -> Result<Vec<u8>, Usage> {
        match self {
            Input::Stdin => {
                let mut buf = Vec::new();
                std::io::stdin()
                    .lock()
                    .read_to_end(&mut buf)
                    .map_err(|e| Usage(format!("cannot read standard input: {e}")))?;
                Ok(buf)
            }
            Input::File(path) => std::fs::read(path)
                .map_err(|e| Usage(format!("cannot read {}: {e}", path.display()))),
        }
    }
}

/// A usage error found after the command line was parsed (an unreadable file, a value the
/// parser cannot judge alone): the message printed above the command's usage, exit 2.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Usage(pub String);

/// What a command prints on standard output.
pub enum Printed {
    /// A result, exit 0.
    Done(String),
    /// A contract failure, printed as `{"error":{"code":…,"message":…}}`, exit 1.
    Failed(FormError),
}

/// Serializes `value` as compact JSON. The values printed here hold only strings, numbers,
/// booleans, sequences and string-keyed maps, so this cannot fail in practice; should it,
/// the failure is reported as a contract error instead of a panic.
pub fn to_json<T: Serialize>(value: &T, what: Document) -> Printed {
    match serde_json::to_string(value) {
        Ok(s) => Printed::Done(s),
        Err(e) => Printed::Failed(what.error(format!("cannot serialize the result: {e}"))),
    }
}

/// The two documents the command reads, each with its error code and the rule that text
/// which is not JSON at all breaks.
#[derive(Clone, Copy)]
pub enum Document {
    /// The Data arguments (a form): `invalid_arguments`.
    Arguments,
    /// A host response: `invalid_response`.
    Response,
}

impl Document {
    /// The contract error reporting `problem` with this document as a whole.
    pub fn error(self, problem: String) -> FormError {
        match self {
            Document::Arguments => FormError::invalid_arguments(Finding::new(
                JsonPath::arguments(),
                Some(Rule::R3),
                problem,
            )),
            Document::Response => FormError::invalid_response(Finding::new(
                JsonPath::response(),
                Some(Rule::V1),
                problem,
            )),
        }
    }
}

/// Decodes `bytes` as UTF-8, or reports that the document is not UTF-8.
pub fn utf8(bytes: &[u8], what: Document) -> Result<&str, FormError> {
    std::str::from_utf8(bytes).map_err(|e| {
        what.error(format!(
            "is not valid UTF-8 (invalid byte at offset {})",
            e.valid_up_to()
        ))
    })
}

/// Reads and validates the Data arguments from `input`.
pub fn load_form(input: &Input) -> Result<Result<DataForm, FormError>, Usage> {
    let bytes = input.read()?;
    Ok(utf8(&bytes, Document::Arguments).and_then(DataForm::from_json))
}

/// Writes `line` and a newline to standard output.
pub fn print_line(line: &str) -> std::io::Result<()> {
    let mut out = std::io::stdout().lock();
    out.write_all(line.as_bytes())?;
    out.write_all(b"\n")?;
    out.flush()
}

/// An argument as text, for a message (bytes that are not UTF-8 shown as U+FFFD).
pub fn lossy(arg: &OsStr) -> String {
    arg.to_string_lossy().into_owned()
}
