//! The `Host` and `Origin` check every request passes first: the one place a DNS-rebound
//! name or another site's page is refused.

use axum::extract::{Request, State};
use axum::http::{header, HeaderMap, HeaderValue, StatusCode, Uri};
use axum::middleware::Next;
use axum::response::Response;
use std::fmt;
use std::sync::Arc;

/// Called with the reason of each refused request (to report it).
pub type Refused = Arc<dyn Fn(&str) + Send + Sync>;

/// The accepted `Host` and `Origin` values of a listener.
///
/// `Host` must be present once and match an accepted host: an entry `host:port` matches
/// exactly, an entry `host` matches that host on any port (names without regard to case);
/// a request target in absolute form must name the same host. A present `Origin` (once) must
/// be one of the accepted origins or, with [`Hosts::same_origin`], exactly `http://` + the
/// request's `Host`. Requests without `Origin` (not from a browser) pass. A refusal is 403.
#[derive(Clone)]
pub struct Hosts {
    /// `None`: any `Host` is accepted.
    hosts: Option<Vec<String>>,
    origins: Vec<String>,
    same_origin: bool,
    refused: Option<Refused>,
}

impl fmt::Debug for Hosts {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Hosts")
            .field("hosts", &self.hosts)
            .field("origins", &self.origins)
            .field("same_origin", &self.same_origin)
            .finish_non_exhaustive()
    }
}

/// Reads an origin: `scheme://host[:port]` (a missing port is the scheme's default for
/// `http` and `https`) or `null`.
///
/// ```
/// use forms_mcp::serve::parse_origin;
/// assert_eq!(parse_origin("https://app.example.com").unwrap(), "https://app.example.com:443");
/// assert_eq!(parse_origin("http://localhost:5173").unwrap(), "http://localhost:5173");
/// assert_eq!(parse_origin("null").unwrap(), "null");
/// assert!(parse_origin("app.example.com").is_err());
/// assert!(parse_origin("https://app.example.com/path").is_err());
/// ```
pub fn parse_origin(text: &str) -> Result<String, String> {
    if text == "null" {
        return Ok(text.to_owned());
    }
    let bad = || format!("an origin is written scheme://host[:port], got {text:?}");
    let uri: Uri = text.parse().map_err(|_| bad())?;
    let (Some(scheme), Some(authority)) = (uri.scheme_str(), uri.authority()) else {
        return Err(bad());
    };
    if !matches!(uri.path(), "" | "/") || uri.query().is_some() || authority.as_str().contains('@')
    {
        return Err(bad());
    }
    let scheme = scheme.to_ascii_lowercase();
    let port = authority.port_u16().or(match scheme.as_str() {
        "http" => Some(80),
        "https" => Some(443),
        _ => None,
    });
    let host = authority.host().to_ascii_lowercase();
    Ok(match port {
        Some(port) => format!("{scheme}://{host}:{port}"),
        None => format!("{scheme}://{host}"),
    })
}

impl Hosts {
    /// Accepts the `Host` values `hosts` (each `host:port` or `host`; `*` accepts any) and
    /// the origins `origins` (each as [`parse_origin`] reads it; one that does not read is
    /// ignored).
    pub fn new(
        hosts: impl IntoIterator<Item = String>,
        origins: impl IntoIterator<Item = String>,
    ) -> Hosts {
        let hosts: Vec<String> = hosts.into_iter().map(|h| h.to_ascii_lowercase()).collect();
        Hosts {
            hosts: (!hosts.iter().any(|h| h == "*")).then_some(hosts),
            origins: origins
                .into_iter()
                .filter_map(|o| parse_origin(&o).ok())
                .collect(),
            same_origin: false,
            refused: None,
        }
    }

    /// The same check, also accepting the origin `http://` + the request's own `Host`; with
    /// no listed origins, that is the only origin accepted (a page served to one browser).
    pub fn same_origin(mut self) -> Hosts {
        self.same_origin = true;
        self
    }

    /// The same check, calling `refused` with the reason of each refusal.
    pub fn reporting(mut self, refused: Refused) -> Hosts {
        self.refused = Some(refused);
        self
    }

    fn host_accepted(&self, host: &str) -> bool {
        let Some(hosts) = &self.hosts else {
            return true;
        };
        let Ok(host) = host.parse::<axum::http::uri::Authority>() else {
            return false;
        };
        let name = host.host().to_ascii_lowercase();
        let whole = host.as_str().to_ascii_lowercase();
        hosts
            .iter()
            .any(|entry| match entry.parse::<axum::http::uri::Authority>() {
                Ok(allowed) if allowed.port().is_some() => *entry == whole,
                Ok(allowed) => allowed.host() == name,
                Err(_) => false,
            })
    }

    /// Checks one request's `Host`, request target and `Origin`.
    pub fn check(&self, headers: &HeaderMap, uri: &Uri) -> Result<(), String> {
        let mut hosts = headers.get_all(header::HOST).iter();
        let host = match (hosts.next(), hosts.next()) {
            (Some(host), None) => host,
            (None, _) => return Err("no Host header".to_owned()),
            (Some(_), Some(_)) => return Err("two Host headers".to_owned()),
        };
        let foreign_host = || format!("foreign Host {}", shown(host));
        let host_text = host.to_str().map_err(|_| foreign_host())?;
        if !self.host_accepted(host_text) {
            return Err(foreign_host());
        }
        if let Some(authority) = uri.authority() {
            if !authority.as_str().eq_ignore_ascii_case(host_text) {
                return Err("a request target naming another host".to_owned());
            }
        }
        let mut origins = headers.get_all(header::ORIGIN).iter();
        let origin = match (origins.next(), origins.next()) {
            (None, _) => return Ok(()),
            (Some(origin), None) => origin,
            (Some(_), Some(_)) => return Err("two Origin headers".to_owned()),
        };
        let foreign_origin = || format!("foreign Origin {}", shown(origin));
        let origin = origin
            .to_str()
            .ok()
            .and_then(|o| parse_origin(o).ok())
            .ok_or_else(foreign_origin)?;
        let own = self
            .same_origin
            .then(|| parse_origin(&format!("http://{host_text}")).ok())
            .flatten();
        if own.as_deref() == Some(origin.as_str()) || self.origins.contains(&origin) {
            Ok(())
        } else {
            Err(foreign_origin())
        }
    }
}

/// A header value as printable text for a message: escaped and cut short.
pub fn shown(value: &HeaderValue) -> String {
    let text: String = String::from_utf8_lossy(value.as_bytes())
        .chars()
        .take(80)
        .collect();
    format!("{text:?}")
}

/// The middleware: refuses a request whose `Host` or `Origin` is not accepted (403).
pub(crate) async fn check(
    State(hosts): State<Arc<Hosts>>,
    request: Request,
    next: Next,
) -> Response {
    match hosts.check(request.headers(), request.uri()) {
        Ok(()) => next.run(request).await,
        Err(reason) => {
            if let Some(refused) = &hosts.refused {
                refused(&reason);
            }
            super::bodies::refuse(StatusCode::FORBIDDEN, &format!("Forbidden: {reason}"))
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn headers(pairs: &[(&'static str, &str)]) -> HeaderMap {
        let mut map = HeaderMap::new();
        for (name, value) in pairs {
            map.append(*name, HeaderValue::from_str(value).unwrap());
        }
        map
    }

    fn root() -> Uri {
        Uri::from_static("/")
    }

    #[test]
    fn a_host_entry_with_a_port_matches_exactly_and_one_without_matches_any_port() {
        let hosts = Hosts::new(["127.0.0.1:8080".to_owned(), "mcp.example".to_owned()], []);
        for ok in ["127.0.0.1:8080", "MCP.example:1", "mcp.example"] {
            assert!(
                hosts.check(&headers(&[("host", ok)]), &root()).is_ok(),
                "{ok}"
            );
        }
        for bad in [
            "127.0.0.1:8081",
            "127.0.0.1",
            "evil.example:8080",
            "mcp.example.evil:1",
        ] {
            let refused = hosts
                .check(&headers(&[("host", bad)]), &root())
                .unwrap_err();
            assert!(refused.starts_with("foreign Host"), "{bad}: {refused}");
        }
        assert_eq!(
            hosts.check(&headers(&[]), &root()).unwrap_err(),
            "no Host header"
        );
        let two = headers(&[("host", "127.0.0.1:8080"), ("host", "127.0.0.1:8080")]);
        assert_eq!(hosts.check(&two, &root()).unwrap_err(), "two Host headers");
        let absolute = Uri::from_static("http://evil.example:8080/");
        let own = headers(&[("host", "127.0.0.1:8080")]);
        assert!(hosts.check(&own, &absolute).is_err());
        // `*` turns the Host check off, not the Origin check.
        let any = Hosts::new(["*".to_owned()], []);
        assert!(any
            .check(&headers(&[("host", "x.example")]), &root())
            .is_ok());
        let foreign = headers(&[("host", "x.example"), ("origin", "http://x.example")]);
        assert!(any.check(&foreign, &root()).is_err());
    }

    #[test]
    fn an_origin_is_listed_or_with_same_origin_the_host_itself() {
        let listed = Hosts::new(
            ["127.0.0.1:8080".to_owned(), "localhost:8080".to_owned()],
            [
                "http://127.0.0.1:8080".to_owned(),
                "https://app.example".to_owned(),
            ],
        );
        let with = |origin: &str| headers(&[("host", "localhost:8080"), ("origin", origin)]);
        assert!(listed
            .check(&with("http://127.0.0.1:8080"), &root())
            .is_ok());
        assert!(listed
            .check(&with("https://app.example:443"), &root())
            .is_ok());
        for bad in [
            "http://localhost:8080",
            "null",
            "http://app.example",
            "not an origin",
        ] {
            assert!(listed.check(&with(bad), &root()).is_err(), "{bad}");
        }
        let page = Hosts::new(
            ["127.0.0.1:8080".to_owned(), "localhost:8080".to_owned()],
            [],
        )
        .same_origin();
        assert!(page.check(&with("http://localhost:8080"), &root()).is_ok());
        assert!(page.check(&with("http://LOCALHOST:8080"), &root()).is_ok());
        for bad in ["http://127.0.0.1:8080", "https://localhost:8080", "null"] {
            let refused = page.check(&with(bad), &root()).unwrap_err();
            assert!(refused.starts_with("foreign Origin"), "{bad}: {refused}");
        }
        let two = headers(&[
            ("host", "localhost:8080"),
            ("origin", "http://localhost:8080"),
            ("origin", "http://localhost:8080"),
        ]);
        assert_eq!(page.check(&two, &root()).unwrap_err(), "two Origin headers");
    }
}
