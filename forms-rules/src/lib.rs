// The front page opens with the crate's README (its example a doctest), then the details.
#![doc = include_str!("../README.md")]
//!
//! # In detail
//!
//! The Data form contract's limits and syntax rules, as plain functions.
//!
//! This crate has no dependencies. The `forms-macros` crate calls it at compile time and
//! `forms-runtime` calls it at run time, so a rule is written once: a form that compiles is
//! a form the runtime accepts, and the other way round.
//!
//! Every check returns `Result<_, Violation>`. A [`Violation`] names the [`Rule`] that failed
//! and a `problem` phrase that reads after a subject, so each caller words the subject its own
//! way: the runtime writes a JSON path (`questions[3].options[0].id: "9x" must start with an
//! ASCII letter (R6)`), the macros write the Rust item (`question id `_goal` must start with an
//! ASCII letter; see rule R6`).
//!
//! Every rule code (`R1`–`R27`, `N1`–`N10`, `V1`–`V8`) is defined in the workspace's `RULES.md`.
//!
//! Lengths are counted in Unicode scalar values (`str::chars`), except the 1 MiB argument
//! limit of R4, which counts UTF-16 code units as the host's adapter does.
#![forbid(unsafe_code)]
#![warn(missing_docs)]

mod accept;
mod image;
mod kind;
mod selection;
mod text;
mod uri;
pub mod visible;

pub use accept::{accepts, check_accept_count, check_accept_list, check_accept_token};
pub use image::{
    check_image_mime_type, check_image_src, is_signed_image_host, DATA_URI_IMAGE_TYPES,
};
pub use kind::QuestionKind;
pub use selection::{
    bounds_above_options, check_answer_count, check_option_count, check_selection_limits,
    option_count_problem, resolve_selection_limits, Limit, LimitKeys, Options, SelectionLimits,
    SelectionProblem,
};
pub use text::{
    describe_json_error, is_js_blank, is_js_whitespace, js_trim, js_trim_end, js_trim_start,
};
pub use uri::{
    check_file_uri, check_resource_uri, is_credential_param, parse_uri, FileUri, UriParts,
    CREDENTIAL_INFIXES, CREDENTIAL_SUFFIXES, CREDENTIAL_WORDS,
};

use std::collections::HashMap;
use std::fmt;

/// R3: the properties each object of the Data arguments takes; any other property is refused.
pub mod keys {
    use crate::QuestionKind;

    /// The arguments object.
    pub const FORM: &[&str] = &["message", "questions"];
    /// Every question.
    pub const QUESTION_COMMON: &[&str] = &["id", "type", "title", "description", "required"];
    /// Every property any question kind takes: the common ones, then the kinds' own.
    pub const QUESTION_ANY: &[&str] = &[
        "id",
        "type",
        "title",
        "description",
        "required",
        "maxLength",
        "options",
        "minItems",
        "maxItems",
        "accept",
    ];
    /// A choice option (R23; `preview` is the older name of `thumbnail`).
    pub const CHOICE_OPTION: &[&str] = &["id", "title", "description", "thumbnail", "preview"];
    /// A resource option (R24).
    pub const RESOURCE_OPTION: &[&str] = &[
        "uri",
        "name",
        "title",
        "description",
        "mimeType",
        "icons",
        "thumbnail",
    ];
    /// An image (R25).
    pub const IMAGE: &[&str] = &["src", "mimeType"];

    /// The properties a question of `kind` takes besides [`QUESTION_COMMON`].
    pub const fn question_kind(kind: QuestionKind) -> &'static [&'static str] {
        match kind {
            QuestionKind::Text => &["maxLength"],
            QuestionKind::SingleSelect | QuestionKind::Resource => &["options"],
            QuestionKind::MultiSelect | QuestionKind::Resources => {
                &["options", "minItems", "maxItems"]
            }
            QuestionKind::Files => &["options", "minItems", "maxItems", "accept"],
        }
    }
}

/// Every limit of the Data contract, by name.
pub mod limits {
    /// R1: the form message is at most this many characters.
    pub const MESSAGE_MAX: usize = 80;
    /// R2: a form has at least one question.
    pub const QUESTIONS_MIN: usize = 1;
    /// R2: a form has at most twelve questions.
    pub const QUESTIONS_MAX: usize = 12;
    /// R4: the arguments' compact JSON serialization is at most 1 MiB, in UTF-16 code units.
    pub const ARGUMENTS_MAX_UTF16: usize = 1_048_576;
    /// R6: an ID is at most 64 characters.
    pub const ID_MAX: usize = 64;
    /// R8: a question title is at most 80 characters.
    pub const TITLE_MAX: usize = 80;
    /// R9: a question description is at most 2,000 characters.
    pub const DESCRIPTION_MAX: usize = 2_000;
    /// R11: smallest `maxLength` of a text question.
    pub const MAX_LENGTH_MIN: u32 = 1;
    /// R11: largest `maxLength` of a text question.
    pub const MAX_LENGTH_MAX: u32 = 16_000;
    /// R11: `maxLength` when none is given.
    pub const MAX_LENGTH_DEFAULT: u32 = 4_000;
    /// R12–R15: a choice or resource question has at least one option.
    pub const OPTIONS_MIN: usize = 1;
    /// R12–R16: a question has at most 24 options.
    pub const OPTIONS_MAX: usize = 24;
    /// R18/R19: the largest selection limit.
    pub const ITEMS_MAX: u32 = 24;
    /// R19: the smallest `maxItems`.
    pub const MAX_ITEMS_MIN: u32 = 1;
    /// R22: `accept` has 1–12 entries.
    pub const ACCEPT_MIN: usize = 1;
    /// R22: `accept` has 1–12 entries.
    pub const ACCEPT_MAX: usize = 12;
    /// R23/R24: an option title (and a resource name) is at most 500 characters.
    pub const OPTION_TITLE_MAX: usize = 500;
    /// R23/R24: an option description is at most 1,000 characters.
    pub const OPTION_DESCRIPTION_MAX: usize = 1_000;
    /// R24: a resource URI is at most 8,192 characters.
    pub const URI_MAX: usize = 8_192;
    /// R24/R25: a `mimeType` is at most 100 characters.
    pub const MIME_TYPE_MAX: usize = 100;
    /// R24: a resource option has at most two icons.
    pub const ICONS_MAX: usize = 2;
    /// R25: an image `src` is at most 262,144 characters.
    pub const IMAGE_SRC_MAX: usize = 262_144;
}

/// Messages show a value or a property name of at most this many characters in full; longer
/// ones are shortened or not repeated. One constant for the derive, `form!` and the runtime.
pub const SHOWN_CHARS_MAX: usize = 40;

/// A rule of the contract, numbered as in the design: `R1`–`R27` for the Data arguments and
/// `V1`–`V8` for host answers.
///
/// Each variant's documentation is the rule's sentence in `RULES.md` (at the root of the
/// workspace), which also names the question types a rule applies to and the tests that prove
/// it. The native request's rules `N1`–`N10` are defined there too; they have no variant,
/// because compiling a valid form to its native request cannot fail, so no message cites them.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
#[non_exhaustive]
pub enum Rule {
    /// The form's `message` is a required string of 1–80 characters that is not blank (not empty or
    /// only whitespace).
    R1,
    /// A form has 1–12 `questions`, and their display order is kept everywhere, including the order
    /// of the native properties.
    R2,
    /// Every object of the arguments is strict: a property the contract does not define for that
    /// object is refused wherever it appears (this is how `_meta`, `userOptions` and other
    /// host-only properties are refused).
    R3,
    /// The arguments' compact JSON serialization is at most 1 MiB, 1,048,576 UTF-16 code units
    /// (what JavaScript's `JSON.stringify(args).length` gives), and input text too long to possibly
    /// fit is refused before it is parsed.
    R4,
    /// Question IDs are unique in the form, choice option IDs are unique in their question, and
    /// resource option URIs are unique in their question.
    R5,
    /// A question ID or choice option ID matches `^[A-Za-z][A-Za-z0-9_-]{0,63}$`: an ASCII letter
    /// followed by at most 63 ASCII letters, digits, `_` or `-`.
    R6,
    /// A question's `type` is one of `text`, `single_select`, `multi_select`, `resource`,
    /// `resources` or `files`.
    R7,
    /// A question's `title` is required, and once trimmed it is nonempty and at most 80 characters.
    R8,
    /// A question's `description` is optional and at most 2,000 characters.
    R9,
    /// A question's `required` is an explicit boolean that must always be given; it has no default.
    R10,
    /// A `text` question's optional `maxLength` is an integer from 1 to 16,000, and 4,000 when it
    /// is omitted.
    R11,
    /// A `single_select` question has 1–24 choice `options`.
    R12,
    /// A `multi_select` question has 1–24 choice `options` and optional `minItems` and `maxItems`.
    R13,
    /// A `resource` question has 1–24 resource `options`.
    R14,
    /// A `resources` question has 1–24 resource `options` and optional `minItems` and `maxItems`.
    R15,
    /// A `files` question has an optional list of 0–24 resource `options`, optional `minItems` and
    /// `maxItems`, and an optional `accept` list.
    R16,
    /// Selection limits (`minItems` and `maxItems`) are accepted only on `multi_select`,
    /// `resources` and `files` questions.
    R17,
    /// `minItems` is an integer from 0 to 24 that defaults to 1 when the question is required and
    /// to 0 otherwise, and a required question cannot have `minItems: 0`.
    R18,
    /// `maxItems` is an integer from 1 to 24 that defaults to the number of options, or to 24 for
    /// `files`.
    R19,
    /// `minItems` is at most `maxItems`, and for `multi_select` and `resources` neither bound may
    /// exceed the number of options.
    R20,
    /// There is no default and no preselection anywhere: `default`, `defaults`, `selected`,
    /// `preselected` and `selection` are refused wherever they appear.
    R21,
    /// A `files` question's `accept` list has 1–12 entries, each a filename extension (`.csv`) or a
    /// MIME type (`text/csv`, `image/*`), and no entry repeats an earlier one (ignoring case).
    R22,
    /// A choice option has an `id` (R6), a `title` that once trimmed is nonempty and at most 500
    /// characters, an optional `description` of at most 1,000 characters, and an optional
    /// `thumbnail` Image or its older alias `preview`, never both.
    R23,
    /// A resource option has a `uri` that is an absolute URI of at most 8,192 characters, a `name`
    /// and a `title` that once trimmed are nonempty and at most 500 characters, an optional
    /// `description` of at most 1,000 characters, an optional `mimeType` of at most 100 characters,
    /// at most 2 `icons` Images, and an optional `thumbnail` Image.
    R24,
    /// An Image has a `src` of at most 262,144 characters that is an HTTPS URL or a base64 data URI
    /// of `image/png`, `image/jpeg`, `image/jpg`, `image/gif`, `image/webp` or `image/avif`, and an
    /// optional `mimeType` of at most 100 characters; SVG data URIs, `http:` images and `file:`
    /// images are refused.
    R25,
    /// A resource URI or an image URL has no username or password and no credential-like query
    /// parameter, except `sig` on an HTTPS image whose host matches
    /// `^sdmntpr[a-z0-9]*\.oaiusercontent\.com$` (case-insensitive).
    R26,
    /// A user-added file answer is a `file:` URI with an empty or `localhost` authority and an
    /// absolute path, with no username, password, query or fragment, whose decoded path keeps its
    /// shape: no `//` share prefix, no encoded `/` or `\`, no `.` or `..` segments and no control
    /// characters.
    R27,
    /// A host response is `{"action":"accept","content":{…}}`, `{"action":"decline"}` or
    /// `{"action":"cancel"}` (an optional `_meta` object is ignored), and any other shape,
    /// including a repeated key, is refused.
    V1,
    /// The `content` keys are question IDs, each at most once, an unknown key is refused, and every
    /// required question must be answered.
    V2,
    /// A `text` answer is a string of at most `maxLength` characters (Unicode scalar values), and a
    /// required text answer contains a non-whitespace character.
    V3,
    /// A `single_select` answer is one exact option ID, and a `multi_select` answer is an array of
    /// distinct exact option IDs whose count is within `minItems` and `maxItems`.
    V4,
    /// A `resource` answer is one exact offered URI, skipping the question leaves its key out, and
    /// `""`, `[]` and `null` are refused.
    V5,
    /// A `resources` answer is an array of distinct exact offered URIs, and a `files` answer is an
    /// array of distinct offered URIs or user-added `file:` URIs (R27), each with a count within
    /// `minItems` and `maxItems`.
    V6,
    /// An optional `text` answer may be empty or omitted, and an optional array answer may be empty
    /// or omitted even when its `minItems` is above 0.
    V7,
    /// Decline, cancel, timeouts and errors never yield answers.
    V8,
}

impl Rule {
    /// The rule's number as written in the design, `"R6"`.
    pub const fn as_str(self) -> &'static str {
        match self {
            Rule::R1 => "R1",
            Rule::R2 => "R2",
            Rule::R3 => "R3",
            Rule::R4 => "R4",
            Rule::R5 => "R5",
            Rule::R6 => "R6",
            Rule::R7 => "R7",
            Rule::R8 => "R8",
            Rule::R9 => "R9",
            Rule::R10 => "R10",
            Rule::R11 => "R11",
            Rule::R12 => "R12",
            Rule::R13 => "R13",
            Rule::R14 => "R14",
            Rule::R15 => "R15",
            Rule::R16 => "R16",
            Rule::R17 => "R17",
            Rule::R18 => "R18",
            Rule::R19 => "R19",
            Rule::R20 => "R20",
            Rule::R21 => "R21",
            Rule::R22 => "R22",
            Rule::R23 => "R23",
            Rule::R24 => "R24",
            Rule::R25 => "R25",
            Rule::R26 => "R26",
            Rule::R27 => "R27",
            Rule::V1 => "V1",
            Rule::V2 => "V2",
            Rule::V3 => "V3",
            Rule::V4 => "V4",
            Rule::V5 => "V5",
            Rule::V6 => "V6",
            Rule::V7 => "V7",
            Rule::V8 => "V8",
        }
    }
}

impl fmt::Display for Rule {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

/// A broken rule: which one, and what is wrong, as a phrase that reads after a subject
/// (`"must start with an ASCII letter"`).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Violation {
    /// The rule that failed.
    pub rule: Rule,
    /// What is wrong, worded to follow the name of the value (`"must be at most 80
    /// characters, found 81"`). It never repeats the value itself.
    pub problem: String,
}

impl Violation {
    /// A violation of `rule`.
    pub fn new(rule: Rule, problem: impl Into<String>) -> Self {
        Violation {
            rule,
            problem: problem.into(),
        }
    }
}

impl fmt::Display for Violation {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{} ({})", self.problem, self.rule)
    }
}

/// The length of `s` in Unicode scalar values, the unit of every character limit but R4.
pub fn char_len(s: &str) -> usize {
    s.chars().count()
}

/// The length of `s` in UTF-16 code units (what JavaScript's `.length` gives).
pub fn utf16_len(s: &str) -> usize {
    s.chars().map(char::len_utf16).sum()
}

fn too_long(rule: Rule, max: usize, found: usize) -> Violation {
    Violation::new(
        rule,
        format!("must be at most {max} characters, found {found}"),
    )
}

/// `s` is at most `max` characters, else a violation of `rule` saying how many it has.
pub(crate) fn check_max_chars(s: &str, max: usize, rule: Rule) -> Result<(), Violation> {
    // Cheap upper bound first: a string's character count never exceeds its byte length.
    if s.len() <= max {
        return Ok(());
    }
    let n = char_len(s);
    if n > max {
        Err(too_long(rule, max, n))
    } else {
        Ok(())
    }
}

/// Trims `s` (JavaScript's whitespace set, [`js_trim`]) and checks it is nonempty and at most
/// `max` characters; returns the trimmed text.
fn check_trimmed(s: &str, max: usize, rule: Rule) -> Result<&str, Violation> {
    let t = js_trim(s);
    if t.is_empty() {
        return Err(Violation::new(rule, "must not be empty or only whitespace"));
    }
    check_max_chars(t, max, rule)?;
    Ok(t)
}

/// R1: the form `message`: 1–80 characters and not blank ([`is_js_blank`]). It is kept as
/// given (not trimmed).
pub fn check_message(message: &str) -> Result<(), Violation> {
    if is_js_blank(message) {
        return Err(Violation::new(
            Rule::R1,
            "must not be empty or only whitespace",
        ));
    }
    check_max_chars(message, limits::MESSAGE_MAX, Rule::R1)
}

/// R2: a form has 1–12 questions.
pub fn check_question_count(count: usize) -> Result<(), Violation> {
    if count < limits::QUESTIONS_MIN {
        Err(Violation::new(Rule::R2, "must have at least one question"))
    } else if count > limits::QUESTIONS_MAX {
        Err(Violation::new(
            Rule::R2,
            format!(
                "must have at most {} questions, found {count}",
                limits::QUESTIONS_MAX
            ),
        ))
    } else {
        Ok(())
    }
}

/// R4: the arguments' compact JSON serialization, `utf16_len` UTF-16 code units long, fits in
/// 1 MiB.
pub fn check_arguments_size(utf16_len: usize) -> Result<(), Violation> {
    arguments_size(utf16_len, "found")
}

/// R4 for a lower bound of the serialized length (text not yet parsed, or the literal parts of
/// a form whose run-time parts are still unknown).
pub fn check_arguments_size_at_least(utf16_len_lower_bound: usize) -> Result<(), Violation> {
    arguments_size(utf16_len_lower_bound, "found at least")
}

fn arguments_size(len: usize, found: &str) -> Result<(), Violation> {
    if len > limits::ARGUMENTS_MAX_UTF16 {
        Err(Violation::new(
            Rule::R4,
            format!(
                "must be at most {} UTF-16 code units as compact JSON, {found} {len}",
                limits::ARGUMENTS_MAX_UTF16
            ),
        ))
    } else {
        Ok(())
    }
}

/// A character as messages show it: `` `.` ``, "a space", or its code point when invisible.
fn describe_char(c: char) -> String {
    match c {
        ' ' => "a space".to_owned(),
        '`' => "a backtick".to_owned(),
        c if c.is_whitespace() || is_js_whitespace(c) || c.is_control() => {
            format!("U+{:04X}", u32::from(c))
        }
        c => format!("`{c}`"),
    }
}

/// R6: an ID (question or choice option) matches `^[A-Za-z][A-Za-z0-9_-]{0,63}$`.
pub fn check_id(id: &str) -> Result<(), Violation> {
    let mut chars = id.chars();
    match chars.next() {
        None => return Err(Violation::new(Rule::R6, "must not be empty")),
        Some(c) if !c.is_ascii_alphabetic() => {
            return Err(Violation::new(Rule::R6, "must start with an ASCII letter"))
        }
        Some(_) => {}
    }
    if let Some(bad) = chars.find(|c| !(c.is_ascii_alphanumeric() || *c == '_' || *c == '-')) {
        return Err(Violation::new(
            Rule::R6,
            format!(
                "contains {}; IDs may use only ASCII letters, digits, `_` and `-`",
                describe_char(bad)
            ),
        ));
    }
    // All characters are ASCII here, so the byte length is the character count.
    if id.len() > limits::ID_MAX {
        return Err(Violation::new(
            Rule::R6,
            format!(
                "must be at most {} characters, found {}",
                limits::ID_MAX,
                id.len()
            ),
        ));
    }
    Ok(())
}

/// R8: a question title, trimmed, nonempty, at most 80 characters. Returns the trimmed title.
pub fn check_title(title: &str) -> Result<&str, Violation> {
    check_trimmed(title, limits::TITLE_MAX, Rule::R8)
}

/// R9: a question description is at most 2,000 characters.
pub fn check_description(description: &str) -> Result<(), Violation> {
    check_max_chars(description, limits::DESCRIPTION_MAX, Rule::R9)
}

/// R11: a text question's `maxLength` is an integer 1–16,000.
pub fn check_max_length(max_length: i64) -> Result<u32, Violation> {
    if max_length < i64::from(limits::MAX_LENGTH_MIN)
        || max_length > i64::from(limits::MAX_LENGTH_MAX)
    {
        return Err(Violation::new(
            Rule::R11,
            format!(
                "must be an integer from {} to {}, found {max_length}",
                limits::MAX_LENGTH_MIN,
                limits::MAX_LENGTH_MAX
            ),
        ));
    }
    u32::try_from(max_length).map_err(|_| Violation::new(Rule::R11, "is out of range"))
}

/// R23: a choice option's title: trimmed, nonempty, at most 500 characters. Returns it trimmed.
pub fn check_option_title(title: &str) -> Result<&str, Violation> {
    check_trimmed(title, limits::OPTION_TITLE_MAX, Rule::R23)
}

/// R23: a choice option's description is at most 1,000 characters.
pub fn check_option_description(description: &str) -> Result<(), Violation> {
    check_max_chars(description, limits::OPTION_DESCRIPTION_MAX, Rule::R23)
}

/// R24: a resource option's `name` or `title`: trimmed, nonempty, at most 500 characters.
pub fn check_resource_label(label: &str) -> Result<&str, Violation> {
    check_trimmed(label, limits::OPTION_TITLE_MAX, Rule::R24)
}

/// R24: a resource option's description is at most 1,000 characters.
pub fn check_resource_description(description: &str) -> Result<(), Violation> {
    check_max_chars(description, limits::OPTION_DESCRIPTION_MAX, Rule::R24)
}

/// R24: a resource option's `mimeType` is at most 100 characters.
pub fn check_resource_mime_type(mime_type: &str) -> Result<(), Violation> {
    check_max_chars(mime_type, limits::MIME_TYPE_MAX, Rule::R24)
}

/// R5: the items whose key an earlier item already has, as `(index, index of the first item
/// with that key)`, in order. Runs in linear time (hostile forms may repeat a key many times).
///
/// ```
/// let keys = ["a", "b", "a", "a"];
/// let repeats: Vec<_> = forms_rules::repeated_keys(keys).collect();
/// assert_eq!(repeats, [(2, 0), (3, 0)]);
/// ```
pub fn repeated_keys<'a, I>(keys: I) -> impl Iterator<Item = (usize, usize)> + 'a
where
    I: IntoIterator<Item = &'a str>,
    I::IntoIter: 'a,
{
    let keys = keys.into_iter();
    let mut first_at: HashMap<&'a str, usize> = HashMap::with_capacity(keys.size_hint().0);
    keys.enumerate().filter_map(move |(i, key)| {
        let first = *first_at.entry(key).or_insert(i);
        (first != i).then_some((i, first))
    })
}

/// R21: a property that would preselect an answer (`default`, `selected`, `selection`, …),
/// refused wherever it appears; `None` for any other name.
///
/// ```
/// assert!(forms_rules::check_preselection_key("default").is_some());
/// assert!(forms_rules::check_preselection_key("title").is_none());
/// ```
pub fn check_preselection_key(key: &str) -> Option<Violation> {
    match key {
        "default" | "defaults" | "selected" | "preselected" => Some(Violation::new(
            Rule::R21,
            "is not accepted: Data forms have no default and no preselection; nothing is \
             selected until the person answers",
        )),
        "selection" => Some(Violation::new(
            Rule::R21,
            "is not accepted: there is no preselection; array questions always use explicit \
             selection",
        )),
        _ => None,
    }
}

/// R24: a resource option has at most two icons.
pub fn check_icon_count(count: usize) -> Result<(), Violation> {
    if count > limits::ICONS_MAX {
        Err(Violation::new(
            Rule::R24,
            format!(
                "must have at most {} icons, found {count}",
                limits::ICONS_MAX
            ),
        ))
    } else {
        Ok(())
    }
}

/// V3: a text answer: at most `max_length` characters; when the question is required it must
/// contain a character that is not JavaScript whitespace ([`is_js_blank`]).
pub fn check_text_answer(text: &str, max_length: u32, required: bool) -> Result<(), Violation> {
    check_max_chars(text, max_length as usize, Rule::V3)?;
    if required && is_js_blank(text) {
        return Err(Violation::new(
            Rule::V3,
            "is required and must contain a non-whitespace character",
        ));
    }
    Ok(())
}

#[cfg(test)]
mod tests;
