//! How a client connects and reconnects.

use std::time::Duration;

use crate::Keepalive;

/// Client settings. The defaults suit the relay: reconnecting stops when the relay would give
/// the seat up anyway.
#[derive(Clone, Debug)]
pub struct ClientOptions {
    /// The name sent in the hello, for the relay's logs.
    pub name: String,
    /// Settings of the transport underneath.
    #[cfg(feature = "tokio")]
    pub transport: xq_transport::Options,
    /// How long one connection attempt (transport handshake, hello and welcome) may take.
    pub handshake_timeout: Duration,
    /// What to do when the connection fails.
    pub reconnect: ReconnectPolicy,
    /// Pings to a relay that has gone quiet, and how long a silence fails the connection;
    /// `None` leaves liveness to the transport.
    pub keepalive: Option<Keepalive>,
}

/// How a client restores a failed connection: attempts at growing intervals, the first one at
/// once, until [`period`](Self::period) has passed since the failure.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct ReconnectPolicy {
    /// How long to keep trying. The default is the relay's grace period (60 s): after it the
    /// seat is gone, so trying longer cannot help. Zero disables reconnecting.
    pub period: Duration,
    /// The wait after the first failed attempt; each further wait doubles it.
    pub first_delay: Duration,
    /// The longest wait between two attempts.
    pub max_delay: Duration,
}

impl Default for ClientOptions {
    fn default() -> Self {
        Self {
            name: concat!("xq-client/", env!("CARGO_PKG_VERSION")).to_string(),
            #[cfg(feature = "tokio")]
            transport: xq_transport::Options::default(),
            handshake_timeout: Duration::from_secs(10),
            reconnect: ReconnectPolicy::default(),
            keepalive: Some(Keepalive::default()),
        }
    }
}

impl Default for ReconnectPolicy {
    fn default() -> Self {
        Self {
            period: Duration::from_secs(60),
            first_delay: Duration::from_millis(250),
            max_delay: Duration::from_secs(5),
        }
    }
}
