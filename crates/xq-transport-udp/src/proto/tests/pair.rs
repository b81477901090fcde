//! A client and a server endpoint joined by a simulated network under a virtual clock.

use std::cmp::Reverse;
use std::collections::BinaryHeap;
use std::net::SocketAddr;
use std::time::{Duration, Instant};

use rand::rngs::StdRng;
use rand::{RngExt, SeedableRng};

use super::frame;
use crate::Config;
use crate::proto::{ConnectionError, Endpoint, Link, LinkId, LinkState, SendError, Stats};

/// Steps after which `run` gives up, whatever the virtual time.
const MAX_STEPS: u64 = 20_000_000;

/// A seeded source of test decisions.
pub(super) struct TestRng(StdRng);

impl TestRng {
    pub(super) fn new(seed: u64) -> Self {
        Self(StdRng::seed_from_u64(seed))
    }

    pub(super) fn chance(&mut self, p: f64) -> bool {
        p > 0.0 && self.0.random_bool(p.min(1.0))
    }

    pub(super) fn below(&mut self, n: u64) -> u64 {
        self.0.random_range(0..n.max(1))
    }
}

/// Which end of the pair.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) enum Side {
    Client,
    Server,
}

/// Knobs of the simulated network.
pub(super) struct Network {
    /// Probability that a datagram is lost.
    pub(super) loss: f64,
    /// Probability that a datagram is delivered twice.
    pub(super) duplicate: f64,
    /// Probability that a datagram is delayed by up to `jitter` more.
    pub(super) reorder: f64,
    /// One-way delay.
    pub(super) delay: Duration,
    pub(super) jitter: Duration,
    /// Every datagram is lost.
    pub(super) blackhole: bool,
    /// Every datagram from this address is lost.
    pub(super) blackhole_from: Option<SocketAddr>,
    /// Whether to record `(from, to, length)` of every datagram sent in `log`.
    pub(super) record: bool,
    pub(super) log: Vec<(SocketAddr, SocketAddr, usize)>,
}

/// A datagram on the wire, ordered by delivery time then sending order.
#[derive(PartialEq, Eq, PartialOrd, Ord)]
struct InFlight {
    at: Instant,
    order: u64,
    from: SocketAddr,
    to: SocketAddr,
    contents: Vec<u8>,
}

/// What must not change when a datagram is dropped.
#[derive(Debug, PartialEq, Eq)]
pub(super) struct Snapshot {
    links: Vec<(Stats, LinkState, Option<ConnectionError>, Option<Instant>)>,
    counts: (usize, usize),
}

pub(super) struct Pair {
    pub(super) now: Instant,
    pub(super) client: Endpoint,
    pub(super) server: Endpoint,
    pub(super) client_addr: SocketAddr,
    pub(super) server_addr: SocketAddr,
    pub(super) net: Network,
    wire: BinaryHeap<Reverse<InFlight>>,
    order: u64,
    rng: TestRng,
    ids: Option<(LinkId, LinkId)>,
}

impl Pair {
    pub(super) fn new(config: Config, seed: u64) -> Self {
        let now = Instant::now();
        let seed_bytes = |salt: u8| {
            let mut bytes = [salt; 32];
            bytes[..8].copy_from_slice(&seed.to_be_bytes());
            bytes
        };
        Self {
            now,
            client: Endpoint::new(config.clone(), seed_bytes(1), now),
            server: Endpoint::new(config, seed_bytes(2), now),
            client_addr: SocketAddr::from(([127, 0, 0, 1], 1111)),
            server_addr: SocketAddr::from(([127, 0, 0, 2], 2222)),
            net: Network {
                loss: 0.0,
                duplicate: 0.0,
                reorder: 0.0,
                delay: Duration::from_millis(10),
                jitter: Duration::ZERO,
                blackhole: false,
                blackhole_from: None,
                record: false,
                log: Vec::new(),
            },
            wire: BinaryHeap::new(),
            order: 0,
            rng: TestRng::new(seed),
            ids: None,
        }
    }

    /// Runs the handshake to completion.
    pub(super) fn connect(&mut self) {
        let client = self.client.connect(self.now, self.server_addr);
        let mut server = None;
        let connected = self.run(Duration::from_secs(30), |pair| {
            server = server.or_else(|| pair.server.poll_incoming());
            server.is_some()
                && pair
                    .client
                    .link(client)
                    .is_some_and(|l| l.state() == LinkState::Connected)
        });
        assert!(connected, "handshake did not complete");
        self.ids = server.map(|server| (client, server));
    }

    pub(super) fn link(&self, side: Side) -> &Link {
        let (client, server) = self.ids.expect("connected pair");
        match side {
            Side::Client => self.client.link(client),
            Side::Server => self.server.link(server),
        }
        .expect("link exists")
    }

    pub(super) fn link_mut(&mut self, side: Side) -> &mut Link {
        let (client, server) = self.ids.expect("connected pair");
        match side {
            Side::Client => self.client.link_mut(client),
            Side::Server => self.server.link_mut(server),
        }
        .expect("link exists")
    }

    /// Advances to the next event: delivers due datagrams and fires due timers. Returns
    /// `false` when nothing is left to happen.
    pub(super) fn step(&mut self) -> bool {
        self.flush();
        let next = [
            self.wire.peek().map(|d| d.0.at),
            self.client.poll_timeout(),
            self.server.poll_timeout(),
        ]
        .into_iter()
        .flatten()
        .min();
        let Some(next) = next else { return false };
        self.now = self.now.max(next);
        while self.wire.peek().is_some_and(|d| d.0.at <= self.now) {
            let Some(Reverse(datagram)) = self.wire.pop() else {
                break;
            };
            let to = if datagram.to == self.client_addr {
                &mut self.client
            } else {
                &mut self.server
            };
            // Dropped datagrams are part of the game here.
            to.handle_datagram(self.now, datagram.from, &datagram.contents)
                .ok();
        }
        for endpoint in [&mut self.client, &mut self.server] {
            if endpoint.poll_timeout().is_some_and(|t| t <= self.now) {
                endpoint.handle_timeout(self.now);
            }
        }
        true
    }

    /// Steps until `done` (checked after every step, where tests play the application) or
    /// until `limit` of virtual time has passed. Returns whether `done` was reached.
    pub(super) fn run(&mut self, limit: Duration, mut done: impl FnMut(&mut Self) -> bool) -> bool {
        let end = self.now + limit;
        for _ in 0..MAX_STEPS {
            if done(self) {
                return true;
            }
            if self.now >= end || !self.step() {
                return false;
            }
        }
        false
    }

    /// Lets acks and retransmissions finish so that the endpoints have nothing to send.
    pub(super) fn settle(&mut self) {
        self.run(Duration::from_millis(500), |_| false);
        self.flush();
    }

    pub(super) fn snapshot(&self) -> Snapshot {
        let links = [Side::Client, Side::Server]
            .map(|side| {
                let link = self.link(side);
                (
                    link.stats(),
                    link.state(),
                    link.close_reason().cloned(),
                    link.poll_timeout(),
                )
            })
            .to_vec();
        Snapshot {
            links,
            counts: (self.client.link_count(), self.server.link_count()),
        }
    }

    /// Sends frames `frame(i, sizes[i])` from `from` as fast as the link accepts them, and
    /// collects what the other side receives. Returns the number sent and the frames received.
    pub(super) fn transfer(
        &mut self,
        from: Side,
        sizes: &[usize],
        limit: Duration,
    ) -> (usize, Vec<Vec<u8>>) {
        let to = if from == Side::Client {
            Side::Server
        } else {
            Side::Client
        };
        let mut sent = 0;
        let mut received = Vec::new();
        self.run(limit, |pair| {
            while let Some(&len) = sizes.get(sent) {
                match pair.link_mut(from).send(frame(sent as u32, len)) {
                    Ok(()) => sent += 1,
                    Err(SendError::QueueFull) => break,
                    Err(error) => panic!("send failed: {error}"),
                }
            }
            received.extend(std::iter::from_fn(|| pair.link_mut(to).poll_frame()));
            received.len() >= sizes.len()
        });
        (sent, received)
    }

    fn flush(&mut self) {
        for side in [Side::Client, Side::Server] {
            let (endpoint, from) = match side {
                Side::Client => (&mut self.client, self.client_addr),
                Side::Server => (&mut self.server, self.server_addr),
            };
            while let Some(transmit) = endpoint.poll_transmit(self.now) {
                if self.net.record {
                    self.net
                        .log
                        .push((from, transmit.destination, transmit.contents.len()));
                }
                if self.net.blackhole
                    || self.net.blackhole_from == Some(from)
                    || self.rng.chance(self.net.loss)
                {
                    continue;
                }
                let copies = if self.rng.chance(self.net.duplicate) {
                    2
                } else {
                    1
                };
                for _ in 0..copies {
                    let mut at = self.now + self.net.delay;
                    if self.rng.chance(self.net.reorder) {
                        let jitter = self.net.jitter.as_micros() as u64;
                        at += Duration::from_micros(self.rng.below(jitter + 1));
                    }
                    self.order += 1;
                    let contents = transmit.contents.clone();
                    self.wire.push(Reverse(InFlight {
                        at,
                        order: self.order,
                        from,
                        to: transmit.destination,
                        contents,
                    }));
                }
            }
        }
    }
}
