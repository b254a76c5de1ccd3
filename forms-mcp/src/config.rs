//! Server settings read from the environment: the elicitation timeout.

use std::fmt;
use std::time::Duration;

/// The environment variable that sets the elicitation timeout in milliseconds.
pub const TIMEOUT_ENV: &str = "DATA_FORMS_TIMEOUT_MS";

/// The smallest timeout `DATA_FORMS_TIMEOUT_MS` accepts, in milliseconds.
pub const TIMEOUT_MS_MIN: u64 = 1;

/// The largest timeout `DATA_FORMS_TIMEOUT_MS` accepts, in milliseconds (25 minutes).
pub const TIMEOUT_MS_MAX: u64 = 1_500_000;

/// The timeout when `DATA_FORMS_TIMEOUT_MS` is not set: 15 minutes.
pub const TIMEOUT_DEFAULT: Duration = Duration::from_secs(15 * 60);

/// A `DATA_FORMS_TIMEOUT_MS` value that is not an integer from 1 to 1,500,000.
///
/// The server refuses to start with it; there is no silent fallback to the default.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct TimeoutError {
    value: String,
}

impl fmt::Display for TimeoutError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let shown: String = self.value.chars().take(40).collect();
        write!(
            f,
            "{TIMEOUT_ENV} must be an integer from {TIMEOUT_MS_MIN} to 1500000 (milliseconds), \
             got {shown:?}"
        )
    }
}

impl std::error::Error for TimeoutError {}

/// Reads a timeout from the text of `DATA_FORMS_TIMEOUT_MS`: ASCII digits only, a value from
/// 1 to 1,500,000 milliseconds. `None` (the variable is not set) gives
/// [`TIMEOUT_DEFAULT`].
///
/// ```
/// use forms_mcp::config::{parse_timeout, TIMEOUT_DEFAULT};
/// use std::time::Duration;
/// assert_eq!(parse_timeout(None), Ok(TIMEOUT_DEFAULT));
/// assert_eq!(parse_timeout(Some("200")), Ok(Duration::from_millis(200)));
/// assert!(parse_timeout(Some("0")).is_err());
/// assert!(parse_timeout(Some("1500001")).is_err());
/// assert!(parse_timeout(Some(" 20")).is_err());
/// ```
pub fn parse_timeout(value: Option<&str>) -> Result<Duration, TimeoutError> {
    let Some(text) = value else {
        return Ok(TIMEOUT_DEFAULT);
    };
    let error = || TimeoutError {
        value: text.to_owned(),
    };
    if text.is_empty() || text.len() > 7 || !text.bytes().all(|b| b.is_ascii_digit()) {
        return Err(error());
    }
    let ms: u64 = text.parse().map_err(|_| error())?;
    if (TIMEOUT_MS_MIN..=TIMEOUT_MS_MAX).contains(&ms) {
        Ok(Duration::from_millis(ms))
    } else {
        Err(error())
    }
}

/// Reads the timeout from the process environment (see [`parse_timeout`]). A value that is
/// not valid Unicode is refused like any other invalid value.
pub fn timeout_from_env() -> Result<Duration, TimeoutError> {
    match std::env::var_os(TIMEOUT_ENV) {
        None => parse_timeout(None),
        Some(os) => match os.to_str() {
            Some(text) => parse_timeout(Some(text)),
            None => Err(TimeoutError {
                value: os.to_string_lossy().into_owned(),
            }),
        },
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn timeout_bounds_are_inclusive() {
        assert_eq!(parse_timeout(Some("1")), Ok(Duration::from_millis(1)));
        assert_eq!(
            parse_timeout(Some("1500000")),
            Ok(Duration::from_millis(1_500_000))
        );
        for bad in [
            "",
            "0",
            "-1",
            "+5",
            "1e3",
            "1.5",
            "1500001",
            "99999999999999999999",
            "abc",
        ] {
            let err = parse_timeout(Some(bad)).unwrap_err();
            assert!(err.to_string().contains("DATA_FORMS_TIMEOUT_MS"), "{err}");
            assert!(err.to_string().contains("1 to 1500000"), "{err}");
        }
    }
}
