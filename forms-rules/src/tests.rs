//! Unit tests of the trickier rules: URI parsing, credential parameters, data URIs, `accept`
//! tokens and selection-limit defaults.

use crate::uri::percent_decode;
use crate::*;

fn parts(s: &str) -> UriParts<'_> {
    parse_uri(s).unwrap_or_else(|| panic!("{s} should parse"))
}

// ---------------------------------------------------------------------------------------------
// parse_uri

#[test]
fn parse_uri_splits_the_components() {
    let u = parts("https://user:pw@example.com:8443/a/b%20c?x=1&y=2#frag");
    assert_eq!(u.scheme, "https");
    assert_eq!(u.authority, Some("user:pw@example.com:8443"));
    assert_eq!(u.userinfo, Some("user:pw"));
    assert_eq!(u.host, "example.com");
    assert_eq!(u.port, Some("8443"));
    assert_eq!(u.path, "/a/b%20c");
    assert_eq!(u.query, Some("x=1&y=2"));
    assert_eq!(u.fragment, Some("frag"));

    // No authority: an opaque path.
    let u = parts("urn:isbn:0451450523");
    assert_eq!((u.authority, u.host, u.path), (None, "", "isbn:0451450523"));
    let u = parts("mailto:someone@example.com");
    assert_eq!((u.authority, u.userinfo), (None, None));
    // An empty authority.
    let u = parts("file:///etc/hosts");
    assert_eq!((u.authority, u.host, u.path), (Some(""), "", "/etc/hosts"));
    // A `?` inside the fragment belongs to the fragment.
    let u = parts("https://e.com/p#a?b=c");
    assert_eq!((u.query, u.fragment), (None, Some("a?b=c")));
    // A `?` inside the query belongs to the query.
    let u = parts("https://e.com/p?a=b?c");
    assert_eq!(u.query, Some("a=b?c"));
    // An empty port is allowed by RFC 3986.
    assert_eq!(parts("https://e.com:/x").port, Some(""));
}

#[test]
fn parse_uri_ip_literals() {
    let u = parts("https://[2001:db8::1]:8080/x");
    assert_eq!((u.host, u.port), ("[2001:db8::1]", Some("8080")));
    let u = parts("https://[::1]/");
    assert_eq!((u.host, u.port), ("[::1]", None));
    let u = parts("https://[::ffff:192.0.2.1]");
    assert_eq!(u.host, "[::ffff:192.0.2.1]");
    for bad in [
        "https://[v1.fe80::a+en1]/x", // IPvFuture: WHATWG parsers cannot read it
        "https://[VF.x:y]/",
        "https://[v.x]/",     // no version digits
        "https://[v1.]/",     // nothing after the dot
        "https://[v1x]/",     // no dot
        "https://[vg.x]/",    // version not hexadecimal
        "https://[1::2::3]/", // two `::`
        "https://[::1/",      // unclosed
        "https://::1/",       // unbracketed
        "https://[::1]x/",    // junk after the literal
        "https://[::1]:8a/",  // port not digits
        "https://[fe80::1%25eth0]/",
    ] {
        assert!(parse_uri(bad).is_none(), "{bad}");
    }
    assert_eq!(parts("https://127.0.0.1:80/").host, "127.0.0.1");
}

#[test]
fn parse_uri_ports_and_userinfo() {
    assert_eq!(parts("http://h:0/").port, Some("0"));
    assert!(parse_uri("http://h:80:90/").is_none());
    assert!(parse_uri("http://h:-1/").is_none());
    let u = parts("https://a%40b:p%3Aw@h/");
    assert_eq!((u.userinfo, u.host), (Some("a%40b:p%3Aw"), "h"));
    // An empty userinfo is still userinfo.
    assert_eq!(parts("https://@h/").userinfo, Some(""));
    // Two `@`: the first belongs to a userinfo, where `@` is not allowed.
    assert!(parse_uri("https://a@b@h/").is_none());
}

#[test]
fn parse_uri_percent_escapes_and_characters() {
    assert!(parse_uri("https://e.com/%41%7e").is_some());
    // WHATWG decodes escapes in the host of a special scheme only.
    assert!(parse_uri("https://ex%41mple.com/").is_none());
    assert!(parse_uri("foo://ex%41mple.com/").is_some());
    for bad in [
        "https://e.com/%",
        "https://e.com/%4",
        "https://e.com/%4g",
        "https://e.com/a%",
        "https://e.com/?q=%zz",
        "https://e.com/#%",
        "https://e.com/a b",
        "https://e.com/é",
        "https://e.com/a\"b",
        "https://e.com/<x>",
        "https://e.com/a#b#c",
        "https://e.com/\\",
        "https://exa mple.com/",
    ] {
        assert!(parse_uri(bad).is_none(), "{bad}");
    }
}

#[test]
fn parse_uri_refuses_relative_references_and_bad_schemes() {
    for bad in [
        "",
        "/abs/path",
        "rel/path",
        "//host/path",
        ":nothing",
        "1http://e.com",
        "ht tp://e.com",
        "a/b:c",
        "?q",
        "#f",
    ] {
        assert!(parse_uri(bad).is_none(), "{bad:?}");
    }
    assert_eq!(parts("git+ssh://h/x").scheme, "git+ssh");
    assert_eq!(parts("x-y.z:1").scheme, "x-y.z");
}

#[test]
fn percent_decode_decodes_utf8_only() {
    assert_eq!(percent_decode("a%20b%C3%A9").as_deref(), Some("a bé"));
    assert_eq!(percent_decode("%ff"), None);
    assert_eq!(percent_decode("%4"), None);
}

// ---------------------------------------------------------------------------------------------
// Credentials (R26)

#[test]
fn credential_params_are_matched_case_insensitively_and_decoded() {
    for name in [
        "token",
        "TOKEN",
        "Access_Token",
        "X-Amz-Signature",
        "x-goog-credential",
    ] {
        assert!(is_credential_param(name), "{name}");
    }
    assert!(!is_credential_param("tokenizer"));
    assert!(!is_credential_param("page"));
    for uri in [
        "https://e.com/?token=1",
        "https://e.com/?a=1&ToKeN=1",
        "https://e.com/?a=1;api_key=1",
        "https://e.com/?%74oken=1",
        "https://e.com/?access%5Ftoken=1",
        "https://e.com/?key",
        "https://e.com/?password=",
        "https://e.com/?X-Amz-Credential=a&X-Amz-Signature=b",
        "https://e.com/#access_token=abc",
        "https://e.com/#state=1&id_token=abc",
        "https://e.com/?a=1#Secret=2",
        "https://user@e.com/",
        "https://user:pw@e.com/",
        "https://:pw@e.com/",
    ] {
        let v = check_resource_uri(uri).expect_err(uri);
        assert_eq!(v.rule, Rule::R26, "{uri}");
    }
    for uri in [
        "https://e.com/?page=2&sort=asc",
        "https://e.com/?monkey=1", // contains `key`, is not `key`
        "https://e.com/?tokenizer=1",
        "https://e.com/token/123", // in the path, not a parameter
        "https://e.com/?q=token",  // as a value
        "https://e.com/#section-2",
    ] {
        assert!(check_resource_uri(uri).is_ok(), "{uri}");
    }
}

#[test]
fn credentials_behind_a_question_mark_in_a_fragment_are_found() {
    // Single-page-app routes put parameters after a path in the fragment.
    for uri in [
        "https://e.com/#/callback?access_token=abc",
        "https://e.com/#!/view?state=1&token=abc",
        "https://e.com/?next=/home?token=abc",
    ] {
        let v = check_resource_uri(uri).expect_err(uri);
        assert_eq!(v.rule, Rule::R26, "{uri}");
    }
}

#[test]
fn the_sig_exception_is_scoped_to_images_on_the_signed_host() {
    assert!(is_signed_image_host("sdmntpr.oaiusercontent.com"));
    assert!(is_signed_image_host("sdmntprwestus3.oaiusercontent.com"));
    assert!(is_signed_image_host("SDMNTPRWestUS.OaiUserContent.COM"));
    for host in [
        "sdmntpr-w.oaiusercontent.com",
        "xsdmntpr.oaiusercontent.com",
        "sdmntpr.oaiusercontent.com.evil.com",
        "sdmntpr.oaiusercontent.co",
        "a.sdmntpr.oaiusercontent.com",
        "sdmntpr.oaiusercontent.com.",
        "files.oaiusercontent.com",
    ] {
        assert!(!is_signed_image_host(host), "{host}");
    }
    let signed = "https://sdmntprwestus.oaiusercontent.com/f.png?se=1&sig=abc";
    assert!(check_image_src(signed).is_ok());
    assert!(check_image_src("https://sdmntprwestus.oaiusercontent.com:443/f.png?SIG=abc").is_ok());
    // Other credentials stay refused on that host, in the query or the fragment.
    for bad in [
        "https://sdmntprwestus.oaiusercontent.com/f.png?sig=abc&token=x",
        "https://sdmntprwestus.oaiusercontent.com/f.png?sig=abc#signature=x",
        "https://u:p@sdmntprwestus.oaiusercontent.com/f.png?sig=abc",
        "https://example.com/f.png?sig=abc",
    ] {
        assert_eq!(check_image_src(bad).unwrap_err().rule, Rule::R26, "{bad}");
    }
    // A resource identity URI never gets the exception.
    assert_eq!(check_resource_uri(signed).unwrap_err().rule, Rule::R26);
}

// ---------------------------------------------------------------------------------------------
// Images (R25)

#[test]
fn image_sources_are_https_or_raster_data_uris() {
    assert!(check_image_src("HTTPS://Example.com/a.png").is_ok());
    for bad in [
        "http://e.com/a.png",
        "file:///a.png",
        "ftp://e.com/a.png",
        "https:/a.png",
        "https:a.png",
        "https://",
        "//e.com/a.png",
        "a.png",
        "data:image/svg+xml;base64,PHN2Zz4=",
        "data:image/svg+xml,<svg/>",
        "data:text/plain;base64,AAAA",
        "data:image/bmp;base64,Qk0=",
        "data:image/png,AAAA",
    ] {
        assert_eq!(check_image_src(bad).unwrap_err().rule, Rule::R25, "{bad}");
    }
    for ty in DATA_URI_IMAGE_TYPES {
        assert!(
            check_image_src(&format!("data:image/{ty};base64,AAAA")).is_ok(),
            "{ty}"
        );
    }
    assert!(check_image_src("data:image/PNG;base64,AAAA").is_ok());
}

#[test]
fn data_uri_base64_padding() {
    for ok in [
        "AAAA", "AAAABB==", "AAAABBB=", "QUJD", "QUI=", "QQ==", "a+b/", // padded
        "QUI", "QQ", // unpadded, a valid length
    ] {
        let src = format!("data:image/png;base64,{ok}");
        assert!(check_image_src(&src).is_ok(), "{ok}");
    }
    for bad in [
        "",      // empty
        "====",  // padding only
        "A===",  // three `=`
        "QQ=",   // padded, length not a multiple of four
        "QUJD=", // padded, length not a multiple of four
        "A",     // one character short of a byte
        "AAAAA", // likewise
        "QU=I",  // `=` inside
        "QU I",  // whitespace
        "QUI-",  // URL-safe alphabet
        "QUI_",
    ] {
        let src = format!("data:image/png;base64,{bad}");
        assert_eq!(
            check_image_src(&src).unwrap_err().rule,
            Rule::R25,
            "{bad:?}"
        );
    }
}

#[test]
fn image_src_length_is_counted_in_characters() {
    let prefix = "data:image/png;base64,";
    let ok = format!(
        "{prefix}{}",
        "A".repeat(limits::IMAGE_SRC_MAX - prefix.len())
    );
    assert!(check_image_src(&ok).is_ok());
    let v = check_image_src(&format!("{ok}AAAA")).unwrap_err();
    assert_eq!(v.rule, Rule::R25);
    assert!(v.problem.contains("found 262148"), "{}", v.problem);
    assert!(check_image_mime_type(&"x".repeat(100)).is_ok());
    assert_eq!(
        check_image_mime_type(&"é".repeat(101)).unwrap_err().rule,
        Rule::R25
    );
}

// ---------------------------------------------------------------------------------------------
// accept (R22)

#[test]
fn accept_tokens() {
    for ok in [
        ".csv",
        ".tar.gz",
        ".c++",
        ".d_ts",
        ".x-y",
        "text/csv",
        "image/*",
        "application/vnd.ms-excel",
        "application/vnd.openxmlformats-officedocument.spreadsheetml.sheet",
        "TEXT/CSV",
    ] {
        assert!(check_accept_token(ok).is_ok(), "{ok}");
    }
    for bad in [
        "",
        ".",
        "csv",
        "*",
        "*/*",
        "*/csv",
        "text/",
        "/csv",
        "text/csv; charset=utf-8",
        "text/csv/x",
        " .csv",
        ".csv ",
        ".c sv",
        ".csv,.tsv",
        "image/svg xml",
        ".é",
    ] {
        assert_eq!(
            check_accept_token(bad).unwrap_err().rule,
            Rule::R22,
            "{bad:?}"
        );
    }
}

#[test]
fn accept_lists_count_and_duplicates_ignoring_case() {
    assert!(check_accept_list(&[".csv", "text/csv"]).is_ok());
    let twelve: Vec<String> = (0..12).map(|i| format!(".e{i}")).collect();
    assert!(check_accept_list(&twelve).is_ok());
    let mut thirteen = twelve.clone();
    thirteen.push(".e12".into());
    let (at, v) = check_accept_list(&thirteen).unwrap_err();
    assert_eq!((at, v.rule), (None, Rule::R22));
    let (at, v) = check_accept_list::<&str>(&[]).unwrap_err();
    assert_eq!((at, v.rule), (None, Rule::R22));
    let (at, v) = check_accept_list(&[".csv", ".tsv", ".CSV"]).unwrap_err();
    assert_eq!((at, v.rule), (Some(2), Rule::R22));
    assert!(v.problem.contains("repeat"), "{}", v.problem);
    let (at, _) = check_accept_list(&["image/*", "Image/*"]).unwrap_err();
    assert_eq!(at, Some(1));
    let (at, _) = check_accept_list(&[".csv", "csv"]).unwrap_err();
    assert_eq!(at, Some(1));
    // Distinct entries that only look alike are fine.
    assert!(check_accept_list(&[".csv", "text/csv", ".csv.gz"]).is_ok());
}

// ---------------------------------------------------------------------------------------------
// Selection limits (R17–R20)

fn limits_of(min: u32, max: u32) -> SelectionLimits {
    SelectionLimits {
        min_items: min,
        max_items: max,
    }
}

#[test]
fn resolve_selection_limits_defaults() {
    use QuestionKind::*;
    // minItems: 1 when required, else 0; maxItems: the option count, or 24 for files.
    assert_eq!(
        resolve_selection_limits(MultiSelect, false, None, None, 5),
        Ok(limits_of(0, 5))
    );
    assert_eq!(
        resolve_selection_limits(MultiSelect, true, None, None, 5),
        Ok(limits_of(1, 5))
    );
    assert_eq!(
        resolve_selection_limits(Resources, true, None, None, 24),
        Ok(limits_of(1, 24))
    );
    assert_eq!(
        resolve_selection_limits(Files, false, None, None, 0),
        Ok(limits_of(0, 24))
    );
    assert_eq!(
        resolve_selection_limits(Files, true, None, None, 3),
        Ok(limits_of(1, 24))
    );
    // The option count caps the default at 24 even when there are more options.
    assert_eq!(
        resolve_selection_limits(MultiSelect, false, None, None, 30),
        Ok(limits_of(0, 24))
    );
    // Given values are kept.
    assert_eq!(
        resolve_selection_limits(MultiSelect, false, Some(2), Some(3), 4),
        Ok(limits_of(2, 3))
    );
    assert_eq!(
        resolve_selection_limits(Files, false, Some(0), Some(1), 0),
        Ok(limits_of(0, 1))
    );
    // Kinds without limits resolve to zeros, and refuse given limits.
    for kind in [Text, SingleSelect, Resource] {
        assert_eq!(
            resolve_selection_limits(kind, true, None, None, 3),
            Ok(limits_of(0, 0))
        );
        assert_eq!(
            resolve_selection_limits(kind, true, Some(1), None, 3),
            Err(SelectionProblem::LimitsNotAllowed)
        );
        assert_eq!(
            resolve_selection_limits(kind, false, None, Some(1), 3),
            Err(SelectionProblem::LimitsNotAllowed)
        );
    }
}

#[test]
fn resolve_selection_limits_problems() {
    use QuestionKind::*;
    use SelectionProblem::*;
    let r = resolve_selection_limits;
    assert_eq!(
        r(Files, false, Some(-1), None, 0),
        Err(MinOutOfRange { found: -1 })
    );
    assert_eq!(
        r(Files, false, Some(25), None, 0),
        Err(MinOutOfRange { found: 25 })
    );
    assert_eq!(r(Files, false, Some(24), None, 0), Ok(limits_of(24, 24)));
    assert_eq!(r(Files, true, Some(0), None, 0), Err(RequiredMinZero));
    assert_eq!(
        r(Files, false, None, Some(0), 0),
        Err(MaxOutOfRange { found: 0 })
    );
    assert_eq!(
        r(Files, false, None, Some(25), 0),
        Err(MaxOutOfRange { found: 25 })
    );
    assert_eq!(
        r(Files, false, Some(3), Some(2), 0),
        Err(MinAboveMax {
            min: 3,
            max: 2,
            max_given: true
        })
    );
    // Files are not bounded by their offered options.
    assert_eq!(r(Files, false, Some(5), Some(10), 2), Ok(limits_of(5, 10)));
    // multi_select and resources are; the problem names the bounds above the count.
    for kind in [MultiSelect, Resources] {
        assert_eq!(
            r(kind, false, None, Some(4), 3),
            Err(AboveOptionCount {
                min: None,
                max: Some(4),
                options: 3
            })
        );
        assert_eq!(
            r(kind, false, Some(4), None, 3),
            Err(AboveOptionCount {
                min: Some(4),
                max: None,
                options: 3
            })
        );
        assert_eq!(
            r(kind, false, Some(4), Some(5), 3),
            Err(AboveOptionCount {
                min: Some(4),
                max: Some(5),
                options: 3
            })
        );
        assert_eq!(r(kind, false, Some(3), Some(3), 3), Ok(limits_of(3, 3)));
        assert_eq!(
            r(kind, false, Some(3), Some(2), 3),
            Err(MinAboveMax {
                min: 3,
                max: 2,
                max_given: true
            })
        );
    }
    // The rules the problems map to.
    assert_eq!(LimitsNotAllowed.rule(Text), Rule::R17);
    assert_eq!(RequiredMinZero.rule(Files), Rule::R18);
    assert_eq!(MaxOutOfRange { found: 0 }.rule(Files), Rule::R19);
    let above = AboveOptionCount {
        min: None,
        max: Some(4),
        options: 3,
    };
    assert_eq!(above.rule(MultiSelect), Rule::R20);
    assert_eq!(TooManyOptions { found: 25 }.rule(Resources), Rule::R15);
}

#[test]
fn selection_problems_name_the_limit_at_fault() {
    use SelectionProblem::*;
    assert_eq!(MinOutOfRange { found: -1 }.limit(), Some(Limit::Min));
    assert_eq!(RequiredMinZero.limit(), Some(Limit::Min));
    assert_eq!(MaxOutOfRange { found: 0 }.limit(), Some(Limit::Max));
    let above = |min, max| AboveOptionCount {
        min,
        max,
        options: 2,
    };
    assert_eq!(above(Some(3), None).limit(), Some(Limit::Min));
    assert_eq!(above(None, Some(3)).limit(), Some(Limit::Max));
    assert_eq!(above(Some(3), Some(3)).limit(), Some(Limit::Max));
    let min_above = |max_given| MinAboveMax {
        min: 3,
        max: 2,
        max_given,
    };
    assert_eq!(min_above(true).limit(), Some(Limit::Max));
    assert_eq!(min_above(false).limit(), Some(Limit::Min));
    assert_eq!(LimitsNotAllowed.limit(), None);
    assert_eq!(TooFewOptions { least: 1 }.limit(), None);
}

#[test]
fn selection_problems_are_worded_once_for_each_spelling_of_the_keys() {
    use QuestionKind::*;
    use SelectionProblem::*;
    let min_above = MinAboveMax {
        min: 3,
        max: 2,
        max_given: true,
    };
    assert_eq!(
        min_above.problem(MultiSelect, LimitKeys::Data),
        "minItems (3) must not exceed maxItems (2)"
    );
    assert_eq!(
        min_above.problem(MultiSelect, LimitKeys::Inline),
        "`minItems` (3) must not exceed `maxItems` (2)"
    );
    assert_eq!(
        min_above.problem(MultiSelect, LimitKeys::Attribute),
        "`min_items` (3) must not exceed `max_items` (2)"
    );
    let defaulted = MinAboveMax {
        min: 3,
        max: 2,
        max_given: false,
    };
    assert_eq!(
        defaulted.problem(Files, LimitKeys::Data),
        "minItems (3) must not exceed maxItems (the default 2)"
    );
    assert_eq!(
        LimitsNotAllowed.problem(Text, LimitKeys::Attribute),
        "`text` questions take no `min_items` or `max_items`; selection limits apply only to \
         multi_select, resources and files"
    );
    assert_eq!(
        MinOutOfRange { found: 30 }.problem(Files, LimitKeys::Data),
        "minItems must be an integer from 0 to 24, found 30"
    );
    assert_eq!(
        MaxOutOfRange { found: 0 }.problem(Files, LimitKeys::Inline),
        "`maxItems` must be an integer from 1 to 24, found 0"
    );
    assert_eq!(
        RequiredMinZero.problem(Resources, LimitKeys::Attribute),
        "`min_items` must be at least 1 when the question is required"
    );
    let above = AboveOptionCount {
        min: Some(3),
        max: Some(4),
        options: 1,
    };
    assert_eq!(
        above.problem(MultiSelect, LimitKeys::Data),
        "minItems (3) and maxItems (4) must not exceed the 1 option offered"
    );
    assert_eq!(
        TooFewOptions { least: 1 }.problem(SingleSelect, LimitKeys::Data),
        "must have at least 1 option"
    );
    assert_eq!(
        TooManyOptions { found: 25 }.problem(SingleSelect, LimitKeys::Data),
        "must have at most 24 options, found 25"
    );
    let v = above.violation(Resources, LimitKeys::Inline);
    assert_eq!(v.rule, Rule::R20);
    assert_eq!(
        v.problem,
        "`minItems` (3) and `maxItems` (4) must not exceed the 1 option offered"
    );
}

#[test]
fn check_selection_limits_messages_name_the_values() {
    use QuestionKind::*;
    let v = check_selection_limits(Files, false, Some(30), None, 0).unwrap_err();
    assert_eq!(v.rule, Rule::R18);
    assert!(v.problem.contains("found 30"), "{}", v.problem);
    let v = check_selection_limits(MultiSelect, false, Some(3), Some(2), 5).unwrap_err();
    assert_eq!(v.rule, Rule::R20);
    assert_eq!(v.problem, "minItems (3) must not exceed maxItems (2)");
    let v = check_selection_limits(SingleSelect, false, Some(1), None, 2).unwrap_err();
    assert_eq!(v.rule, Rule::R17);
    assert!(
        v.problem.starts_with("`single_select` questions take no"),
        "{}",
        v.problem
    );
    let v = check_selection_limits(Resources, false, None, Some(3), 2).unwrap_err();
    assert_eq!(v.rule, Rule::R20);
    assert_eq!(
        v.problem,
        "maxItems (3) must not exceed the 2 options offered"
    );
}

#[test]
fn option_counts() {
    use QuestionKind::*;
    assert!(check_option_count(Files, 0).is_ok());
    assert!(check_option_count(Files, 24).is_ok());
    assert_eq!(check_option_count(Files, 25).unwrap_err().rule, Rule::R16);
    assert_eq!(
        check_option_count(SingleSelect, 0).unwrap_err().rule,
        Rule::R12
    );
    assert_eq!(
        check_option_count(MultiSelect, 25).unwrap_err().rule,
        Rule::R13
    );
    assert_eq!(check_option_count(Resource, 0).unwrap_err().rule, Rule::R14);
    assert!(check_option_count(Resources, 1).is_ok());
}

// ---------------------------------------------------------------------------------------------
// Strings, IDs and files

#[test]
fn lengths_count_scalar_values_and_utf16_units() {
    assert_eq!(char_len("aé😀"), 3);
    assert_eq!(utf16_len("aé😀"), 4);
    assert!(check_title(&"é".repeat(80)).is_ok());
    assert_eq!(check_title(&"😀".repeat(81)).unwrap_err().rule, Rule::R8);
    assert_eq!(check_title("  Report  ").unwrap(), "Report");
    // The message is not trimmed: 80 characters plus a space is too long.
    assert!(check_message(&"x".repeat(80)).is_ok());
    assert_eq!(
        check_message(&format!("{} ", "x".repeat(80)))
            .unwrap_err()
            .rule,
        Rule::R1
    );
}

#[test]
fn ids() {
    assert!(check_id(&format!("a{}", "-".repeat(63))).is_ok());
    assert!(check_id(&format!("a{}", "_".repeat(64))).is_err());
    for bad in ["", "1", "-a", "_a", "a.b", "a b", "aé", "a\n"] {
        assert_eq!(check_id(bad).unwrap_err().rule, Rule::R6, "{bad:?}");
    }
}

#[test]
fn max_length_and_text_answers() {
    assert_eq!(check_max_length(1), Ok(1));
    assert_eq!(check_max_length(16_000), Ok(16_000));
    assert_eq!(check_max_length(0).unwrap_err().rule, Rule::R11);
    assert_eq!(check_max_length(i64::MIN).unwrap_err().rule, Rule::R11);
    assert!(check_text_answer(&"é".repeat(10), 10, true).is_ok());
    assert_eq!(
        check_text_answer(&"é".repeat(11), 10, false)
            .unwrap_err()
            .rule,
        Rule::V3
    );
    assert_eq!(
        check_text_answer(" \t\n", 10, true).unwrap_err().rule,
        Rule::V3
    );
    assert!(check_text_answer("", 10, false).is_ok());
}

#[test]
fn file_uris() {
    assert_eq!(check_file_uri("file:///a/b%20c").unwrap().path, "/a/b c");
    // An encoded separator would change the path's shape once decoded (R27).
    assert_eq!(
        check_file_uri("file:///a/b%2Fc").unwrap_err().rule,
        Rule::R27
    );
    assert_eq!(check_file_uri("file://LocalHost/x").unwrap().path, "/x");
    for bad in [
        "file:/x",
        "file:x",
        "file://h/x",
        "file://localhost:1/x",
        "file://u@/x",
        "file:///x?",
        "file:///x#",
        "file://",
        "file:///%ff",
        "file:///a%00b",
        "files:///x",
    ] {
        assert_eq!(check_file_uri(bad).unwrap_err().rule, Rule::R27, "{bad}");
    }
}

// ---------------------------------------------------------------------------------------------
// Answer item counts

#[test]
fn v4_v6_v7_answer_item_count_within_the_limits() {
    let limits = SelectionLimits {
        min_items: 2,
        max_items: 3,
    };
    for kind in [QuestionKind::MultiSelect, QuestionKind::Resources] {
        for count in [2, 3] {
            assert!(check_answer_count(kind, count, limits, true).is_ok());
        }
        let rule = kind.answer_rule();
        let over = check_answer_count(kind, 4, limits, true).unwrap_err();
        assert_eq!(over.rule, rule);
        assert_eq!(over.problem, "must have at most 3 items, found 4");
        let under = check_answer_count(kind, 1, limits, false).unwrap_err();
        assert_eq!(under.problem, "must have at least 2 items, found 1");
        // V7: an optional question may come back empty; a required one may not.
        assert!(check_answer_count(kind, 0, limits, false).is_ok());
        assert_eq!(
            check_answer_count(kind, 0, limits, true).unwrap_err().rule,
            rule
        );
    }
    let one = SelectionLimits {
        min_items: 1,
        max_items: 1,
    };
    let v = check_answer_count(QuestionKind::Files, 2, one, false).unwrap_err();
    assert_eq!(v.to_string(), "must have at most 1 item, found 2 (V6)");
    assert_eq!(QuestionKind::MultiSelect.answer_rule(), Rule::V4);
    assert_eq!(QuestionKind::Text.answer_rule(), Rule::V3);
    assert_eq!(QuestionKind::Resource.answer_rule(), Rule::V5);
}

// ---------------------------------------------------------------------------------------------
// Uniqueness and preselection

#[test]
fn r5_repeated_keys_name_each_repeat_and_its_first_use() {
    assert_eq!(repeated_keys(["a", "b", "c"]).count(), 0);
    let repeats: Vec<_> = repeated_keys(["a", "b", "a", "B", "b", "a"]).collect();
    // Exact comparison: `B` is not `b`.
    assert_eq!(repeats, [(2, 0), (4, 1), (5, 0)]);
    let many: Vec<String> = (0..10_000).map(|i| format!("k{}", i % 5_000)).collect();
    let repeats: Vec<_> = repeated_keys(many.iter().map(String::as_str)).collect();
    assert_eq!(repeats.len(), 5_000);
    assert_eq!(repeats[0], (5_000, 0));
}

#[test]
fn r21_preselection_keys_are_refused() {
    for key in [
        "default",
        "defaults",
        "selected",
        "preselected",
        "selection",
    ] {
        let v = check_preselection_key(key).unwrap();
        assert_eq!(v.rule, Rule::R21, "{key}");
    }
    for key in ["title", "Default", "selectionMode", "options"] {
        assert!(check_preselection_key(key).is_none(), "{key}");
    }
}

#[test]
fn r3_question_keys_are_the_common_ones_and_each_kinds_own() {
    let mut union: Vec<&str> = keys::QUESTION_COMMON.to_vec();
    for kind in QuestionKind::ALL {
        for key in keys::question_kind(kind) {
            assert!(!keys::QUESTION_COMMON.contains(key), "{kind}: {key}");
            if !union.contains(key) {
                union.push(key);
            }
        }
    }
    assert_eq!(union, keys::QUESTION_ANY);
    assert!(!keys::question_kind(QuestionKind::Text).contains(&"options"));
    assert!(keys::question_kind(QuestionKind::Files).contains(&"accept"));
    assert!(!keys::question_kind(QuestionKind::Resources).contains(&"accept"));
    assert!(!keys::RESOURCE_OPTION.contains(&"_meta"));
}

// ---------------------------------------------------------------------------------------------
// JavaScript whitespace (trimming and "not blank" in R1, R8, R23, R24, V3)

#[test]
fn r8_js_whitespace_differs_from_rust_only_on_feff_and_0085() {
    for c in (0..=0x10_ffff).filter_map(char::from_u32) {
        let expected = match c {
            '\u{feff}' => true,
            '\u{85}' => false,
            c => c.is_whitespace(),
        };
        assert_eq!(is_js_whitespace(c), expected, "U+{:04X}", u32::from(c));
    }
    assert_eq!(js_trim("\u{feff}\u{2028} a b \u{3000}\u{a0}"), "a b");
    assert_eq!(js_trim("\u{85}a\u{85}"), "\u{85}a\u{85}");
    assert_eq!(js_trim_start("\u{feff}a "), "a ");
    assert_eq!(js_trim_end(" a\u{feff}"), " a");
    assert!(is_js_blank(""));
    assert!(is_js_blank(
        "\u{feff}\t\u{b}\u{c}\r\n\u{1680}\u{202f}\u{205f}"
    ));
    assert!(!is_js_blank("\u{85}"));
    assert!(!is_js_blank("\u{180e}")); // Mongolian vowel separator: Cf since Unicode 6.3
    assert!(!is_js_blank("\u{200b}")); // zero width space: Cf
}

#[test]
fn r8_title_of_only_feff_is_refused() {
    let v = check_title("\u{feff}").unwrap_err();
    assert_eq!(v.rule, Rule::R8);
    assert_eq!(v.problem, "must not be empty or only whitespace");
    assert_eq!(
        check_title(" \u{feff}\u{3000} ").unwrap_err().rule,
        Rule::R8
    );
}

#[test]
fn r8_title_of_only_0085_is_accepted() {
    assert_eq!(check_title("\u{85}").unwrap(), "\u{85}");
    assert_eq!(check_title("\u{85}a\u{85}").unwrap(), "\u{85}a\u{85}");
}

#[test]
fn r8_title_of_80_characters_after_a_leading_feff_is_accepted_trimmed() {
    let eighty = "a".repeat(80);
    let title = format!("\u{feff}{eighty}");
    assert_eq!(check_title(&title).unwrap(), eighty);
    let v = check_title(&format!("\u{85}{eighty}")).unwrap_err();
    assert_eq!(v.problem, "must be at most 80 characters, found 81");
}

#[test]
fn r1_r23_r24_not_blank_uses_js_whitespace() {
    assert_eq!(check_message("\u{feff}").unwrap_err().rule, Rule::R1);
    assert!(check_message("\u{85}").is_ok());
    assert_eq!(check_option_title("\u{feff} ").unwrap_err().rule, Rule::R23);
    assert_eq!(
        check_resource_label("\u{feff}").unwrap_err().rule,
        Rule::R24
    );
    assert_eq!(check_resource_label("\u{feff}x\u{feff}").unwrap(), "x");
}

#[test]
fn v3_required_text_of_only_feff_is_refused() {
    let v = check_text_answer("\u{feff}", 10, true).unwrap_err();
    assert_eq!(v.rule, Rule::V3);
    assert!(check_text_answer("\u{feff}", 10, false).is_ok());
    assert!(check_text_answer("\u{85}", 10, true).is_ok());
}

// ---------------------------------------------------------------------------------------------
// Credential-like parameter names by any spelling (R26)

#[test]
fn r26_credential_param_names_are_judged_by_their_words() {
    for name in [
        "token",
        "token%5B%5D",
        "token%5b%5d",
        "token[]",
        "token[0]",
        "user[token]",
        "+token",
        "%20token",
        "token+",
        "accessToken",
        "AccessToken",
        "access-token",
        "access.token",
        "access%5Ftoken",
        "accesstoken",
        "private_token",
        "PRIVATE-TOKEN",
        "sessionToken",
        "session",
        "session_id",
        "sessionid",
        "PHPSESSID",
        "jwt",
        "id_token_hint",
        "oauth_token",
        "oauth2Token",
        "X-Amz-Signature",
        "X-Amz-Security-Token",
        "X-Amz-Credential",
        "AWSAccessKeyId",
        "GoogleAccessId",
        "x-goog-signature",
        "x-ms-signature",
        "api_key",
        "api-key",
        "api+key",
        "apiKey",
        "APIKey",
        "APIKEY",
        "x-api-key",
        "Ocp-Apim-Subscription-Key",
        "client_secret",
        "clientSecret",
        "key",
        "KEY",
        "key[]",
        "sig",
        "Signature",
        "auth",
        "auth_token",
        "authorization",
        "Authorization",
        "password",
        "userPassword",
        "passwd",
        "pwd",
        "pass",
        "credentials",
        "bearer",
        "hmac",
        "tokens",
        "secret",
    ] {
        assert!(
            is_credential_param(name),
            "{name} should be credential-like"
        );
        // Brackets are not URI characters: written in a URI they are escaped.
        let name = name.replace('[', "%5B").replace(']', "%5D");
        let uri = format!("https://e.com/x?a=1&{name}=v");
        let v = check_resource_uri(&uri).expect_err(&uri);
        assert_eq!(v.rule, Rule::R26, "{uri}");
        let uri = format!("https://e.com/x#{name}=v");
        assert_eq!(check_resource_uri(&uri).unwrap_err().rule, Rule::R26);
    }
    for name in [
        "author",
        "authors",
        "authority",
        "authuser",
        "monkey",
        "keyword",
        "keys",
        "sort_key",
        "sortKey",
        "hotkey",
        "tokenizer",
        "secretary",
        "page",
        "sort",
        "q",
        "design",
        "signal",
        "signup",
        "passenger",
        "bypass",
        "compass",
        "state",
        "lang",
        "utm_source",
        "",
    ] {
        assert!(!is_credential_param(name), "{name} should be ordinary");
        let uri = format!("https://e.com/x?{name}=v&page=2#{name}=w");
        assert!(check_resource_uri(&uri).is_ok(), "{uri}");
    }
}

#[test]
fn r26_credential_param_message_names_the_decoded_parameter() {
    let v = check_resource_uri("https://e.com/?token%5B%5D=1").unwrap_err();
    assert_eq!(
        v.problem,
        "must not carry the credential-like parameter `token[]`"
    );
    // A name whose escapes are not UTF-8 is still judged by its words.
    assert!(is_credential_param("%ff-token"));
    assert!(is_credential_param("token%"));
}

#[test]
fn r26_sig_exception_is_the_word_sig_alone_on_the_signed_image_host() {
    let host = "https://sdmntprwestus.oaiusercontent.com/f.png";
    for ok in ["sig", "SIG", "Sig", "%73ig", "sig%5B%5D"] {
        let src = format!("{host}?se=1&{ok}=abc");
        assert!(check_image_src(&src).is_ok(), "{src}");
    }
    for bad in [
        "signature",
        "sig_token",
        "x-sig-key",
        "token",
        "accessToken",
        "key",
    ] {
        let src = format!("{host}?sig=abc&{bad}=x");
        assert_eq!(check_image_src(&src).unwrap_err().rule, Rule::R26, "{src}");
    }
    assert_eq!(
        check_image_src("https://example.com/f.png?Sig=abc")
            .unwrap_err()
            .rule,
        Rule::R26
    );
    assert_eq!(
        check_resource_uri(&format!("{host}?sig=abc"))
            .unwrap_err()
            .rule,
        Rule::R26
    );
}

// ---------------------------------------------------------------------------------------------
// User-added files keep their shape (R27)

#[test]
fn r27_decoded_path_keeps_its_shape() {
    for (uri, path) in [
        ("file:///home/me/a.csv", "/home/me/a.csv"),
        ("file://localhost/home/me/a.csv", "/home/me/a.csv"),
        ("file://LOCALHOST/tmp/x", "/tmp/x"),
        ("file:///C:/Users/me/a.csv", "/C:/Users/me/a.csv"),
        ("file:///a/.b/..c/...", "/a/.b/..c/..."),
        ("file:///a%2e.csv", "/a..csv"),
        ("file:///a//b", "/a//b"),
        ("file:///", "/"),
        ("file:///%C3%A9t%C3%A9", "/\u{e9}t\u{e9}"),
    ] {
        assert_eq!(check_file_uri(uri).unwrap().path, path, "{uri}");
    }
    for (bad, why) in [
        ("file:////server/share/a.csv", "network share"),
        ("file://localhost//server/share/a.csv", "network share"),
        ("file:///%2Fserver/share/a.csv", "separator"),
        ("file:///a%2fb", "separator"),
        ("file:///a%5Cb", "separator"),
        ("file:///a%5cb", "separator"),
        ("file:///a/../b", "`..`"),
        ("file:///a/./b", "`..`"),
        ("file:///a/..", "`..`"),
        ("file:///..", "`..`"),
        ("file:///a/%2e%2e/b", "`..`"),
        ("file:///a/%2E/b", "`..`"),
        ("file:///a/.%2E/b", "`..`"),
        ("file:///a%00b", "control"),
        ("file:///a%0Ab", "control"),
        ("file:///a%09b", "control"),
        ("file:///a%1Fb", "control"),
        ("file:///a%7Fb", "control"),
        ("file:///a%C2%85b", "control"),
        ("file:///a%C2%9Fb", "control"),
        ("file://server/share/a.csv", "authority"),
        ("file://localhost:80/a", "authority"),
        ("file://u@localhost/a", "authority"),
        ("file://127.0.0.1/a", "authority"),
    ] {
        let v = check_file_uri(bad).unwrap_err();
        assert_eq!(v.rule, Rule::R27, "{bad}");
        assert!(v.problem.contains(why), "{bad}: {}", v.problem);
    }
}

// ---------------------------------------------------------------------------------------------
// URIs read as WHATWG parsers read them (R24–R26)

#[test]
fn r26_https_without_slashes_or_host_is_refused() {
    for bad in [
        "https:user:secret@example.com/x",
        "https:/user:secret@example.com/x",
        "HTTPS:user:secret@example.com/x",
        "http:user:pw@example.com/x",
        "https:example.com/x",
        "https:/example.com/x",
        "https:///example.com/x",
        "https://",
        "https://:443/x",
        "wss:host/x",
        "ftp:/host/x",
        "file:/etc/passwd",
        "file:etc/passwd",
        "https:\\\\example.com\\x",
        "https:/\\example.com/x",
        "https://example.com\\@evil.com/",
        " https://example.com/",
        "https://example.com/ ",
        "\u{1}https://example.com/",
        "https://example.com/\u{0}",
        "https://exa\tmple.com/",
        "https://example.com/a\nb",
        "https://ex%61mple.com/",
        "https://%2e%2e/x",
        "https://example%2ecom/x",
        "https://0x7f.1/",
        "https://127.1/",
        "https://017.0.0.1/",
        "https://1.2.3.4./",
        "https://a.1/",
        "https://a.0x1/",
        "https://256.0.0.1/",
        "https://[v1.x]/",
        "foo://:80/x",
        "foo://u@/x",
        "https://example.com/a/../b",
        "https://example.com/a/%2e%2E/b",
        "https://example.com/./b",
        "https://example.com/a/.",
        "foo://h/a/../b",
        "foo:/a/./b",
        "file://localhost:80/x",
    ] {
        assert!(parse_uri(bad).is_none(), "{bad:?}");
        assert!(check_resource_uri(bad).is_err(), "{bad:?}");
        assert!(check_image_src(bad).is_err(), "{bad:?}");
    }
    for ok in [
        "HTTPS://EXAMPLE.com/x",
        "https://example.com",
        "https://1.2.3.4/",
        "https://1.a/",
        "https://a..b/",
        "https://example.com./",
        "https://[::FFFF:1.2.3.4]:8443/",
        "https://example.com:/x",
        "https://example.com:00443/x",
        "https://example.com/a%2e%2e/b",
        "https://example.com/a..b/.c/",
        "urn:a/../b", // an opaque path: kept as written
        "mailto:someone@example.com",
        "foo://ex%41mple/x",
        "foo:///x",
        "file:///C:/x",
        "file://server/share/x",
    ] {
        assert!(check_resource_uri(ok).is_ok(), "{ok:?}");
    }
    let v = check_resource_uri("https:user:secret@example.com/x").unwrap_err();
    assert_eq!(v.rule, Rule::R24);
}

#[test]
fn r24_r25_ports_above_65535_and_non_digit_ports_are_refused() {
    for bad in [
        "https://example.com:99999999999999999999/x",
        "https://example.com:65536/x",
        "https://example.com:4294967376/x", // 2^32 + 80
        "https://example.com:8o/x",
        "https://example.com:+80/x",
        "https://example.com:-1/x",
        "https://example.com:80 /x",
        "https://example.com:0x50/x",
        "https://[::1]:65536/x",
        "foo://h:70000/x",
    ] {
        assert!(parse_uri(bad).is_none(), "{bad}");
        assert_eq!(
            check_resource_uri(bad).unwrap_err().rule,
            Rule::R24,
            "{bad}"
        );
        assert_eq!(check_image_src(bad).unwrap_err().rule, Rule::R25, "{bad}");
    }
    for ok in [
        "https://example.com:65535/x",
        "https://example.com:0/x",
        "https://example.com:000000000000443/x",
    ] {
        assert!(check_resource_uri(ok).is_ok(), "{ok}");
        assert!(check_image_src(ok).is_ok(), "{ok}");
    }
}

// ---------------------------------------------------------------------------------------------
// Image data URIs (R25, RFC 2397)

#[test]
fn r25_data_uri_scheme_type_and_base64_are_case_insensitive() {
    for ok in [
        "data:image/png;base64,AAAA",
        "data:image/png;BASE64,AAAA",
        "data:image/png;Base64,AAAA",
        "data:image/PNG;base64,AAAA",
        "data:IMAGE/png;base64,AAAA",
        "DATA:image/png;base64,AAAA",
        "Data:Image/Jpeg;Base64,AAAA",
        "data:image/webp;name=a.png;base64,AAAA",
        "data:image/png;charset=x;name=a.png;BASE64,AAAA",
    ] {
        assert!(check_image_src(ok).is_ok(), "{ok}");
    }
    for bad in [
        "data:image/svg+xml;base64,PHN2Zz4=",
        "data:image/SVG+XML;BASE64,PHN2Zz4=",
        "DATA:IMAGE/SVG+XML;base64,PHN2Zz4=",
        "data:image/svg+xml;name=a.png;base64,PHN2Zz4=",
        "data:image/png;base64;name=a.svg,AAAA", // base64 is last
        "data:image/png;name=a.png,AAAA",        // not base64
        "data:image/png;base64x,AAAA",
        "data:image/png;name;base64,AAAA", // parameter without a value
        "data:image/png;=x;base64,AAAA",   // without a name
        "data:image/png;n=a b;base64,AAAA", // a space
        "data:image/png;n=\"a\";base64,AAAA",
        "data:image/png ;base64,AAAA",
        "data:image/png;base64 ,AAAA",
        "data:image/png;;base64,AAAA",
        "data:image;base64,AAAA",
        "data:;base64,AAAA",
        "data:text/plain;name=x.png;base64,AAAA",
        "data:image/png;base64",
    ] {
        assert_eq!(check_image_src(bad).unwrap_err().rule, Rule::R25, "{bad}");
    }
}

// ---------------------------------------------------------------------------------------------
// visible

#[test]
fn visible_escapes_what_a_terminal_would_obey_in_rust_and_in_json_notation() {
    use crate::visible::{visible, visible_json};
    use std::borrow::Cow;
    let text = "a\u{1b}]52;c\u{7}b\u{9b}\u{202e}\n\t\u{7f}é";
    assert_eq!(
        visible(text),
        "a\\u{1b}]52;c\\u{7}b\\u{9b}\\u{202e}\n\t\\u{7f}é"
    );
    assert_eq!(
        visible_json(text),
        "a\\u001b]52;c\\u0007b\\u009b\\u202e\n\t\\u007fé"
    );
    for clean in ["", "plain\n\ttext é"] {
        assert!(matches!(visible(clean), Cow::Borrowed(s) if s == clean));
        assert!(matches!(visible_json(clean), Cow::Borrowed(s) if s == clean));
    }
}
