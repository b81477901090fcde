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

/// Perft split by first move: each legal move with the leaf count below it, so that the counts
/// add up to [`perft`] at the same depth. At depth 0 there is no first move, and the list is
/// empty (perft counts the root alone).
///
/// # Examples
///
/// ```
/// use xq_rules::{Position, divide, perft};
/// let pos = Position::startpos();
/// let split = divide(&pos, 2);
/// assert_eq!(split.len(), 44);
/// assert_eq!(split.iter().map(|(_, n)| n).sum::<u64>(), perft(&pos, 2));
/// assert!(divide(&pos, 0).is_empty());
/// ```
#[must_use]
pub fn divide(pos: &Position, depth: u32) -> Vec<(Move, u64)> {
    if depth == 0 {
        return Vec::new();
    }
    pos.legal_moves()
        .into_iter()
        .map(|mv| {
            let mut child = pos.clone();
            child.play_unchecked(mv);
            (mv, perft(&child, depth - 1))
        })
        .collect()
}
