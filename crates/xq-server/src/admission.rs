//! The driver's connection caps: how many connections the relay holds, in total and from one
//! address.

use std::collections::HashMap;

use xq_transport::Peer;

use crate::ConnId;
use crate::source::Source;
use crate::tally::Tally;

/// The connections admitted, by [`Source`]. A connection is admitted at accept if both
/// caps have room, and counted until the driver lets go of it.
#[derive(Debug)]
pub(crate) struct Admission {
    max_total: usize,
    max_per_address: usize,
    /// Each admitted connection's source.
    conns: HashMap<ConnId, Source>,
    by_address: Tally<Source>,
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

    /// Admits `conn` from `peer`, counted against the peer's [`Source`], or says why not, for
    /// the client.
    pub(crate) fn admit(&mut self, conn: ConnId, peer: &Peer) -> Result<(), &'static str> {
        if self.conns.len() >= self.max_total {
            return Err("the relay is full");
        }
        let address = Source::of(peer);
        // Looked up before any entry is made: a refused address must leave none behind.
        if self.by_address.get(&address) as usize >= self.max_per_address {
            return Err("too many connections from this address");
        }
        self.by_address.add(address.clone());
        self.conns.insert(conn, address);
        Ok(())
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
    use std::net::SocketAddr;

    use super::*;

    /// A socket peer at `addr`.
    fn at(addr: &str) -> Peer {
        Peer::Socket(addr.parse().unwrap_or_else(|e| panic!("{addr}: {e}")))
    }

    /// One IPv4 host's sockets count together, other hosts apart.
    #[test]
    fn caps_per_address_and_in_total() {
        let mut admission = Admission::new(3, 2);
        assert!(admission.admit(ConnId(1), &at("10.0.0.1:4000")).is_ok());
        assert!(admission.admit(ConnId(2), &at("10.0.0.1:4001")).is_ok());
        assert!(admission.admit(ConnId(3), &at("10.0.0.1:4002")).is_err());
        assert!(admission.admit(ConnId(4), &at("10.0.0.2:4000")).is_ok());
        assert!(admission.admit(ConnId(5), &at("10.0.0.3:4000")).is_err());
        admission.release(ConnId(1));
        admission.release(ConnId(3));
        assert!(admission.admit(ConnId(6), &at("10.0.0.1:4003")).is_ok());
    }

    /// In-process peers count by name.
    #[test]
    fn memory_peers_count_by_name() {
        let mem = Peer::Memory("mem-client".into());
        let mut admission = Admission::new(10, 2);
        assert!(admission.admit(ConnId(1), &mem).is_ok());
        assert!(admission.admit(ConnId(2), &mem).is_ok());
        assert!(admission.admit(ConnId(3), &mem).is_err());
        let other = Peer::Memory("other".into());
        assert!(admission.admit(ConnId(4), &other).is_ok());
        assert!(admission.admit(ConnId(5), &at("[::1]:4000")).is_ok());
        assert!(admission.admit(ConnId(6), &at("[::1]:4001")).is_ok());
        assert!(admission.admit(ConnId(7), &at("[::1]:4002")).is_err());
        admission.release(ConnId(2));
        assert!(admission.admit(ConnId(8), &mem).is_ok());
    }

    /// One IPv6 host is one source however many of its /64's addresses it uses, and an
    /// IPv4-mapped address is the IPv4 one.
    #[test]
    fn an_ipv6_network_counts_as_one_host() {
        let mut admission = Admission::new(10, 2);
        assert!(
            admission
                .admit(ConnId(1), &at("[2001:db8:0:1::1]:4000"))
                .is_ok()
        );
        assert!(
            admission
                .admit(ConnId(2), &at("[2001:db8:0:1:ffff::2]:4000"))
                .is_ok()
        );
        assert!(
            admission
                .admit(ConnId(3), &at("[2001:db8:0:1::3]:4000"))
                .is_err()
        );
        assert!(
            admission
                .admit(ConnId(4), &at("[2001:db8:0:2::1]:4000"))
                .is_ok()
        );
        assert!(
            admission
                .admit(ConnId(5), &at("[::ffff:10.0.0.1]:4000"))
                .is_ok()
        );
        assert!(admission.admit(ConnId(6), &at("10.0.0.1:4001")).is_ok());
        assert!(admission.admit(ConnId(7), &at("10.0.0.1:4002")).is_err());
    }

    /// Refusals keep no record, so that addresses that were only ever refused cost nothing.
    #[test]
    fn a_refused_address_leaves_nothing_behind() {
        let mut admission = Admission::new(10, 0);
        for host in 0..100 {
            let peer = Peer::Socket(SocketAddr::from(([10, 0, host, 1], 4000)));
            assert!(admission.admit(ConnId(host.into()), &peer).is_err());
        }
        assert!(admission.by_address.is_empty() && admission.conns.is_empty());
    }
}
