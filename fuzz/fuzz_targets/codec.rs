//! Arbitrary frames through the protocol decoder: never a panic, and whatever decodes encodes
//! back to the same bytes (the encoding is canonical). The decoder enforces that itself; the
//! assertion keeps it from being lost.

#![no_main]

use libfuzzer_sys::fuzz_target;
use xq_protocol::{ClientMsg, ServerMsg, codec};

fuzz_target!(|frame: &[u8]| {
    if let Ok(msg) = codec::decode::<ClientMsg>(frame) {
        assert_eq!(codec::to_frame(&msg).ok().as_deref(), Some(frame));
    }
    if let Ok(msg) = codec::decode::<ServerMsg>(frame) {
        assert_eq!(codec::to_frame(&msg).ok().as_deref(), Some(frame));
    }
});
