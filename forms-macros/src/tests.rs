//! The derive's compile-time checks, one test per contract rule, each with inputs at the
//! limit that pass and just past it that fail. The rules themselves live in `forms_rules`;
//! these tests pin that the derive asks them about the right values and reports the result.

use crate::ast::Container;
use crate::check;
use crate::ctxt::Ctxt;

/// The derive's messages for the item `src` (empty when it is accepted).
fn errors(src: &str) -> Vec<String> {
    let input: syn::DeriveInput = syn::parse_str(src).unwrap();
    let cx = Ctxt::new();
    if let Some(c) = Container::from_ast(&cx, &input) {
        let _ = check::check(&cx, &c);
    }
    cx.messages()
}

fn ok(src: &str) {
    let e = errors(src);
    assert!(e.is_empty(), "expected no error, got {e:?}\nfor {src}");
}

/// Asserts exactly one error, naming `rule`, that contains `text`.
fn fails(src: &str, rule: &str, text: &str) {
    let e = errors(src);
    assert_eq!(e.len(), 1, "expected one error, got {e:?}\nfor {src}");
    assert!(
        e[0].ends_with(&format!("see rule {rule}")),
        "{rule} not in {e:?}"
    );
    assert!(e[0].contains(text), "{text:?} not in {e:?}");
}

/// A struct form with `message` and the given fields.
fn form(message: &str, fields: &str) -> String {
    format!("#[form(message = {message:?})] struct F {{ {fields} }}")
}

fn text_field(attrs: &str) -> String {
    format!("#[form({attrs})] goal: String,")
}

fn choice_enum(variants: &str) -> String {
    format!("enum E {{ {variants} }}")
}

#[test]
fn r1_message_length_and_blankness() {
    let goal = "/// Goal\ngoal: String,";
    ok(&form(&"m".repeat(80), goal));
    fails(
        &form(&"m".repeat(81), goal),
        "R1",
        "at most 80 characters, found 81",
    );
    fails(&form("  ", goal), "R1", "must not be empty");
    fails(
        "struct F { /// Goal\n goal: String }",
        "R1",
        "needs a message",
    );
}

#[test]
fn r2_question_count() {
    let fields = |n: usize| -> String {
        (0..n)
            .map(|i| format!("/// Q{i}\nq{i}: Option<String>,"))
            .collect()
    };
    ok(&form("M", &fields(12)));
    ok(&form("M", &fields(1)));
    fails(
        &form("M", &fields(13)),
        "R2",
        "at most 12 questions, found 13",
    );
    fails(&form("M", ""), "R2", "at least one question");
}

#[test]
fn r5_ids_unique() {
    ok(&form("M", "/// A\na: String, /// B\nb: String,"));
    fails(
        &form(
            "M",
            "/// A\na: String, /// B\n#[form(id = \"a\")] b: String,",
        ),
        "R5",
        "question id `a` is already used by field `a`",
    );
    ok(&choice_enum("A, B"));
    fails(
        &choice_enum("A, #[form(id = \"A\")] B"),
        "R5",
        "option id `A` is already used by variant `A`",
    );
}

#[test]
fn r6_id_syntax() {
    let id = |s: &str| form("M", &text_field(&format!("id = {s:?}, title = \"T\"")));
    ok(&id(&format!("g{}", "o".repeat(63))));
    fails(
        &id(&format!("g{}", "o".repeat(64))),
        "R6",
        "at most 64 characters, found 65",
    );
    fails(&id("9goal"), "R6", "must start with an ASCII letter");
    fails(&id("go al"), "R6", "contains a space");
    fails(
        &form("M", "/// Goal\n_goal: String,"),
        "R6",
        "question id `_goal` must start with an ASCII letter",
    );
    ok(&choice_enum("#[form(id = \"a-b_c9\")] A"));
    fails(
        &choice_enum("#[form(id = \"-a\")] A"),
        "R6",
        "option id `-a`",
    );
}

#[test]
fn r8_title() {
    let title = |t: &str| form("M", &text_field(&format!("title = {t:?}")));
    ok(&title(&"t".repeat(80)));
    fails(
        &title(&"t".repeat(81)),
        "R8",
        "at most 80 characters, found 81",
    );
    fails(&title(" "), "R8", "must not be empty");
    fails(&form("M", "goal: String,"), "R8", "needs a title");
    fails(
        &form("M", &format!("/// {}\ngoal: String,", "t".repeat(81))),
        "R8",
        "(from the doc comment)",
    );
}

#[test]
fn r9_description() {
    let d = |n: usize| {
        form(
            "M",
            &text_field(&format!("title = \"T\", description = {:?}", "d".repeat(n))),
        )
    };
    ok(&d(2000));
    fails(&d(2001), "R9", "at most 2000 characters, found 2001");
}

#[test]
fn r11_max_length() {
    let m = |v: &str| {
        form(
            "M",
            &text_field(&format!("title = \"T\", max_length = {v}")),
        )
    };
    ok(&m("1"));
    ok(&m("16000"));
    fails(&m("0"), "R11", "from 1 to 16000, found 0");
    fails(&m("16001"), "R11", "found 16001");
    fails(
        &form("M", "#[form(title = \"T\", max_length = 3)] f: E,"),
        "R11",
        "applies only to `text` questions",
    );
}

#[test]
fn r12_option_count() {
    let variants = |n: usize| -> String { (0..n).map(|i| format!("V{i},")).collect() };
    ok(&choice_enum(&variants(24)));
    ok(&choice_enum(&variants(1)));
    fails(
        &choice_enum(&variants(25)),
        "R12",
        "at most 24 options, found 25",
    );
    fails(&choice_enum(""), "R12", "at least 1 option");
}

#[test]
fn r17_limits_only_on_arrays() {
    ok(&form(
        "M",
        "#[form(title = \"T\", max_items = 2)] f: Vec<E>,",
    ));
    fails(
        &form("M", &text_field("title = \"T\", max_items = 2")),
        "R17",
        "`text` questions take no `min_items` or `max_items`",
    );
    fails(
        &form(
            "M",
            "#[form(resource, title = \"T\", min_items = 1)] f: Url,",
        ),
        "R17",
        "`resource` questions",
    );
}

#[test]
fn r18_min_items() {
    let f = |attrs: &str| {
        form(
            "M",
            &format!("#[form(files, title = \"T\", {attrs})] f: Vec<FileRef>,"),
        )
    };
    ok(&f("min_items = 0"));
    ok(&f("min_items = 24"));
    ok(&f("required, min_items = 1"));
    fails(&f("min_items = 25"), "R18", "from 0 to 24, found 25");
    fails(&f("min_items = -1"), "R18", "found -1");
    fails(
        &f("required, min_items = 0"),
        "R18",
        "at least 1 when the question is required",
    );
}

#[test]
fn r19_max_items() {
    let f = |attrs: &str| {
        form(
            "M",
            &format!("#[form(files, title = \"T\", {attrs})] f: Vec<FileRef>,"),
        )
    };
    ok(&f("max_items = 1"));
    ok(&f("max_items = 24"));
    fails(&f("max_items = 0"), "R19", "from 1 to 24, found 0");
    fails(&f("max_items = 25"), "R19", "found 25");
}

#[test]
fn r20_min_not_above_max() {
    let f = |attrs: &str| form("M", &format!("#[form(title = \"T\", {attrs})] f: Vec<E>,"));
    ok(&f("min_items = 3, max_items = 3"));
    fails(
        &f("min_items = 4, max_items = 3"),
        "R20",
        "`min_items` (4) must not exceed `max_items` (3)",
    );
}

#[test]
fn r22_accept() {
    let f = |list: &str| {
        form(
            "M",
            &format!("#[form(files, title = \"T\", accept = {list})] f: Vec<FileRef>,"),
        )
    };
    ok(&f("[\".csv\", \"text/csv\", \"image/*\"]"));
    let twelve: Vec<String> = (0..12).map(|i| format!("\".e{i}\"")).collect();
    ok(&f(&format!("[{}]", twelve.join(","))));
    let thirteen: Vec<String> = (0..13).map(|i| format!("\".e{i}\"")).collect();
    fails(
        &f(&format!("[{}]", thirteen.join(","))),
        "R22",
        "from 1 to 12 entries, found 13",
    );
    fails(&f("[]"), "R22", "found 0");
    fails(&f("[\"csv\"]"), "R22", "accept entry `csv`");
    fails(
        &f("[\".csv\", \".CSV\"]"),
        "R22",
        "must not repeat an earlier entry",
    );
    fails(
        &form(
            "M",
            "#[form(resources, title = \"T\", accept = [\".csv\"])] f: Vec<Url>,",
        ),
        "R22",
        "applies only to `files` questions",
    );
}

#[test]
fn r23_option_title_and_description() {
    let title = |n: usize| choice_enum(&format!("#[form(title = {:?})] A", "t".repeat(n)));
    ok(&title(500));
    fails(&title(501), "R23", "at most 500 characters, found 501");
    fails(
        &choice_enum("#[form(title = \" \")] A"),
        "R23",
        "must not be empty",
    );
    let d = |n: usize| choice_enum(&format!("#[form(description = {:?})] A", "d".repeat(n)));
    ok(&d(1000));
    fails(&d(1001), "R23", "at most 1000 characters, found 1001");
}

#[test]
fn r25_thumbnail_images() {
    let t = |src: &str| choice_enum(&format!("#[form(thumbnail = {src:?})] A"));
    ok(&t("https://example.com/a.png"));
    ok(&t("data:image/webp;base64,UklGRg=="));
    fails(
        &t("http://example.com/a.png"),
        "R25",
        "`http:` images are not accepted",
    );
    fails(
        &t("data:image/svg+xml;base64,PHN2Zz4="),
        "R25",
        "image/svg+xml",
    );
}

#[test]
fn r26_thumbnail_credentials() {
    let t = |src: &str| choice_enum(&format!("#[form(thumbnail = {src:?})] A"));
    ok(&t("https://sdmntprwestus.oaiusercontent.com/a.png?sig=abc"));
    fails(&t("https://example.com/a.png?sig=abc"), "R26", "`sig`");
    fails(
        &t("https://sdmntprwestus.oaiusercontent.com/a.png?token=abc"),
        "R26",
        "`token`",
    );
    fails(
        &t("https://me:pw@example.com/a.png"),
        "R26",
        "username or password",
    );
}

#[test]
fn errors_accumulate() {
    let e = errors(&form(
        "",
        "#[form(id = \"_a\", max_length = 0)] a: String, #[form(title = \"\")] b: String,",
    ));
    let rules: Vec<&str> = e.iter().filter_map(|m| m.rsplit(' ').next()).collect();
    // In source order: the message, `id`, `max_length`, field `a` (no title), `title = ""`.
    assert_eq!(rules, ["R1", "R6", "R11", "R8", "R8"], "{e:?}");
}

#[test]
fn a_misspelt_key_is_suggested_and_not_also_missing() {
    let e = errors(&form("Set up", "#[form(titel = \"Goal\")] goal: String,"));
    assert_eq!(
        e,
        ["unknown form attribute `titel` on a field; did you mean `title`?"],
        "{e:?}"
    );
    let e = errors("#[form(mesage = \"Pick\", id = \"pick\")] enum E { A }");
    assert_eq!(e.len(), 1, "{e:?}");
    assert!(e[0].ends_with("did you mean `message`?"), "{e:?}");
    let e = errors(&form("Set up", "/// Link\n#[form(resorce)] link: Url,"));
    assert_eq!(e.len(), 1, "{e:?}");
    assert!(e[0].ends_with("did you mean `resource`?"), "{e:?}");
}

#[test]
fn far_keys_are_not_suggested() {
    let e = errors(&form(
        "Set up",
        "/// Goal\n#[form(colour = 1)] goal: String,",
    ));
    assert_eq!(e.len(), 1, "{e:?}");
    assert!(e[0].contains("expected one of `id`"), "{e:?}");
}

#[test]
fn a_ctxt_dropped_unchecked_panics() {
    let result = std::panic::catch_unwind(|| {
        let cx = Ctxt::new();
        cx.error_at(proc_macro2::Span::call_site(), "lost");
        drop(cx);
    });
    assert!(result.is_err());
}

#[test]
fn a_renamed_runtime_dependency_is_found_in_the_manifest() {
    use crate::ast::renamed_runtime;
    let inline =
        "[dependencies]\nserde = \"1\"\nfr = { package = \"forms-runtime\", version = \"0.1\" }\n";
    assert_eq!(renamed_runtime(inline).as_deref(), Some("fr"));
    let table = "[dependencies.my-forms]\nversion = \"0.1\"\npackage = \"forms-runtime\"\n";
    assert_eq!(renamed_runtime(table).as_deref(), Some("my_forms"));
    let plain = "[dependencies]\nforms-runtime = { version = \"0.1\" }\n";
    assert_eq!(renamed_runtime(plain), None);
    let both = "[dependencies]\nforms-runtime = \"0.1\"\n[dev-dependencies]\nfr = { package = \"forms-runtime\", version = \"0.1\" }\n";
    assert_eq!(renamed_runtime(both), None);
    assert_eq!(renamed_runtime("[package]\nname = \"x\"\n"), None);
}

/// One list of field types: the derive's help, `FormChoice`'s compile-error note, the `Form`
/// trait's rustdoc and RULES.md say the same sentence.
#[test]
fn the_supported_field_types_are_one_sentence_everywhere() {
    let flat = |text: &str| -> String {
        text.replace("\\\n", " ")
            .replace("///", " ")
            .split_whitespace()
            .collect::<Vec<_>>()
            .join(" ")
    };
    let root = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("..");
    let read = |rel: &str| std::fs::read_to_string(root.join(rel)).unwrap();
    let sentence = flat(crate::wording::SUPPORTED_TYPES);
    assert!(
        sentence.starts_with("a form field is `String`"),
        "{sentence}"
    );
    let typed = flat(&read("forms-runtime/src/typed.rs"));
    assert_eq!(
        typed.matches(&sentence).count(),
        2,
        "rustdoc and on_unimplemented note"
    );
    assert_eq!(flat(&read("RULES.md")).matches(&sentence).count(), 1);
}
