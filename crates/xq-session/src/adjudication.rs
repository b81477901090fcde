//! What the board decides on its own: mate, stalemate, repetition and the move limit.

use std::num::NonZeroU32;

use crate::history::History;
use crate::{DrawReason, GameResult, RepetitionRule, WinReason, repetition};

/// The result the current position of `history` forces, if any: mate or stalemate first, then
/// repetition judged by `rule`, then the natural move limit of `move_limit` plies (`None`: no
/// limit).
///
/// The match judges every position with it, so that a game ends where the board says; the
/// PGN reader judges a record's final position with it, so that a record cannot claim an
/// ending the board denies.
pub(crate) fn adjudicate(
    history: &History,
    rule: RepetitionRule,
    move_limit: Option<NonZeroU32>,
) -> Option<GameResult> {
    let pos = history.current();
    if !pos.has_legal_move() {
        let reason = if pos.is_check() {
            WinReason::Checkmate
        } else {
            WinReason::Stalemate
        };
        return Some(GameResult::Win {
            winner: !pos.turn(),
            reason,
        });
    }
    repetition::adjudicate(history, rule).or_else(|| {
        let limit = move_limit?;
        (pos.halfmoves() >= limit.get()).then_some(GameResult::Draw {
            reason: DrawReason::MoveLimit,
        })
    })
}
