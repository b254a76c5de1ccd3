//! The native renderer as a page: one self-contained HTML document (its CSS and JavaScript
//! inline) that renders a form from the host's [`NativeView`] of its request, the way the
//! host renders `openai/elicitation/create`.
//!
//! The page is used two ways: as the author's preview (`forms preview`, which adds its
//! banner and lint panel through [`PageData`]) and as the person's page (`forms host`,
//! `forms ask page`, and the URL-mode page of `forms-mcp`, through [`answer_page`]), which
//! shows who asks and nothing meant for the form's author. Served, the page POSTs the host
//! response to the URL in its `<body data-forms-post>` attribute and each added file to
//! `<body data-forms-file>` (see [`with_posts`]).
//!
//! The page data is embedded as JSON in a `<script type="application/json">` element with
//! `<`, `>`, `&`, U+2028 and U+2029 escaped ([`escape_script_json`]), so no text of the form
//! can close the element or start markup.

use super::NativeView;
use serde::Serialize;

/// The page template; `/*FORMS_DATA*/` is replaced by the embedded page data.
const TEMPLATE: &str = include_str!("page.html");

/// The placeholder of the embedded page data in [`TEMPLATE`].
const SLOT: &str = "/*FORMS_DATA*/";

/// What the page's script reads: `{"source","file","view","warnings","asker"}`.
#[derive(Debug, Serialize)]
pub struct PageData<'a, W: Serialize> {
    /// `"data"` for a Data form, `"native"` for a native request (the preview's banner).
    pub source: &'a str,
    /// The file name shown in the preview's banner.
    pub file: &'a str,
    /// The host's view of the request.
    pub view: &'a NativeView,
    /// The author's warnings (the preview's side panel), each `{id,path,message,fix}`.
    pub warnings: &'a [W],
    /// Who asks, label and text per line; present, it makes the page the person's (no
    /// banner, no warnings panel).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub asker: Option<Vec<[&'a str; 2]>>,
}

/// The page with `data` (the JSON text of a [`PageData`]) embedded, escaped for the
/// `<script>` element it sits in.
pub fn html(data: &str) -> String {
    TEMPLATE.replacen(SLOT, &escape_script_json(data), 1)
}

/// The page a person answers a form on: the form `view`, headed by who asks it (`asker`:
/// label and text, in order), and nothing meant for the form's author.
pub fn answer_page(
    view: &NativeView,
    asker: &[(String, String)],
) -> Result<String, serde_json::Error> {
    let data = PageData::<()> {
        source: "native",
        file: "",
        view,
        warnings: &[],
        asker: Some(
            asker
                .iter()
                .map(|(label, text)| [label.as_str(), text.as_str()])
                .collect(),
        ),
    };
    serde_json::to_string(&data).map(|json| html(&json))
}

/// `page` with the paths its script POSTs to: the host response to `answer`, an added
/// file to `file` (both attribute-safe paths such as `/SECRET/answer/1`).
pub fn with_posts(page: &str, answer: &str, file: &str) -> String {
    page.replacen(
        "<body",
        &format!(
            "<body data-forms-post=\"{}\" data-forms-file=\"{}\"",
            attribute(answer),
            attribute(file)
        ),
        1,
    )
}

/// `text` safe inside a double-quoted HTML attribute.
fn attribute(text: &str) -> String {
    text.replace('&', "&amp;")
        .replace('"', "&quot;")
        .replace('<', "&lt;")
        .replace('>', "&gt;")
}

/// Makes JSON text safe inside a `<script>` element: `<`, `>` and `&` can only occur inside
/// JSON strings, where their `\u` escapes mean the same; U+2028 and U+2029 likewise.
pub fn escape_script_json(json: &str) -> String {
    let mut out = String::with_capacity(json.len() + 16);
    for c in json.chars() {
        match c {
            '<' => out.push_str("\\u003c"),
            '>' => out.push_str("\\u003e"),
            '&' => out.push_str("\\u0026"),
            '\u{2028}' => out.push_str("\\u2028"),
            '\u{2029}' => out.push_str("\\u2029"),
            c => out.push(c),
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_persons_page_embeds_who_asks_and_no_warnings() {
        let view = NativeView::from_value(&serde_json::json!({
            "message": "</script><b>", "requestedSchema": {"type": "object", "properties": {}}}))
        .unwrap();
        let page = answer_page(&view, &[("Asked by".into(), "x 1".into())]).unwrap();
        let start = page.find("id=\"forms-data\">").unwrap() + "id=\"forms-data\">".len();
        let end = start + page[start..].find("</script>").unwrap();
        let data: serde_json::Value = serde_json::from_str(&page[start..end]).unwrap();
        assert_eq!(data["view"]["message"], "</script><b>");
        assert_eq!(data["asker"][0][1], "x 1");
        assert_eq!(data["warnings"], serde_json::json!([]));
        let served = with_posts(&page, "/k/answer/1", "/k/file/\"1");
        assert!(served
            .contains("<body data-forms-post=\"/k/answer/1\" data-forms-file=\"/k/file/&quot;1\""));
    }
}
