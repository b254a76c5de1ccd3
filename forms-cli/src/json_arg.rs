//! A JSON argument, the same on every command that takes one (`forms ask open --form` and
//! `--action`, `forms ask respond --answer`, `forms ask redeem --action`, `forms host --args`
//! and `--answer`): the value inline, `@PATH` to read it from a file, or `-` to read it from
//! standard input, which one argument per command may do.
//!
//! Reading is bounded: at most [`JSON_ARG_BYTES_MAX`] bytes (1 MiB, the Data form's limit)
//! and one more are read from a file or standard input, so a larger value is refused
//! without reading the rest of it; a value given inline is held to the same limit. A file
//! that cannot be read, a value over the limit, a value that is not UTF-8 and a second `-`
//! are usage errors (exit 2) naming the flag, the file and the limit.

use crate::io::Usage;
use clap::builder::{StringValueParser, TypedValueParser};
use std::io::Read;
use std::path::{Path, PathBuf};

/// The most bytes a JSON argument holds, however it is given: 1 MiB, the Data form's own
/// bound (rule R4), which is also the bound of a form and of a host response `forms ask`
/// stores.
pub const JSON_ARG_BYTES_MAX: usize = forms_runtime::rules::limits::ARGUMENTS_MAX_UTF16;

#[cfg(feature = "ask")]
const _: () = assert!(
    JSON_ARG_BYTES_MAX == forms_ask::FORM_BYTES_MAX
        && JSON_ARG_BYTES_MAX == forms_ask::RESPONSE_BYTES_MAX
);

/// The sentence every JSON argument's `--help` ends with, word for word.
pub const HELP: &str = "Give it inline, as @PATH to read a file, or as - to read standard \
input (one - per command); at most 1 MiB (1048576 bytes)";

/// The value name of a JSON argument whose inline value is a `what` (`JSON`, `TEXT|JSON`).
pub fn value_name(what: &str) -> String {
    format!("{what}|@PATH|-")
}

/// `help` and the sentence every JSON argument's help ends with.
pub fn help(help: &str) -> String {
    format!("{}. {HELP}", help.trim_end_matches('.'))
}

/// Where a JSON argument's value is: as clap parsed it, before anything is read.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum JsonArg {
    /// The value itself.
    Inline(String),
    /// `@PATH`: the file's contents.
    File(PathBuf),
    /// `-`: standard input.
    Stdin,
}

impl JsonArg {
    /// The value parser of every JSON argument: `-`, `@PATH` (a path that is not empty), or
    /// the value inline.
    pub fn parser() -> impl TypedValueParser<Value = JsonArg> {
        StringValueParser::new().try_map(|text: String| JsonArg::parse(&text))
    }

    /// What `text` on the command line names.
    pub fn parse(text: &str) -> Result<JsonArg, String> {
        if text == "-" {
            return Ok(JsonArg::Stdin);
        }
        match text.strip_prefix('@') {
            Some("") => Err("`@` must be followed by the path of a file".into()),
            Some(path) => Ok(JsonArg::File(PathBuf::from(path))),
            None => Ok(JsonArg::Inline(text.to_owned())),
        }
    }
}

/// Reads the JSON arguments of one command: standard input at most once.
#[derive(Debug, Default)]
pub struct Reader {
    /// The flag that read standard input, if one did.
    stdin_by: Option<&'static str>,
}

impl Reader {
    /// A reader for one command.
    pub fn new() -> Reader {
        Reader::default()
    }

    /// The value of `flag` (`--form`), at most [`JSON_ARG_BYTES_MAX`] bytes of UTF-8 text.
    pub fn text(&mut self, flag: &'static str, arg: JsonArg) -> Result<String, Usage> {
        let too_large = |from: &str| {
            Usage(format!(
                "`{flag}`{from} is larger than 1 MiB ({JSON_ARG_BYTES_MAX} bytes), the most a \
                 JSON argument holds"
            ))
        };
        let (bytes, from) = match arg {
            JsonArg::Inline(text) => {
                if text.len() > JSON_ARG_BYTES_MAX {
                    return Err(too_large(""));
                }
                return Ok(text);
            }
            JsonArg::File(path) => {
                let from = format!(" (the file {})", path.display());
                (read_file(flag, &path)?, from)
            }
            JsonArg::Stdin => {
                if let Some(first) = self.stdin_by.replace(flag) {
                    return Err(Usage(format!(
                        "`{first}` and `{flag}` are both `-`: standard input can be read \
                         once, so give one of them inline or as @PATH"
                    )));
                }
                let mut bytes = Vec::new();
                std::io::stdin()
                    .lock()
                    .take(limit())
                    .read_to_end(&mut bytes)
                    .map_err(|e| Usage(format!("`{flag} -`: cannot read standard input: {e}")))?;
                (bytes, " (standard input)".to_owned())
            }
        };
        if bytes.len() > JSON_ARG_BYTES_MAX {
            return Err(too_large(&from));
        }
        String::from_utf8(bytes).map_err(|e| {
            Usage(format!(
                "`{flag}`{from} is not UTF-8 (invalid byte at offset {})",
                e.utf8_error().valid_up_to()
            ))
        })
    }

    /// The value of `flag` as JSON of type `T`; `what` says what it must be
    /// (`JSON {"message","questions"}`) when it is not.
    pub fn json<T: serde::de::DeserializeOwned>(
        &mut self,
        flag: &'static str,
        arg: JsonArg,
        what: &str,
    ) -> Result<T, Usage> {
        let text = self.text(flag, arg)?;
        serde_json::from_str(&text).map_err(|e| Usage(format!("`{flag}` must be {what}: {e}")))
    }
}

/// [`JSON_ARG_BYTES_MAX`] and one byte: how much is read to tell a value over the limit.
fn limit() -> u64 {
    u64::try_from(JSON_ARG_BYTES_MAX)
        .unwrap_or(u64::MAX)
        .saturating_add(1)
}

/// At most [`limit`] bytes of the file at `path`; a file that cannot be opened or read is a
/// usage error naming it.
fn read_file(flag: &str, path: &Path) -> Result<Vec<u8>, Usage> {
    let cannot =
        |e: std::io::Error| Usage(format!("`{flag}`: cannot read {}: {e}", path.display()));
    let file = std::fs::File::open(path).map_err(cannot)?;
    let mut bytes = Vec::new();
    file.take(limit()).read_to_end(&mut bytes).map_err(cannot)?;
    Ok(bytes)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn parses_the_three_forms() {
        assert_eq!(JsonArg::parse("-"), Ok(JsonArg::Stdin));
        assert_eq!(
            JsonArg::parse("@a b.json"),
            Ok(JsonArg::File("a b.json".into()))
        );
        assert_eq!(JsonArg::parse("@-"), Ok(JsonArg::File("-".into())));
        assert_eq!(JsonArg::parse("{}"), Ok(JsonArg::Inline("{}".into())));
        assert_eq!(JsonArg::parse("-1"), Ok(JsonArg::Inline("-1".into())));
        assert!(JsonArg::parse("@").is_err());
    }

    #[test]
    fn a_second_stdin_is_refused_before_reading() {
        let mut reader = Reader::new();
        reader.stdin_by = Some("--form");
        let Err(Usage(message)) = reader.text("--action", JsonArg::Stdin) else {
            panic!("a second `-` was read")
        };
        assert!(
            message.contains("`--form` and `--action` are both `-`"),
            "{message}"
        );
    }
}
