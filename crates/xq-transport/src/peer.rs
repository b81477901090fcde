//! Who is at the other end of a connection.

use std::fmt;
use std::net::SocketAddr;
use std::sync::Arc;

/// The other end of a [`Connection`](crate::Connection), as its transport knows it: what a
/// server counts connections by, and what logs show ([`Display`](fmt::Display) writes
/// `127.0.0.1:7878`, `[::1]:7878` or a memory peer's name).
///
/// # Examples
///
/// ```
/// use std::net::SocketAddr;
/// use xq_transport::Peer;
///
/// let peer = Peer::from("127.0.0.1:7878".parse::<SocketAddr>()?);
/// assert_eq!(peer, Peer::Socket(SocketAddr::from(([127, 0, 0, 1], 7878))));
/// assert_eq!(peer.to_string(), "127.0.0.1:7878");
/// assert_eq!(Peer::Memory("mem-client".into()).to_string(), "mem-client");
/// # Ok::<_, Box<dyn std::error::Error>>(())
/// ```
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub enum Peer {
    /// A peer across the network (`udp://`, `quic://`): the IP address and port its packets
    /// come from.
    Socket(SocketAddr),
    /// The other end of an in-process connection (`mem://`), which has no address, by name:
    /// `mem-client` as a listener's connections see their clients, `mem-server` as a client
    /// sees the listener.
    Memory(Arc<str>),
}

impl From<SocketAddr> for Peer {
    fn from(addr: SocketAddr) -> Self {
        Self::Socket(addr)
    }
}

impl fmt::Display for Peer {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Self::Socket(addr) => addr.fmt(f),
            Self::Memory(name) => f.write_str(name),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn displays_as_the_address_or_the_name() {
        let v6 = Peer::Socket(SocketAddr::from(([0, 0, 0, 0, 0, 0, 0, 1], 4000)));
        assert_eq!(v6.to_string(), "[::1]:4000");
        assert_eq!(Peer::Memory("mem-server".into()).to_string(), "mem-server");
    }
}
