//! PGN: arbitrary text must parse or fail cleanly, and a record that parses writes back, in
//! every move format, to text that parses to the same record.

#![no_main]

use libfuzzer_sys::fuzz_target;
use xq_session::pgn::{self, MoveFormat};

fuzz_target!(|data: &[u8]| {
    let Ok(text) = std::str::from_utf8(data) else {
        return;
    };
    let Ok(record) = pgn::parse(text) else {
        return;
    };
    for format in [MoveFormat::Iccs, MoveFormat::Wxf, MoveFormat::Chinese] {
        let written = pgn::write(&record, format);
        match pgn::parse(&written) {
            Ok(again) => assert_eq!(again, record, "{written}"),
            Err(error) => panic!("{error}: {written}"),
        }
    }
});
