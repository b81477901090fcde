//! Properties: whatever the seeded loss, duplication and reordering, frames arrive exactly
//! once and in order, also to a slow reader behind a small receive buffer.

use std::time::Duration;

use proptest::prelude::*;

use super::frame;
use super::pair::{Pair, Side};
use crate::Config;
use crate::proto::LinkState;

proptest! {
    #![proptest_config(ProptestConfig { cases: 24, ..ProptestConfig::default() })]

    #[test]
    fn frames_arrive_once_in_order_under_any_seeded_network(
        seed in any::<u64>(),
        loss in 0.0..0.4f64,
        duplicate in 0.0..0.3f64,
        reorder in 0.0..0.5f64,
        sizes in proptest::collection::vec(0..4_000usize, 1..150),
        from_client in any::<bool>(),
    ) {
        let mut pair = Pair::new(Config::default(), seed);
        pair.connect();
        pair.net.loss = loss;
        pair.net.duplicate = duplicate;
        pair.net.reorder = reorder;
        pair.net.jitter = Duration::from_millis(40);
        let from = if from_client { Side::Client } else { Side::Server };
        let (_, received) = pair.transfer(from, &sizes, Duration::from_secs(600));
        prop_assert_eq!(received.len(), sizes.len());
        for (index, (got, &len)) in received.iter().zip(&sizes).enumerate() {
            prop_assert_eq!(got, &frame(index as u32, len));
        }
        prop_assert_eq!(pair.link(Side::Client).state(), LinkState::Connected);
    }

    /// Flow control under loss: a reader that takes a few frames at a time after pauses,
    /// behind a buffer of a few frames, gets every frame once and in order, and the sender
    /// neither gives up on it nor stalls (refusals, window updates and probes interleave).
    #[test]
    fn a_slow_reader_behind_a_small_buffer_gets_every_frame(
        seed in any::<u64>(),
        loss in 0.0..0.3f64,
        reorder in 0.0..0.3f64,
        buffer in 1_000..20_000usize,
        pause in 0..3_000u64,
        burst in 1..8usize,
        sizes in proptest::collection::vec(0..2_500usize, 1..80),
    ) {
        let config = Config {
            recv_buffer_size: buffer,
            ..Config::default()
        };
        let mut pair = Pair::new(config, seed);
        pair.connect();
        pair.net.loss = loss;
        pair.net.reorder = reorder;
        pair.net.jitter = Duration::from_millis(20);
        let pause = Duration::from_millis(pause);
        let mut sent = 0;
        let mut received = Vec::new();
        let mut next_read = pair.now;
        pair.run(Duration::from_secs(3_600), |pair| {
            while let Some(&len) = sizes.get(sent) {
                if pair.link_mut(Side::Client).send(frame(sent as u32, len)).is_err() {
                    break;
                }
                sent += 1;
            }
            if pair.now >= next_read {
                let reader = pair.link_mut(Side::Server);
                received.extend(std::iter::from_fn(|| reader.poll_frame()).take(burst));
                next_read = pair.now + pause;
            }
            received.len() >= sizes.len()
        });
        prop_assert_eq!(received.len(), sizes.len());
        for (index, (got, &len)) in received.iter().zip(&sizes).enumerate() {
            prop_assert_eq!(got, &frame(index as u32, len));
        }
        prop_assert_eq!(pair.link(Side::Client).state(), LinkState::Connected);
    }
}
