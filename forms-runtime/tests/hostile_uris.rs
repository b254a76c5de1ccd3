//! Regression tests of the security review of URI, file and whitespace rules (R8, R24–R27,
//! V3, V6), through the public API only: `DataForm::from_json`, `check_response` and the
//! error's `code` and `message`; and a differential test of the URI rules against the WHATWG
//! parser of the `url` crate.
// Test code: a failed unwrap, expect, index or panic is a failed test.
#![allow(clippy::restriction)]

use forms_runtime::rules as forms_rules;
use forms_runtime::DataForm;

/// A form of one question, given as the JSON of that question.
fn form_with(question: &str) -> String {
    format!(r#"{{"message":"Pick","questions":[{question}]}}"#)
}

/// A form whose one `resources` question offers a resource with `uri`.
fn resource_form(uri: &str) -> String {
    let uri = serde_json::to_string(uri).unwrap();
    form_with(&format!(
        r#"{{"id":"r","type":"resources","title":"R","required":false,
            "options":[{{"uri":{uri},"name":"n","title":"t"}}]}}"#
    ))
}

/// A form whose one choice option has an image with `src`.
fn image_form(src: &str) -> String {
    let src = serde_json::to_string(src).unwrap();
    form_with(&format!(
        r#"{{"id":"c","type":"single_select","title":"C","required":false,
            "options":[{{"id":"a","title":"A","thumbnail":{{"src":{src}}}}}]}}"#
    ))
}

/// The `invalid_arguments` message of a refused form; panics when the form is accepted.
fn refused_form(json: &str) -> String {
    let err = DataForm::from_json(json).expect_err(json);
    assert_eq!(
        err.code().as_str(),
        "invalid_arguments",
        "{}",
        err.message()
    );
    err.message().to_owned()
}

/// A `files` question offering `offered`, at most 4 items.
fn files_form(offered: &[&str]) -> DataForm {
    let options: Vec<String> = offered
        .iter()
        .map(|u| format!(r#"{{"uri":"{u}","name":"n","title":"t"}}"#))
        .collect();
    let json = form_with(&format!(
        r#"{{"id":"f","type":"files","title":"F","required":false,"maxItems":4,
            "options":[{}]}}"#,
        options.join(",")
    ));
    DataForm::from_json(&json).unwrap()
}

/// An accepting response with `items` as the answer to the `files` question `f`.
fn files_answer(items: &[&str]) -> String {
    format!(
        r#"{{"action":"accept","content":{{"f":{}}}}}"#,
        serde_json::to_string(items).unwrap()
    )
}

/// The `invalid_response` message of a refused response.
fn refused_response(form: &DataForm, response: &str) -> String {
    let Err(err) = form.check_response(response) else {
        panic!("accepted: {response}");
    };
    assert_eq!(err.code().as_str(), "invalid_response", "{}", err.message());
    err.message().to_owned()
}

// ---------------------------------------------------------------------------------------------
// Whitespace (R8, V3) and lone surrogates

#[test]
fn r8_title_of_only_feff_is_refused() {
    let json = form_with(r#"{"id":"q","type":"text","title":"\ufeff","required":false}"#);
    let message = refused_form(&json);
    assert!(message.contains("questions[0].title"), "{message}");
    assert!(message.contains("(R8)"), "{message}");
}

#[test]
fn r8_title_of_only_0085_is_accepted() {
    let json = form_with(r#"{"id":"q","type":"text","title":"\u0085","required":false}"#);
    let form = DataForm::from_json(&json).unwrap();
    assert_eq!(form.questions()[0].title, "\u{85}");
}

#[test]
fn r8_title_of_80_characters_after_a_leading_feff_is_accepted_trimmed() {
    let eighty = "t".repeat(80);
    let json = form_with(&format!(
        r#"{{"id":"q","type":"text","title":"\ufeff{eighty}","required":false}}"#
    ));
    let form = DataForm::from_json(&json).unwrap();
    assert_eq!(form.questions()[0].title, eighty);
}

#[test]
fn v3_required_text_of_only_feff_is_refused() {
    let json = form_with(r#"{"id":"q","type":"text","title":"Q","required":true}"#);
    let form = DataForm::from_json(&json).unwrap();
    let message = refused_response(&form, r#"{"action":"accept","content":{"q":"\ufeff"}}"#);
    assert!(message.contains("content.q"), "{message}");
    assert!(message.contains("(V3)"), "{message}");
    assert!(form
        .check_response(r#"{"action":"accept","content":{"q":"\u0085"}}"#)
        .is_ok());
}

#[test]
fn r8_lone_surrogate_in_json_is_refused_as_such() {
    for title in [r"\ud800", r"\udc00", r"\ud800\u0041", r"x\ud800y"] {
        let json = form_with(&format!(
            r#"{{"id":"q","type":"text","title":"{title}","required":false}}"#
        ));
        let message = refused_form(&json);
        assert!(message.contains("lone surrogate"), "{title}: {message}");
    }
    let json = form_with(r#"{"id":"q","type":"text","title":"Q","required":false}"#);
    let form = DataForm::from_json(&json).unwrap();
    let message = refused_response(&form, r#"{"action":"accept","content":{"q":"\ud800"}}"#);
    assert!(message.contains("lone surrogate"), "{message}");
    assert!(message.contains("(V1)"), "{message}");
    // A proper pair is a character.
    let json = form_with(r#"{"id":"q","type":"text","title":"\ud83d\ude00","required":false}"#);
    assert_eq!(
        DataForm::from_json(&json).unwrap().questions()[0].title,
        "\u{1f600}"
    );
}

// ---------------------------------------------------------------------------------------------
// Differential: what the rules accept, a WHATWG parser reads the same way (R24–R27)

/// URIs the rules accept, as resource identities or image sources.
const ACCEPTED: &[&str] = &[
    "https://example.com/verified-business-review",
    "https://example.com",
    "https://example.com/",
    "HTTPS://EXAMPLE.COM/Path?Q=1#F",
    "HtTpS://Example.com/x",
    "http://example.com/a/b%20c?x=1&y=2#frag",
    "https://example.com:8443/a",
    "https://example.com:443/a",
    "https://example.com:0/a",
    "https://example.com:65535/a",
    "https://example.com:00080/a",
    "https://example.com:/a",
    "https://1.2.3.4/",
    "https://255.255.255.255:1/",
    "https://1.a/",
    "https://a..b/",
    "https://.../",
    "https://example.com./x",
    "https://a_b.example/x",
    "https://a~b.example/x",
    "https://a!$&'()*+,;=b.example/",
    "https://xn--bcher-kva.example/",
    "https://[::1]/",
    "https://[2001:db8::1]:8080/x",
    "https://[::FFFF:1.2.3.4]/",
    "https://example.com/a%2e%2e/b",
    "https://example.com/a..b/.c/..d",
    "https://example.com/a//b",
    "https://example.com/%2F%5C",
    "https://example.com/a@b:c",
    "https://example.com/?q=don't&x=(1)",
    "https://example.com/?a=b?c&d=/e",
    "https://example.com/#/route?page=2",
    "https://example.com/?author=1&monkey=2&keyword=3&authority=4&authuser=0",
    "https://sdmntprwestus.oaiusercontent.com/f.png?se=1&sig=abc",
    "ws://example.com/socket",
    "wss://example.com:9000/socket",
    "ftp://ftp.example.com/pub/file.txt",
    "file:///C:/x",
    "file:///tmp/a.csv",
    "file://server/share/x",
    "urn:isbn:0451450523",
    "urn:a/../b",
    "mailto:someone@example.com",
    "foo:",
    "foo:///x",
    "foo://h",
    "foo://H/Path",
    "foo://ex%41mple/x",
    "foo://h:80/x",
    "git+ssh://git.example.com/repo.git",
    "s3://bucket/key/path.csv",
    "x-y.z:1",
];

/// URIs a WHATWG parser reads differently from RFC 3986, or that hide credentials, a share or
/// a port out of range: the rules refuse each one.
const HOSTILE: &[&str] = &[
    "https:user:secret@example.com/x",
    "https:/user:secret@example.com/x",
    "HTTPS:user:secret@example.com/x",
    "http:user:pw@example.com/x",
    "https:example.com/x",
    "https:///user:pw@example.com/x",
    "https:\\\\user:pw@example.com\\x",
    "https:/\\example.com/x",
    "https://example.com\\@evil.com/",
    "https://user:secret@example.com/x",
    "https://user@example.com/x",
    "https://@example.com/x",
    "https://:pw@example.com/x",
    " https://example.com/",
    "https://example.com/ ",
    "\u{1}https://example.com/",
    "https://example.com/\u{1f}",
    "\u{7f}https://example.com/",
    "ht\ttps://example.com/",
    "https://exa\tmple.com/",
    "https://example.com/a\nb",
    "https://example.com/a\rb",
    "https://ex%61mple.com/",
    "https://%2e%2e/x",
    "https://example%2Ecom/x",
    "https://0x7f.1/",
    "https://127.1/",
    "https://2130706433/",
    "https://017.0.0.1/",
    "https://1.2.3.4./",
    "https://a.1/",
    "https://[v1.x]/",
    "https://[fe80::1%25eth0]/",
    "https://example.com:99999999999999999999/x",
    "https://example.com:65536/x",
    "https://example.com:8o/x",
    "https://example.com/a/../b",
    "https://example.com/a/%2e%2E/b",
    "https://example.com/.%2e/b",
    "https://example.com/?token%5B%5D=1",
    "https://example.com/?+token=1",
    "https://example.com/?accessToken=1",
    "https://example.com/?access-token=1",
    "https://example.com/?private_token=1",
    "https://example.com/?sessionToken=1",
    "https://example.com/?jwt=1",
    "https://example.com/?X-Amz-Signature=1",
    "https://example.com/#access_token=1",
    "https://example.com/?api+key=1",
    "https://example.com/?APIKey=1",
    "foo://:80/x",
    "foo://h/a/../b",
    "file://localhost:80/x",
    "file:////server/share/a.csv?token=1",
];

/// The default port of a WHATWG special scheme.
fn default_port(scheme: &str) -> Option<u16> {
    match scheme {
        "http" | "ws" => Some(80),
        "https" | "wss" => Some(443),
        "ftp" => Some(21),
        _ => None,
    }
}

/// Asserts `url::Url::parse` reads `uri` as `forms_rules::parse_uri` does: the same scheme,
/// host, port, path, query and fragment, and no username or password.
fn assert_read_alike(uri: &str) {
    let ours = forms_rules::parse_uri(uri).unwrap_or_else(|| panic!("{uri:?}: not parsed"));
    let theirs = url::Url::parse(uri).unwrap_or_else(|e| panic!("{uri:?}: WHATWG: {e}"));
    let scheme = ours.scheme.to_ascii_lowercase();
    assert_eq!(theirs.scheme(), scheme, "{uri:?}: scheme");
    let special = matches!(
        scheme.as_str(),
        "http" | "https" | "ws" | "wss" | "ftp" | "file"
    );
    assert_eq!(theirs.username(), "", "{uri:?}: username");
    assert_eq!(theirs.password(), None, "{uri:?}: password");
    // The host: an IPv6 literal by address, a special host up to ASCII case (`localhost` is
    // the empty host of a `file` URI), any other host as written.
    let their_host = theirs.host_str().unwrap_or("");
    if let Some(inner) = ours.host.strip_prefix('[') {
        let inner = inner.strip_suffix(']').unwrap();
        let ip: std::net::Ipv6Addr = inner.parse().unwrap();
        assert_eq!(theirs.host(), Some(url::Host::Ipv6(ip)), "{uri:?}: host");
    } else if special {
        let mut host = ours.host.to_ascii_lowercase();
        if scheme == "file" && host == "localhost" {
            host.clear();
        }
        assert_eq!(their_host, host, "{uri:?}: host");
    } else {
        assert_eq!(their_host, ours.host, "{uri:?}: host");
    }
    // The port, by number; none means the scheme's default.
    let port = match ours.port.filter(|p| !p.is_empty()) {
        Some(p) => Some(p.parse::<u16>().unwrap()),
        None => default_port(&scheme),
    };
    assert_eq!(theirs.port_or_known_default(), port, "{uri:?}: port");
    // The path: WHATWG writes an empty special path as `/`.
    let path = if special && ours.path.is_empty() {
        "/"
    } else {
        ours.path
    };
    assert_eq!(theirs.path(), path, "{uri:?}: path");
    // The query: WHATWG writes `'` in a special query as `%27`, the same character to a server.
    let query = ours.query.map(|q| {
        if special {
            q.replace('\'', "%27")
        } else {
            q.to_owned()
        }
    });
    assert_eq!(theirs.query(), query.as_deref(), "{uri:?}: query");
    assert_eq!(theirs.fragment(), ours.fragment, "{uri:?}: fragment");
}

#[test]
fn r26_rules_and_whatwg_read_every_accepted_uri_alike() {
    let mut compared = 0;
    for &uri in ACCEPTED.iter().chain(HOSTILE) {
        let resource = forms_rules::check_resource_uri(uri).is_ok();
        let image = forms_rules::check_image_src(uri).is_ok();
        if resource || image {
            assert_read_alike(uri);
            compared += 1;
        }
        if let Ok(file) = forms_rules::check_file_uri(uri) {
            let theirs = url::Url::parse(uri).unwrap();
            assert_eq!(theirs.host_str(), None, "{uri:?}");
            assert_eq!(theirs.username(), "", "{uri:?}");
            let ours = forms_rules::parse_uri(uri).unwrap();
            assert_eq!(theirs.path(), ours.path, "{uri:?}");
            assert_eq!(
                theirs
                    .to_file_path()
                    .ok()
                    .and_then(|p| p.to_str().map(str::to_owned)),
                Some(file.path),
                "{uri:?}"
            );
        }
    }
    assert_eq!(compared, ACCEPTED.len());
    for &uri in ACCEPTED {
        // The signed image host's `sig` is accepted on images only.
        let only_image = uri.contains("sig=");
        assert_eq!(
            forms_rules::check_resource_uri(uri).is_ok(),
            !only_image,
            "{uri:?}"
        );
    }
    for &uri in HOSTILE {
        assert!(forms_rules::check_resource_uri(uri).is_err(), "{uri:?}");
        assert!(forms_rules::check_image_src(uri).is_err(), "{uri:?}");
    }
}

#[test]
fn r26_https_credentials_without_slashes_are_refused_in_forms() {
    for uri in [
        "https:user:secret@example.com/x",
        "https:/user:secret@example.com/x",
    ] {
        let message = refused_form(&resource_form(uri));
        assert!(message.contains("questions[0].options[0].uri"), "{message}");
        let message = refused_form(&image_form(uri));
        assert!(message.contains("thumbnail.src"), "{message}");
        assert!(message.contains("(R25)"), "{message}");
    }
}

#[test]
fn r24_r25_ports_above_65535_are_refused_in_forms() {
    let uri = "https://example.com:99999999999999999999/x";
    let message = refused_form(&resource_form(uri));
    assert!(message.contains("(R24)"), "{message}");
    let message = refused_form(&image_form(uri));
    assert!(message.contains("(R25)"), "{message}");
    assert!(DataForm::from_json(&resource_form("https://example.com:65535/x")).is_ok());
}

#[test]
fn r26_credential_params_by_another_spelling_are_refused_in_forms() {
    for name in [
        "token%5B%5D",
        "+token",
        "accessToken",
        "access-token",
        "private_token",
        "sessionToken",
        "jwt",
    ] {
        let uri = format!("https://example.com/x?{name}=1");
        let message = refused_form(&resource_form(&uri));
        assert!(message.contains("(R26)"), "{name}: {message}");
        let message = refused_form(&image_form(&uri));
        assert!(message.contains("(R26)"), "{name}: {message}");
    }
    let ok = "https://example.com/x?author=1&monkey=2&keyword=3&page=4&sort=5";
    assert!(DataForm::from_json(&resource_form(ok)).is_ok());
}

// ---------------------------------------------------------------------------------------------
// The same file twice (V6)

#[test]
fn v6_offered_file_and_user_added_spelling_of_it_are_one_item() {
    let form = files_form(&["file:///tmp/a.csv", "https://example.com/b.csv"]);
    for items in [
        ["file:///tmp/a.csv", "file://localhost/tmp/a.csv"],
        ["file://localhost/tmp/a.csv", "file:///tmp/a.csv"],
        ["file:///tmp/a.csv", "file:///tmp/%61.csv"],
        ["file:///tmp/%61.csv", "file:///tmp/a.csv"],
        ["file:///tmp/a.csv", "FILE:///tmp/a.csv"],
    ] {
        let message = refused_response(&form, &files_answer(&items));
        assert!(message.contains("content.f[1]"), "{items:?}: {message}");
        assert!(
            message.contains("given more than once"),
            "{items:?}: {message}"
        );
        assert!(message.contains("(V6)"), "{items:?}: {message}");
    }
    // Distinct files stay distinct.
    for items in [
        &["file:///tmp/a.csv", "file:///tmp/b.csv"][..],
        &[
            "file:///tmp/a.csv",
            "https://example.com/b.csv",
            "file:///tmp/A.csv",
        ],
    ] {
        assert!(
            form.check_response(&files_answer(items)).is_ok(),
            "{items:?}"
        );
    }
}

#[test]
fn v6_two_offered_spellings_of_one_file_are_one_item() {
    let form = files_form(&["file:///srv/x.csv", "file://localhost/srv/x.csv"]);
    let message = refused_response(
        &form,
        &files_answer(&["file:///srv/x.csv", "file://localhost/srv/x.csv"]),
    );
    assert!(message.contains("(V6)"), "{message}");
    assert!(form
        .check_response(&files_answer(&["file://localhost/srv/x.csv"]))
        .is_ok());
}

#[test]
fn r27_remote_shares_and_reshaped_paths_are_refused_as_user_added_files() {
    let form = files_form(&[]);
    for uri in [
        "file:////server/share/a.csv",
        "file://localhost//server/share/a.csv",
        "file://server/share/a.csv",
        "file:///%2Fserver/share/a.csv",
        "file:///a%5Cb.csv",
        "file:///home/me/../../etc/passwd",
        "file:///home/me/%2e%2e/x",
        "file:///a%00.csv",
        "file:///a%C2%85.csv",
    ] {
        let message = refused_response(&form, &files_answer(&[uri]));
        assert!(message.contains("see R27 (V6)"), "{uri}: {message}");
    }
    for uri in [
        "file:///home/me/a.csv",
        "file://localhost/home/me/a.csv",
        "file:///C:/Users/me/a.csv",
    ] {
        assert!(form.check_response(&files_answer(&[uri])).is_ok(), "{uri}");
    }
}

// ---------------------------------------------------------------------------------------------
// Image data URIs (R25)

#[test]
fn r25_data_uris_are_read_case_insensitively_with_parameters() {
    for ok in [
        "data:image/png;BASE64,AAAA",
        "DATA:IMAGE/PNG;base64,AAAA",
        "data:image/png;name=a.png;base64,AAAA",
    ] {
        assert!(DataForm::from_json(&image_form(ok)).is_ok(), "{ok}");
    }
    for bad in [
        "data:image/SVG+XML;BASE64,PHN2Zz4=",
        "data:image/svg+xml;name=a.png;base64,PHN2Zz4=",
    ] {
        let message = refused_form(&image_form(bad));
        assert!(message.contains("(R25)"), "{bad}: {message}");
    }
}
