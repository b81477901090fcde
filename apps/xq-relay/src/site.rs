//! The web client's page and files, as the relay serves them beside its WebSocket endpoint.
//!
//! The files are embedded at build time (`build.rs`); each is sent gzip-compressed to a
//! browser that accepts it, with an ETag so a reload costs a `304`. The page itself is always
//! revalidated, and it loads the rest from `/v/VERSION/…`, a path that changes with every
//! bundle, so those files are cached for good.

use bytes::Bytes;
use http::header::{
    ACCEPT_ENCODING, ALLOW, CACHE_CONTROL, CONTENT_ENCODING, CONTENT_LENGTH, CONTENT_TYPE, ETAG,
    HeaderMap, HeaderValue, IF_NONE_MATCH, VARY, X_CONTENT_TYPE_OPTIONS,
};
use http::{Method, Response, StatusCode, request::Parts};

include!(concat!(env!("OUT_DIR"), "/web_bundle.rs"));

/// A web client's files, with the version their path carries.
#[derive(Debug)]
pub(crate) struct Bundle {
    version: &'static str,
    files: &'static [File],
}

/// One file of the bundle.
#[derive(Debug)]
struct File {
    name: &'static str,
    body: &'static [u8],
    /// The body gzip-compressed, where that makes it smaller.
    gzip: Option<&'static [u8]>,
    /// Quoted, as the header carries it.
    etag: &'static str,
}

/// What the relay serves over HTTP: the embedded bundle, or without one a page saying how to
/// build it.
#[derive(Debug)]
pub(crate) struct Site {
    bundle: Option<&'static Bundle>,
}

/// The page a relay built without the web client serves.
const NO_CLIENT: &str = "<!doctype html>\n<meta charset=\"utf-8\">\n<title>xq relay</title>\n\
<p>This xq relay was built without the web client. Build and run it with it:\n\
<pre>cargo xtask relay</pre>\n";

impl Site {
    /// The site of this build's embedded bundle.
    pub(crate) const fn embedded() -> Self {
        Self {
            bundle: BUNDLE.as_ref(),
        }
    }

    /// Whether this build carries the web client.
    pub(crate) const fn has_client(&self) -> bool {
        self.bundle.is_some()
    }
}

impl xq_transport::Site for Site {
    /// The answer to one request.
    fn respond(&self, request: &Parts) -> Response<Bytes> {
        if request.method != Method::GET && request.method != Method::HEAD {
            let mut response = status(StatusCode::METHOD_NOT_ALLOWED);
            response
                .headers_mut()
                .insert(ALLOW, HeaderValue::from_static("GET, HEAD"));
            return response;
        }
        let path = request.uri.path();
        let response = match (self.bundle, path) {
            (None, "/") => page(NO_CLIENT),
            (Some(bundle), "/" | "/index.html") => bundle.file(PAGE).map_or_else(
                || status(StatusCode::NOT_FOUND),
                |file| file.serve(&request.headers, Cache::Revalidate),
            ),
            (Some(bundle), _) => path
                .strip_prefix("/v/")
                .and_then(|rest| rest.split_once('/'))
                .filter(|(version, _)| *version == bundle.version)
                .and_then(|(_, name)| bundle.file(name))
                .filter(|file| file.name != PAGE)
                .map_or_else(
                    || status(StatusCode::NOT_FOUND),
                    |file| file.serve(&request.headers, Cache::Forever),
                ),
            (None, _) => status(StatusCode::NOT_FOUND),
        };
        if request.method == Method::HEAD {
            let (parts, _) = response.into_parts();
            return Response::from_parts(parts, Bytes::new());
        }
        response
    }
}

/// The page's name in the bundle.
const PAGE: &str = "index.html";

impl Bundle {
    fn file(&self, name: &str) -> Option<&File> {
        self.files.iter().find(|file| file.name == name)
    }
}

/// How long a browser may keep a file.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Cache {
    /// Ask each time (with the ETag): the page, whose name never changes.
    Revalidate,
    /// Keep it: a file under a versioned path never changes.
    Forever,
}

impl File {
    fn serve(&self, headers: &HeaderMap, cache: Cache) -> Response<Bytes> {
        let mut response = if etag_matches(headers, self.etag) {
            status(StatusCode::NOT_MODIFIED)
        } else {
            match self.gzip.filter(|_| accepts_gzip(headers)) {
                Some(packed) => {
                    let mut response = Response::new(Bytes::from_static(packed));
                    response
                        .headers_mut()
                        .insert(CONTENT_ENCODING, HeaderValue::from_static("gzip"));
                    response
                }
                None => Response::new(Bytes::from_static(self.body)),
            }
        };
        let length = response.body().len();
        let headers = response.headers_mut();
        if self.gzip.is_some() {
            headers.insert(VARY, HeaderValue::from_static("accept-encoding"));
        }
        headers.insert(ETAG, HeaderValue::from_static(self.etag));
        headers.insert(
            CACHE_CONTROL,
            HeaderValue::from_static(match cache {
                Cache::Revalidate => "no-cache",
                Cache::Forever => "public, max-age=31536000, immutable",
            }),
        );
        headers.insert(
            CONTENT_TYPE,
            HeaderValue::from_static(content_type(self.name)),
        );
        headers.insert(CONTENT_LENGTH, HeaderValue::from(length));
        headers.insert(X_CONTENT_TYPE_OPTIONS, HeaderValue::from_static("nosniff"));
        response
    }
}

/// The media type of a file, by its name.
fn content_type(name: &str) -> &'static str {
    let extension = name.rsplit_once('.').map_or("", |(_, extension)| extension);
    match extension {
        "html" => "text/html; charset=utf-8",
        "js" => "text/javascript; charset=utf-8",
        "wasm" => "application/wasm",
        "css" => "text/css; charset=utf-8",
        "json" => "application/json",
        "svg" => "image/svg+xml",
        "png" => "image/png",
        "ico" => "image/x-icon",
        "txt" => "text/plain; charset=utf-8",
        _ => "application/octet-stream",
    }
}

/// Whether `Accept-Encoding` allows gzip: named (or `*`) with a weight above zero.
fn accepts_gzip(headers: &HeaderMap) -> bool {
    headers
        .get_all(ACCEPT_ENCODING)
        .iter()
        .filter_map(|value| value.to_str().ok())
        .flat_map(|value| value.split(','))
        .any(|coding| {
            let mut parts = coding.split(';').map(str::trim);
            let name = parts.next().unwrap_or_default();
            let weight = parts
                .filter_map(|param| param.strip_prefix("q="))
                .find_map(|q| q.parse::<f32>().ok())
                .unwrap_or(1.0);
            (name.eq_ignore_ascii_case("gzip") || name == "*") && weight > 0.0
        })
}

/// Whether `If-None-Match` names `etag` (or `*`).
fn etag_matches(headers: &HeaderMap, etag: &str) -> bool {
    headers
        .get_all(IF_NONE_MATCH)
        .iter()
        .filter_map(|value| value.to_str().ok())
        .flat_map(|value| value.split(','))
        .map(|tag| tag.trim().trim_start_matches("W/"))
        .any(|tag| tag == etag || tag == "*")
}

fn page(html: &'static str) -> Response<Bytes> {
    let mut response = Response::new(Bytes::from_static(html.as_bytes()));
    let headers = response.headers_mut();
    headers.insert(
        CONTENT_TYPE,
        HeaderValue::from_static("text/html; charset=utf-8"),
    );
    headers.insert(CACHE_CONTROL, HeaderValue::from_static("no-cache"));
    response
}

fn status(code: StatusCode) -> Response<Bytes> {
    let mut response = Response::new(Bytes::new());
    *response.status_mut() = code;
    response
}

#[cfg(test)]
mod tests {
    use xq_transport::Site as _;

    use super::*;

    static FILES: [File; 2] = [
        File {
            name: "index.html",
            body: b"<script src=\"./v/v1/app.js\"></script>",
            gzip: None,
            etag: "\"page\"",
        },
        File {
            name: "app.wasm",
            body: b"\0asm-plain",
            gzip: Some(b"packed"),
            etag: "\"wasm\"",
        },
    ];
    static BUNDLE: Bundle = Bundle {
        version: "v1",
        files: &FILES,
    };
    const SITE: Site = Site {
        bundle: Some(&BUNDLE),
    };

    fn request(method: Method, path: &str, headers: &[(&str, &str)]) -> Parts {
        let mut builder = http::Request::builder().method(method).uri(path);
        for (name, value) in headers {
            builder = builder.header(*name, *value);
        }
        builder
            .body(())
            .unwrap_or_else(|e| panic!("{e}"))
            .into_parts()
            .0
    }

    fn get(path: &str, headers: &[(&str, &str)]) -> Response<Bytes> {
        SITE.respond(&request(Method::GET, path, headers))
    }

    fn header<'a>(response: &'a Response<Bytes>, name: &str) -> Option<&'a str> {
        response.headers().get(name).and_then(|v| v.to_str().ok())
    }

    #[test]
    fn the_page_is_served_at_the_root_and_always_revalidated() {
        for path in ["/", "/index.html"] {
            let response = get(path, &[]);
            assert_eq!(response.status(), StatusCode::OK, "{path}");
            assert_eq!(
                header(&response, "content-type"),
                Some("text/html; charset=utf-8")
            );
            assert_eq!(header(&response, "cache-control"), Some("no-cache"));
            assert_eq!(header(&response, "etag"), Some("\"page\""));
            assert_eq!(response.body().as_ref(), FILES[0].body);
        }
    }

    #[test]
    fn versioned_files_are_cached_for_good_and_others_are_not_found() {
        let response = get("/v/v1/app.wasm", &[]);
        assert_eq!(response.status(), StatusCode::OK);
        assert_eq!(header(&response, "content-type"), Some("application/wasm"));
        assert_eq!(
            header(&response, "cache-control"),
            Some("public, max-age=31536000, immutable")
        );
        assert_eq!(header(&response, "vary"), Some("accept-encoding"));
        assert_eq!(header(&response, "content-length"), Some("10"));
        for missing in [
            "/app.wasm",
            "/v/v0/app.wasm",
            "/v/v1/none.js",
            "/v/v1/index.html",
            "/v/v1",
            "/ws/../app.wasm",
        ] {
            assert_eq!(
                get(missing, &[]).status(),
                StatusCode::NOT_FOUND,
                "{missing}"
            );
        }
    }

    #[test]
    fn gzip_goes_only_to_a_browser_that_accepts_it() {
        for (accept, packed) in [
            ("gzip, deflate, br", true),
            ("GZIP", true),
            ("*", true),
            ("deflate", false),
            ("gzip;q=0", false),
            ("gzip; q=0.0, deflate", false),
            ("br;q=1, gzip;q=0.5", true),
        ] {
            let response = get("/v/v1/app.wasm", &[("accept-encoding", accept)]);
            let body: &[u8] = if packed { b"packed" } else { b"\0asm-plain" };
            assert_eq!(response.body().as_ref(), body, "{accept}");
            assert_eq!(
                header(&response, "content-encoding").is_some(),
                packed,
                "{accept}"
            );
            assert_eq!(
                header(&response, "content-length"),
                Some(body.len().to_string().as_str())
            );
        }
    }

    #[test]
    fn a_known_etag_is_answered_with_not_modified() {
        for tag in ["\"wasm\"", "W/\"wasm\"", "\"other\", \"wasm\"", "*"] {
            let response = get("/v/v1/app.wasm", &[("if-none-match", tag)]);
            assert_eq!(response.status(), StatusCode::NOT_MODIFIED, "{tag}");
            assert!(response.body().is_empty());
        }
        let response = get("/v/v1/app.wasm", &[("if-none-match", "\"page\"")]);
        assert_eq!(response.status(), StatusCode::OK);
    }

    #[test]
    fn head_has_the_headers_without_the_body_and_other_methods_are_refused() {
        let response = SITE.respond(&request(Method::HEAD, "/", &[]));
        assert_eq!(response.status(), StatusCode::OK);
        assert_eq!(header(&response, "content-length"), Some("37"));
        assert!(response.body().is_empty());
        let response = SITE.respond(&request(Method::POST, "/", &[]));
        assert_eq!(response.status(), StatusCode::METHOD_NOT_ALLOWED);
        assert_eq!(header(&response, "allow"), Some("GET, HEAD"));
    }

    #[test]
    fn a_relay_without_the_client_says_how_to_build_it() {
        let site = Site { bundle: None };
        let response = site.respond(&request(Method::GET, "/", &[]));
        assert_eq!(response.status(), StatusCode::OK);
        assert!(String::from_utf8_lossy(response.body()).contains("cargo xtask relay"));
        let response = site.respond(&request(Method::GET, "/v/x/app.wasm", &[]));
        assert_eq!(response.status(), StatusCode::NOT_FOUND);
    }
}
