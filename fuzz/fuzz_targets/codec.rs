//! Arbitrary frames through the protocol decoder, as a client's request and as a relay's
//! message: never a panic, and whatever decodes encodes back to the same bytes (the encoding
//! is canonical). The decoder enforces that itself; the assertion keeps it from being lost.

#![no_main]

use libfuzzer_sys::fuzz_target;
use xq_protocol::{Request, ServerMsg, codec};

fuzz_target!(|frame: &[u8]| {
    if let Ok(msg) = codec::decode::<Request>(frame) {
        assert_eq!(codec::to_frame(&msg).ok().as_deref(), Some(frame));
    }
    if let Ok(msg) = codec::decode::<ServerMsg>(frame) {
        assert_eq!(codec::to_frame(&msg).ok().as_deref(), Some(frame));
    }
});
