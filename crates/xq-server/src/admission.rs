//! The driver's connection caps: how many connections the relay holds, in total and from one
//! address.

use std::collections::HashMap;
use std::net::{IpAddr, Ipv6Addr, SocketAddr};

use crate::ConnId;
use crate::tally::Tally;

/// The connections admitted, by source address. A connection is admitted at accept if both
/// caps have room, and counted until the driver lets go of it.
#[derive(Debug)]
pub(crate) struct Admission {
    max_total: usize,
    max_per_address: usize,
    /// Each admitted connection's source.
    conns: HashMap<ConnId, Source>,
    by_address: Tally<Source>,
}

/// Where connections come from: the IP address without the port (one host's many sockets
/// count as one source) and, for IPv6, without its last 64 bits (one host commonly holds a
/// whole /64, and counting its addresses apart would give it millions of places); or the
/// whole name of a peer that is no socket address (`mem`). IP addresses, the common case, are
/// kept without an allocation.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
enum Source {
    Ip(IpAddr),
    Name(Box<str>),
}

impl Source {
    fn of(peer: &str) -> Self {
        peer.parse::<SocketAddr>().map_or_else(
            |_| Self::Name(peer.into()),
            |addr| Self::Ip(host(addr.ip())),
        )
    }
}

/// The address that stands for `ip`'s host: the IPv4 address itself (also when written as an
/// IPv4-mapped IPv6 address), or the /64 network of an IPv6 address.
fn host(ip: IpAddr) -> IpAddr {
    match ip {
        IpAddr::V6(v6) => v6.to_ipv4_mapped().map_or_else(
            || IpAddr::V6(Ipv6Addr::from(u128::from(v6) & !u128::from(u64::MAX))),
            IpAddr::V4,
        ),
        IpAddr::V4(_) => ip,
    }
}

impl Admission {
    pub(crate) fn new(max_total: usize, max_per_address: usize) -> Self {
        Self {
            max_total,
            max_per_address,
            conns: HashMap::new(),
            by_address: Tally::default(),
        }
    }

    /// Admits `conn` from `peer` (as [`xq_transport::Connection::peer`] gives it), with the
    /// address that stands for the peer's host if it has one (see [`Source`]), or says why
    /// not, for the client.
    pub(crate) fn admit(
        &mut self,
        conn: ConnId,
        peer: &str,
    ) -> Result<Option<IpAddr>, &'static str> {
        if self.conns.len() >= self.max_total {
            return Err("the relay is full");
        }
        let address = Source::of(peer);
        // Looked up before any entry is made: a refused address must leave none behind.
        if self.by_address.get(&address) as usize >= self.max_per_address {
            return Err("too many connections from this address");
        }
        self.by_address.add(address.clone());
        let ip = match address {
            Source::Ip(ip) => Some(ip),
            Source::Name(_) => None,
        };
        self.conns.insert(conn, address);
        Ok(ip)
    }

    /// `conn` is gone (or was never admitted); its place is free.
    pub(crate) fn release(&mut self, conn: ConnId) {
        if let Some(address) = self.conns.remove(&conn) {
            self.by_address.remove(address);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn caps_per_address_and_in_total() {
        let mut admission = Admission::new(3, 2);
        assert!(admission.admit(ConnId(1), "10.0.0.1:4000").is_ok());
        assert!(admission.admit(ConnId(2), "10.0.0.1:4001").is_ok());
        assert!(admission.admit(ConnId(3), "10.0.0.1:4002").is_err());
        assert!(admission.admit(ConnId(4), "10.0.0.2:4000").is_ok());
        assert!(admission.admit(ConnId(5), "10.0.0.3:4000").is_err());
        admission.release(ConnId(1));
        admission.release(ConnId(3));
        assert!(admission.admit(ConnId(6), "10.0.0.1:4003").is_ok());
    }

    #[test]
    fn peers_without_a_socket_address_count_by_name() {
        let mut admission = Admission::new(10, 2);
        assert!(admission.admit(ConnId(1), "mem-client").is_ok());
        assert!(admission.admit(ConnId(2), "mem-client").is_ok());
        assert!(admission.admit(ConnId(3), "mem-client").is_err());
        assert!(admission.admit(ConnId(4), "[::1]:4000").is_ok());
        assert!(admission.admit(ConnId(5), "[::1]:4001").is_ok());
        assert!(admission.admit(ConnId(6), "[::1]:4002").is_err());
        admission.release(ConnId(2));
        assert!(admission.admit(ConnId(7), "mem-client").is_ok());
    }

    /// One IPv6 host is one source however many of its /64's addresses it uses, and an
    /// IPv4-mapped address is the IPv4 one.
    #[test]
    fn an_ipv6_network_counts_as_one_host() {
        let mut admission = Admission::new(10, 2);
        let same_host = admission.admit(ConnId(1), "[2001:db8:0:1::1]:4000");
        assert_eq!(
            same_host,
            Ok(Some(
                "2001:db8:0:1::".parse().unwrap_or_else(|e| panic!("{e}"))
            ))
        );
        assert!(
            admission
                .admit(ConnId(2), "[2001:db8:0:1:ffff::2]:4000")
                .is_ok()
        );
        assert!(
            admission
                .admit(ConnId(3), "[2001:db8:0:1::3]:4000")
                .is_err()
        );
        assert!(admission.admit(ConnId(4), "[2001:db8:0:2::1]:4000").is_ok());
        let mapped = admission.admit(ConnId(5), "[::ffff:10.0.0.1]:4000");
        assert_eq!(mapped, Ok(Some(IpAddr::from([10, 0, 0, 1]))));
        assert!(admission.admit(ConnId(6), "10.0.0.1:4001").is_ok());
        assert!(admission.admit(ConnId(7), "10.0.0.1:4002").is_err());
    }

    /// Refusals keep no record, so that addresses that were only ever refused cost nothing.
    #[test]
    fn a_refused_address_leaves_nothing_behind() {
        let mut admission = Admission::new(10, 0);
        for port in 0..100 {
            assert!(
                admission
                    .admit(ConnId(port), &format!("10.0.{port}.1:4000"))
                    .is_err()
            );
        }
        assert!(admission.by_address.is_empty() && admission.conns.is_empty());
    }
}
