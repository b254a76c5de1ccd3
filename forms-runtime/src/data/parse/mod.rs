//! Strict parsing of Data arguments from JSON text (R3, R4, R10, R21 and the type checks).
//!
//! The text goes through three stages, and every problem comes out as one
//! `invalid_arguments` error that lists each violation as `path: problem (Rule)`:
//!
//! 1. **Size pre-scan (R4, in `data/size.rs`).** One pass over the bytes computes a lower bound of the compact
//!    JSON length in UTF-16 code units (whitespace outside strings is skipped, a number counts
//!    as one unit, a string escape as one unit, any other character as its UTF-16 length).
//!    Text whose lower bound exceeds 1,048,576 units is refused before any tree is built.
//! 2. **JSON tree (`read.rs`, `tree.rs`).** The runtime's own reader (`crate::json`) reads
//!    the text into a private tree that keeps every object's key order and **refuses
//!    duplicate keys** in any object (R3: a property appears once); where it does not decide
//!    (any text that is not JSON, a lone surrogate escape, nesting at serde_json's limit),
//!    serde_json's deserializer builds the same tree with `tree.rs`'s visitors, and its
//!    account of the syntax error is the message.
//!    Nesting deeper than 127 levels (serde_json's limit), lone UTF-16 surrogates in `\u`
//!    escapes, trailing characters, a byte order mark, `NaN`/`Infinity` and every other syntax
//!    error are refused with a message that gives the line and column; those errors name no rule
//!    because the text is not JSON at all.
//! 3. **Strict model (`build.rs`).** Every object is strict (R3: an unknown property is an error naming
//!    it; `default` and `selection` are refused under R21, `minItems`/`maxItems` on a kind
//!    without limits under R17). Types are checked field by field with the field's rule
//!    (`questions[0].title: expected a string, found a number (R8)`). Then the exact compact
//!    length of the arguments is measured as JavaScript's `JSON.stringify(args).length` (R4)
//!    and the model goes through the same validation as [`DataForm::new`], so every rule is
//!    checked by `forms-rules`.
//!
//! Decisions the contract leaves open:
//! - `null` is refused for every field, optional ones included: an optional field is given
//!   with its type or left out.
//! - Integer fields (`maxLength`, `minItems`, `maxItems`) take any JSON number whose value is
//!   an integer, as JSON Schema's `integer` and JavaScript's `Number.isInteger` do: `100`,
//!   `1e2` and `100.0` are all the integer 100 (and are written back as `100`). A fraction
//!   such as `4.5` is refused. Out-of-range values are reported with R11, R18 or R19.
//! - A choice option's `preview` is the older name of `thumbnail`: it is accepted and stored
//!   as `thumbnail`; giving both is an R23 error.

mod build;
mod read;
pub(super) mod tree;

use super::findings::Violations;
use super::size;
use super::validate;
use super::DataForm;
use crate::error::{Finding, FormError, JsonPath, FINDINGS_MAX};
use build::Builder;
use tree::Json;

/// Deepest nesting of arrays and objects accepted, as serde_json's text parser allows.
pub(super) const DEPTH_MAX: usize = 127;

/// Parses and validates Data arguments from JSON text.
pub(crate) fn from_json(text: &str) -> Result<DataForm, FormError> {
    from_text(text, tree::parse_tree)
}

/// [`from_json`] with the tree read by serde_json alone ([`tree::parse_tree_serde`]): the
/// reference the runtime's own reader is checked against.
pub(crate) fn from_json_serde(text: &str) -> Result<DataForm, FormError> {
    from_text(text, tree::parse_tree_serde)
}

/// The tree and its two flags, or why the text is not JSON.
type Read<'t> = Result<(Json<'t>, bool, bool), FormError>;

/// [`from_json`] with the tree read by `read`.
fn from_text<'t>(text: &'t str, read: fn(&'t str) -> Read<'t>) -> Result<DataForm, FormError> {
    size::prescan(text)?;
    let (tree, skipped, floats) = read(text)?;
    // The compact JSON of a tree read from text without floats is at most as long as the
    // text (see `size::compact_len`), so text within R4's limit needs no count.
    let measure = floats || text.len() > forms_rules::limits::ARGUMENTS_MAX_UTF16;
    from_tree(&tree, skipped, measure)
}

/// The tree of `text` read both ways, each written out with its two flags (`Debug`), for the
/// differential check: the runtime's own reader's, or `None` where it gives up, and
/// serde_json's.
#[allow(clippy::type_complexity)]
pub(crate) fn trees_both_ways(
    text: &str,
) -> (Option<Result<String, FormError>>, Result<String, FormError>) {
    let write = |(tree, skipped, floats): (Json<'_>, bool, bool)| {
        format!("{tree:?} skipped={skipped} floats={floats}")
    };
    let ours = match read::tree(text) {
        Ok(read) => Some(Ok(write(read))),
        Err(read::Stop::Duplicate(e)) => Some(Err(e)),
        Err(read::Stop::GiveUp) => None,
    };
    (ours, tree::parse_tree_serde(text).map(write))
}

/// Validates Data arguments already parsed into a `serde_json::Value`.
pub(crate) fn from_value(value: &serde_json::Value) -> Result<DataForm, FormError> {
    let mut skipped = false;
    let tree = tree::tree_of_value(value, 0, &mut skipped).ok_or_else(too_deep)?;
    from_tree(&tree, skipped, true)
}

/// Validates Data arguments already parsed into a JSON object's members.
pub(crate) fn from_object(
    map: &serde_json::Map<String, serde_json::Value>,
) -> Result<DataForm, FormError> {
    let mut skipped = false;
    let tree = tree::tree_of_map(map, 0, &mut skipped).ok_or_else(too_deep)?;
    from_tree(&tree, skipped, true)
}

fn too_deep() -> FormError {
    FormError::invalid_arguments(Finding::new(
        JsonPath::arguments(),
        None,
        format!(
            "not valid Data arguments: arrays and objects nest more than {DEPTH_MAX} levels deep"
        ),
    ))
}

/// Builds and validates the form of a parsed tree. When the structure and types alone have
/// more than [`FINDINGS_MAX`] problems, the values are not checked (only whether there are
/// too many questions or options): the error then counts the problems found so far, a lower
/// bound.
///
/// `skipped` tells that the tree left parts of the input out (see [`tree::KEPT`]): the input
/// is then refused (no valid form has such parts) and the count of further problems is a lower
/// bound.
///
/// `measure` is false when the tree's compact JSON is known to be within R4's limit.
fn from_tree<'j>(tree: &'j Json<'j>, skipped: bool, measure: bool) -> Result<DataForm, FormError> {
    let mut b = Builder::default();
    if measure {
        size::check_size(&mut b.out, size::compact_len(tree));
    }
    let Some(spec) = b.form(tree) else {
        return Err(b.out.into_error(!skipped));
    };
    let mut out = b.out;
    if out.count() > FINDINGS_MAX {
        let mut found = Violations::covered_by(b.marks);
        validate::check_too_many(&mut found, &spec);
        out.append(found);
        return Err(out.into_error(false));
    }
    let mut found = Violations::covered_by(b.marks);
    let resolved = validate::check_spec(&mut found, &spec);
    out.append(found);
    if out.is_empty() && skipped {
        // Unreachable: every part the tree leaves out is inside an array or object that is
        // too long, too deep or has unknown properties, which the builder reports.
        out.push(
            crate::data::findings::Loc::ROOT,
            None,
            forms_rules::Violation::new(
                forms_rules::Rule::R3,
                "holds more than a Data form can: arrays longer, objects larger or nesting \
                 deeper than any valid form has",
            ),
        );
    }
    if out.is_empty() {
        Ok(validate::finish(spec, resolved))
    } else {
        Err(out.into_error(!skipped))
    }
}
