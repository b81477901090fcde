//! The client core fed whatever a relay could send: frames that do not decode, and messages
//! that decode but make no sense where they arrive (a snapshot out of place, events of
//! another match, answers to requests never made). It must never panic, and whatever it sends
//! must be a request the codec reads back. Frames are the input split at `0xff` bytes, each
//! behind the protocol's version byte.

#![no_main]

use libfuzzer_sys::fuzz_target;
use xq_client::{ClientCore, ClientOptions, CoreEvent};
use xq_protocol::{PROTOCOL_VERSION, Request, RoomOptions, ServerMsg, codec};
use xq_session::Timestamp;

/// Says hello to the core's latest hello, as a relay would.
fn welcome(core: &mut ClientCore, now: Timestamp) {
    while let Some(frame) = core.poll_transmit() {
        let Ok(request) = codec::decode::<Request>(&frame) else {
            panic!("the core sent a frame the codec cannot read");
        };
        if let xq_protocol::ClientMsg::Hello { .. } = request.msg {
            let welcome = ServerMsg::Welcome {
                id: request.id,
                version: PROTOCOL_VERSION,
                server: "fuzz".into(),
            };
            if let Ok(frame) = codec::to_frame(&welcome) {
                core.handle_frame(now, &frame);
            }
        }
    }
}

fuzz_target!(|data: &[u8]| {
    let mut now = Timestamp::from_millis(0);
    let mut core = ClientCore::new(ClientOptions::default());
    core.handle_connected(now);
    welcome(&mut core, now);
    let _ = core.create(RoomOptions::default());
    for chunk in data.split(|&byte| byte == 0xff) {
        now = now + std::time::Duration::from_millis(chunk.len() as u64 * 97);
        let mut frame = vec![PROTOCOL_VERSION];
        frame.extend_from_slice(chunk);
        core.handle_frame(now, &frame);
        core.handle_timeout(now);
        while let Some(event) = core.poll_event() {
            if let CoreEvent::Connect = event {
                core.handle_connected(now);
            }
        }
        welcome(&mut core, now);
        if core.is_closed() {
            break;
        }
    }
});
