//! Where a problem of the Data arguments sits ([`Loc`]), and the bounded list of problems
//! found in one pass ([`Violations`]).
//!
//! A [`Loc`] is a small copyable value (no allocation), so the parser and the validator can
//! name the place of every value they look at for free; it is turned into a [`JsonPath`]
//! only for the findings that are reported. A pass keeps at most [`FINDINGS_MAX`] findings
//! and counts the rest, so refusing a hostile input costs about as much as accepting a valid
//! one.

use crate::error::{ErrorCode, Finding, FormError, JsonPath, FINDINGS_MAX};
use forms_rules::{keys, Violation};
use std::collections::{BinaryHeap, HashSet};
use std::hash::{BuildHasherDefault, Hash, Hasher};

/// The deepest path of the Data arguments that a finding can name:
/// `questions[0].options[1].icons[2].src` has seven steps, and an unknown property of an icon
/// seven too.
const DEPTH: usize = 8;

/// One step of a [`Loc`]: a property name or an array index.
#[derive(Clone, Copy, PartialEq, Eq, Hash)]
pub(crate) enum Step<'a> {
    Key(&'a str),
    Index(usize),
}

/// A place in the Data arguments, as a fixed-size list of steps from the root.
#[derive(Clone, Copy)]
pub(crate) struct Loc<'a> {
    steps: [Step<'a>; DEPTH],
    len: usize,
}

impl<'a> Loc<'a> {
    /// The arguments object itself.
    pub(crate) const ROOT: Loc<'static> = Loc {
        steps: [Step::Index(0); DEPTH],
        len: 0,
    };

    fn push(mut self, step: Step<'a>) -> Loc<'a> {
        if let Some(slot) = self.steps.get_mut(self.len) {
            *slot = step;
            self.len += 1;
        }
        self
    }

    /// This place's property `key`.
    pub(crate) fn key(self, key: &'a str) -> Loc<'a> {
        self.push(Step::Key(key))
    }

    /// This place's element `index`.
    pub(crate) fn index(self, index: usize) -> Loc<'a> {
        self.push(Step::Index(index))
    }

    /// The steps from the root.
    pub(crate) fn steps(&self) -> &[Step<'a>] {
        self.steps.get(..self.len).unwrap_or_default()
    }

    /// This place and each place above it, longest first.
    fn and_parents(self) -> impl Iterator<Item = Loc<'a>> {
        (0..=self.len).rev().map(move |len| Loc {
            steps: self.steps,
            len,
        })
    }

    /// The structured path of this place.
    pub(crate) fn to_path(self) -> JsonPath {
        let mut path = JsonPath::arguments();
        for step in self.steps() {
            match *step {
                Step::Key(k) => path.push_key(k),
                Step::Index(i) => path.push_index(i),
            }
        }
        path
    }

    /// A sort key that lists findings in the order of the Data arguments: the arguments as a
    /// whole, `message`, `questions`, then each question by index and its fields in canonical
    /// order (options by index), unknown properties last.
    pub(crate) fn document_order(&self) -> (u8, usize, usize, usize) {
        // Fields rank in canonical order; findings about the question as a whole (its
        // selection limits together) come right after `maxItems`.
        let canonical = |name: &str| keys::QUESTION_ANY.iter().position(|f| *f == name);
        match self.steps() {
            [] => (0, 0, 0, 0),
            [Step::Key("message"), ..] => (1, 0, 0, 0),
            [Step::Key("questions")] => (2, 0, 0, 0),
            [Step::Key("questions"), Step::Index(q)] => (
                3,
                *q,
                canonical("maxItems").map_or(usize::MAX, |i| 2 * i + 1),
                0,
            ),
            [Step::Key("questions"), Step::Index(q), Step::Key(field), rest @ ..] => {
                let rank = canonical(field).map_or(usize::MAX, |i| 2 * i);
                let option = match (*field, rest) {
                    ("options", [Step::Index(j), ..]) => *j,
                    _ => 0,
                };
                (3, *q, rank, option)
            }
            [Step::Key("questions"), ..] => (2, 0, 0, 0),
            _ => (4, 0, 0, 0),
        }
    }
}

impl PartialEq for Loc<'_> {
    fn eq(&self, other: &Self) -> bool {
        self.steps() == other.steps()
    }
}

impl Eq for Loc<'_> {}

impl Hash for Loc<'_> {
    fn hash<H: Hasher>(&self, state: &mut H) {
        self.steps().hash(state);
    }
}

/// A small, fast hash for [`Loc`] sets (FxHash's multiply-rotate). Input-chosen names reach
/// these sets only through broken places, and those are marked only while the parser's list
/// is not full (at most [`FINDINGS_MAX`]); every other mark is made of indexes and the
/// contract's own names, so no input can make many keys collide.
#[derive(Default)]
struct FxHasher(u64);

impl Hasher for FxHasher {
    fn write(&mut self, bytes: &[u8]) {
        let mut chunks = bytes.chunks_exact(8);
        for chunk in &mut chunks {
            let mut word = [0u8; 8];
            word.copy_from_slice(chunk);
            self.write_u64(u64::from_le_bytes(word));
        }
        for &b in chunks.remainder() {
            self.write_u64(u64::from(b));
        }
    }

    fn write_u64(&mut self, n: u64) {
        self.0 = (self.0.rotate_left(5) ^ n).wrapping_mul(0x51_7c_c1_b7_27_22_0a_95);
    }

    fn write_usize(&mut self, n: usize) {
        self.write_u64(n as u64);
    }

    fn finish(&self) -> u64 {
        self.0
    }
}

type LocSet<'a> = HashSet<Loc<'a>, BuildHasherDefault<FxHasher>>;

/// What the parser learnt about places whose value it could not use, so that validation does
/// not report on the placeholders put there.
#[derive(Default)]
pub(crate) struct Marks<'a> {
    /// Findings at or below these places are dropped.
    broken: LocSet<'a>,
    /// Findings at exactly these places are dropped (not those below them).
    muted: LocSet<'a>,
    /// `thumbnail` places that the input wrote as `preview`: findings there are reported
    /// under the input's name.
    renamed: LocSet<'a>,
}

impl<'a> Marks<'a> {
    pub(crate) fn break_at(&mut self, loc: Loc<'a>) {
        self.broken.insert(loc);
    }

    pub(crate) fn mute(&mut self, loc: Loc<'a>) {
        self.muted.insert(loc);
    }

    pub(crate) fn rename_thumbnail(&mut self, loc: Loc<'a>) {
        self.renamed.insert(loc);
    }

    /// Whether a validation finding at `loc` only describes a placeholder.
    fn covers(&self, loc: Loc<'a>) -> bool {
        if self.broken.is_empty() && self.muted.is_empty() {
            return false;
        }
        // The sets hold places of the input's tree; `loc` names the same steps.
        let loc = self.named_as_input(loc);
        self.muted.contains(&loc) || loc.and_parents().any(|p| self.broken.contains(&p))
    }

    /// `loc` with a `thumbnail` step the input wrote as `preview` renamed back.
    fn named_as_input(&self, loc: Loc<'a>) -> Loc<'a> {
        if self.renamed.is_empty() {
            return loc;
        }
        let mut out = loc;
        for (n, step) in loc.steps().iter().enumerate() {
            if *step == Step::Key("thumbnail")
                && self.renamed.contains(&Loc {
                    steps: loc.steps,
                    len: n + 1,
                })
            {
                if let Some(slot) = out.steps.get_mut(n) {
                    *slot = Step::Key("preview");
                }
            }
        }
        out
    }
}

/// The order findings are listed in: document order, then the order they were found.
type Rank = ((u8, usize, usize, usize), usize);

/// One kept finding.
struct Kept<'a> {
    rank: Rank,
    loc: Loc<'a>,
    value: Option<String>,
    v: Violation,
}

impl PartialEq for Kept<'_> {
    fn eq(&self, other: &Self) -> bool {
        self.rank == other.rank
    }
}

impl Eq for Kept<'_> {}

impl PartialOrd for Kept<'_> {
    fn partial_cmp(&self, other: &Self) -> Option<std::cmp::Ordering> {
        Some(self.cmp(other))
    }
}

impl Ord for Kept<'_> {
    fn cmp(&self, other: &Self) -> std::cmp::Ordering {
        self.rank.cmp(&other.rank)
    }
}

/// Every violation found in one pass, each at the place it belongs to: the first
/// [`FINDINGS_MAX`] in document order are kept, the rest counted.
#[derive(Default)]
pub(crate) struct Violations<'a> {
    /// The kept findings, the last in document order on top.
    kept: BinaryHeap<Kept<'a>>,
    /// How many findings were counted and not kept.
    more: usize,
    /// How many findings were recorded, kept or not (the tie-break of equal places).
    seen: usize,
    /// For a validation pass over a model the parser built: the places of placeholders.
    marks: Marks<'a>,
}

/// Values shorter than this are quoted in messages; longer ones are not repeated.
const QUOTE_MAX: usize = forms_rules::SHOWN_CHARS_MAX;

impl<'a> Violations<'a> {
    /// A validation pass over a model the parser built, which leaves out findings about the
    /// placeholders `marks` names and reports the rest under the input's names.
    pub(crate) fn covered_by(marks: Marks<'a>) -> Violations<'a> {
        Violations {
            marks,
            ..Violations::default()
        }
    }

    /// Whether this pass has found [`FINDINGS_MAX`] problems or more.
    pub(crate) fn is_full(&self) -> bool {
        self.kept.len() >= FINDINGS_MAX
    }

    /// How many findings this pass has, kept and counted.
    pub(crate) fn count(&self) -> usize {
        self.kept.len() + self.more
    }

    /// Records `v` at `loc`, quoting `value` when it is short.
    pub(crate) fn push(&mut self, loc: Loc<'a>, value: Option<&str>, v: Violation) {
        self.push_with(loc, value, || v);
    }

    /// Records the violation `make` gives at `loc`, making it only when it is kept.
    pub(crate) fn push_with(
        &mut self,
        loc: Loc<'a>,
        value: Option<&str>,
        make: impl FnOnce() -> Violation,
    ) {
        if self.marks.covers(loc) {
            return;
        }
        let loc = self.marks.named_as_input(loc);
        let rank = (loc.document_order(), self.seen);
        self.seen += 1;
        if self.is_full() && self.kept.peek().is_some_and(|last| last.rank < rank) {
            self.more += 1;
            return;
        }
        let value = value
            .filter(|s| s.chars().count() <= QUOTE_MAX)
            .map(str::to_owned);
        self.kept.push(Kept {
            rank,
            loc,
            value,
            v: make(),
        });
        if self.kept.len() > FINDINGS_MAX {
            self.kept.pop();
            self.more += 1;
        }
    }

    /// Records the error of `r`, if any.
    pub(crate) fn check<T>(
        &mut self,
        loc: Loc<'a>,
        value: Option<&str>,
        r: Result<T, Violation>,
    ) -> Option<T> {
        match r {
            Ok(t) => Some(t),
            Err(v) => {
                self.push(loc, value, v);
                None
            }
        }
    }

    pub(crate) fn is_empty(&self) -> bool {
        self.count() == 0
    }

    /// Moves every finding of `other` after these (a finding of `other` comes after one of
    /// these at the same place).
    pub(crate) fn append(&mut self, other: Violations<'a>) {
        self.more += other.more;
        let base = self.seen;
        self.seen += other.seen;
        for mut k in other.kept {
            k.rank.1 += base;
            self.kept.push(k);
        }
        while self.kept.len() > FINDINGS_MAX {
            self.kept.pop();
            self.more += 1;
        }
    }

    /// One `invalid_arguments` error listing the kept violations in document order (the rest
    /// are counted in its message and [`FormError::more_findings`]). `complete` is false when
    /// the checks stopped early, so that the count is a lower bound.
    pub(crate) fn into_error(self, complete: bool) -> FormError {
        let findings = self
            .kept
            .into_sorted_vec()
            .into_iter()
            .map(|k| {
                let problem = match k.value {
                    Some(val) => format!("{val:?} {}", k.v.problem),
                    None => k.v.problem,
                };
                Finding::new(k.loc.to_path(), Some(k.v.rule), problem)
            })
            .collect();
        if complete {
            FormError::from_findings(ErrorCode::InvalidArguments, findings, self.more)
        } else {
            FormError::from_findings_at_least(ErrorCode::InvalidArguments, findings, self.more)
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn loc(steps: &[Step<'static>]) -> Loc<'static> {
        steps.iter().fold(Loc::ROOT, |l, s| l.push(*s))
    }

    #[test]
    fn paths_quote_keys_that_are_not_plain_names() {
        let root = Loc::ROOT;
        assert_eq!(root.key("message").to_path().to_string(), "message");
        let q = root.key("questions").index(0);
        assert_eq!(q.key("x-y").to_path().to_string(), "questions[0].x-y");
        assert_eq!(q.key("a b").to_path().to_string(), "questions[0][\"a b\"]");
        assert_eq!(root.key("").to_path().to_string(), "arguments[\"\"]");
        let long = "k".repeat(50);
        assert_eq!(
            root.key(&long).to_path().to_string(),
            format!("{}…", "k".repeat(40))
        );
    }

    #[test]
    fn parents_of_a_place() {
        use Step::{Index, Key};
        let l = loc(&[
            Key("questions"),
            Index(0),
            Key("options"),
            Index(2),
            Key("thumbnail"),
            Key("src"),
        ]);
        let all: Vec<String> = l.and_parents().map(|p| p.to_path().to_string()).collect();
        assert_eq!(
            all,
            [
                "questions[0].options[2].thumbnail.src",
                "questions[0].options[2].thumbnail",
                "questions[0].options[2]",
                "questions[0].options",
                "questions[0]",
                "questions",
                "arguments",
            ]
        );
    }

    #[test]
    fn findings_sort_in_document_order() {
        use Step::{Index, Key};
        let q = |i: usize, rest: &[Step<'static>]| {
            let mut steps = vec![Key("questions"), Index(i)];
            steps.extend_from_slice(rest);
            loc(&steps)
        };
        let mut locs = vec![
            loc(&[Key("zz")]),
            q(1, &[Key("id")]),
            q(0, &[]),
            q(0, &[Key("accept"), Index(0)]),
            q(0, &[Key("options"), Index(2), Key("id")]),
            q(0, &[Key("options"), Index(10), Key("title")]),
            q(0, &[Key("title")]),
            loc(&[Key("questions")]),
            loc(&[Key("message")]),
            Loc::ROOT,
            q(0, &[Key("hint")]),
        ];
        locs.sort_by_key(Loc::document_order);
        let shown: Vec<String> = locs.iter().map(|l| l.to_path().to_string()).collect();
        assert_eq!(
            shown,
            [
                "arguments",
                "message",
                "questions",
                "questions[0].title",
                "questions[0].options[2].id",
                "questions[0].options[10].title",
                "questions[0]",
                "questions[0].accept[0]",
                "questions[0].hint",
                "questions[1].id",
                "zz",
            ]
        );
    }

    #[test]
    fn a_pass_keeps_a_bounded_number_of_findings() {
        let mut out = Violations::default();
        for i in 0..FINDINGS_MAX + 7 {
            out.push(
                Loc::ROOT.key("questions").index(i).key("id"),
                Some("9x"),
                Violation::new(forms_rules::Rule::R6, "is bad"),
            );
        }
        assert!(out.is_full());
        assert_eq!(out.count(), FINDINGS_MAX + 7);
        let err = out.into_error(true);
        assert_eq!(err.findings().len(), FINDINGS_MAX);
        assert_eq!(err.more_findings(), 7);
        assert!(err.message().ends_with(&format!(
            "; and {} more problems",
            FINDINGS_MAX - crate::error::MESSAGE_FINDINGS_MAX + 7
        )));
    }
}
