//! Chinese notation: arbitrary text must parse or fail cleanly; what parses writes back to the
//! same value, and a move it resolves to in a few fixed positions is described again the same
//! way.

#![no_main]

use libfuzzer_sys::fuzz_target;
use xq_rules::chinese::Chinese;

fuzz_target!(|data: &[u8]| {
    xq_fuzz::descriptive_round_trip(data, Chinese::to_move, Chinese::from_move);
});
