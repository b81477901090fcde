//! Which web pages may open a WebSocket: a browser lets any page connect anywhere, and says
//! which page it is in `Origin`, so the server must look.

use http::HeaderMap;
use http::header::{HOST, ORIGIN};
use url::Url;

use crate::Error;

/// The origins a listener admits: a list, or (empty) its own.
#[derive(Debug, Clone)]
pub(crate) struct Origins {
    allowed: Vec<url::Origin>,
}

impl Origins {
    /// The origins `entries` name, each `scheme://host[:port]`.
    ///
    /// # Errors
    ///
    /// [`Error::InvalidOrigin`] for an entry that is no such origin.
    pub(crate) fn new(entries: &[String]) -> Result<Self, Error> {
        let allowed = entries
            .iter()
            .map(|entry| parse(entry).ok_or_else(|| Error::InvalidOrigin(entry.clone())))
            .collect::<Result<_, _>>()?;
        Ok(Self { allowed })
    }

    /// Whether an upgrade request with `headers` may go ahead on a listener that serves
    /// `https` (`tls`) or `http`. A request without `Origin` comes from a native client,
    /// which no page controls: it may. One with several, or one that is not an origin,
    /// may not.
    pub(crate) fn admits(&self, headers: &HeaderMap, tls: bool) -> bool {
        let mut origins = headers.get_all(ORIGIN).iter();
        let (Some(origin), None) = (origins.next(), origins.next()) else {
            return headers.get(ORIGIN).is_none();
        };
        let Some(origin) = origin.to_str().ok().and_then(parse) else {
            return false;
        };
        if self.allowed.is_empty() {
            own(headers, tls).is_some_and(|own| own == origin)
        } else {
            self.allowed.contains(&origin)
        }
    }
}

/// The origin `text` names, if it names one: a scheme, a host and a port (the scheme's
/// default if left out), with nothing else. The comparison it allows is the browser's: scheme
/// and host in any case, a default port written or not.
fn parse(text: &str) -> Option<url::Origin> {
    let url = Url::parse(text).ok()?;
    let bare = matches!(url.path(), "" | "/")
        && url.query().is_none()
        && url.fragment().is_none()
        && url.username().is_empty()
        && url.password().is_none();
    match url.origin() {
        origin @ url::Origin::Tuple(..) if bare => Some(origin),
        _ => None,
    }
}

/// The listener's own origin for a request: the scheme it serves, and the host and port the
/// request was sent to.
fn own(headers: &HeaderMap, tls: bool) -> Option<url::Origin> {
    let host = headers.get(HOST)?.to_str().ok()?;
    let scheme = if tls { "https" } else { "http" };
    parse(&format!("{scheme}://{host}"))
}

#[cfg(test)]
mod tests {
    use http::HeaderValue;

    use super::*;

    fn headers(host: &str, origins: &[&str]) -> HeaderMap {
        let mut headers = HeaderMap::new();
        headers.insert(
            HOST,
            HeaderValue::from_str(host).unwrap_or_else(|e| panic!("{e}")),
        );
        for origin in origins {
            let value = HeaderValue::from_str(origin).unwrap_or_else(|e| panic!("{e}"));
            headers.append(ORIGIN, value);
        }
        headers
    }

    fn own_only() -> Origins {
        Origins::new(&[]).unwrap_or_else(|e| panic!("{e}"))
    }

    #[test]
    fn a_native_client_sends_no_origin_and_is_admitted() {
        assert!(own_only().admits(&headers("relay:7878", &[]), false));
    }

    #[test]
    fn by_default_only_the_listeners_own_origin_is_admitted() {
        let origins = own_only();
        for (host, origin, tls) in [
            ("relay.example:7878", "http://relay.example:7878", false),
            ("Relay.Example:7878", "HTTP://relay.EXAMPLE:7878", false),
            ("relay.example", "https://relay.example", true),
            ("relay.example:443", "https://RELAY.example", true),
            ("127.0.0.1:8080", "http://127.0.0.1:8080", false),
            ("[::1]:8080", "http://[::1]:8080", false),
        ] {
            assert!(
                origins.admits(&headers(host, &[origin]), tls),
                "{origin} on {host}"
            );
        }
        for (host, origin, tls) in [
            ("relay.example:7878", "http://evil.example:7878", false),
            ("relay.example:7878", "http://relay.example:7879", false),
            ("relay.example:7878", "https://relay.example:7878", false),
            ("relay.example", "http://relay.example", true),
            ("relay.example", "null", false),
            ("relay.example", "http://relay.example/page", false),
            ("relay.example", "http://user@relay.example", false),
            ("relay.example/x", "http://relay.example", false),
        ] {
            assert!(
                !origins.admits(&headers(host, &[origin]), tls),
                "{origin} on {host}"
            );
        }
    }

    #[test]
    fn a_list_admits_its_origins_alone() {
        let origins = Origins::new(&["https://XQ.example".into(), "http://localhost:3000".into()])
            .unwrap_or_else(|e| panic!("{e}"));
        let host = "relay.example";
        assert!(origins.admits(&headers(host, &["https://xq.example"]), true));
        assert!(origins.admits(&headers(host, &["https://xq.example:443"]), true));
        assert!(origins.admits(&headers(host, &["http://LOCALHOST:3000"]), true));
        assert!(!origins.admits(&headers(host, &["https://relay.example"]), true));
        assert!(!origins.admits(&headers(host, &["http://xq.example"]), true));
    }

    #[test]
    fn two_origins_are_refused() {
        let request = headers("relay:1", &["http://relay:1", "http://relay:1"]);
        assert!(!own_only().admits(&request, false));
    }

    #[test]
    fn an_entry_that_is_no_origin_is_a_typed_error() {
        for bad in ["relay.example", "https://xq.example/app", "null", ""] {
            assert!(
                matches!(Origins::new(&[bad.into()]), Err(Error::InvalidOrigin(e)) if e == bad),
                "{bad}"
            );
        }
    }
}
