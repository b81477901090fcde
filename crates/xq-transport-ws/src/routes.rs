//! What each HTTP request to a listener gets: the upgrade to a WebSocket at [`WS_PATH`], the
//! site for everything else.

use std::sync::Arc;

use bytes::Bytes;
use http::header::{
    CONNECTION, HeaderMap, HeaderValue, ORIGIN, SEC_WEBSOCKET_ACCEPT, SEC_WEBSOCKET_KEY,
    SEC_WEBSOCKET_VERSION, UPGRADE,
};
use http::{Method, Response, StatusCode, Version, request};
use http_body_util::Full;
use tokio_tungstenite::tungstenite::handshake::derive_accept_key;

use crate::Site;
use crate::origin::Origins;

/// The path of the WebSocket endpoint.
pub const WS_PATH: &str = "/ws";

/// How a listener answers requests.
pub(crate) struct Routes {
    pub(crate) origins: Origins,
    /// Whether the listener serves `https` (for its own origin).
    pub(crate) tls: bool,
    pub(crate) site: Option<Arc<dyn Site>>,
}

/// The answer to one request.
pub(crate) enum Answer {
    /// Switch to WebSocket: send the response, then take the connection over.
    Upgrade(Response<Full<Bytes>>),
    /// A plain HTTP response.
    Plain(Response<Full<Bytes>>),
}

impl Routes {
    /// The answer to the request with head `parts`, whose body is never read.
    pub(crate) fn answer(&self, parts: &request::Parts) -> Answer {
        if parts.uri.path() == WS_PATH && is_upgrade(&parts.headers) {
            return match self.upgrade(parts) {
                Ok(accept) => Answer::Upgrade(switching(accept)),
                Err(refusal) => Answer::Plain(refusal.response()),
            };
        }
        let response = match &self.site {
            Some(site) => site.respond(parts).map(Full::new),
            None if parts.uri.path() == WS_PATH => {
                let mut response = status(StatusCode::UPGRADE_REQUIRED);
                let headers = response.headers_mut();
                headers.insert(UPGRADE, HeaderValue::from_static("websocket"));
                headers.insert(CONNECTION, HeaderValue::from_static("upgrade"));
                response
            }
            None => status(StatusCode::NOT_FOUND),
        };
        Answer::Plain(response)
    }

    /// The `Sec-WebSocket-Accept` of a well-formed upgrade request from an admitted origin,
    /// or why it is refused.
    fn upgrade(&self, parts: &request::Parts) -> Result<HeaderValue, Refusal> {
        let headers = &parts.headers;
        let version_13 = headers
            .get(SEC_WEBSOCKET_VERSION)
            .is_some_and(|version| version.as_bytes() == b"13");
        if !version_13 {
            return Err(Refusal::Version);
        }
        let key = headers.get(SEC_WEBSOCKET_KEY).filter(|key| is_key(key));
        let well_formed = parts.method == Method::GET
            && parts.version == Version::HTTP_11
            && has_token(headers, &CONNECTION, "upgrade");
        let Some(key) = key.filter(|_| well_formed) else {
            return Err(Refusal::Malformed);
        };
        if !self.origins.admits(headers, self.tls) {
            tracing::debug!(origin = ?headers.get(ORIGIN), "refusing an upgrade from another origin");
            return Err(Refusal::Origin);
        }
        // Base64 is ASCII, so the value is always a valid header.
        HeaderValue::from_str(&derive_accept_key(key.as_bytes())).map_err(|_| Refusal::Malformed)
    }
}

/// Why an upgrade request is refused.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Refusal {
    /// Not WebSocket version 13, the only one there is.
    Version,
    /// Not a well-formed upgrade request.
    Malformed,
    /// From a page whose origin is not admitted.
    Origin,
}

impl Refusal {
    fn response(self) -> Response<Full<Bytes>> {
        match self {
            Self::Version => {
                let mut response = status(StatusCode::UPGRADE_REQUIRED);
                response
                    .headers_mut()
                    .insert(SEC_WEBSOCKET_VERSION, HeaderValue::from_static("13"));
                response
            }
            Self::Malformed => status(StatusCode::BAD_REQUEST),
            Self::Origin => status(StatusCode::FORBIDDEN),
        }
    }
}

/// Whether a request asks to become a WebSocket (well-formed or not).
fn is_upgrade(headers: &HeaderMap) -> bool {
    has_token(headers, &UPGRADE, "websocket")
}

/// Whether the comma-separated header `name` lists `token`, in any case.
fn has_token(headers: &HeaderMap, name: &http::HeaderName, token: &str) -> bool {
    headers
        .get_all(name)
        .iter()
        .filter_map(|value| value.to_str().ok())
        .flat_map(|value| value.split(','))
        .any(|item| item.trim().eq_ignore_ascii_case(token))
}

/// Whether `key` is a `Sec-WebSocket-Key`: 16 bytes in base64.
fn is_key(key: &HeaderValue) -> bool {
    let key = key.as_bytes();
    let base64 = |byte: &u8| byte.is_ascii_alphanumeric() || matches!(byte, b'+' | b'/');
    key.len() == 24 && key[..22].iter().all(base64) && &key[22..] == b"=="
}

fn switching(accept: HeaderValue) -> Response<Full<Bytes>> {
    let mut response = status(StatusCode::SWITCHING_PROTOCOLS);
    let headers = response.headers_mut();
    headers.insert(UPGRADE, HeaderValue::from_static("websocket"));
    headers.insert(CONNECTION, HeaderValue::from_static("upgrade"));
    headers.insert(SEC_WEBSOCKET_ACCEPT, accept);
    response
}

fn status(status: StatusCode) -> Response<Full<Bytes>> {
    let mut response = Response::new(Full::new(Bytes::new()));
    *response.status_mut() = status;
    response
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A site that names the path it was asked for.
    struct Echo;

    impl Site for Echo {
        fn respond(&self, request: &request::Parts) -> Response<Bytes> {
            Response::new(Bytes::from(request.uri.path().to_owned()))
        }
    }

    fn routes(site: Option<Arc<dyn Site>>) -> Routes {
        Routes {
            origins: Origins::new(&[]).unwrap_or_else(|e| panic!("{e}")),
            tls: false,
            site,
        }
    }

    fn request(path: &str, headers: &[(&str, &str)]) -> request::Parts {
        let mut builder = http::Request::get(path);
        for (name, value) in headers {
            builder = builder.header(*name, *value);
        }
        builder
            .body(())
            .unwrap_or_else(|e| panic!("{e}"))
            .into_parts()
            .0
    }

    const UPGRADE_HEADERS: [(&str, &str); 5] = [
        ("host", "relay:7878"),
        ("upgrade", "websocket"),
        ("connection", "keep-alive, Upgrade"),
        ("sec-websocket-version", "13"),
        ("sec-websocket-key", "dGhlIHNhbXBsZSBub25jZQ=="),
    ];

    fn status_of(answer: &Answer) -> StatusCode {
        match answer {
            Answer::Upgrade(response) | Answer::Plain(response) => response.status(),
        }
    }

    #[test]
    fn a_well_formed_upgrade_switches_with_the_rfcs_accept_key() {
        let answer = routes(None).answer(&request(WS_PATH, &UPGRADE_HEADERS));
        let Answer::Upgrade(response) = answer else {
            panic!("not upgraded: {}", status_of(&answer));
        };
        assert_eq!(response.status(), StatusCode::SWITCHING_PROTOCOLS);
        // The example of RFC 6455, section 1.3.
        assert_eq!(
            response.headers()[SEC_WEBSOCKET_ACCEPT],
            "s3pPLMBiTxaQ9kYGzzhZRbK+xOo="
        );
    }

    #[test]
    fn without_a_site_only_the_endpoint_answers() {
        let routes = routes(None);
        assert_eq!(
            status_of(&routes.answer(&request("/", &[]))),
            StatusCode::NOT_FOUND
        );
        let plain = routes.answer(&request(WS_PATH, &[]));
        assert_eq!(status_of(&plain), StatusCode::UPGRADE_REQUIRED);
        // Another path is no endpoint, upgrade or not.
        let elsewhere = routes.answer(&request("/other", &UPGRADE_HEADERS));
        assert_eq!(status_of(&elsewhere), StatusCode::NOT_FOUND);
    }

    #[test]
    fn the_site_answers_everything_but_the_upgrade() {
        let routes = routes(Some(Arc::new(Echo)));
        for path in ["/", "/index.html", WS_PATH] {
            let Answer::Plain(response) = routes.answer(&request(path, &[])) else {
                panic!("{path} upgraded");
            };
            assert_eq!(response.status(), StatusCode::OK);
        }
        let answer = routes.answer(&request(WS_PATH, &UPGRADE_HEADERS));
        assert!(matches!(answer, Answer::Upgrade(_)));
    }

    #[test]
    fn malformed_upgrades_are_refused() {
        let routes = routes(None);
        let without = |name: &'static str| -> Vec<(&'static str, &'static str)> {
            UPGRADE_HEADERS
                .iter()
                .copied()
                .filter(|(header, _)| *header != name)
                .collect()
        };
        let with = |name: &'static str, value: &'static str| -> Vec<(&'static str, &'static str)> {
            let mut headers = without(name);
            headers.push((name, value));
            headers
        };
        for (headers, expected) in [
            (without("sec-websocket-key"), StatusCode::BAD_REQUEST),
            (
                with("sec-websocket-key", "short=="),
                StatusCode::BAD_REQUEST,
            ),
            (without("connection"), StatusCode::BAD_REQUEST),
            (with("connection", "keep-alive"), StatusCode::BAD_REQUEST),
            (
                without("sec-websocket-version"),
                StatusCode::UPGRADE_REQUIRED,
            ),
            (
                with("sec-websocket-version", "8"),
                StatusCode::UPGRADE_REQUIRED,
            ),
            (with("origin", "http://evil.example"), StatusCode::FORBIDDEN),
        ] {
            let answer = routes.answer(&request(WS_PATH, &headers));
            assert_eq!(status_of(&answer), expected, "{headers:?}");
        }
        let mut post = request(WS_PATH, &UPGRADE_HEADERS);
        post.method = Method::POST;
        assert_eq!(status_of(&routes.answer(&post)), StatusCode::BAD_REQUEST);
    }

    #[test]
    fn the_page_of_the_relay_itself_may_connect() {
        let headers = with_origin("http://RELAY:7878");
        let answer = routes(None).answer(&request(WS_PATH, &headers));
        assert!(matches!(answer, Answer::Upgrade(_)));
    }

    fn with_origin(origin: &'static str) -> Vec<(&'static str, &'static str)> {
        let mut headers = UPGRADE_HEADERS.to_vec();
        headers.push(("origin", origin));
        headers
    }
}
