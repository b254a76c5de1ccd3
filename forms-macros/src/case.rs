//! `rename_all`: the serde case conventions, applied to field and variant names.

/// A case convention for IDs.
#[derive(Clone, Copy, PartialEq, Eq)]
pub(crate) enum RenameRule {
    Lower,
    Upper,
    Pascal,
    Camel,
    Snake,
    ScreamingSnake,
    Kebab,
    ScreamingKebab,
}

/// The accepted names, in the order error messages list them.
pub(crate) const RULE_NAMES: &[(&str, RenameRule)] = &[
    ("lowercase", RenameRule::Lower),
    ("UPPERCASE", RenameRule::Upper),
    ("PascalCase", RenameRule::Pascal),
    ("camelCase", RenameRule::Camel),
    ("snake_case", RenameRule::Snake),
    ("SCREAMING_SNAKE_CASE", RenameRule::ScreamingSnake),
    ("kebab-case", RenameRule::Kebab),
    ("SCREAMING-KEBAB-CASE", RenameRule::ScreamingKebab),
];

impl RenameRule {
    pub(crate) fn from_name(name: &str) -> Option<RenameRule> {
        RULE_NAMES.iter().find(|(n, _)| *n == name).map(|(_, r)| *r)
    }

    /// Splits a Rust name (`snake_case` field or `PascalCase` variant) into lowercase words.
    fn words(name: &str) -> Vec<String> {
        let mut words = Vec::new();
        for part in name.split('_').filter(|p| !p.is_empty()) {
            let mut word = String::new();
            let mut prev_lower = false;
            for c in part.chars() {
                if c.is_uppercase() && prev_lower && !word.is_empty() {
                    words.push(std::mem::take(&mut word));
                }
                prev_lower = c.is_lowercase() || c.is_ascii_digit();
                word.extend(c.to_lowercase());
            }
            if !word.is_empty() {
                words.push(word);
            }
        }
        words
    }

    /// `name` in this convention. Leading underscores are kept so that a name the contract
    /// refuses stays visible as such.
    pub(crate) fn apply(self, name: &str) -> String {
        let lead: String = name.chars().take_while(|c| *c == '_').collect();
        let words = Self::words(name);
        let capital = |w: &String| {
            let mut cs = w.chars();
            match cs.next() {
                Some(f) => f.to_uppercase().chain(cs).collect::<String>(),
                None => String::new(),
            }
        };
        let body = match self {
            RenameRule::Lower => words.concat(),
            RenameRule::Upper => words.concat().to_uppercase(),
            RenameRule::Pascal => words.iter().map(capital).collect(),
            RenameRule::Camel => {
                let mut out = String::new();
                for (i, w) in words.iter().enumerate() {
                    if i == 0 {
                        out.push_str(w);
                    } else {
                        out.push_str(&capital(w));
                    }
                }
                out
            }
            RenameRule::Snake => words.join("_"),
            RenameRule::ScreamingSnake => words.join("_").to_uppercase(),
            RenameRule::Kebab => words.join("-"),
            RenameRule::ScreamingKebab => words.join("-").to_uppercase(),
        };
        lead + &body
    }
}

/// `ReportFormat` → `report_format`: the default question ID of an enum form.
pub(crate) fn snake_case(name: &str) -> String {
    RenameRule::Snake.apply(name)
}

/// `NorthAmerica` → `North America`: the default title of a variant, its name split into
/// words as written. A run of capitals is one word (`PDF`, `HTMLPage` → `HTML Page`), digits
/// stay with the word before them (`Html5Page` → `Html5 Page`), `_` separates words.
pub(crate) fn title_words(name: &str) -> String {
    let mut words: Vec<String> = Vec::new();
    for part in name.split('_').filter(|p| !p.is_empty()) {
        let chars: Vec<char> = part.chars().collect();
        let mut word = String::new();
        for (i, &c) in chars.iter().enumerate() {
            let prev = i.checked_sub(1).and_then(|p| chars.get(p));
            let next = chars.get(i + 1);
            let starts_word = c.is_uppercase()
                && prev.is_some_and(|p| {
                    // `northAmerica`, `html5Page`; or the last capital of a run followed by a
                    // lowercase letter: the `P` of `HTMLPage`.
                    p.is_lowercase()
                        || p.is_ascii_digit()
                        || (p.is_uppercase() && next.is_some_and(|n| n.is_lowercase()))
                });
            if starts_word && !word.is_empty() {
                words.push(std::mem::take(&mut word));
            }
            word.push(c);
        }
        if !word.is_empty() {
            words.push(word);
        }
    }
    words.join(" ")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn conventions() {
        let cases = [
            ("report_format", RenameRule::Camel, "reportFormat"),
            ("report_format", RenameRule::Pascal, "ReportFormat"),
            ("report_format", RenameRule::Kebab, "report-format"),
            ("report_format", RenameRule::ScreamingSnake, "REPORT_FORMAT"),
            ("report_format", RenameRule::ScreamingKebab, "REPORT-FORMAT"),
            ("report_format", RenameRule::Lower, "reportformat"),
            ("report_format", RenameRule::Upper, "REPORTFORMAT"),
            ("WebPage", RenameRule::Snake, "web_page"),
            ("WebPage", RenameRule::Kebab, "web-page"),
            ("WebPage", RenameRule::Camel, "webPage"),
            ("Html5Page", RenameRule::Snake, "html5_page"),
            ("Pdf", RenameRule::Lower, "pdf"),
            ("_goal", RenameRule::Camel, "_goal"),
        ];
        for (name, rule, want) in cases {
            assert_eq!(rule.apply(name), want, "{name}");
        }
        assert_eq!(snake_case("ReportFormat"), "report_format");
    }

    #[test]
    fn titles_from_names() {
        let cases = [
            ("NorthAmerica", "North America"),
            ("HtmlPage", "Html Page"),
            ("PDF", "PDF"),
            ("HTMLPage", "HTML Page"),
            ("Html5Page", "Html5 Page"),
            ("Pdf", "Pdf"),
            ("web_page", "web page"),
            ("X", "X"),
        ];
        for (name, want) in cases {
            assert_eq!(title_words(name), want, "{name}");
        }
    }
}
