//! Property: whatever the seeded loss, duplication and reordering, frames arrive exactly once
//! and in order.

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
}
