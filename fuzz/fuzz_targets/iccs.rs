//! ICCS: arbitrary text must parse or fail cleanly; what parses writes back the same, and
//! checking it against a position never panics.

#![no_main]

use libfuzzer_sys::fuzz_target;
use xq_rules::Position;
use xq_rules::iccs::Iccs;

fuzz_target!(|data: &[u8]| {
    let Ok(text) = std::str::from_utf8(data) else {
        return;
    };
    let Ok(iccs) = text.parse::<Iccs>() else {
        return;
    };
    assert_eq!(iccs.to_string().parse::<Iccs>(), Ok(iccs));
    let pos = Position::startpos();
    if let Ok(mv) = iccs.to_move(&pos) {
        assert!(pos.legal_moves().contains(&mv));
    }
});
