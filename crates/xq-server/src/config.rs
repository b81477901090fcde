//! What the relay core is tuned by.

use std::time::Duration;

/// The relay core's settings. The defaults suit a public relay; tests shorten the grace period
/// to drive abandonment with a virtual clock.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Config {
    /// How long a player's seat is held after its connection fails or it leaves. A resume
    /// within this time takes the seat back; after it, an ongoing game is lost by abandonment
    /// and the resume token is refused.
    pub grace: Duration,
    /// How many undecodable frames a connection may send before it is disconnected: a client
    /// with a bug gets typed errors to debug with, a flood of garbage does not get a relay's
    /// attention for long.
    pub malformed_limit: u32,
    /// The relay's name and version, sent in every welcome (for clients' logs).
    pub server_name: String,
}

impl Default for Config {
    fn default() -> Self {
        Self {
            grace: Duration::from_secs(60),
            malformed_limit: 3,
            server_name: format!("xq-server {}", env!("CARGO_PKG_VERSION")),
        }
    }
}
