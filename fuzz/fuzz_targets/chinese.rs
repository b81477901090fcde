//! Chinese notation: arbitrary text must parse or fail cleanly; what parses writes back to the
//! same value, and a move it resolves to in a few fixed positions is described again the same
//! way.

#![no_main]

use std::sync::LazyLock;

use libfuzzer_sys::fuzz_target;
use xq_rules::Position;
use xq_rules::chinese::Chinese;
use xq_rules::fen::Fen;

/// The start, a middlegame with Black to move, and soldiers crowding two files.
static POSITIONS: LazyLock<Vec<Position>> = LazyLock::new(|| {
    [
        "rnbakabnr/9/1c5c1/p1p1p1p1p/9/9/P1P1P1P1P/1C5C1/9/RNBAKABNR w - - 0 1",
        "r1bakab1r/9/1cn3nc1/p1p1p3p/6p2/2P6/P3P1P1P/1CN1C1N2/9/R1BAKAB1R b - - 4 5",
        "3k5/9/2P6/2P3P2/2P3P2/9/9/9/9/4K4 w - - 0 1",
    ]
    .iter()
    .filter_map(|fen| fen.parse::<Fen>().ok()?.into_position().ok())
    .collect()
});

fuzz_target!(|data: &[u8]| {
    let Ok(text) = std::str::from_utf8(data) else {
        return;
    };
    let Ok(chinese) = text.parse::<Chinese>() else {
        return;
    };
    assert_eq!(chinese.to_string().parse::<Chinese>(), Ok(chinese));
    for pos in POSITIONS.iter() {
        if let Ok(mv) = chinese.to_move(pos) {
            assert_eq!(Chinese::from_move(pos, mv).to_move(pos), Ok(mv));
        }
    }
});
