//! What a listener serves besides its WebSocket endpoint.

/// What a WebSocket listener answers to plain HTTP requests: the web client's page and its assets.
pub trait Site: Send + Sync + 'static {
    /// The response to `request` (any method; the body is never read).
    fn respond(&self, request: &http::request::Parts) -> http::Response<bytes::Bytes>;
}
