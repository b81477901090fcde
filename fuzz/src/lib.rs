//! What the fuzz targets share: the positions descriptive notations are resolved in, and the
//! round-trip check they all make.

use std::fmt::{Debug, Display};
use std::str::FromStr;
use std::sync::LazyLock;

use xq_rules::fen::Fen;
use xq_rules::{Move, Position};

/// The start, a middlegame with Black to move, and soldiers crowding two files.
pub static POSITIONS: LazyLock<Vec<Position>> = LazyLock::new(|| {
    [
        "rnbakabnr/9/1c5c1/p1p1p1p1p/9/9/P1P1P1P1P/1C5C1/9/RNBAKABNR w - - 0 1",
        "r1bakab1r/9/1cn3nc1/p1p1p3p/6p2/2P6/P3P1P1P/1CN1C1N2/9/R1BAKAB1R b - - 4 5",
        "3k5/9/2P6/2P3P2/2P3P2/9/9/9/9/4K4 w - - 0 1",
    ]
    .iter()
    .filter_map(|fen| fen.parse::<Fen>().ok()?.into_position().ok())
    .collect()
});

/// Arbitrary bytes as a descriptive notation `N`: they must parse or fail cleanly; what parses
/// writes back to the same value, and a move it resolves to in [`POSITIONS`] is described again
/// the same way.
pub fn descriptive_round_trip<N, E>(
    data: &[u8],
    to_move: impl Fn(&N, &Position) -> Result<Move, E>,
    from_move: impl Fn(&Position, Move) -> N,
) where
    N: FromStr + Display + Clone + PartialEq + Debug,
    N::Err: PartialEq + Debug,
    E: PartialEq + Debug,
{
    let Ok(text) = std::str::from_utf8(data) else {
        return;
    };
    let Ok(notation) = text.parse::<N>() else {
        return;
    };
    assert_eq!(
        notation.to_string().parse::<N>(),
        Ok(notation.clone()),
        "{text:?}"
    );
    for pos in POSITIONS.iter() {
        if let Ok(mv) = to_move(&notation, pos) {
            assert_eq!(to_move(&from_move(pos, mv), pos), Ok(mv));
        }
    }
}
