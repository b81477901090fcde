//! Tests of the core over a simulated network with a virtual clock.

mod links;
mod pair;
mod props;

use std::net::SocketAddr;
use std::time::Duration;

use super::packet::{self, Chunk, ChunkKind, Packet};
use super::*;
use crate::Config;
use pair::{Pair, Side};

/// A frame whose content encodes its index, so order and integrity can be checked.
fn frame(index: u32, len: usize) -> Vec<u8> {
    let mut frame = index.to_be_bytes().to_vec();
    frame.extend((0..len).map(|i| (i as u32).wrapping_mul(31).wrapping_add(index) as u8));
    frame
}

#[test]
fn handshake_then_frames_both_ways() {
    let mut pair = Pair::new(Config::default(), 1);
    pair.connect();
    assert_eq!(pair.link(Side::Client).state(), LinkState::Connected);
    assert_eq!(pair.link(Side::Server).state(), LinkState::Connected);
    pair.link_mut(Side::Client)
        .send(b"ping".to_vec())
        .expect("send");
    pair.link_mut(Side::Server)
        .send(b"pong".to_vec())
        .expect("send");
    pair.run(Duration::from_secs(1), |pair| {
        pair.link(Side::Client).stats().frames_sent == 1
            && pair.link(Side::Server).stats().frames_sent == 1
    });
    let mut server_got = None;
    let mut client_got = None;
    pair.run(Duration::from_secs(1), |pair| {
        server_got = server_got
            .take()
            .or_else(|| pair.link_mut(Side::Server).poll_frame());
        client_got = client_got
            .take()
            .or_else(|| pair.link_mut(Side::Client).poll_frame());
        server_got.is_some() && client_got.is_some()
    });
    assert_eq!(server_got.as_deref(), Some(&b"ping"[..]));
    assert_eq!(client_got.as_deref(), Some(&b"pong"[..]));
    assert!(pair.link(Side::Client).stats().rtt > Duration::ZERO);
}

#[test]
fn ten_thousand_frames_through_loss_duplication_and_reordering_arrive_once_in_order() {
    let mut pair = Pair::new(Config::default(), 7);
    pair.connect();
    pair.net.loss = 0.3;
    pair.net.duplicate = 0.1;
    pair.net.reorder = 0.2;
    pair.net.jitter = Duration::from_millis(30);
    let count = 10_000;
    let mut rng = pair::TestRng::new(99);
    // Mostly small frames, some spanning several datagrams.
    let sizes: Vec<usize> = (0..count)
        .map(|_| {
            if rng.chance(0.05) {
                rng.below(5_000) as usize
            } else {
                rng.below(300) as usize
            }
        })
        .collect();
    let (sent, received) = pair.transfer(Side::Client, &sizes, Duration::from_secs(600));
    assert_eq!(sent, count);
    assert_eq!(received.len(), count);
    for (index, (got, &len)) in received.iter().zip(&sizes).enumerate() {
        assert_eq!(got, &frame(index as u32, len), "frame {index}");
    }
    let stats = pair.link(Side::Client).stats();
    assert!(stats.retransmits > 0);
    assert!(pair.link(Side::Server).stats().duplicates > 0);
    assert_eq!(pair.link(Side::Client).state(), LinkState::Connected);
}

#[test]
fn large_frames_are_fragmented_and_reassembled_under_loss() {
    let mut pair = Pair::new(Config::default(), 3);
    pair.connect();
    pair.net.loss = 0.2;
    pair.net.reorder = 0.3;
    let max = Config::default().max_frame_size - 4;
    let sizes = [max, 1, MAX_DATAGRAM_SIZE * 3, max];
    let (_, received) = pair.transfer(Side::Server, &sizes, Duration::from_secs(60));
    assert_eq!(received.len(), sizes.len());
    for (index, (got, &len)) in received.iter().zip(&sizes).enumerate() {
        assert_eq!(got, &frame(index as u32, len));
    }
}

#[test]
fn handshake_completes_under_loss_and_duplication() {
    for seed in 0..20 {
        let mut pair = Pair::new(Config::default(), seed);
        pair.net.loss = 0.3;
        pair.net.duplicate = 0.2;
        pair.net.reorder = 0.3;
        pair.net.jitter = Duration::from_millis(50);
        pair.connect();
        assert_eq!(pair.link(Side::Server).state(), LinkState::Connected);
        assert_eq!(
            pair.server.link_count(),
            1,
            "duplicated Initials create one link"
        );
    }
}

#[test]
fn blackholed_peer_is_declared_dead_within_the_idle_timeout() {
    let config = Config::default();
    assert!(
        config.idle_timeout <= Duration::from_secs(10),
        "default detects a dead peer within 10 s"
    );
    let mut pair = Pair::new(config.clone(), 4);
    pair.connect();
    // Traffic in flight at the moment the path dies.
    pair.link_mut(Side::Client)
        .send(vec![1; 3000])
        .expect("send");
    pair.net.blackhole = true;
    let start = pair.now;
    let dead = pair.run(Duration::from_secs(60), |pair| {
        pair.link(Side::Client).state() == LinkState::Closed
    });
    assert!(dead);
    assert!(
        pair.now - start <= config.idle_timeout,
        "declared dead after {:?}",
        pair.now - start
    );
    assert_eq!(
        pair.link(Side::Client).close_reason(),
        Some(&ConnectionError::TimedOut)
    );
    pair.run(Duration::from_secs(60), |pair| {
        pair.link(Side::Server).state() == LinkState::Closed
    });
    assert_eq!(
        pair.link(Side::Server).close_reason(),
        Some(&ConnectionError::TimedOut)
    );
}

#[test]
fn handshake_fails_when_the_server_never_answers() {
    let mut pair = Pair::new(Config::default(), 5);
    pair.net.blackhole = true;
    let id = pair.client.connect(pair.now, pair.server_addr);
    let start = pair.now;
    pair.run(Duration::from_secs(60), |pair| {
        pair.client
            .link(id)
            .is_some_and(|l| l.state() == LinkState::Closed)
    });
    assert_eq!(
        pair.client.link(id).and_then(Link::close_reason),
        Some(&ConnectionError::TimedOut)
    );
    assert!(pair.client.link(id).is_some_and(|l| !l.is_established()));
    assert!(pair.now - start <= Config::default().idle_timeout);
}

/// A server that answers with a frame and closes at once (a relay turning a client away) has
/// the client's handshake succeed all the same: the link stays established, through its close,
/// with the frame waiting before the close.
#[test]
fn a_server_that_closes_at_once_completes_the_handshake_first() {
    let mut pair = Pair::new(Config::default(), 6);
    let client = pair.client.connect(pair.now, pair.server_addr);
    let mut server = None;
    pair.run(Duration::from_secs(1), |pair| {
        server = server.or_else(|| pair.server.poll_incoming());
        server.is_some()
    });
    let server = server.expect("the server accepted");
    let link = pair.server.link_mut(server).expect("server link");
    link.send(b"go away".to_vec()).expect("send");
    link.close();
    let closed = pair.run(Duration::from_secs(10), |pair| {
        pair.client
            .link(client)
            .is_some_and(|l| l.state() == LinkState::Closed)
    });
    assert!(closed);
    let link = pair.client.link_mut(client).expect("client link");
    assert!(link.is_established());
    assert_eq!(link.poll_frame().as_deref(), Some(&b"go away"[..]));
    assert_eq!(link.close_reason(), Some(&ConnectionError::ClosedByPeer));
}

#[test]
fn spoofed_wrong_id_and_garbage_datagrams_change_nothing() {
    let mut pair = Pair::new(Config::default(), 6);
    pair.connect();
    pair.link_mut(Side::Client)
        .send(b"x".to_vec())
        .expect("send");
    pair.run(Duration::from_secs(1), |pair| {
        pair.link(Side::Server).stats().datagrams_received >= 1
    });
    pair.settle();
    let before = pair.snapshot();

    let server_cid = pair.link(Side::Server).local_cid();
    let client_cid = pair.link(Side::Client).local_cid();
    let valid = Packet::Data {
        dst_cid: server_cid,
        ack: None,
        chunk: Some(Chunk {
            seq: 1,
            kind: ChunkKind::Fragment {
                first: true,
                last: true,
            },
            payload: b"evil",
        }),
    }
    .encode();
    let spoofed_from = "127.0.0.9:4000".parse().expect("address");
    let now = pair.now;
    // Right connection id, wrong source address.
    assert_eq!(
        pair.server.handle_datagram(now, spoofed_from, &valid),
        Err(Dropped::UnknownConnection)
    );
    // Right source address, wrong connection id.
    let mut wrong_cid = valid.clone();
    wrong_cid[2..10].copy_from_slice(&(server_cid.to_u64() ^ 1).to_be_bytes());
    assert_eq!(
        pair.server
            .handle_datagram(now, pair.client_addr, &wrong_cid),
        Err(Dropped::UnknownConnection)
    );
    // Truncated, garbage and oversized datagrams.
    for len in 0..valid.len() {
        assert!(
            pair.server
                .handle_datagram(now, pair.client_addr, &valid[..len])
                .is_err()
        );
    }
    let mut rng = pair::TestRng::new(1);
    for _ in 0..2_000 {
        let len = rng.below(MAX_DATAGRAM_SIZE as u64 + 10) as usize;
        let mut garbage: Vec<u8> = (0..len).map(|_| rng.below(256) as u8).collect();
        if garbage.len() > 10 && rng.chance(0.5) {
            // Plausible header with a live connection id, hostile body.
            garbage[..2].copy_from_slice(&[packet::VERSION, 4]);
            garbage[2..10].copy_from_slice(&client_cid.to_u64().to_be_bytes());
        }
        assert!(
            pair.client
                .handle_datagram(now, pair.server_addr, &garbage)
                .is_err(),
            "{garbage:?}"
        );
    }
    // An ack for data never sent.
    let bogus_ack = Packet::Data {
        dst_cid: client_cid,
        ack: Some(packet::Ack {
            base: 1_000,
            ranges: vec![],
            blocked: false,
        }),
        chunk: None,
    };
    assert_eq!(
        pair.client
            .handle_datagram(now, pair.server_addr, &bogus_ack.encode()),
        Err(Dropped::InvalidAck)
    );

    assert_eq!(pair.snapshot(), before);
    assert_eq!(pair.client.poll_transmit(now), None);
    assert_eq!(pair.server.poll_transmit(now), None);
}

#[test]
fn handshake_never_amplifies_and_keeps_no_state_before_a_valid_cookie() {
    let mut pair = Pair::new(Config::default(), 8);
    pair.net.record = true;
    pair.connect();
    let log = std::mem::take(&mut pair.net.log);
    let (first_from, first_len) = (log[0].0, log[0].2);
    assert_eq!(first_from, pair.client_addr);
    assert_eq!(first_len, MAX_DATAGRAM_SIZE, "client pads its Initial");
    let server_replies: Vec<usize> = log
        .iter()
        .filter(|d| d.0 == pair.server_addr)
        .map(|d| d.2)
        .take(2)
        .collect();
    assert_eq!(server_replies.len(), 2, "Retry and Accept");
    assert!(
        server_replies.iter().all(|&len| len <= first_len),
        "{server_replies:?}"
    );

    // A flood of cookie-less Initials from many addresses creates no link.
    let mut server = Endpoint::new(Config::default(), [9; 32], pair.now);
    let initial = Packet::Initial {
        src_cid: ConnectionId::new(5),
        token: b"",
    }
    .encode();
    for port in 1..=100 {
        let from = SocketAddr::from(([127, 0, 0, 3], port));
        assert_eq!(server.handle_datagram(pair.now, from, &initial), Ok(None));
        let reply = server.poll_transmit(pair.now).expect("retry");
        assert_eq!(reply.destination, from);
        assert!(reply.contents.len() <= initial.len());
    }
    assert_eq!(server.link_count(), 0);
    assert_eq!(server.poll_incoming(), None);
    // An unpadded Initial gets no answer at all.
    let short = &initial[..MAX_DATAGRAM_SIZE - 1];
    assert!(
        server
            .handle_datagram(pair.now, pair.client_addr, short)
            .is_err()
    );
    assert_eq!(server.poll_transmit(pair.now), None);
}

#[test]
fn cookie_from_another_address_or_expired_is_refused() {
    let config = Config::default();
    let start = std::time::Instant::now();
    let mut server = Endpoint::new(config.clone(), [3; 32], start);
    let alice = SocketAddr::from(([127, 0, 0, 1], 1000));
    let mallory = SocketAddr::from(([127, 0, 0, 1], 2000));
    let cid = ConnectionId::new(77);
    let initial = Packet::Initial {
        src_cid: cid,
        token: b"",
    }
    .encode();
    server
        .handle_datagram(start, alice, &initial)
        .expect("retry");
    let retry = server.poll_transmit(start).expect("retry");
    let Ok(Packet::Retry { token, .. }) = Packet::decode(&retry.contents) else {
        panic!("not a retry")
    };
    let with_cookie = Packet::Initial {
        src_cid: cid,
        token,
    }
    .encode();

    // Replayed from another address: refused (answered with a fresh Retry), no link.
    assert_eq!(
        server.handle_datagram(start, mallory, &with_cookie),
        Ok(None)
    );
    assert!(
        server
            .poll_transmit(start)
            .is_some_and(|t| t.destination == mallory)
    );
    // Too late: refused.
    let late = start + config.cookie_lifetime * 2;
    assert_eq!(server.handle_datagram(late, alice, &with_cookie), Ok(None));
    assert_eq!(server.link_count(), 0);
    // A forged cookie: refused.
    let mut forged = token.to_vec();
    forged[10] ^= 1;
    let forged = Packet::Initial {
        src_cid: cid,
        token: &forged,
    }
    .encode();
    assert_eq!(server.handle_datagram(start, alice, &forged), Ok(None));
    assert_eq!(server.link_count(), 0);
    // In time from the right address: accepted, once.
    let id = server
        .handle_datagram(start + config.cookie_lifetime, alice, &with_cookie)
        .expect("accepted");
    assert!(id.is_some());
    assert_eq!(
        server
            .handle_datagram(start, alice, &with_cookie)
            .expect("repeat"),
        id
    );
    assert_eq!(server.link_count(), 1);
    assert_eq!(server.poll_incoming(), id, "one link to accept");
    assert_eq!(server.poll_incoming(), None);
}

#[test]
fn a_peer_that_never_acks_bounds_the_sender_and_fails_it() {
    let config = Config {
        send_buffer_size: 64 * 1024,
        ..Config::default()
    };
    let mut pair = Pair::new(config.clone(), 10);
    pair.connect();
    // The server's datagrams (and so its acks) no longer arrive; a fake peer keeps the client
    // from idling out with ack-less pings from the server's address.
    pair.net.blackhole_from = Some(pair.server_addr);
    let client_cid = pair.link(Side::Client).local_cid();
    let start = pair.now;
    let mut refused = false;
    let mut seq = 1_000_000;
    let mut next_ping = start;
    let failed = pair.run(Duration::from_secs(60), |pair| {
        let link = pair.link_mut(Side::Client);
        match link.send(vec![0; 1000]) {
            Ok(()) => {}
            Err(SendError::QueueFull) => refused = true,
            Err(error) => assert_eq!(error, SendError::Closed),
        }
        if pair.now >= next_ping {
            next_ping = pair.now + Duration::from_millis(500);
            seq += 1;
            let ping = Packet::Data {
                dst_cid: client_cid,
                ack: None,
                chunk: Some(Chunk {
                    seq,
                    kind: ChunkKind::Ping,
                    payload: b"",
                }),
            };
            let now = pair.now;
            pair.client
                .handle_datagram(now, pair.server_addr, &ping.encode())
                .ok();
        }
        pair.link(Side::Client).state() == LinkState::Closed
    });
    assert!(
        refused,
        "send refused with QueueFull once the buffer was full"
    );
    assert!(failed);
    assert_eq!(
        pair.link(Side::Client).close_reason(),
        Some(&ConnectionError::Unacknowledged)
    );
    assert!(pair.now - start <= config.idle_timeout + Duration::from_secs(1));
    let sent = pair.link(Side::Client).stats().frames_sent;
    assert!(sent <= 65 + 1, "sender grew to {sent} frames");
}

#[test]
fn oversized_frame_is_refused_without_state_change() {
    let mut pair = Pair::new(Config::default(), 11);
    pair.connect();
    pair.settle();
    let before = pair.snapshot();
    let max = Config::default().max_frame_size;
    assert_eq!(
        pair.link_mut(Side::Client).send(vec![0; max + 1]),
        Err(SendError::FrameTooLarge { size: max + 1, max })
    );
    assert_eq!(pair.snapshot(), before);
    assert_eq!(pair.link_mut(Side::Client).send(vec![0; max]), Ok(()));
}

#[test]
fn graceful_close_is_seen_by_both_sides_after_every_frame() {
    let mut pair = Pair::new(Config::default(), 12);
    pair.connect();
    pair.net.loss = 0.2;
    for index in 0..50 {
        pair.link_mut(Side::Client)
            .send(frame(index, 2000))
            .expect("send");
    }
    pair.link_mut(Side::Client).close();
    assert_eq!(pair.link(Side::Client).state(), LinkState::Closing);
    assert_eq!(
        pair.link_mut(Side::Client).send(b"late".to_vec()),
        Err(SendError::Closed)
    );
    let mut received = Vec::new();
    let done = pair.run(Duration::from_secs(60), |pair| {
        received.extend(std::iter::from_fn(|| {
            pair.link_mut(Side::Server).poll_frame()
        }));
        [Side::Client, Side::Server]
            .iter()
            .all(|&side| pair.link(side).state() == LinkState::Closed)
    });
    assert!(done);
    assert_eq!(
        received,
        (0..50).map(|index| frame(index, 2000)).collect::<Vec<_>>()
    );
    assert_eq!(
        pair.link(Side::Server).close_reason(),
        Some(&ConnectionError::ClosedByPeer)
    );
    assert_eq!(
        pair.link(Side::Client).close_reason(),
        Some(&ConnectionError::LocallyClosed)
    );
}

#[test]
fn keep_alive_holds_an_idle_connection_open() {
    let config = Config::default();
    let mut pair = Pair::new(config.clone(), 13);
    pair.connect();
    pair.net.loss = 0.1;
    let closed = pair.run(config.idle_timeout * 5, |pair| {
        pair.link(Side::Client).state() != LinkState::Connected
    });
    assert!(!closed);
    assert_eq!(pair.link(Side::Server).state(), LinkState::Connected);

    let quiet = Config {
        keep_alive_interval: None,
        ..config.clone()
    };
    let mut pair = Pair::new(quiet, 13);
    pair.connect();
    let closed = pair.run(config.idle_timeout * 5, |pair| {
        pair.link(Side::Client).state() != LinkState::Connected
    });
    assert!(closed, "without keep-alive the idle timeout fires");
    assert_eq!(
        pair.link(Side::Client).close_reason(),
        Some(&ConnectionError::TimedOut)
    );
}

#[test]
fn a_slow_reader_bounds_the_receive_buffer() {
    let mut pair = a_hundred_frames_to_a_small_buffer(14);
    pair.run(Duration::from_secs(2), |_| false);
    let held: Vec<Vec<u8>> =
        std::iter::from_fn(|| pair.link_mut(Side::Server).poll_frame()).collect();
    assert_eq!(held.len(), 10, "the receiver buffered only what fits");
    all_hundred_arrive(&mut pair, held);
}

/// A pair whose server takes 10 000 bytes of frames at most, with a hundred frames of
/// 1 000 bytes on their way from the client.
fn a_hundred_frames_to_a_small_buffer(seed: u64) -> Pair {
    let config = Config {
        recv_buffer_size: 10_000,
        ..Config::default()
    };
    let mut pair = Pair::new(config, seed);
    pair.connect();
    for index in 0..100 {
        pair.link_mut(Side::Client)
            .send(frame(index, 996))
            .expect("send");
    }
    pair
}

/// Reads on the server until the hundred frames of
/// [`a_hundred_frames_to_a_small_buffer`] are in, after those `received` already.
fn all_hundred_arrive(pair: &mut Pair, mut received: Vec<Vec<u8>>) {
    pair.run(Duration::from_secs(60), |pair| {
        received.extend(std::iter::from_fn(|| {
            pair.link_mut(Side::Server).poll_frame()
        }));
        received.len() == 100
    });
    assert_eq!(
        received,
        (0..100).map(|index| frame(index, 996)).collect::<Vec<_>>()
    );
}

/// `Duration::MAX` says "never": such durations count as the longest one, and no deadline
/// computed from them overflows.
#[test]
fn durations_of_never_are_taken_as_the_longest() {
    let config = Config {
        idle_timeout: Duration::MAX,
        keep_alive_interval: Some(Duration::MAX),
        max_ack_delay: Duration::MAX,
        initial_rto: Duration::MAX,
        max_rto: Duration::MAX,
        cookie_lifetime: Duration::MAX,
        ..Config::default()
    };
    let mut pair = Pair::new(config, 17);
    pair.connect();
    let sizes = [100; 50];
    let (sent, received) = pair.transfer(Side::Client, &sizes, Duration::from_secs(60));
    assert_eq!((sent, received.len()), (50, 50));
    pair.run(Duration::from_secs(60), |_| false);
    assert_eq!(pair.link(Side::Client).state(), LinkState::Connected);
    assert_eq!(pair.client.config().idle_timeout, crate::LONGEST);
}

/// Flow control is no failure: a receiver whose application pauses for longer than the idle
/// timeout keeps its connection, and every frame arrives once it reads again.
#[test]
fn a_reader_that_pauses_past_the_idle_timeout_keeps_its_connection() {
    let mut pair = a_hundred_frames_to_a_small_buffer(16);
    let failed = pair.run(Config::default().idle_timeout * 3, |pair| {
        pair.link(Side::Client).state() != LinkState::Connected
    });
    assert!(
        !failed,
        "the sender gave up: {:?}",
        pair.link(Side::Client).close_reason()
    );
    all_hundred_arrive(&mut pair, Vec::new());
}

/// A relay holds thousands of idle links, so an idle link must give back what a burst made
/// it allocate; its inline size is pinned too, since endpoint maps hold it by value.
#[test]
fn an_idle_link_holds_no_buffers_after_a_burst() {
    let mut pair = Pair::new(Config::default(), 15);
    pair.connect();
    pair.net.loss = 0.2;
    pair.net.reorder = 0.3;
    pair.net.jitter = Duration::from_millis(30);
    let sizes = [300; 500];
    let mut most = 0;
    for from in [Side::Client, Side::Server] {
        let (_, received) = pair.transfer(from, &sizes, Duration::from_secs(60));
        assert_eq!(received.len(), sizes.len());
        most = most.max(pair.link(from).heap_bytes());
    }
    assert!(most > 0, "the burst left something in flight");
    pair.net.loss = 0.0;
    // Quiet long enough for keep-alive pings to come and go; between pings, nothing is held.
    pair.run(Duration::from_secs(7), |_| false);
    let emptied = pair.run(Duration::from_secs(2), |pair| {
        [Side::Client, Side::Server]
            .into_iter()
            .all(|side| pair.link(side).heap_bytes() == 0)
    });
    assert!(emptied, "buffers held while idle");
    for side in [Side::Client, Side::Server] {
        assert_eq!(pair.link(side).state(), LinkState::Connected);
    }
    assert!(
        size_of::<Link>() <= 480,
        "a Link is {} bytes",
        size_of::<Link>()
    );
}

/// Runs until `side` has received a frame, and returns it.
fn next_frame(pair: &mut Pair, side: Side) -> Vec<u8> {
    let mut frame = None;
    let got = pair.run(Duration::from_secs(1), |pair| {
        frame = frame.take().or_else(|| pair.link_mut(side).poll_frame());
        frame.is_some()
    });
    assert!(got, "no frame arrived");
    frame.unwrap_or_default()
}

/// A configuration without keep-alive pings, whose acks would blur what a test counts.
fn quiet() -> Config {
    Config {
        keep_alive_interval: None,
        ..Config::default()
    }
}

/// The pattern of a game: a client hears its own move and then its opponent's, and answers.
/// Its ack rides on the answer; no datagram is spent on the ack alone.
#[test]
fn a_conversation_acks_on_its_answers() {
    let mut pair = Pair::new(quiet(), 16);
    pair.connect();
    let sent = |pair: &Pair, side| pair.link(side).stats().datagrams_sent;
    let (client_before, server_before) = (sent(&pair, Side::Client), sent(&pair, Side::Server));
    for round in 0..10u8 {
        pair.link_mut(Side::Server)
            .send(vec![round, 1])
            .expect("send");
        assert_eq!(next_frame(&mut pair, Side::Client), [round, 1]);
        pair.link_mut(Side::Server)
            .send(vec![round, 2])
            .expect("send");
        assert_eq!(next_frame(&mut pair, Side::Client), [round, 2]);
        pair.link_mut(Side::Client)
            .send(vec![round, 3])
            .expect("send");
        assert_eq!(next_frame(&mut pair, Side::Server), [round, 3]);
    }
    assert_eq!(
        sent(&pair, Side::Client) - client_before,
        10,
        "pure acks sent"
    );
    assert_eq!(
        sent(&pair, Side::Server) - server_before,
        20,
        "pure acks sent"
    );
}

/// A frame nobody answers is acked once the ack delay is up, not sooner.
#[test]
fn an_unanswered_frame_is_acked_after_the_ack_delay() {
    let config = quiet();
    let delay = config.max_ack_delay;
    let mut pair = Pair::new(config, 17);
    pair.connect();
    pair.link_mut(Side::Client).send(vec![1]).expect("send");
    next_frame(&mut pair, Side::Server);
    let now = pair.now;
    assert!(pair.server.poll_transmit(now).is_none(), "acked at once");
    assert_eq!(pair.link(Side::Server).poll_timeout(), Some(now + delay));
    pair.server.handle_timeout(now + delay);
    assert!(
        pair.server.poll_transmit(now + delay).is_some(),
        "never acked"
    );
}

/// Chunks are acked at once when the threshold is reached, without the delay, so a bulk
/// sender's window keeps moving.
#[test]
fn a_burst_is_acked_at_the_threshold() {
    let config = quiet();
    let threshold = config.ack_threshold;
    let mut pair = Pair::new(config, 18);
    pair.connect();
    for (count, acked) in [(threshold - 1, false), (1, true)] {
        let expected = pair.link(Side::Server).stats().datagrams_received + u64::from(count);
        for index in 0..count {
            pair.link_mut(Side::Client)
                .send(frame(index, 10))
                .expect("send");
        }
        let arrived = pair.run(Duration::from_secs(1), |pair| {
            pair.link(Side::Server).stats().datagrams_received == expected
        });
        assert!(arrived);
        let now = pair.now;
        assert_eq!(pair.server.poll_transmit(now).is_some(), acked);
    }
}
