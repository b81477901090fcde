//! Threefold repetition and the perpetual-check rule.
//!
//! A game is adjudicated when a position occurs for the third time with the same side to move
//! (same placement: the Zobrist hash, confirmed on the board). The cycle judged runs from the
//! first of those three occurrences to now. If one side gave check with every one of its moves
//! in it and the other did not, the checking side loses (perpetual check is forbidden);
//! otherwise the game is drawn.
//!
//! Only positions since the last capture can recur, since a capture cannot be undone by play.
//!
//! Perpetual chase (attacking the same unprotected piece with every move) is forbidden by the
//! Asian rules as well. It is not detected yet; the place for it is [`adjudicate`], next to the
//! check test, with a `WinReason::PerpetualChase` beside [`WinReason::PerpetualCheck`]. Until
//! then a chasing cycle is drawn.

use xq_rules::Color;

use crate::history::History;
use crate::{DrawReason, GameResult, WinReason};

/// The result forced by repetition in the current position of `history`, if any.
pub(crate) fn adjudicate(history: &History) -> Option<GameResult> {
    let (positions, hashes) = (history.positions(), history.hashes());
    let now = positions.len() - 1;
    let current = history.current();
    let hash = current.zobrist_hash();
    // Plies since the last capture bound the look-back; a set-up start position may claim more
    // than the match has seen. The same side is to move every second ply.
    let oldest = now.saturating_sub(current.halfmoves() as usize);
    let mut occurrences = (oldest..=now)
        .rev()
        .step_by(2)
        .filter(|&ply| hashes[ply] == hash && positions[ply].board() == current.board());
    let first = occurrences.nth(2)?;
    let cycle = &history.played()[first..];
    let checks_throughout = |side: Color| {
        cycle
            .iter()
            .filter(|played| played.by == side)
            .all(|played| played.gives_check)
    };
    Some(
        match (
            checks_throughout(Color::Red),
            checks_throughout(Color::Black),
        ) {
            (true, false) => GameResult::Win {
                winner: Color::Black,
                reason: WinReason::PerpetualCheck,
            },
            (false, true) => GameResult::Win {
                winner: Color::Red,
                reason: WinReason::PerpetualCheck,
            },
            (true, true) | (false, false) => GameResult::Draw {
                reason: DrawReason::Repetition,
            },
        },
    )
}
