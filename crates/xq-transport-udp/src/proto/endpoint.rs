//! Demultiplexing datagrams to links, and the server's stateless handshake.

use std::collections::{BTreeSet, HashMap, VecDeque};
use std::net::SocketAddr;
use std::sync::Arc;
use std::time::Instant;

use rand::rngs::StdRng;
use rand::{Rng, SeedableRng};

use crate::Config;

use super::cookie::CookieKey;
use super::error::Dropped;
use super::link::Link;
use super::packet::{ConnectionId, Packet};

/// Stateless replies waiting to be sent; beyond this, `Initial`s are dropped.
const MAX_PENDING_REPLIES: usize = 256;

/// Identifies a link within its [`Endpoint`]: our connection id for it, which is unique
/// among the endpoint's links, so datagrams are routed with no table of their own.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct LinkId(ConnectionId);

/// A datagram to send.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Transmit {
    /// Where to send it.
    pub destination: SocketAddr,
    /// The UDP payload, at most [`MAX_DATAGRAM_SIZE`](super::MAX_DATAGRAM_SIZE) bytes.
    pub contents: Vec<u8>,
}

/// The links of one UDP socket, acting as client, server or both, without IO.
///
/// Inputs: [`handle_datagram`](Self::handle_datagram), [`connect`](Self::connect),
/// [`handle_timeout`](Self::handle_timeout) and calls on [`link_mut`](Self::link_mut).
/// Outputs: [`poll_transmit`](Self::poll_transmit) (call until `None` after every input),
/// [`poll_incoming`](Self::poll_incoming) and [`poll_timeout`](Self::poll_timeout).
///
/// A datagram reaches a link only if it carries the link's connection id **and** comes from
/// the link's peer address; anything else is dropped without a state change. Servers create
/// a link only for an `Initial` that echoes a valid cookie, so they hold no state for a
/// client until it has proven that it receives at its source address.
///
/// Every call costs in proportion to the links it touches, not to all the links: a relay
/// holds thousands of mostly quiet links. Links given an input since they last had nothing to
/// send wait in a ready queue, which `poll_transmit` serves in turn, and each link's next
/// deadline sits in one ordered set of timers.
pub struct Endpoint {
    config: Arc<Config>,
    rng: StdRng,
    cookies: CookieKey,
    /// Boxed: a hash table reserves up to twice the slots it fills, and an entry is a few
    /// hundred bytes while a box is one pointer.
    links: HashMap<LinkId, Box<Entry>>,
    /// Links that may have something to send: each had an input (a datagram, an API call or a
    /// timer) since `poll_transmit` last found it had nothing. A link is in it at most once
    /// ([`Entry::ready`]) and goes to the back after each datagram, for fairness.
    ready: VecDeque<LinkId>,
    /// Each link's deadline ([`Entry::armed`]), earliest first. A ready link's own deadline
    /// may have moved since: it is armed again once it has nothing left to send.
    timers: BTreeSet<(Instant, LinkId)>,
    incoming: VecDeque<LinkId>,
    replies: VecDeque<Transmit>,
    /// Cleared by [`Endpoint::stop_accepting`]: `Initial`s are dropped from then on.
    accepting: bool,
}

struct Entry {
    link: Link,
    remote: SocketAddr,
    /// Whether the link is in [`Endpoint::ready`].
    ready: bool,
    /// The deadline the link has in [`Endpoint::timers`].
    armed: Option<Instant>,
}

impl Endpoint {
    /// Creates an endpoint. Connection ids and the cookie secret are drawn from `seed`, which
    /// must be unpredictable for a server; `now` starts the cookie clock. Durations of `config`
    /// beyond [`LONGEST`](crate::LONGEST) count as that.
    pub fn new(config: Config, seed: [u8; 32], now: Instant) -> Self {
        let config = config.bounded();
        let mut rng = StdRng::from_seed(seed);
        let mut secret = [0; 32];
        rng.fill_bytes(&mut secret);
        let cookies = CookieKey::new(secret, now, config.cookie_lifetime);
        Self {
            config: Arc::new(config),
            rng,
            cookies,
            links: HashMap::new(),
            ready: VecDeque::new(),
            timers: BTreeSet::new(),
            incoming: VecDeque::new(),
            replies: VecDeque::new(),
            accepting: true,
        }
    }

    /// The configuration shared by all links.
    pub fn config(&self) -> &Config {
        &self.config
    }

    /// Starts a connection to a server; the link is [`Connecting`](super::LinkState::Connecting)
    /// until the handshake completes.
    pub fn connect(&mut self, now: Instant, remote: SocketAddr) -> LinkId {
        let cid = self.fresh_cid();
        let link = Link::client(Arc::clone(&self.config), cid, now);
        self.insert(link, remote)
    }

    /// Processes a datagram received from `from`.
    ///
    /// Returns the link it was delivered to, or `None` if it was answered statelessly (a
    /// `Retry` for an `Initial` without a valid cookie).
    ///
    /// # Errors
    ///
    /// Why it was dropped: malformed, unknown or spoofed connection, unexpected, or the
    /// endpoint is busy. A dropped datagram changes no state.
    pub fn handle_datagram(
        &mut self,
        now: Instant,
        from: SocketAddr,
        datagram: &[u8],
    ) -> Result<Option<LinkId>, Dropped> {
        let packet = Packet::decode(datagram)?;
        match packet {
            Packet::Initial { src_cid, token } => {
                self.handle_initial(now, from, src_cid, token, datagram.len())
            }
            Packet::Retry { dst_cid, .. }
            | Packet::Accept { dst_cid, .. }
            | Packet::Data { dst_cid, .. } => {
                let id = LinkId(dst_cid);
                let entry = self
                    .links
                    .get_mut(&id)
                    .filter(|entry| entry.remote == from)
                    .ok_or(Dropped::UnknownConnection)?;
                entry.link.handle_packet(now, packet, datagram.len())?;
                self.mark_ready(id);
                Ok(Some(id))
            }
        }
    }

    /// Drops every client's `Initial` from now on, without a `Retry` or a link: for an
    /// endpoint that is closing, whose socket lives until its links have drained, and which
    /// newcomers would otherwise keep open with links of their own.
    pub fn stop_accepting(&mut self) {
        self.accepting = false;
    }

    /// Fires the timers of every link that are due at `now`, and returns those links: only
    /// their state (a timeout, the end of draining) can have changed.
    pub fn handle_timeout(&mut self, now: Instant) -> Vec<LinkId> {
        // A ready link's deadline may have moved since it was armed.
        for index in 0..self.ready.len() {
            if let Some(&id) = self.ready.get(index) {
                self.arm(id);
            }
        }
        let mut fired = Vec::new();
        while let Some(&(deadline, id)) = self.timers.first()
            && deadline <= now
        {
            self.timers.pop_first();
            if let Some(entry) = self.links.get_mut(&id) {
                entry.armed = None;
                entry.link.handle_timeout(now);
                fired.push(id);
            }
            // Armed again once it has sent what the timer asked for: a deadline that stays
            // due until then (an ack's) must not fire twice.
            self.mark_ready(id);
        }
        fired
    }

    /// The next datagram to send, stateless replies first, then links in turn.
    pub fn poll_transmit(&mut self, now: Instant) -> Option<Transmit> {
        if let Some(reply) = self.replies.pop_front() {
            return Some(reply);
        }
        while let Some(id) = self.ready.pop_front() {
            let Some(entry) = self.links.get_mut(&id) else {
                continue;
            };
            if let Some(contents) = entry.link.poll_transmit(now) {
                self.ready.push_back(id);
                return Some(Transmit {
                    destination: entry.remote,
                    contents,
                });
            }
            entry.ready = false;
            self.arm(id);
        }
        None
    }

    /// The earliest time any link needs [`handle_timeout`](Self::handle_timeout).
    pub fn poll_timeout(&self) -> Option<Instant> {
        let armed = self.timers.first().map(|&(deadline, _)| deadline);
        // Ready links are few: those `poll_transmit` has not finished with yet.
        let ready = self
            .ready
            .iter()
            .filter_map(|id| self.links.get(id)?.link.poll_timeout());
        armed.into_iter().chain(ready).min()
    }

    /// The next link created by a client's completed handshake.
    pub fn poll_incoming(&mut self) -> Option<LinkId> {
        self.incoming.pop_front()
    }

    /// A link, if it exists.
    pub fn link(&self, id: LinkId) -> Option<&Link> {
        self.links.get(&id).map(|entry| &entry.link)
    }

    /// A link, to send, receive or close. The link may have something to send afterwards, so
    /// call [`poll_transmit`](Self::poll_transmit) until `None` again.
    pub fn link_mut(&mut self, id: LinkId) -> Option<&mut Link> {
        self.mark_ready(id);
        self.links.get_mut(&id).map(|entry| &mut entry.link)
    }

    /// The peer address of a link.
    pub fn remote_addr(&self, id: LinkId) -> Option<SocketAddr> {
        self.links.get(&id).map(|entry| entry.remote)
    }

    /// The ids of all links.
    pub fn link_ids(&self) -> impl Iterator<Item = LinkId> + '_ {
        self.links.keys().copied()
    }

    /// How many links exist.
    pub fn link_count(&self) -> usize {
        self.links.len()
    }

    /// Forgets a link (usually once it is [`Closed`](super::LinkState::Closed)); later
    /// datagrams for it are dropped.
    pub fn remove_link(&mut self, id: LinkId) -> Option<Link> {
        let entry = self.links.remove(&id)?;
        if let Some(deadline) = entry.armed {
            self.timers.remove(&(deadline, id));
        }
        if entry.ready {
            self.ready.retain(|&other| other != id);
        }
        self.incoming.retain(|&other| other != id);
        Some(entry.link)
    }

    fn handle_initial(
        &mut self,
        now: Instant,
        from: SocketAddr,
        src_cid: ConnectionId,
        token: &[u8],
        len: usize,
    ) -> Result<Option<LinkId>, Dropped> {
        if !self.accepting {
            return Err(Dropped::Closed);
        }
        if !self.cookies.verify(now, from, src_cid, token) {
            // Stateless: the reply is queued, but nothing remembers the client. It is far
            // smaller than the padded `Initial`, so it amplifies nothing.
            if self.replies.len() >= MAX_PENDING_REPLIES {
                return Err(Dropped::Busy);
            }
            let cookie = self.cookies.issue(now, from, src_cid);
            let contents = Packet::Retry {
                dst_cid: src_cid,
                token: &cookie,
            }
            .encode();
            self.replies.push_back(Transmit {
                destination: from,
                contents,
            });
            return Ok(None);
        }
        let cid = self.cookies.server_cid(from, src_cid);
        if let Some(entry) = self.links.get_mut(&LinkId(cid)) {
            // The client's `Initial` again (our `Accept` was lost), or, once in 2^64, another
            // link's id: that client is turned away and tries again with a fresh id.
            if entry.remote != from || entry.link.client_cid() != Some(src_cid) {
                return Err(Dropped::UnknownConnection);
            }
            entry
                .link
                .handle_packet(now, Packet::Initial { src_cid, token }, len)?;
            self.mark_ready(LinkId(cid));
            return Ok(Some(LinkId(cid)));
        }
        if self.incoming.len() >= self.config.accept_backlog {
            return Err(Dropped::Busy);
        }
        let link = Link::server(Arc::clone(&self.config), cid, src_cid, now);
        let id = self.insert(link, from);
        self.incoming.push_back(id);
        Ok(Some(id))
    }

    fn insert(&mut self, link: Link, remote: SocketAddr) -> LinkId {
        let id = LinkId(link.local_cid());
        let entry = Box::new(Entry {
            link,
            remote,
            ready: false,
            armed: None,
        });
        self.links.insert(id, entry);
        // Its first datagram (`Initial` or `Accept`) is due at once.
        self.mark_ready(id);
        id
    }

    /// Queues a link that had an input, so that `poll_transmit` asks it for datagrams.
    fn mark_ready(&mut self, id: LinkId) {
        if let Some(entry) = self.links.get_mut(&id)
            && !entry.ready
        {
            entry.ready = true;
            self.ready.push_back(id);
        }
    }

    /// Moves a link's entry in the timers to its current deadline.
    fn arm(&mut self, id: LinkId) {
        let Some(entry) = self.links.get_mut(&id) else {
            return;
        };
        let deadline = entry.link.poll_timeout();
        if deadline == entry.armed {
            return;
        }
        if let Some(old) = entry.armed {
            self.timers.remove(&(old, id));
        }
        if let Some(new) = deadline {
            self.timers.insert((new, id));
        }
        entry.armed = deadline;
    }

    /// A random connection id no link of this endpoint has.
    fn fresh_cid(&mut self) -> ConnectionId {
        loop {
            let cid = ConnectionId::new(self.rng.next_u64());
            if !self.links.contains_key(&LinkId(cid)) {
                return cid;
            }
        }
    }
}

impl std::fmt::Debug for Endpoint {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Endpoint")
            .field("links", &self.links.len())
            .field("incoming", &self.incoming.len())
            .field("replies", &self.replies.len())
            .finish_non_exhaustive()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn an_idle_link_fits_a_512_byte_allocation() {
        // A relay holds two links per match. glibc serves a request of up to 504 bytes from a
        // 512-byte chunk; one byte more takes 528.
        assert!(size_of::<Entry>() <= 504, "{}", size_of::<Entry>());
    }
}
