//! Perft: counting the leaves of the legal-move tree, the standard test of a move generator.

use crate::{Move, Position};

/// The number of leaves of the legal-move tree `depth` plies deep (no repetition or move-limit
/// cut-offs). The last ply is counted in bulk, without playing its moves.
///
/// # Examples
///
/// ```
/// use xq_rules::{Position, perft};
/// assert_eq!(perft(&Position::startpos(), 2), 1920);
/// ```
#[must_use]
pub fn perft(pos: &Position, depth: u32) -> u64 {
    match depth {
        0 => 1,
        1 => pos.count_legal_moves() as u64,
        _ => pos
            .legal_moves()
            .into_iter()
            .map(|mv| {
                let mut child = pos.clone();
                child.play_unchecked(mv);
                perft(&child, depth - 1)
            })
            .sum(),
    }
}

/// Perft split by first move: each legal move with the leaf count below it (depth ≥ 1).
#[must_use]
pub fn divide(pos: &Position, depth: u32) -> Vec<(Move, u64)> {
    pos.legal_moves()
        .into_iter()
        .map(|mv| {
            let mut child = pos.clone();
            child.play_unchecked(mv);
            (mv, perft(&child, depth.saturating_sub(1)))
        })
        .collect()
}
