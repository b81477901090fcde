//! Arbitrary payloads through the decoders of the cluster's stored messages (a room's
//! journal message, an archived game): never a panic, and whatever decodes is within the
//! message's own size.

#![no_main]

use libfuzzer_sys::fuzz_target;
use xq_cluster::{Append, ArchivedGame};

fuzz_target!(|payload: &[u8]| {
    if let Ok(append) = Append::decode(1, payload) {
        assert!(append.changes.len() <= payload.len());
        assert!(append.writer.node.len() <= payload.len());
    }
    if let Ok(game) = ArchivedGame::decode(payload) {
        assert!(game.pgn.len() <= payload.len());
    }
});
