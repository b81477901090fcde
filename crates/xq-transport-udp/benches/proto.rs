//! The sans-IO core alone, without sockets or tasks: what it costs to carry a request and
//! its answer between two endpoints (framing, acks, timers, and routing among many links).
//!
//! The server endpoint holds `LINKS` links and the exchanges go round them in turn, as a
//! relay's do; time advances between exchanges so that delayed acks fall due as they would.

#![allow(missing_docs)] // criterion's macros generate undocumented items

use std::net::SocketAddr;
use std::time::{Duration, Instant};

use criterion::{Criterion, Throughput, criterion_group, criterion_main};
use xq_transport_udp::Config;
use xq_transport_udp::proto::{Endpoint, LinkId, LinkState};

/// Links between the two endpoints (one client endpoint stands for many clients): as many
/// as a load run's 1000 matches have, so that the links do not all fit in the CPU's caches.
const LINKS: usize = 2000;
/// The sizes of a move command and of its event, as the protocol encodes them.
const REQUEST: usize = 12;
const ANSWER: usize = 40;
/// Time between exchanges.
const STEP: Duration = Duration::from_micros(20);

struct Bench {
    client: Endpoint,
    server: Endpoint,
    client_addr: SocketAddr,
    server_addr: SocketAddr,
    /// Each link's client end and server end.
    links: Vec<(LinkId, LinkId)>,
    next: usize,
    now: Instant,
}

impl Bench {
    fn new() -> Self {
        let now = Instant::now();
        let mut bench = Self {
            client: Endpoint::new(Config::default(), [1; 32], now),
            server: Endpoint::new(Config::default(), [2; 32], now),
            client_addr: SocketAddr::from(([127, 0, 0, 1], 1000)),
            server_addr: SocketAddr::from(([127, 0, 0, 1], 2000)),
            links: Vec::new(),
            next: 0,
            now,
        };
        for _ in 0..LINKS {
            let client = bench.client.connect(bench.now, bench.server_addr);
            bench.pump();
            let server = bench
                .server
                .poll_incoming()
                .unwrap_or_else(|| unreachable!("the handshake completes on a perfect network"));
            bench.pump();
            assert_eq!(
                bench.client.link(client).map(|link| link.state()),
                Some(LinkState::Connected)
            );
            bench.links.push((client, server));
        }
        bench
    }

    /// Delivers every datagram both ways until neither endpoint has one to send.
    fn pump(&mut self) {
        loop {
            let mut moved = false;
            while let Some(transmit) = self.client.poll_transmit(self.now) {
                let _ = self
                    .server
                    .handle_datagram(self.now, self.client_addr, &transmit.contents);
                moved = true;
            }
            while let Some(transmit) = self.server.poll_transmit(self.now) {
                let _ = self
                    .client
                    .handle_datagram(self.now, self.server_addr, &transmit.contents);
                moved = true;
            }
            if !moved {
                return;
            }
        }
    }

    /// One request from the next link's client and the server's answer, each read whole.
    fn exchange(&mut self) {
        self.now += STEP;
        for endpoint in [&mut self.client, &mut self.server] {
            if endpoint.poll_timeout().is_some_and(|at| at <= self.now) {
                endpoint.handle_timeout(self.now);
            }
        }
        let (client, server) = self.links[self.next];
        self.next = (self.next + 1) % self.links.len();
        send(&mut self.client, client, REQUEST);
        self.pump();
        assert_eq!(received(&mut self.server, server), Some(REQUEST));
        send(&mut self.server, server, ANSWER);
        self.pump();
        assert_eq!(received(&mut self.client, client), Some(ANSWER));
    }
}

/// Queues a frame of `len` bytes on `endpoint`'s `link`.
fn send(endpoint: &mut Endpoint, link: LinkId, len: usize) {
    if let Some(link) = endpoint.link_mut(link) {
        let _ = link.send(vec![1; len]);
    }
}

/// The length of the next frame `endpoint`'s `link` has received whole.
fn received(endpoint: &mut Endpoint, link: LinkId) -> Option<usize> {
    endpoint
        .link_mut(link)
        .and_then(|link| link.poll_frame())
        .map(|frame| frame.len())
}

fn bench(c: &mut Criterion) {
    let mut bench = Bench::new();
    let mut group = c.benchmark_group("proto");
    group.throughput(Throughput::Elements(1));
    group.bench_function("exchange", |b| b.iter(|| bench.exchange()));
    group.finish();
}

criterion_group!(benches, bench);
criterion_main!(benches);
