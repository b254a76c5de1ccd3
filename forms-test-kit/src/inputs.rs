//! Data arguments for the parse benchmark and the refusal-cost test: a typical form of 12
//! questions × 24 options (about 93 KB), the largest valid form (just under 1 MiB), and the
//! slowest hostile inputs we could construct (each at most 1 MiB).
#![allow(dead_code)]

/// The JSON text limit of R4 (UTF-16 code units; these inputs are ASCII, so bytes).
pub const MIB: usize = 1_048_576;

fn choice_question(q: usize, options: usize, title_len: usize, desc_len: usize) -> String {
    let opts: Vec<String> = (0..options)
        .map(|i| {
            format!(
                r#"{{"id":"q{q}_option_{i}","title":"Option {i} of question {q} {}","description":"{}"}}"#,
                "t".repeat(title_len),
                "d".repeat(desc_len)
            )
        })
        .collect();
    let kind = if q.is_multiple_of(2) {
        "single_select"
    } else {
        "multi_select"
    };
    format!(
        r#"{{"id":"question_{q}","type":"{kind}","title":"Question number {q}","description":"Pick what applies to your report this week.","required":{},"options":[{}]}}"#,
        q.is_multiple_of(3),
        opts.join(",")
    )
}

fn resource_question(q: usize, options: usize, path_len: usize, desc_len: usize) -> String {
    let opts: Vec<String> = (0..options)
        .map(|i| {
            format!(
                r#"{{"uri":"https://docs.example.com/templates/q{q}/{i}/{}","name":"template-{q}-{i}","title":"Document · Template {i}","description":"{}","mimeType":"application/pdf","icons":[{{"src":"https://example.com/icons/doc.png","mimeType":"image/png"}}]}}"#,
                "p".repeat(path_len),
                "d".repeat(desc_len)
            )
        })
        .collect();
    let kind = ["resource", "resources", "files"][q % 3];
    format!(
        r#"{{"id":"question_{q}","type":"{kind}","title":"Question number {q}","required":false,"options":[{}]}}"#,
        opts.join(",")
    )
}

fn form(questions: Vec<String>) -> String {
    format!(
        r#"{{"message":"Set up your weekly report","questions":[{}]}}"#,
        questions.join(",")
    )
}

/// A typical large form: 12 questions × 24 options, half choices and half resources, about
/// 93 KB.
pub fn typical_form() -> String {
    twelve_questions((20, 170), (40, 100))
}

/// The largest valid form: 12 questions × 24 options with long titles, descriptions and
/// URIs, just under 1 MiB.
pub fn largest_valid_form() -> String {
    twelve_questions((440, 1_000), (4_500, 1_000))
}

/// 12 questions × 24 options, choices (even questions: option title and description lengths
/// `choice`) and resources (odd ones: URI path and description lengths `resource`) in turn.
fn twelve_questions(choice: (usize, usize), resource: (usize, usize)) -> String {
    form(
        (0..12)
            .map(|q: usize| {
                if q.is_multiple_of(2) {
                    choice_question(q, 24, choice.0, choice.1)
                } else {
                    resource_question(q, 24, resource.0, resource.1)
                }
            })
            .collect(),
    )
}

/// Fills a list of `item(i)` until the form would pass `budget` bytes.
fn fill(prefix: &str, suffix: &str, budget: usize, item: impl Fn(usize) -> String) -> String {
    let mut out = String::with_capacity(budget);
    out.push_str(prefix);
    let mut i = 0;
    loop {
        let next = item(i);
        if out.len() + next.len() + 1 + suffix.len() > budget {
            break;
        }
        if i > 0 {
            out.push(',');
        }
        out.push_str(&next);
        i += 1;
    }
    out.push_str(suffix);
    out
}

const OPTIONS_PREFIX: &str = r#"{"message":"m","questions":[{"id":"q","type":"single_select","title":"T","required":false,"options":["#;
const OPTIONS_SUFFIX: &str = "]}]}";

/// The hostile inputs, by name: each is at most 1 MiB and refused.
pub fn hostile_inputs() -> Vec<(&'static str, String)> {
    let budget = MIB - 16;
    let options =
        |item: &dyn Fn(usize) -> String| fill(OPTIONS_PREFIX, OPTIONS_SUFFIX, budget, item);
    vec![
        // About 800 KB of `0,` in `options`: every item is the wrong type (R23).
        (
            "800 KB of \"options\":[0,0,…]",
            fill(OPTIONS_PREFIX, OPTIONS_SUFFIX, 800_000, |_| "0".to_owned()),
        ),
        ("1 MiB of \"options\":[0,0,…]", options(&|_| "0".to_owned())),
        // Every option has a bad ID (R6) and they are too many (R13).
        (
            "options with bad IDs",
            options(&|i| format!(r#"{{"id":"9x{i}","title":"t"}}"#)),
        ),
        // Every option repeats the ID of the first (R5) and has an empty title (R23).
        (
            "options with one repeated ID",
            options(&|_| r#"{"id":"a","title":""}"#.to_owned()),
        ),
        // Every option is missing both required properties.
        ("empty option objects", options(&|_| "{}".to_owned())),
        // Every option is an object with nulls for its properties.
        (
            "options of nulls",
            options(&|_| r#"{"id":null,"title":null,"description":null}"#.to_owned()),
        ),
        // Every resource option has a URI with credentials (R26).
        (
            "resource options with bad URIs",
            fill(
                r#"{"message":"m","questions":[{"id":"q","type":"resources","title":"T","required":false,"options":["#,
                OPTIONS_SUFFIX,
                budget,
                |i| {
                    format!(
                        r#"{{"uri":"https://user:secret@example.com/{i}?token=x","name":"n","title":"t"}}"#
                    )
                },
            ),
        ),
        // Every option is an array nested 100 levels deep.
        (
            "options nested 100 deep",
            options(&|_| format!("{}0{}", "[".repeat(100), "]".repeat(100))),
        ),
        // One question with tens of thousands of unknown properties (R3).
        (
            "unknown properties",
            fill(
                r#"{"message":"m","questions":[{"id":"q","type":"text","title":"T","required":false,"#,
                "}]}",
                budget,
                |i| format!(r#""k{i}":0"#),
            ),
        ),
        // Tens of thousands of distinct properties, the last repeating the first (R3).
        ("a duplicate key at the end", {
            let mut text = fill(
                r#"{"message":"m","questions":[{"id":"q","type":"text","title":"T","required":false,"#,
                "",
                budget - 20,
                |i| format!(r#""k{i}":0"#),
            );
            text.push_str(r#","k0":1}]}"#);
            text
        }),
        // Far too many questions (R2), each the wrong type.
        (
            "\"questions\":[0,0,…]",
            fill(r#"{"message":"m","questions":["#, "]}", budget, |_| {
                "0".to_owned()
            }),
        ),
        // Far too many questions, each with a bad ID and title.
        (
            "questions with bad IDs",
            fill(r#"{"message":"m","questions":["#, "]}", budget, |i| {
                format!(r#"{{"id":"9{i}","type":"text","title":"","required":true}}"#)
            }),
        ),
    ]
}
