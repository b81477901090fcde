//! Feeds arbitrary datagrams to a UDP endpoint that has a live connection: decoding and
//! handling must never panic, whatever the bytes, and the endpoint stays usable.

#![no_main]

use std::net::SocketAddr;
use std::time::{Duration, Instant};

use libfuzzer_sys::fuzz_target;
use xq_transport_udp::Config;
use xq_transport_udp::proto::Endpoint;

fuzz_target!(|data: &[u8]| {
    let now = Instant::now();
    let server_addr = SocketAddr::from(([127, 0, 0, 2], 2000));
    let mut client = Endpoint::new(Config::default(), [1; 32], now);
    let mut server = Endpoint::new(Config::default(), [2; 32], now);
    let client_addr = SocketAddr::from(([127, 0, 0, 1], 1000));
    let id = client.connect(now, server_addr);
    // Run the real handshake so that hostile bytes also reach an established link.
    for _ in 0..4 {
        while let Some(transmit) = client.poll_transmit(now) {
            let _ = server.handle_datagram(now, client_addr, &transmit.contents);
        }
        while let Some(transmit) = server.poll_transmit(now) {
            let _ = client.handle_datagram(now, server_addr, &transmit.contents);
        }
    }
    if let Some(link) = client.link_mut(id) {
        let _ = link.send(vec![0; 3000]);
    }
    let _ = client.poll_transmit(now);
    // The input is a sequence of datagrams, each a length byte then that many bytes. An even
    // length byte sends the datagram to the client (from the server), an odd one to the
    // server; the clock advances by that many milliseconds so timers fire too.
    let mut rest = data;
    let mut later = now;
    while let Some((&head, tail)) = rest.split_first() {
        let (datagram, tail) = tail.split_at(usize::from(head).min(tail.len()));
        rest = tail;
        later += Duration::from_millis(u64::from(head));
        if head % 2 == 0 {
            let _ = client.handle_datagram(later, server_addr, datagram);
        } else {
            let _ = server.handle_datagram(later, client_addr, datagram);
        }
        client.handle_timeout(later);
        while client.poll_transmit(later).is_some() {}
        while server.poll_transmit(later).is_some() {}
        if let Some(link) = client.link_mut(id) {
            while link.poll_frame().is_some() {}
        }
    }
});
