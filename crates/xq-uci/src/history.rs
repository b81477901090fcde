//! A game as UCI sends it, a start and the moves since, replayed with the rules.

use xq_rules::{IllegalMove, Move, Position};

/// A move of a history that is illegal where it is played.
#[derive(Clone, Copy, Debug, PartialEq, Eq, thiserror::Error)]
#[error("move {ply} of the history ({mv}) is illegal: {reason}")]
pub struct HistoryError {
    /// Its index in the moves, from 0.
    pub ply: usize,
    /// The move.
    pub mv: Move,
    /// Why it is illegal.
    pub reason: IllegalMove,
}

/// The position reached from `start` by `moves`, each checked by the rules: what a
/// `position … moves …` command means. (The driver and an engine built on [`crate::Command`]
/// both need it.)
///
/// # Errors
///
/// The first illegal move, as a [`HistoryError`].
///
/// # Examples
///
/// ```
/// use xq_rules::{Move, Position, Square};
/// use xq_uci::replay;
///
/// let h2e2 = Move::new(Square::H2, Square::E2);
/// let pos = replay(&Position::startpos(), &[h2e2])?;
/// assert!(pos.board().piece_at(Square::E2).is_some());
/// assert_eq!(replay(&pos, &[h2e2]).map_err(|e| e.ply), Err(0));
/// # Ok::<_, xq_uci::HistoryError>(())
/// ```
pub fn replay(start: &Position, moves: &[Move]) -> Result<Position, HistoryError> {
    let mut position = start.clone();
    for (ply, &mv) in moves.iter().enumerate() {
        position = position.play(mv).map_err(|e| HistoryError {
            ply,
            mv,
            reason: e.reason,
        })?;
    }
    Ok(position)
}
