//! FEN: arbitrary text must parse or fail cleanly; what parses writes back canonically, and a
//! legal position survives a round trip.

#![no_main]

use libfuzzer_sys::fuzz_target;
use xq_rules::fen::Fen;

fuzz_target!(|data: &[u8]| {
    let Ok(text) = std::str::from_utf8(data) else {
        return;
    };
    let Ok(fen) = text.parse::<Fen>() else {
        return;
    };
    let canonical = fen.to_string();
    assert_eq!(canonical.parse::<Fen>().as_ref(), Ok(&fen), "{canonical}");
    if let Ok(pos) = fen.into_position() {
        let written = Fen::from_position(&pos).to_string();
        let again = written.parse::<Fen>().map(Fen::into_position);
        assert!(matches!(again, Ok(Ok(ref p)) if *p == pos), "{written}");
        let _ = (pos.legal_moves(), pos.outcome());
    }
});
