//! Two links wired by hand, for tests that decide the fate of each datagram.

use std::sync::Arc;
use std::time::{Duration, Instant};

use crate::Config;
use crate::proto::{ConnectionError, ConnectionId, Link, LinkState, SendError};

/// Two established links, each the other's peer, with the handshake's `Accept`s discarded.
fn linked(config: Config, now: Instant) -> (Link, Link) {
    let config = Arc::new(config);
    let (a_cid, b_cid) = (ConnectionId::new(1), ConnectionId::new(2));
    let mut a = Link::server(Arc::clone(&config), a_cid, b_cid, now);
    let mut b = Link::server(config, b_cid, a_cid, now);
    drain(&mut a, now);
    drain(&mut b, now);
    (a, b)
}

fn drain(link: &mut Link, now: Instant) -> Vec<Vec<u8>> {
    std::iter::from_fn(|| link.poll_transmit(now)).collect()
}

/// Delivers everything either link sends, with no loss, until neither has more to say.
fn exchange(a: &mut Link, b: &mut Link, now: Instant) {
    loop {
        let (to_b, to_a) = (drain(a, now), drain(b, now));
        if to_b.is_empty() && to_a.is_empty() {
            return;
        }
        for datagram in to_b {
            // Refusals are part of what these tests look at.
            b.handle_datagram(now, &datagram).ok();
        }
        for datagram in to_a {
            a.handle_datagram(now, &datagram).ok();
        }
    }
}

/// Runs both links for `span` of virtual time, collecting what `b` receives.
fn run(a: &mut Link, b: &mut Link, now: &mut Instant, span: Duration, received: &mut Vec<Vec<u8>>) {
    let end = *now + span;
    while *now < end {
        tick(a, b, now);
        received.extend(std::iter::from_fn(|| b.poll_frame()));
    }
}

/// Delivers what both links send, then moves the clock 5 ms on and fires their timers.
fn tick(a: &mut Link, b: &mut Link, now: &mut Instant) {
    exchange(a, b, *now);
    *now += Duration::from_millis(5);
    for link in [a, b] {
        if link.poll_timeout().is_some_and(|at| at <= *now) {
            link.handle_timeout(*now);
        }
    }
}

/// Two links whose receiver `b` takes 10 000 bytes of frames at most, with a hundred frames
/// of 996 bytes queued on `a` for it: the frames, in order, come third.
fn a_hundred_frames_to_a_small_buffer(now: Instant) -> (Link, Link, Vec<Vec<u8>>) {
    let config = Config {
        recv_buffer_size: 10_000,
        ..Config::default()
    };
    let (mut a, b) = linked(config, now);
    let frames: Vec<Vec<u8>> = (0..100_u8).map(|index| vec![index; 996]).collect();
    for frame in &frames {
        a.send(frame.clone()).expect("send");
    }
    (a, b, frames)
}

/// Acks are selective, so a close can be acknowledged while a frame sent before it is still
/// missing: the frame must still be delivered before either side calls the close done.
#[test]
fn a_close_acknowledged_before_an_earlier_frame_still_delivers_it() {
    let mut now = Instant::now();
    let (mut a, mut b) = linked(Config::default(), now);
    a.send(b"last words".to_vec()).expect("send");
    a.close();
    let sent = drain(&mut a, now);
    assert_eq!(sent.len(), 2, "the frame, then the close");
    // The frame is lost; the close arrives, and b closes too, acknowledging a's close.
    b.handle_datagram(now, &sent[1]).expect("close arrives");
    b.close();
    for datagram in drain(&mut b, now) {
        a.handle_datagram(now, &datagram)
            .expect("b's ack and close");
    }
    assert_eq!(
        a.state(),
        LinkState::Closing,
        "the frame is still unacknowledged"
    );
    let mut received = Vec::new();
    run(
        &mut a,
        &mut b,
        &mut now,
        Duration::from_secs(30),
        &mut received,
    );
    assert_eq!(received, [b"last words".to_vec()]);
    assert_eq!(
        (a.state(), b.state()),
        (LinkState::Closed, LinkState::Closed)
    );
    assert_eq!(a.close_reason(), Some(&ConnectionError::LocallyClosed));
    assert_eq!(b.close_reason(), Some(&ConnectionError::LocallyClosed));
}

/// Empty frames carry no payload, but each takes a place in the queue: a peer that never
/// acknowledges must still see the sender refuse them once the buffer is full.
#[test]
fn empty_frames_fill_the_send_buffer_of_a_peer_that_never_acks() {
    let now = Instant::now();
    let config = Config::default();
    let (mut a, _b) = linked(config.clone(), now);
    let mut queued = 0;
    let refused = (0..1_000_000).find_map(|_| match a.send(Vec::new()) {
        Ok(()) => {
            queued += 1;
            None
        }
        Err(error) => Some(error),
    });
    assert_eq!(refused, Some(SendError::QueueFull), "after {queued} frames");
    // The queue's capacity doubles as it grows, so it may hold up to twice the bound.
    let held = a.heap_bytes();
    assert!(
        held <= 2 * config.send_buffer_size,
        "the sender holds {held} bytes"
    );
}

/// The receiving side of the same: empty frames that the application does not take fill the
/// receive buffer, after which the receiver refuses more.
#[test]
fn empty_frames_fill_the_receive_buffer_of_an_application_that_does_not_read() {
    let now = Instant::now();
    let config = Config::default();
    let (mut a, mut b) = linked(config.clone(), now);
    let mut queued = 0;
    for _ in 0..200_000 {
        match a.send(Vec::new()) {
            Ok(()) => queued += 1,
            Err(SendError::QueueFull) => {}
            Err(error) => panic!("send failed: {error}"),
        }
        exchange(&mut a, &mut b, now);
    }
    assert!(queued < 200_000, "the receiver kept acknowledging");
    let held = b.heap_bytes();
    assert!(
        held <= 2 * config.recv_buffer_size,
        "the receiver holds {held} bytes"
    );
    assert!(std::iter::from_fn(|| b.poll_frame()).all(|frame| frame.is_empty()));
}

/// A close must end even towards a peer whose application never reads again: the blocked acks
/// that keep an open link waiting do not keep a closing one.
#[test]
fn a_close_ends_though_the_peer_never_reads_again() {
    let mut now = Instant::now();
    let (mut a, mut b, _) = a_hundred_frames_to_a_small_buffer(now);
    exchange(&mut a, &mut b, now);
    a.close();
    // b's application takes nothing from here on.
    let end = now + Config::default().idle_timeout * 3;
    while now < end && a.state() != LinkState::Closed {
        tick(&mut a, &mut b, &mut now);
    }
    assert_eq!(a.state(), LinkState::Closed);
    assert_eq!(a.close_reason(), Some(&ConnectionError::Unacknowledged));
}

/// A reader that makes room after a long pause says so at once (a window update): the rest
/// comes without waiting for the sender's next probe, however far it has backed off.
#[test]
fn a_reader_that_makes_room_gets_the_rest_at_once() {
    let mut now = Instant::now();
    let (mut a, mut b, sent) = a_hundred_frames_to_a_small_buffer(now);
    let end = now + Duration::from_secs(5);
    while now < end {
        tick(&mut a, &mut b, &mut now);
    }
    // From here the clock stands still: no probe is due, only window updates move data.
    let mut received = Vec::new();
    loop {
        exchange(&mut a, &mut b, now);
        let taken: Vec<Vec<u8>> = std::iter::from_fn(|| b.poll_frame()).collect();
        if taken.is_empty() {
            break;
        }
        received.extend(taken);
    }
    assert_eq!(received.len(), sent.len(), "the rest waits for a probe");
    assert_eq!(received, sent);
}

/// A driver may let the application take frames between a datagram and the acks it calls for
/// (the simulated network's `Pair` does so at every step, and the tokio driver releases its
/// lock between the two): the refusal must still reach the sender, or the window update that
/// follows means nothing to it and the rest waits for its next probe.
#[test]
fn a_reader_that_makes_room_before_the_refusal_is_acked_gets_the_rest_at_once() {
    let now = Instant::now();
    let (mut a, mut b, sent) = a_hundred_frames_to_a_small_buffer(now);
    // The clock stands still: no probe is due, only window updates move what b refused.
    let mut received = Vec::new();
    loop {
        let to_b = drain(&mut a, now);
        for datagram in &to_b {
            b.handle_datagram(now, datagram).ok();
        }
        // The application reads before b's acks go out.
        received.extend(std::iter::from_fn(|| b.poll_frame()));
        let to_a = drain(&mut b, now);
        if to_b.is_empty() && to_a.is_empty() {
            break;
        }
        for datagram in &to_a {
            a.handle_datagram(now, datagram).ok();
        }
    }
    assert_eq!(
        received.len(),
        sent.len(),
        "the sender never heard of the refusal"
    );
    assert_eq!(received, sent);
}
