//! R22: the `accept` filter of a `files` question.

use crate::{limits, Rule, Violation};

/// R22: `accept` has 1–12 entries.
pub fn check_accept_count(count: usize) -> Result<(), Violation> {
    if (limits::ACCEPT_MIN..=limits::ACCEPT_MAX).contains(&count) {
        Ok(())
    } else {
        Err(Violation::new(
            Rule::R22,
            format!(
                "must have from {} to {} entries, found {count}",
                limits::ACCEPT_MIN,
                limits::ACCEPT_MAX
            ),
        ))
    }
}

fn is_token_char(c: u8) -> bool {
    c.is_ascii_alphanumeric()
        || matches!(
            c,
            b'!' | b'#'
                | b'$'
                | b'%'
                | b'&'
                | b'\''
                | b'*'
                | b'+'
                | b'.'
                | b'^'
                | b'_'
                | b'`'
                | b'|'
                | b'~'
                | b'-'
        )
}

/// R22: one `accept` entry: a filename extension (`.csv`) or a MIME type (`text/csv`,
/// `image/*`).
///
/// ```
/// use forms_rules::check_accept_token;
/// assert!(check_accept_token(".csv").is_ok());
/// assert!(check_accept_token("image/*").is_ok());
/// assert!(check_accept_token("csv").is_err());
/// assert!(check_accept_token(".csv, .tsv").is_err());
/// ```
pub fn check_accept_token(token: &str) -> Result<(), Violation> {
    let ok = if let Some(ext) = token.strip_prefix('.') {
        !ext.is_empty()
            && ext
                .bytes()
                .all(|c| c.is_ascii_alphanumeric() || matches!(c, b'.' | b'_' | b'-' | b'+'))
    } else if let Some((ty, sub)) = token.split_once('/') {
        !ty.is_empty()
            && ty != "*"
            && ty.bytes().all(is_token_char)
            && !sub.is_empty()
            && sub.bytes().all(is_token_char)
    } else {
        false
    };
    if ok {
        Ok(())
    } else {
        Err(Violation::new(
            Rule::R22,
            "must be a filename extension such as `.csv` or a MIME type such as `text/csv` or \
             `image/*`",
        ))
    }
}

/// R22: a whole `accept` list: 1–12 entries, each an extension or MIME type, no entry twice
/// (compared ignoring ASCII case, as the host's picker does). Returns the index and the
/// violation of the first bad entry (`None` for the count).
pub fn check_accept_list<S: AsRef<str>>(tokens: &[S]) -> Result<(), (Option<usize>, Violation)> {
    check_accept_count(tokens.len()).map_err(|v| (None, v))?;
    for (i, t) in tokens.iter().enumerate() {
        let t = t.as_ref();
        check_accept_token(t).map_err(|v| (Some(i), v))?;
        if tokens
            .iter()
            .take(i)
            .any(|u| u.as_ref().eq_ignore_ascii_case(t))
        {
            return Err((
                Some(i),
                Violation::new(Rule::R22, "must not repeat an earlier entry"),
            ));
        }
    }
    Ok(())
}

/// Whether a file passes an `accept` filter, the one rule of the page, the terminal filler
/// and `forms host`: an extension entry is judged on the file's name (ignoring case), a MIME
/// type entry on the file's type (`image/*` takes every `image/…`). `mime` is the type a
/// browser reported (empty when it could not tell, which no MIME entry takes), or `None`
/// where no type is known at all (a path typed in a terminal): then a MIME entry cannot be
/// judged and takes the file, as a picker that cannot tell would. An empty filter takes every
/// file.
pub fn accepts(accept: &[String], name: &str, mime: Option<&str>) -> bool {
    if accept.is_empty() {
        return true;
    }
    let name = name.to_lowercase();
    let mime = mime.map(|mime| {
        mime.split(';')
            .next()
            .unwrap_or_default()
            .trim()
            .to_ascii_lowercase()
    });
    accept.iter().any(|entry| {
        let entry = entry.trim().to_lowercase();
        if entry.starts_with('.') {
            return name.len() > entry.len() && name.ends_with(&entry);
        }
        let Some(mime) = &mime else { return true };
        if let Some(family) = entry.strip_suffix("/*") {
            !mime.is_empty() && mime.split('/').next() == Some(family)
        } else {
            !mime.is_empty() && *mime == entry
        }
    })
}
