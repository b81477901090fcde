//! Helpers shared by the unit tests: positions and moves from their text.

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
