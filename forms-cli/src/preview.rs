//! `forms preview FILE [--out page.html]`: one self-contained HTML page that renders a Data
//! form or a native request the way the host does, and shows the exact host response on
//! Submit.
//!
//! The page (the runtime's [`forms_runtime::native::page`]) holds its CSS and JavaScript inline; the only thing it
//! loads is the form's own images (its Content-Security-Policy allows nothing else). It
//! renders the native request, so a Data form is first validated and compiled by the
//! runtime; a native request (`{mode, message, requestedSchema}`, or a whole JSON-RPC
//! `openai/elicitation/create` request) is rendered as it is. Either way the page gets the
//! host's view of the request ([`forms_runtime::native::NativeView`], serialized), not the
//! request itself, so its script reads one shape. The form is embedded as JSON in
//! a `<script type="application/json">` element with `<`, `>`, `&`, U+2028 and U+2029
//! escaped, so no text of the form can close the element or start markup.

use crate::cli::PreviewArgs;
use crate::io::{json_line, lossy, utf8, Document, Input, Printed, Usage};
use crate::lint::{self, PathStyle, Warning};
use forms_runtime::native::page::{self, PageData};
use forms_runtime::native::NativeView;
use forms_runtime::{DataForm, Finding, FormError, JsonPath};
use serde::Deserialize;
use serde_json::value::RawValue;

/// Runs `forms preview`: the page on standard output, or written to `--out` with a one-line
/// JSON summary (`{"page":PATH,"warnings":N}`) on standard output.
pub fn run(args: &PreviewArgs) -> Result<Printed, Usage> {
    let input = args.input();
    let bytes = input.read()?;
    let name = match &input {
        Input::Stdin => "standard input".to_owned(),
        Input::File(path) => path
            .file_name()
            .map_or_else(|| path.display().to_string(), lossy),
    };
    let page = match utf8(&bytes, Document::Arguments).and_then(|text| render(text, &name)) {
        Ok(page) => page,
        Err(e) => return Ok(Printed::Failed(e)),
    };
    let Some(out) = &args.out else {
        return Ok(Printed::Own(page.html));
    };
    if let Err(e) = std::fs::write(out, page.html.as_bytes()) {
        return Ok(Printed::Unwritten(format!(
            "cannot write {}: {e}",
            out.display()
        )));
    }
    let summary = serde_json::json!({
        "page": out.display().to_string(),
        "warnings": page.warnings.len(),
    });
    Ok(Printed::Done(summary))
}

/// A rendered page and the warnings shown in its side panel.
#[derive(Debug, Clone)]
pub struct Page {
    /// The whole HTML document.
    pub html: String,
    /// The author's warnings.
    pub warnings: Vec<Warning>,
}

/// What the input turned out to be.
enum Source<'a> {
    Data(DataForm),
    /// A native request's parameters, and whether they came as a core `elicitation/create`
    /// JSON-RPC request.
    Native(&'a str, bool),
}

fn arguments_error(problem: String) -> FormError {
    FormError::invalid_arguments(Finding::new(JsonPath::arguments(), None, problem))
}

/// Tells a Data form from a native request (bare params, or a whole JSON-RPC request).
fn classify(text: &str) -> Result<Source<'_>, FormError> {
    #[derive(Deserialize)]
    struct Probe<'a> {
        #[serde(default)]
        questions: Option<serde::de::IgnoredAny>,
        #[serde(default, rename = "requestedSchema")]
        schema: Option<serde::de::IgnoredAny>,
        #[serde(default)]
        method: Option<String>,
        #[serde(default, borrow)]
        params: Option<&'a RawValue>,
    }
    let probe: Probe<'_> = match serde_json::from_str(text) {
        Ok(p) => p,
        // Not even a JSON object: the Data form parser words that best.
        Err(_) => return DataForm::from_json(text).map(Source::Data),
    };
    if probe.questions.is_some() {
        return DataForm::from_json(text).map(Source::Data);
    }
    if probe.schema.is_some() {
        return Ok(Source::Native(text, false));
    }
    match (probe.method.as_deref(), probe.params) {
        (Some(method @ ("openai/elicitation/create" | "elicitation/create")), Some(params)) => {
            Ok(Source::Native(params.get(), method == "elicitation/create"))
        }
        _ => Err(arguments_error(
            "is neither a Data form ({\"message\",\"questions\"}) nor a native request \
             ({\"mode\":\"form\",\"message\",\"requestedSchema\"}, or an \
             openai/elicitation/create JSON-RPC request)"
                .into(),
        )),
    }
}

/// A form read as [`render`] reads it: the host's view of its native request, and, for a
/// Data form, the validated form (for checking the answer).
pub(crate) struct Read {
    /// The native request, as a host reads it.
    pub view: NativeView,
    /// The Data form it was compiled from, when the input was one.
    pub data: Option<DataForm>,
    /// Whether the input was a core `elicitation/create` JSON-RPC request.
    pub core: bool,
}

/// Reads `text` as [`render`] does: a Data form is validated and compiled; a native request,
/// bare or as a JSON-RPC request, is read as a host reads it and must have a schema of type
/// `"object"`.
pub(crate) fn read(text: &str) -> Result<Read, FormError> {
    match classify(text)? {
        Source::Data(form) => {
            let view = NativeView::from_json(form.native_json())
                .map_err(|e| arguments_error(format!("cannot read the native request: {e}")))?;
            Ok(Read {
                view,
                data: Some(form),
                core: false,
            })
        }
        Source::Native(params, core) => {
            let view = NativeView::from_json(params)
                .map_err(|e| arguments_error(format!("is not a native form request: {e}")))?;
            match view.schema_type.as_deref() {
                Some("object") => Ok(Read {
                    view,
                    data: None,
                    core,
                }),
                other => Err(arguments_error(format!(
                    "requestedSchema.type: must be \"object\", found {}",
                    other.map_or_else(|| "none".to_owned(), json_string)
                ))),
            }
        }
    }
}

/// Renders `text` (a Data form or a native request) as the preview page; `name` is shown in
/// the page's banner.
pub fn render(text: &str, name: &str) -> Result<Page, FormError> {
    let read = read(text)?;
    let (source, style) = match (&read.data, read.core) {
        (Some(_), _) => ("data", PathStyle::Data),
        (None, true) => ("core", PathStyle::Native),
        (None, false) => ("native", PathStyle::Native),
    };
    let warnings = lint::lint_native(&read.view, style);
    page(&read.view, source, name, warnings)
        .map_err(|e| arguments_error(format!("cannot serialize the page data: {e}")))
}

/// The page a person answers a form on (`forms host`'s browser answerer, `forms ask page`):
/// the form, headed by who asks it (`asker`: label and text, in order), and nothing meant for
/// the form's author (no preview banner, no lint warnings: those are `forms preview`'s).
#[cfg(feature = "host")]
pub fn render_answer(
    view: &NativeView,
    asker: &[(String, String)],
) -> Result<String, serde_json::Error> {
    forms_runtime::native::page::answer_page(view, asker)
}

/// The author's preview page: the runtime's page with `{"source","file","view","warnings"}`
/// embedded, where `view` is the [`NativeView`] as it serializes (the one shape the page's
/// script reads).
fn page(
    view: &NativeView,
    source: &str,
    name: &str,
    warnings: Vec<Warning>,
) -> Result<Page, serde_json::Error> {
    // A JSON line, as every command prints one: the page printed on standard output holds
    // no character of the form a terminal would obey.
    let data = json_line(&PageData {
        source,
        file: name,
        view,
        warnings: &warnings,
        asker: None,
    })?;
    Ok(Page {
        html: page::html(&data),
        warnings,
    })
}

fn json_string(s: &str) -> String {
    Value::String(s.to_owned()).to_string()
}

use serde_json::Value;

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn embedded_json_cannot_close_the_script_element() {
        let form = r#"{"message":"</script><script>alert(1)</script> & <!--","questions":[{"id":"a","type":"text","title":"x\u2028y","required":false}]}"#;
        let page = render(form, "</script>.json").unwrap();
        let start = page.html.find("id=\"forms-data\">").unwrap();
        let rest = &page.html[start..];
        let end = rest.find("</script>").unwrap();
        let embedded = &rest["id=\"forms-data\">".len()..end];
        assert!(
            !embedded.contains('<') && !embedded.contains('>'),
            "{embedded}"
        );
        let v: Value = serde_json::from_str(embedded).unwrap();
        assert_eq!(
            v["view"]["message"],
            "</script><script>alert(1)</script> & <!--"
        );
        assert_eq!(v["file"], "</script>.json");
    }
}
