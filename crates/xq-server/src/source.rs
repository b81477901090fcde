//! Where a connection comes from, as the caps per address count it.

use std::net::{IpAddr, Ipv6Addr};
use std::sync::Arc;

use xq_transport::Peer;

/// The source a connection from a [`Peer`] counts against: for a socket peer, the address
/// that stands for its host ([`host`]); for an in-process peer, which has no address, its
/// name.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub(crate) enum Source {
    /// A peer across the network, by its host.
    Host(IpAddr),
    /// An in-process peer, by name.
    Memory(Arc<str>),
}

impl Source {
    /// The source of `peer`.
    pub(crate) fn of(peer: &Peer) -> Self {
        match peer {
            Peer::Socket(addr) => Self::Host(host(addr.ip())),
            Peer::Memory(name) => Self::Memory(Arc::clone(name)),
        }
    }

    /// The address that stands for the host, for a peer across the network; `None` for an
    /// in-process peer.
    pub(crate) const fn host(&self) -> Option<IpAddr> {
        match self {
            Self::Host(ip) => Some(*ip),
            Self::Memory(_) => None,
        }
    }
}

/// The address that stands for `ip`'s host: the IP address without the port, so that one
/// host's many sockets count as one; the IPv4 address itself (also when written as an
/// IPv4-mapped IPv6 address); or the /64 network of an IPv6 address, since one host commonly
/// holds a whole /64, and counting its addresses apart would give it millions of places.
pub(crate) fn host(ip: IpAddr) -> IpAddr {
    match ip {
        IpAddr::V6(v6) => v6.to_ipv4_mapped().map_or_else(
            || IpAddr::V6(Ipv6Addr::from(u128::from(v6) & !u128::from(u64::MAX))),
            IpAddr::V4,
        ),
        IpAddr::V4(_) => ip,
    }
}

#[cfg(test)]
mod tests {
    use std::net::SocketAddr;

    use super::*;

    fn source(addr: &str) -> Source {
        let addr: SocketAddr = addr.parse().unwrap_or_else(|e| panic!("{addr}: {e}"));
        Source::of(&Peer::Socket(addr))
    }

    fn ip(ip: &str) -> IpAddr {
        ip.parse().unwrap_or_else(|e| panic!("{ip}: {e}"))
    }

    #[test]
    fn an_ipv4_host_is_its_address_whatever_the_port() {
        assert_eq!(source("10.0.0.1:4000"), Source::Host(ip("10.0.0.1")));
        assert_eq!(source("10.0.0.1:4000").host(), Some(ip("10.0.0.1")));
        assert_eq!(source("10.0.0.1:4000"), source("10.0.0.1:4001"));
        assert_ne!(source("10.0.0.1:4000"), source("10.0.0.2:4000"));
        assert_eq!(source("[::ffff:10.0.0.1]:4000"), source("10.0.0.1:4000"));
    }

    #[test]
    fn an_ipv6_host_is_its_64_bit_network() {
        assert_eq!(
            source("[2001:db8:0:1::1]:4000"),
            Source::Host(ip("2001:db8:0:1::"))
        );
        assert_eq!(
            source("[2001:db8:0:1::1]:4000"),
            source("[2001:db8:0:1:ffff:ffff:ffff:ffff]:4001")
        );
        assert_ne!(
            source("[2001:db8:0:1::1]:4000"),
            source("[2001:db8:0:2::1]:4000")
        );
        assert_ne!(source("[::1]:4000"), source("127.0.0.1:4000"));
    }

    #[test]
    fn an_in_process_peer_is_its_name() {
        let peer = Peer::Memory("mem-client".into());
        assert_eq!(Source::of(&peer), Source::Memory("mem-client".into()));
        assert_eq!(Source::of(&peer).host(), None);
        assert_ne!(Source::of(&peer), Source::of(&Peer::Memory("other".into())));
    }
}
