//! Helpers shared by the unit tests: positions and moves from their text.

use std::fmt::Debug;

use crate::fen::Fen;
use crate::iccs::Iccs;
use crate::{Move, Position};

/// The legal position a FEN describes; panics with the reason otherwise.
pub(crate) fn position(fen: &str) -> Position {
    fen.parse::<Fen>()
        .map_err(|e| e.to_string())
        .and_then(|fen| fen.into_position().map_err(|e| e.to_string()))
        .unwrap_or_else(|e| panic!("{fen}: {e}"))
}

/// The move an ICCS text names; panics if it is not ICCS.
pub(crate) fn iccs(text: &str) -> Move {
    text.parse::<Iccs>()
        .map(|i| Move::new(i.from, i.to))
        .unwrap_or_else(|e| panic!("{text}: {e}"))
}

/// Checks, in the position `fen`, that each ICCS move of `cases` is written as its text by
/// `write` and that `read` takes the text back to the move: the round trip every move notation
/// must make.
pub(crate) fn assert_writes<E: Debug + PartialEq>(
    fen: &str,
    cases: &[(&str, &str)],
    write: impl Fn(&Position, Move) -> String,
    read: impl Fn(&str, &Position) -> Result<Move, E>,
) {
    let pos = position(fen);
    for &(text_iccs, text) in cases {
        let mv = iccs(text_iccs);
        assert!(pos.is_legal(mv), "{fen}: {mv} is illegal");
        assert_eq!(write(&pos, mv), text, "{fen}: {mv}");
        assert_eq!(read(text, &pos), Ok(mv), "{fen}: {text}");
    }
}
