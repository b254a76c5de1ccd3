//! A generator of valid Data forms (every question kind, limits at their edges, text at its
//! length limits, JavaScript whitespace around trimmed labels), of valid answers to any form,
//! and of single mutations of an answer that each break one V rule.
//!
//! It draws every choice from an [`arbitrary::Unstructured`], so the same bytes give the same
//! form: libFuzzer mutates the bytes (`targets::structured`), proptest generates and shrinks
//! them (`tests/generated.rs`), and a seeded byte stream makes a fixed batch
//! (`examples/peer_generated.rs`). Exhausted bytes make the smallest choice everywhere.

use super::json::{is_js_space, Json, Style};
use super::native::limits;
use arbitrary::Unstructured;
use forms_runtime::data::{ChoiceOption, FormSpec, Image, Question, QuestionSpec, ResourceOption};
use forms_runtime::DataForm;

/// The generator's state: the byte source and how many characters long strings may still
/// take.
pub struct Gen<'a, 'b> {
    u: &'b mut Unstructured<'a>,
    /// Characters that long strings may still use; small forms keep this low.
    pub budget: usize,
}

/// Characters mixed into generated text: ASCII, JSON escapes, non-ASCII in and beyond the
/// BMP, JavaScript whitespace (U+FEFF, U+2028) and U+0085 (not JavaScript whitespace).
const CHARS: &[char] = &[
    'a', 'b', 'Z', '0', '9', ' ', '-', '_', '/', '"', '\\', '\n', '\t', 'é', '·', 'ß', '中', '😀',
    '\u{85}', '\u{a0}', '\u{feff}', '\u{2028}', '\u{0}', '\u{7f}', '<', '&',
];

/// JavaScript whitespace put around trimmed labels.
const SPACES: &[char] = &[
    ' ', '\t', '\n', '\u{a0}', '\u{feff}', '\u{2028}', '\u{3000}',
];

const KINDS: [&str; 6] = [
    "text",
    "single_select",
    "multi_select",
    "resource",
    "resources",
    "files",
];

const ACCEPT: &[&str] = &[
    ".csv",
    ".pdf",
    ".txt",
    ".xlsx",
    ".json",
    ".md",
    ".tsv",
    "text/csv",
    "image/*",
    "application/pdf",
    "text/plain",
    "image/png",
    "video/mp4",
];

const DATA_TYPES: &[&str] = &["png", "jpeg", "jpg", "gif", "webp", "avif"];

impl<'a, 'b> Gen<'a, 'b> {
    /// A generator over `u` whose long strings take at most `budget` characters in all.
    pub fn new(u: &'b mut Unstructured<'a>, budget: usize) -> Self {
        Gen { u, budget }
    }

    /// 0..n (0 when the bytes run out).
    pub fn below(&mut self, n: usize) -> usize {
        if n <= 1 {
            0
        } else {
            self.u.int_in_range(0..=n - 1).unwrap_or(0)
        }
    }

    /// True about once in `n` (false when the bytes run out).
    pub fn chance(&mut self, n: usize) -> bool {
        n > 0 && self.below(n) == n - 1
    }

    /// lo..=hi, a quarter of the time `lo`, a quarter `hi`.
    pub fn edge(&mut self, lo: usize, hi: usize) -> usize {
        if hi <= lo {
            return lo;
        }
        match self.below(4) {
            0 => lo,
            1 => hi,
            _ => lo + self.below(hi - lo + 1),
        }
    }

    /// One of `items`.
    pub fn pick<T: Clone>(&mut self, items: &[T]) -> T {
        items[self.below(items.len())].clone()
    }

    /// A length in lo..=hi, edge-biased; lengths beyond 64 come out of the budget.
    fn len(&mut self, lo: usize, hi: usize) -> usize {
        let hi = hi.min(lo.max(64).max(self.budget));
        let n = self.edge(lo, hi);
        self.budget = self.budget.saturating_sub(n.saturating_sub(64));
        n
    }

    /// Exactly `n` characters: a short random piece, repeated.
    fn chars(&mut self, n: usize) -> String {
        let piece: Vec<char> = (0..1 + self.below(12))
            .map(|_| {
                if self.chance(3) {
                    self.pick(CHARS)
                } else {
                    char::from(b'a' + self.below(26) as u8)
                }
            })
            .collect();
        piece.iter().cycle().take(n).collect()
    }

    /// `n` characters, the first and last not JavaScript whitespace (so it is trimmed).
    fn trimmed(&mut self, n: usize) -> String {
        let mut v: Vec<char> = self.chars(n).chars().collect();
        if let Some(c) = v.first_mut() {
            if is_js_space(*c) {
                *c = 'T';
            }
        }
        if let Some(c) = v.last_mut() {
            if is_js_space(*c) {
                *c = 't';
            }
        }
        v.into_iter().collect()
    }

    /// JavaScript whitespace to put around a label (often none).
    fn pad(&mut self) -> String {
        if !self.chance(4) {
            return String::new();
        }
        (0..1 + self.below(3)).map(|_| self.pick(SPACES)).collect()
    }

    /// A trimmed label of 1..=max characters, written with optional padding: (written, model).
    fn label(&mut self, max: usize) -> (String, String) {
        let n = self.len(1, max);
        let core = self.trimmed(n);
        (format!("{}{core}{}", self.pad(), self.pad()), core)
    }

    /// An ID (R6): an ASCII letter and up to 63 more, unique among `taken`.
    fn id(&mut self, taken: &mut Vec<String>, prefix: char) -> String {
        const REST: &[u8] = b"abcxyzABZ0189_-";
        let n = self.edge(0, 63);
        let first = if self.chance(2) {
            prefix
        } else {
            self.pick(&['a', 'Q', 'z', 'M'])
        };
        let mut id: String = std::iter::once(first)
            .chain((0..n).map(|_| char::from(self.pick(REST))))
            .collect();
        if taken.contains(&id) {
            // `K` is not in REST, so this cannot repeat a generated id.
            id = format!("{prefix}K{}", taken.len());
        }
        taken.push(id.clone());
        id
    }

    fn image(&mut self, key: usize) -> (Json, Image) {
        let src = if self.chance(3) {
            let t = self.pick(DATA_TYPES);
            let head = format!("data:image/{t};base64,");
            let n = self.len(4, 262_144 - head.len()) / 4 * 4;
            format!("{head}{}", "iVBO".repeat(n / 4))
        } else {
            let base = format!("https://example.com/img/{key}.png");
            if self.chance(6) {
                let n = self.len(base.len(), 262_144);
                format!("{base}?p={}", "x".repeat(n.saturating_sub(base.len() + 3)))
            } else {
                base
            }
        };
        let mime = self.chance(3).then(|| "image/png".to_owned());
        let mut members = vec![("src", Json::str(src.as_str()))];
        if let Some(m) = &mime {
            members.push(("mimeType", Json::str(m.as_str())));
        }
        (
            Json::obj(members),
            Image {
                src,
                mime_type: mime,
            },
        )
    }

    fn optional_text(&mut self, max: usize) -> Option<String> {
        if self.chance(2) {
            let n = self.len(0, max);
            Some(self.chars(n))
        } else {
            None
        }
    }

    fn choice_option(&mut self, taken: &mut Vec<String>, key: usize) -> (Json, ChoiceOption) {
        let id = self.id(taken, 'o');
        let (title, core) = self.label(500);
        let description = self.optional_text(1000);
        let thumbnail = self.chance(4).then(|| self.image(key));
        let mut m = vec![("id", Json::str(id.as_str())), ("title", Json::str(title))];
        if let Some(d) = &description {
            m.push(("description", Json::str(d.as_str())));
        }
        if let Some((j, _)) = &thumbnail {
            m.push((
                if self.chance(2) {
                    "preview"
                } else {
                    "thumbnail"
                },
                j.clone(),
            ));
        }
        let option = ChoiceOption {
            id,
            title: core,
            description,
            thumbnail: thumbnail.map(|(_, i)| i),
        };
        (Json::obj(m), option)
    }

    fn resource_option(&mut self, q: usize, i: usize) -> (Json, ResourceOption) {
        let mut uri = match self.below(6) {
            0 => format!("urn:example:q{q}:{i}"),
            1 => format!("gdrive://files/q{q}-{i}"),
            2 => format!("http://example.org/q{q}/{i}?page=2&sort=asc"),
            3 => format!("mailto:q{q}.{i}@example.com"),
            _ => format!("https://example.com/q{q}/r/{i}"),
        };
        if self.chance(8) && uri.starts_with("https:") {
            let n = self.len(uri.len(), 8192);
            uri.push('/');
            uri.push_str(&"a".repeat(n.saturating_sub(uri.len())));
        }
        let (name, name_core) = self.label(500);
        let (title, title_core) = self.label(500);
        let description = self.optional_text(1000);
        let mime_type = self.chance(3).then(|| {
            if self.chance(4) {
                format!("application/{}", "x".repeat(88))
            } else {
                self.pick(&[
                    "application/pdf",
                    "text/csv",
                    "application/vnd.google-apps.document",
                ])
                .to_owned()
            }
        });
        let icons = self.chance(3).then(|| {
            (0..self.below(3))
                .map(|k| self.image(q * 1000 + i * 10 + k))
                .collect::<Vec<_>>()
        });
        let thumbnail = self.chance(3).then(|| self.image(q * 1000 + i * 10 + 5));
        let mut m = vec![
            ("uri", Json::str(uri.as_str())),
            ("name", Json::str(name)),
            ("title", Json::str(title)),
        ];
        if let Some(d) = &description {
            m.push(("description", Json::str(d.as_str())));
        }
        if let Some(t) = &mime_type {
            m.push(("mimeType", Json::str(t.as_str())));
        }
        if let Some(list) = &icons {
            m.push((
                "icons",
                Json::Arr(list.iter().map(|(j, _)| j.clone()).collect()),
            ));
        }
        if let Some((j, _)) = &thumbnail {
            m.push(("thumbnail", j.clone()));
        }
        let option = ResourceOption {
            uri,
            name: name_core,
            title: title_core,
            description,
            mime_type,
            icons: icons.map(|l| l.into_iter().map(|(_, i)| i).collect()),
            thumbnail: thumbnail.map(|(_, i)| i),
        };
        (Json::obj(m), option)
    }

    /// minItems / maxItems within R18–R20 for `count` options (`files`: bound 24).
    fn limits(&mut self, required: bool, bound: usize) -> (Option<u32>, Option<u32>) {
        let floor = usize::from(required);
        let min = self.chance(2).then(|| self.edge(floor, bound));
        let low = min.unwrap_or(floor).max(1);
        let max = self.chance(2).then(|| self.edge(low, bound));
        (min.map(|m| m as u32), max.map(|m| m as u32))
    }

    fn question(&mut self, index: usize, taken: &mut Vec<String>, kind: &str) -> (Json, Question) {
        let id = self.id(taken, 'q');
        let (title, core) = self.label(80);
        let description = self.optional_text(2000);
        let required = self.chance(2);
        let mut m = vec![
            ("id", Json::str(id.as_str())),
            ("type", Json::str(kind)),
            ("title", Json::str(title)),
            ("required", Json::Bool(required)),
        ];
        if let Some(d) = &description {
            m.push(("description", Json::str(d.as_str())));
        }
        let options_count = |g: &mut Self, lo: usize| {
            if g.chance(3) {
                g.edge(lo, 24)
            } else {
                g.edge(lo, 4)
            }
        };
        let push_limits = |m: &mut Vec<(&str, Json)>, (min, max): (Option<u32>, Option<u32>)| {
            if let Some(v) = min {
                m.push(("minItems", Json::Num(v.into())));
            }
            if let Some(v) = max {
                m.push(("maxItems", Json::Num(v.into())));
            }
        };
        let kind = match kind {
            "text" => {
                let max_length = self.chance(2).then(|| {
                    let any = 1 + self.below(16_000);
                    self.pick(&[1, 16_000, 4_000, 80, any]) as u32
                });
                if let Some(v) = max_length {
                    m.push(("maxLength", Json::Num(v.into())));
                }
                QuestionSpec::Text { max_length }
            }
            "single_select" | "multi_select" => {
                let n = options_count(self, 1);
                let mut option_ids = Vec::new();
                let (json, options): (Vec<_>, Vec<_>) = (0..n)
                    .map(|i| self.choice_option(&mut option_ids, index * 100 + i))
                    .unzip();
                m.push(("options", Json::Arr(json)));
                if kind == "single_select" {
                    QuestionSpec::SingleSelect { options }
                } else {
                    let (min_items, max_items) = self.limits(required, n);
                    push_limits(&mut m, (min_items, max_items));
                    QuestionSpec::MultiSelect {
                        options,
                        min_items,
                        max_items,
                    }
                }
            }
            "resource" | "resources" => {
                let n = options_count(self, 1);
                let (json, options): (Vec<_>, Vec<_>) =
                    (0..n).map(|i| self.resource_option(index, i)).unzip();
                m.push(("options", Json::Arr(json)));
                if kind == "resource" {
                    QuestionSpec::Resource { options }
                } else {
                    let (min_items, max_items) = self.limits(required, n);
                    push_limits(&mut m, (min_items, max_items));
                    QuestionSpec::Resources {
                        options,
                        min_items,
                        max_items,
                    }
                }
            }
            _ => {
                let n = if self.chance(2) {
                    options_count(self, 0)
                } else {
                    0
                };
                let (json, options): (Vec<_>, Vec<_>) =
                    (0..n).map(|i| self.resource_option(index, i)).unzip();
                if n > 0 || self.chance(3) {
                    m.push(("options", Json::Arr(json)));
                }
                let (min_items, max_items) = self.limits(required, 24);
                push_limits(&mut m, (min_items, max_items));
                let accept = self.chance(2).then(|| {
                    let k = self.edge(1, 12);
                    let start = self.below(ACCEPT.len());
                    (0..k)
                        .map(|j| ACCEPT[(start + j) % ACCEPT.len()].to_owned())
                        .collect::<Vec<_>>()
                });
                if let Some(a) = &accept {
                    m.push(("accept", Json::strs(a.iter().map(String::as_str))));
                }
                QuestionSpec::Files {
                    options,
                    min_items,
                    max_items,
                    accept,
                }
            }
        };
        if self.chance(3) {
            // Any key order is the same object.
            let k = self.below(m.len());
            m.rotate_left(k);
        }
        let question = Question {
            id,
            title: core,
            description,
            required,
            kind,
        };
        (Json::obj(m), question)
    }

    /// A valid form (but for R4, which a large budget can exceed) and its expected model.
    pub fn form(&mut self) -> (Json, FormSpec) {
        self.form_including(None)
    }

    /// [`Gen::form`] with at least one question of type `kind` when it is given.
    pub fn form_including(&mut self, kind: Option<&'static str>) -> (Json, FormSpec) {
        let count = self.edge(1, 12);
        let mut taken = Vec::new();
        let mut kinds: Vec<&str> = (0..count).map(|_| self.pick(&KINDS)).collect();
        if count >= 6 && self.chance(2) {
            kinds[..6].copy_from_slice(&KINDS);
        }
        if let Some(k) = kind {
            if !kinds.contains(&k) {
                let i = self.below(count);
                kinds[i] = k;
            }
        }
        let (questions_json, questions): (Vec<_>, Vec<_>) = kinds
            .iter()
            .enumerate()
            .map(|(i, k)| self.question(i, &mut taken, k))
            .unzip();
        let message = if count == 1 && kinds[0] == "text" && self.chance(3) {
            // N10: the message repeats the lone title, maybe with other padding.
            format!("{}{}", self.pad(), questions[0].title)
        } else {
            let n = self.edge(1, 80);
            let mut m: Vec<char> = self.chars(n).chars().collect();
            if m.iter().all(|c| is_js_space(*c)) {
                m[0] = 'M';
            }
            m.into_iter().collect()
        };
        let message = if message.chars().count() > 80 {
            message.chars().take(80).collect()
        } else {
            message
        };
        let mut members = vec![
            ("message", Json::str(message.as_str())),
            ("questions", Json::Arr(questions_json)),
        ];
        if self.chance(2) {
            members.reverse();
        }
        (Json::obj(members), FormSpec { message, questions })
    }

    /// A text style for a generated form.
    pub fn style(&mut self) -> Style {
        Style {
            indent: if self.chance(3) { 1 + self.below(4) } else { 0 },
            escape_non_ascii: self.chance(3),
            odd_numbers: self.chance(4),
        }
    }

    /// A text answer of `n` characters with a non-whitespace character when `nonblank`.
    fn answer_text(&mut self, n: usize, nonblank: bool) -> String {
        let mut v: Vec<char> = self.chars(n).chars().collect();
        if nonblank && v.iter().all(|c| is_js_space(*c)) {
            if let Some(c) = v.last_mut() {
                *c = 'x';
            }
        }
        v.into_iter().collect()
    }

    /// `k` distinct indices of 0..n in random order.
    fn subset(&mut self, n: usize, k: usize) -> Vec<usize> {
        let mut all: Vec<usize> = (0..n).collect();
        for i in 0..all.len() {
            let j = i + self.below(all.len() - i);
            all.swap(i, j);
        }
        all.truncate(k);
        all
    }

    /// A user-added local file (R27) whose decoded path is unique by `i`.
    fn local_file(&mut self, i: usize, accept: Option<&[String]>) -> String {
        let ext = accept
            .and_then(|a| a.iter().find(|t| t.starts_with('.')))
            .map_or(".csv", String::as_str);
        let name = self.pick(&[
            "data",
            "q3%20sales",
            "caf%C3%A9",
            "r%C3%A9sum%C3%A9",
            "a-b_c",
        ]);
        let host = if self.chance(3) { "localhost" } else { "" };
        let dir = self.pick(&["/home/me", "/Users/me/Documents", "/tmp", "/C:/Users/me"]);
        format!("file://{host}{dir}/{name}-{i}{ext}")
    }

    /// A valid host response to `form`: accepted (mostly) with answers within every V rule,
    /// or a decline or cancel.
    pub fn answer(&mut self, form: &DataForm) -> Json {
        match self.below(12) {
            10 => return Json::obj([("action", Json::str("decline"))]),
            11 => {
                return Json::obj([
                    ("action", Json::str("cancel")),
                    ("_meta", Json::obj([("reason", Json::str("closed"))])),
                ])
            }
            _ => {}
        }
        let mut content = Vec::new();
        for (qi, q) in form.questions().iter().enumerate() {
            let skip = !q.required && self.chance(3);
            if skip {
                continue;
            }
            let empty = !q.required && self.chance(6);
            let (min, max) = limits(q);
            let (min, max) = (min as usize, max as usize);
            let value = match &q.kind {
                QuestionSpec::Text { max_length } => {
                    let max = max_length.unwrap_or(4000) as usize;
                    let n = if empty { 0 } else { self.len(1, max) };
                    Json::str(self.answer_text(n, q.required))
                }
                QuestionSpec::SingleSelect { options } => {
                    Json::str(options[self.below(options.len())].id.as_str())
                }
                QuestionSpec::Resource { options } => {
                    Json::str(options[self.below(options.len())].uri.as_str())
                }
                QuestionSpec::MultiSelect { options, .. } => {
                    let k = if empty { 0 } else { self.edge(min, max) };
                    Json::strs(
                        self.subset(options.len(), k)
                            .into_iter()
                            .map(|i| options[i].id.as_str()),
                    )
                }
                QuestionSpec::Resources { options, .. } => {
                    let k = if empty { 0 } else { self.edge(min, max) };
                    Json::strs(
                        self.subset(options.len(), k)
                            .into_iter()
                            .map(|i| options[i].uri.as_str()),
                    )
                }
                QuestionSpec::Files {
                    options, accept, ..
                } => {
                    let k = if empty { 0 } else { self.edge(min, max) };
                    let offered = self.below(k.min(options.len()) + 1);
                    let mut items: Vec<String> = self
                        .subset(options.len(), offered)
                        .into_iter()
                        .map(|i| options[i].uri.clone())
                        .collect();
                    for i in offered..k {
                        items.push(self.local_file(qi * 100 + i, accept.as_deref()));
                    }
                    let n = items.len();
                    for i in 0..n {
                        let j = i + self.below(n - i);
                        items.swap(i, j);
                    }
                    Json::strs(items)
                }
            };
            content.push((q.id.clone(), value));
        }
        if self.chance(4) {
            let k = self.below(content.len().max(1)).min(content.len());
            content.rotate_left(k);
        }
        let mut response = vec![
            ("action", Json::str("accept")),
            ("content", Json::Obj(content)),
        ];
        if self.chance(8) {
            response.push(("_meta", Json::obj([("host", Json::str("test"))])));
        }
        Json::obj(response)
    }

    /// One mutation of the valid accepted `response` to `form` that breaks a V rule, with the
    /// rule codes a refusal may cite; `None` when none applies (a declined response).
    pub fn break_answer(
        &mut self,
        form: &DataForm,
        response: &Json,
    ) -> Option<(Json, Vec<&'static str>)> {
        if response.get("action").and_then(Json::as_str) != Some("accept") {
            return None;
        }
        let rule = match self.below(8) {
            0 => "V1",
            1 => "V2",
            _ => "any",
        };
        self.break_rule(form, response, rule)
    }

    /// [`Gen::break_answer`] for one rule: `"V1"` (the response's shape), `"V2"` (its keys),
    /// `"V3"`–`"V6"` (a question of the kinds the rule covers), or `"any"` question; `None`
    /// when the form has no question the rule covers or its limits leave nothing to break.
    pub fn break_rule(
        &mut self,
        form: &DataForm,
        response: &Json,
        rule: &str,
    ) -> Option<(Json, Vec<&'static str>)> {
        if response.get("action").and_then(Json::as_str) != Some("accept") {
            return None;
        }
        let mut r = response.clone();
        let rule = match rule {
            "V1" => {
                // (`{"action":"accept"}` without content is empty content, not a V1 error.)
                match self.below(4) {
                    0 => r.set(
                        "action",
                        Json::str(self.pick(&["maybe", "ACCEPT", "", "accepted"])),
                    ),
                    1 => {
                        r.remove("action");
                    }
                    2 => r.set(
                        "content",
                        self.pick(&[Json::Arr(vec![]), Json::str("x"), Json::Null]),
                    ),
                    _ => r.set("extra", Json::Bool(true)),
                }
                "V1"
            }
            "V2" => {
                let required: Vec<&Question> =
                    form.questions().iter().filter(|q| q.required).collect();
                let content = r.get_mut("content").unwrap();
                if !required.is_empty() && self.chance(2) {
                    let q = required[self.below(required.len())];
                    content.remove(&q.id);
                } else {
                    content.set("not a question", Json::str("x"));
                }
                "V2"
            }
            wanted => {
                let qs = form.questions();
                let covered: Vec<usize> = (0..qs.len())
                    .filter(|&i| wanted == "any" || rule_of(&qs[i].kind) == wanted)
                    .collect();
                if covered.is_empty() {
                    return None;
                }
                let qi = covered[self.below(covered.len())];
                let q = &qs[qi];
                let (rule, value) = self.break_question(form, qi)?;
                r.get_mut("content").unwrap().set(&q.id, value);
                rule
            }
        };
        let rules = match rule {
            "V6" => vec!["V6", "R27"],
            r => vec![r],
        };
        Some((r, rules))
    }

    /// A value for question `qi` that breaks its kind's rule.
    fn break_question(&mut self, form: &DataForm, qi: usize) -> Option<(&'static str, Json)> {
        let q = &form.questions()[qi];
        let (min, max) = limits(q);
        let (min, max) = (min as usize, max as usize);
        let wrong_type = |g: &mut Self| {
            g.pick(&[
                Json::Num(42.into()),
                Json::Bool(true),
                Json::obj([("a", Json::Null)]),
            ])
        };
        Some(match &q.kind {
            QuestionSpec::Text { max_length } => {
                let max_length = max_length.unwrap_or(4000) as usize;
                let v = match self.below(3) {
                    0 => Json::str(self.answer_text(max_length + 1, true)),
                    1 if q.required => Json::str(
                        (0..self.below(4))
                            .map(|_| self.pick(SPACES))
                            .collect::<String>(),
                    ),
                    _ => self.pick(&[Json::Num(42.into()), Json::strs(["x"]), Json::Bool(false)]),
                };
                ("V3", v)
            }
            QuestionSpec::SingleSelect { options } => {
                let id = options[self.below(options.len())].id.as_str();
                let v = match self.below(4) {
                    0 => Json::str(format!("{id}~")),
                    1 => Json::strs([id]),
                    2 => Json::Null,
                    _ => wrong_type(self),
                };
                ("V4", v)
            }
            QuestionSpec::Resource { options } => {
                let uri = options[self.below(options.len())].uri.as_str();
                let v = match self.below(5) {
                    0 => Json::str(format!("{uri}#not-offered")),
                    1 => Json::str(""),
                    2 => Json::Arr(vec![]),
                    3 => Json::Null,
                    _ => Json::strs([uri]),
                };
                ("V5", v)
            }
            QuestionSpec::MultiSelect { options, .. } => {
                let ids: Vec<&str> = options.iter().map(|o| o.id.as_str()).collect();
                ("V4", self.break_list(&ids, min, max, q.required)?)
            }
            QuestionSpec::Resources { options, .. } => {
                let uris: Vec<&str> = options.iter().map(|o| o.uri.as_str()).collect();
                ("V6", self.break_list(&uris, min, max, q.required)?)
            }
            QuestionSpec::Files {
                options, accept, ..
            } => {
                let v = match self.below(4) {
                    0 => {
                        let bad = self.pick(&[
                            "file://server/share/x.csv",
                            "file:////server/share/a.csv",
                            "file:///home/me/../etc/passwd",
                            "file:///home/me/a%2Fb.csv",
                            "file:///home/me/a.csv?v=2",
                            "file:///home/me/a.csv#x",
                            "file:relative.csv",
                            "file://me:pw@localhost/home/me/a.csv",
                            "file:///home/me/a%00b.csv",
                            "file:///home/me/my data.csv",
                            "/home/me/a.csv",
                            "https://example.com/not-offered",
                            "",
                        ]);
                        Json::strs([bad.to_owned()])
                    }
                    1 => {
                        // The same file twice, the second time through another spelling.
                        let a = self.local_file(qi * 100 + 99, accept.as_deref());
                        let b = if let Some(rest) = a.strip_prefix("file:///") {
                            format!("file://localhost/{rest}")
                        } else {
                            a.replacen("file://localhost/", "file:///", 1)
                        };
                        if min > 2 || max < 2 {
                            return None;
                        }
                        let second = if self.chance(2) { b } else { a.clone() };
                        Json::strs([a, second])
                    }
                    2 if max < 24 => {
                        let mut items: Vec<String> =
                            options.iter().map(|o| o.uri.clone()).collect();
                        items.truncate(max + 1);
                        for i in items.len()..=max {
                            items.push(self.local_file(qi * 100 + i, accept.as_deref()));
                        }
                        Json::strs(items)
                    }
                    2 | 3 if min >= 2 => {
                        let k = 1 + self.below(min - 1);
                        Json::strs((0..k).map(|i| self.local_file(qi * 100 + i, accept.as_deref())))
                    }
                    _ => wrong_type(self),
                };
                ("V6", v)
            }
        })
    }

    /// A list of `items` that breaks distinctness, membership or the limits.
    fn break_list(
        &mut self,
        items: &[&str],
        min: usize,
        max: usize,
        required: bool,
    ) -> Option<Json> {
        let n = items.len();
        Some(match self.below(5) {
            0 if max >= 1 => {
                let i = self.below(n);
                let mut v = vec![items[i]; 2];
                v.truncate(2);
                Json::strs(v)
            }
            1 => Json::strs([format!("{}~", items[self.below(n)])]),
            2 if max < n => Json::strs(self.subset(n, max + 1).into_iter().map(|i| items[i])),
            3 if min >= 2 => {
                let k = 1 + self.below(min - 1);
                Json::strs(self.subset(n, k).into_iter().map(|i| items[i]))
            }
            3 if required => Json::Arr(vec![]),
            _ => self.pick(&[
                Json::str(items[0]),
                Json::Arr(vec![Json::Num(1.into())]),
                Json::Null,
            ]),
        })
    }
}

/// The V rule that governs answers to a question of this kind.
pub fn rule_of(kind: &QuestionSpec) -> &'static str {
    match kind {
        QuestionSpec::Text { .. } => "V3",
        QuestionSpec::SingleSelect { .. } | QuestionSpec::MultiSelect { .. } => "V4",
        QuestionSpec::Resource { .. } => "V5",
        QuestionSpec::Resources { .. } | QuestionSpec::Files { .. } => "V6",
    }
}
