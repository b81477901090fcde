//! Settings shared by every transport.

#[cfg(feature = "ws")]
use std::fmt;
use std::path::PathBuf;
#[cfg(feature = "ws")]
use std::sync::Arc;
use std::time::Duration;

/// Transport settings. The defaults suit the relay and its clients.
#[derive(Clone, Debug)]
pub struct Options {
    /// The largest frame accepted in either direction, in bytes.
    pub max_frame_size: usize,
    /// How long a connection may stay silent before it is declared dead. Keep-alives go out
    /// four times as often, so a live but quiet connection never reaches it.
    pub idle_timeout: Duration,
    /// Where a QUIC listener keeps its certificate and key (created on first start), so that
    /// its fingerprint, which clients pin, survives restarts. `None` (the default) generates
    /// one in memory for each listener, and writes nothing: a relay that clients must find
    /// again after a restart names a directory, as `xq-relay` does.
    pub quic_identity_dir: Option<PathBuf>,
    /// Extra one-way latency added to every frame of an in-memory connection (a link conditioner
    /// for tests); order and reliability are kept.
    pub mem_latency: Duration,
    /// What a WebSocket listener needs beyond the rest: its certificate for `wss://`, the web
    /// pages allowed to connect, and the site it serves.
    #[cfg(feature = "ws")]
    pub ws: WsOptions,
}

impl Options {
    /// How often a quiet connection sends a keep-alive: a quarter of the idle timeout, so that
    /// losing a few in a row does not end a live connection.
    pub(crate) fn keep_alive(&self) -> Duration {
        self.idle_timeout / 4
    }
}

impl Default for Options {
    fn default() -> Self {
        Self {
            max_frame_size: 64 * 1024,
            idle_timeout: Duration::from_secs(8),
            quic_identity_dir: None,
            mem_latency: Duration::ZERO,
            #[cfg(feature = "ws")]
            ws: WsOptions::default(),
        }
    }
}

/// The settings of `ws://` and `wss://` listeners.
#[cfg(feature = "ws")]
#[derive(Clone, Default)]
pub struct WsOptions {
    /// The certificate chain and private key of a `wss://` listener; one without them fails
    /// to start. `ws://` ignores them.
    pub tls: Option<WsTls>,
    /// The web origins whose pages may connect (`https://xq.example`); empty, the default,
    /// allows only the listener's own. Native clients send no origin and are always allowed.
    pub allowed_origins: Vec<String>,
    /// What plain HTTP requests to the listener get (the web client's page and assets);
    /// `None` answers 404.
    pub site: Option<Arc<dyn xq_transport_ws::Site>>,
}

#[cfg(feature = "ws")]
impl fmt::Debug for WsOptions {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("WsOptions")
            .field("tls", &self.tls)
            .field("allowed_origins", &self.allowed_origins)
            .field("site", &self.site.as_ref().map(|_| "…"))
            .finish()
    }
}

/// Where a `wss://` listener's certificate and key are: PEM files, as certbot or rcgen write
/// them. A listener's URL names the certificate file (`?ca=`), for clients on the same machine.
#[cfg(feature = "ws")]
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct WsTls {
    /// The certificate chain, leaf first.
    pub cert: PathBuf,
    /// The private key.
    pub key: PathBuf,
}
