//! URL-mode elicitation (MCP 2025-11-25): the server asks the person to open a URL and
//! complete an interaction out of band. The host shows which server asks, its message and the
//! full URL with its domain set apart, opens nothing without the person's consent, and
//! answers `accept` (the person consented to open it: not that the interaction is done),
//! `decline` or `cancel`, without `content`.

use serde_json::Value;

/// A URL-mode request, read and checked: an absolute `http` or `https` URL with a host.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct UrlRequest {
    /// The server's `message`: why the person should open the URL.
    pub message: String,
    /// The full URL, as the server sent it.
    pub url: String,
    /// The URL's host (its domain or address), to be shown apart from the rest.
    pub host: String,
    /// The server's `elicitationId` (empty on protocols without one).
    pub elicitation_id: String,
    /// What the person should know before consenting: a domain written in punycode, a URL
    /// naming a user, a plain `http` URL to another machine.
    pub warnings: Vec<String>,
}

impl UrlRequest {
    /// Reads a URL-mode request's fields; an error says why the URL cannot be offered (not a
    /// URL, not `http`/`https`, no host).
    pub fn read(message: &str, url: &str, elicitation_id: &str) -> Result<UrlRequest, String> {
        let parsed = url::Url::parse(url).map_err(|e| format!("`url` is not a URL: {e}"))?;
        if !matches!(parsed.scheme(), "http" | "https") {
            return Err(format!(
                "`url` must be an http or https URL, not `{}:`",
                parsed.scheme()
            ));
        }
        let host = parsed
            .host_str()
            .filter(|h| !h.is_empty())
            .ok_or_else(|| "`url` has no host".to_owned())?
            .to_owned();
        let mut warnings = Vec::new();
        if host.split('.').any(|label| label.starts_with("xn--")) {
            warnings.push(
                "the domain is written in punycode: it may imitate another domain".to_owned(),
            );
        }
        if !parsed.username().is_empty() || parsed.password().is_some() {
            warnings.push(
                "the URL names a user before its host: the host is what follows the @".to_owned(),
            );
        }
        let loopback = matches!(host.as_str(), "localhost" | "127.0.0.1" | "[::1]");
        if parsed.scheme() == "http" && !loopback {
            warnings.push("the URL is not https: what you type there is not encrypted".to_owned());
        }
        Ok(UrlRequest {
            message: message.to_owned(),
            url: url.to_owned(),
            host,
            elicitation_id: elicitation_id.to_owned(),
            warnings,
        })
    }

    /// The URL in three parts, `(before, host, after)`, for showing the host apart.
    pub fn split(&self) -> (&str, &str, &str) {
        match self.url.find(&self.host) {
            Some(at) => {
                let (before, rest) = self.url.split_at(at);
                let (host, after) = rest.split_at(self.host.len());
                (before, host, after)
            }
            None => ("", self.url.as_str(), ""),
        }
    }
}

/// Checks a host response to a URL-mode request: `accept`, `decline` or `cancel`, and no
/// `content` (the data stays out of band); the response as sent.
pub fn url_response(answer: Value) -> Result<Value, String> {
    let action = answer.get("action").and_then(Value::as_str);
    if !matches!(action, Some("accept" | "decline" | "cancel")) {
        return Err(format!(
            "the response to a URL request must be accept, decline or cancel: {answer}"
        ));
    }
    if answer.get("content").is_some() {
        return Err("the response to a URL request carries no `content`".to_owned());
    }
    Ok(answer)
}

/// Opens `url` in the person's browser, after their consent: `$BROWSER` (a program, given the
/// URL as its one argument) when set, else `xdg-open`. Nothing here reads the page.
pub fn open_in_browser(url: &str) -> Result<(), String> {
    let program = std::env::var_os("BROWSER")
        .filter(|b| !b.is_empty())
        .unwrap_or_else(|| "xdg-open".into());
    let mut child = std::process::Command::new(&program)
        .arg(url)
        .stdin(std::process::Stdio::null())
        .stdout(std::process::Stdio::null())
        .stderr(std::process::Stdio::null())
        .spawn()
        .map_err(|e| format!("cannot start {}: {e}", program.to_string_lossy()))?;
    // Reaped in the background: the browser may keep running.
    std::thread::spawn(move || child.wait());
    Ok(())
}

/// Escapes text for HTML element content and attribute values.
pub(crate) fn escape_html(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    for c in text.chars() {
        match c {
            '&' => out.push_str("&amp;"),
            '<' => out.push_str("&lt;"),
            '>' => out.push_str("&gt;"),
            '"' => out.push_str("&quot;"),
            '\'' => out.push_str("&#39;"),
            c => out.push(c),
        }
    }
    out
}

/// The page a person consents on (the page answerer): who asks, the message, the full URL
/// with its host set apart, warnings, and three buttons. "Open" posts `accept` and then opens
/// the URL in a new tab (`noopener`, `noreferrer`): the person's click is the consent.
pub(crate) fn consent_page(request: &UrlRequest, asker: &[(String, String)]) -> String {
    let (before, host, after) = request.split();
    let who: String = asker
        .iter()
        .map(|(label, text)| {
            format!(
                "<dt>{}</dt><dd>{}</dd>",
                escape_html(label),
                escape_html(text)
            )
        })
        .collect();
    let warnings: String = request
        .warnings
        .iter()
        .map(|w| format!("<li>{}</li>", escape_html(w)))
        .collect();
    format!(
        r#"<!DOCTYPE html>
<html lang="en"><head><meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<meta http-equiv="Content-Security-Policy" content="default-src 'none'; style-src 'unsafe-inline'; script-src 'unsafe-inline'; connect-src 'self'; form-action 'none'; base-uri 'none'">
<meta name="referrer" content="no-referrer">
<title>Open a link for {asking}?</title>
<style>
body {{ font-family: system-ui, sans-serif; max-width: 640px; margin: 24px auto; padding: 0 16px; color: #1f2328; }}
dl {{ display: grid; grid-template-columns: max-content 1fr; gap: 2px 10px; font-size: 14px; }}
dt {{ color: #59636e; }} dd {{ margin: 0; overflow-wrap: anywhere; }}
#forms-url-message {{ white-space: pre-wrap; overflow-wrap: anywhere; }}
#forms-url {{ font-family: ui-monospace, monospace; background: #f6f8fa; border: 1px solid #d1d9e0; border-radius: 8px; padding: 10px; overflow-wrap: anywhere; color: #59636e; }}
#forms-url-host {{ color: #1f2328; font-weight: 700; background: #fff8c5; }}
#forms-url-warnings li {{ color: #9a6700; }}
.actions {{ display: flex; gap: 10px; justify-content: flex-end; margin-top: 16px; }}
button {{ font: inherit; padding: 7px 16px; border-radius: 8px; border: 1px solid #d1d9e0; background: #fff; cursor: pointer; }}
#forms-url-open {{ background: #0969da; color: #fff; border-color: #0969da; font-weight: 600; }}
</style></head>
<body>
<dl id="forms-asker" aria-label="Who asks">{who}</dl>
<p id="forms-url-message">{message}</p>
<p>The server asks you to open this page, on <strong id="forms-url-domain">{host}</strong>:</p>
<p id="forms-url">{before}<span id="forms-url-host">{host}</span>{after}</p>
<ul id="forms-url-warnings">{warnings}</ul>
<div class="actions">
<button type="button" id="forms-cancel">Cancel</button>
<button type="button" id="forms-decline">Decline</button>
<button type="button" id="forms-url-open">Open</button>
</div>
<p id="forms-result" hidden></p>
<script type="application/json" id="forms-url-data">{data}</script>
<script>
"use strict";
(function () {{
  var url = JSON.parse(document.getElementById("forms-url-data").textContent);
  var result = document.getElementById("forms-result");
  function send(action, then) {{
    var post = document.body.getAttribute("data-forms-post");
    fetch(post, {{ method: "POST", headers: {{ "Content-Type": "application/json" }}, body: JSON.stringify({{ action: action }}) }})
      .then(function (r) {{ result.setAttribute("data-forms-sent", r.ok ? "yes" : "refused"); }})
      .catch(function () {{ result.setAttribute("data-forms-sent", "failed"); }});
    result.hidden = false;
    result.textContent = action === "accept" ? "Opened in a new tab." : (action === "decline" ? "Declined." : "Cancelled.");
    if (then) then();
  }}
  document.getElementById("forms-url-open").addEventListener("click", function () {{
    send("accept", function () {{ window.open(url, "_blank", "noopener,noreferrer"); }});
  }});
  document.getElementById("forms-decline").addEventListener("click", function () {{ send("decline"); }});
  document.getElementById("forms-cancel").addEventListener("click", function () {{ send("cancel"); }});
}})();
</script>
</body></html>
"#,
        asking = escape_html(asker.first().map_or("a server", |(_, t)| t.as_str())),
        message = escape_html(&request.message),
        host = escape_html(host),
        before = escape_html(before),
        after = escape_html(after),
        data = script_json(&request.url),
    )
}

/// A JSON string safe inside a `<script>` element.
fn script_json(text: &str) -> String {
    Value::String(text.to_owned())
        .to_string()
        .replace('<', "\\u003c")
        .replace('>', "\\u003e")
        .replace('&', "\\u0026")
        .replace('\u{2028}', "\\u2028")
        .replace('\u{2029}', "\\u2029")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn urls_are_read_with_their_host_apart_and_warned_about() {
        let r = UrlRequest::read("m", "https://user@xn--pple-43d.com/pay?x=1", "e1").unwrap();
        assert_eq!(r.host, "xn--pple-43d.com");
        assert_eq!(r.split(), ("https://user@", "xn--pple-43d.com", "/pay?x=1"));
        assert_eq!(r.warnings.len(), 2, "{:?}", r.warnings);
        let plain = UrlRequest::read("m", "http://example.com/", "").unwrap();
        assert!(plain.warnings[0].contains("not https"));
        assert!(UrlRequest::read("m", "http://127.0.0.1:9/x", "")
            .unwrap()
            .warnings
            .is_empty());
        for bad in [
            "javascript:alert(1)",
            "file:///etc/passwd",
            "not a url",
            "data:text/html,x",
        ] {
            assert!(UrlRequest::read("m", bad, "").is_err(), "{bad}");
        }
    }

    #[test]
    fn the_consent_page_shows_text_not_markup() {
        let r = UrlRequest::read("<b>pay</b>", "https://pay.example.com/a?b=<i>", "e").unwrap();
        let page = consent_page(&r, &[("Asked by".into(), "<s>x</s>".into())]);
        assert!(!page.contains("<b>pay"), "{page}");
        assert!(!page.contains("<s>x"), "{page}");
        assert!(!page.contains("b=<i>"), "{page}");
        assert!(page.contains("<span id=\"forms-url-host\">pay.example.com</span>"));
    }

    #[test]
    fn url_responses_take_no_content() {
        assert!(url_response(serde_json::json!({"action": "accept"})).is_ok());
        assert!(url_response(serde_json::json!({"action": "accept", "content": {}})).is_err());
        assert!(url_response(serde_json::json!({"action": "yes"})).is_err());
    }
}
