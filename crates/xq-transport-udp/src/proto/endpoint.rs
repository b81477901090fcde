//! Demultiplexing datagrams to links, and the server's stateless handshake.

use std::collections::{HashMap, VecDeque};
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

/// Identifies a link within its [`Endpoint`].
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct LinkId(u64);

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
pub struct Endpoint {
    config: Arc<Config>,
    rng: StdRng,
    cookies: CookieKey,
    links: HashMap<LinkId, Entry>,
    /// `(peer address, our connection id)` to link.
    routes: HashMap<(SocketAddr, ConnectionId), LinkId>,
    /// Server links by `(client address, client connection id)`, to answer repeated `Initial`s.
    initials: HashMap<(SocketAddr, ConnectionId), LinkId>,
    /// Links in the order `poll_transmit` visits them, rotated for fairness.
    rotation: VecDeque<LinkId>,
    incoming: VecDeque<LinkId>,
    replies: VecDeque<Transmit>,
    next_id: u64,
}

struct Entry {
    link: Link,
    remote: SocketAddr,
    /// The client's connection id, for server links.
    initial: Option<ConnectionId>,
}

impl Endpoint {
    /// Creates an endpoint. Connection ids and the cookie secret are drawn from `seed`, which
    /// must be unpredictable for a server; `now` starts the cookie clock.
    pub fn new(config: Config, seed: [u8; 32], now: Instant) -> Self {
        let mut rng = StdRng::from_seed(seed);
        let mut secret = [0; 32];
        rng.fill_bytes(&mut secret);
        let cookies = CookieKey::new(secret, now, config.cookie_lifetime);
        Self {
            config: Arc::new(config),
            rng,
            cookies,
            links: HashMap::new(),
            routes: HashMap::new(),
            initials: HashMap::new(),
            rotation: VecDeque::new(),
            incoming: VecDeque::new(),
            replies: VecDeque::new(),
            next_id: 0,
        }
    }

    /// The configuration shared by all links.
    pub fn config(&self) -> &Config {
        &self.config
    }

    /// Starts a connection to a server; the link is [`Connecting`](super::LinkState::Connecting)
    /// until the handshake completes.
    pub fn connect(&mut self, now: Instant, remote: SocketAddr) -> LinkId {
        let cid = self.fresh_cid(remote);
        let link = Link::client(Arc::clone(&self.config), cid, now);
        self.insert(Entry {
            link,
            remote,
            initial: None,
        })
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
                let id = *self
                    .routes
                    .get(&(from, dst_cid))
                    .ok_or(Dropped::UnknownConnection)?;
                let entry = self.links.get_mut(&id).ok_or(Dropped::UnknownConnection)?;
                entry.link.handle_packet(now, packet, datagram.len())?;
                Ok(Some(id))
            }
        }
    }

    /// Fires the timers of every link that are due at `now`.
    pub fn handle_timeout(&mut self, now: Instant) {
        for entry in self.links.values_mut() {
            entry.link.handle_timeout(now);
        }
    }

    /// The next datagram to send, stateless replies first, then links in turn.
    pub fn poll_transmit(&mut self, now: Instant) -> Option<Transmit> {
        if let Some(reply) = self.replies.pop_front() {
            return Some(reply);
        }
        for _ in 0..self.rotation.len() {
            let id = *self.rotation.front()?;
            self.rotation.rotate_left(1);
            if let Some(entry) = self.links.get_mut(&id)
                && let Some(contents) = entry.link.poll_transmit(now)
            {
                return Some(Transmit {
                    destination: entry.remote,
                    contents,
                });
            }
        }
        None
    }

    /// The earliest time any link needs [`handle_timeout`](Self::handle_timeout).
    pub fn poll_timeout(&self) -> Option<Instant> {
        self.links
            .values()
            .filter_map(|entry| entry.link.poll_timeout())
            .min()
    }

    /// The next link created by a client's completed handshake.
    pub fn poll_incoming(&mut self) -> Option<LinkId> {
        self.incoming.pop_front()
    }

    /// A link, if it exists.
    pub fn link(&self, id: LinkId) -> Option<&Link> {
        self.links.get(&id).map(|entry| &entry.link)
    }

    /// A link, to send, receive or close.
    pub fn link_mut(&mut self, id: LinkId) -> Option<&mut Link> {
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
        self.routes.remove(&(entry.remote, entry.link.local_cid()));
        if let Some(initial) = entry.initial {
            self.initials.remove(&(entry.remote, initial));
        }
        self.rotation.retain(|&other| other != id);
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
        if let Some(&id) = self.initials.get(&(from, src_cid)) {
            let entry = self.links.get_mut(&id).ok_or(Dropped::UnknownConnection)?;
            entry
                .link
                .handle_packet(now, Packet::Initial { src_cid, token }, len)?;
            return Ok(Some(id));
        }
        if self.incoming.len() >= self.config.accept_backlog {
            return Err(Dropped::Busy);
        }
        let cid = self.fresh_cid(from);
        let link = Link::server(Arc::clone(&self.config), cid, src_cid, now);
        let id = self.insert(Entry {
            link,
            remote: from,
            initial: Some(src_cid),
        });
        self.initials.insert((from, src_cid), id);
        self.incoming.push_back(id);
        Ok(Some(id))
    }

    fn insert(&mut self, entry: Entry) -> LinkId {
        let id = LinkId(self.next_id);
        self.next_id += 1;
        self.routes
            .insert((entry.remote, entry.link.local_cid()), id);
        self.rotation.push_back(id);
        self.links.insert(id, entry);
        id
    }

    /// A random connection id not yet used towards `remote`.
    fn fresh_cid(&mut self, remote: SocketAddr) -> ConnectionId {
        loop {
            let cid = ConnectionId::new(self.rng.next_u64());
            if !self.routes.contains_key(&(remote, cid)) {
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
