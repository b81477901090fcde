//! The moves of a game and every position they passed through.

use xq_rules::{Color, Move, Piece, Position};

/// One move as it was played, with what it did: the entries of a match's history.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
pub struct Played {
    /// The side that moved.
    pub by: Color,
    /// The move.
    pub mv: Move,
    /// The piece it captured, if any.
    pub captured: Option<Piece>,
    /// Whether it left the opponent in check.
    pub gives_check: bool,
}

/// The positions of a game from its start, one more than the moves. Keeping every position
/// (each is 144 bytes) makes undo exact, Zobrist hash and move-limit counter
/// included, and lets repetition look back without replaying.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) struct History {
    /// `positions[n]` is the position after `n` plies; never empty.
    positions: Vec<Position>,
    /// `hashes[n]` is the Zobrist hash of `positions[n]`, packed together so that the
    /// repetition check, run after every move, scans a few cache lines rather than every
    /// position since the last capture.
    hashes: Vec<u64>,
    played: Vec<Played>,
}

impl History {
    pub(crate) fn new(start: Position) -> Self {
        Self {
            hashes: vec![start.zobrist_hash()],
            positions: vec![start],
            played: Vec::new(),
        }
    }

    /// The position after `ply` plies, if the game got that far.
    pub(crate) fn position_at(&self, ply: usize) -> Option<&Position> {
        self.positions.get(ply)
    }

    /// The position now.
    pub(crate) fn current(&self) -> &Position {
        let last = self.positions.len() - 1;
        // `positions` starts with the start position and only `truncate` shrinks it, never
        // below one element.
        &self.positions[last]
    }

    /// The start position.
    pub(crate) fn start(&self) -> &Position {
        // Never empty: see `current`.
        &self.positions[0]
    }

    /// The moves played, in order.
    pub(crate) fn played(&self) -> &[Played] {
        &self.played
    }

    /// The positions from the start, `played().len() + 1` of them.
    pub(crate) fn positions(&self) -> &[Position] {
        &self.positions
    }

    /// The Zobrist hashes of [`positions`](Self::positions), in the same order.
    pub(crate) fn hashes(&self) -> &[u64] {
        &self.hashes
    }

    /// Plays `mv`, which must be legal in the current position.
    pub(crate) fn push(&mut self, mv: Move) -> Played {
        let mut pos = self.current().clone();
        let by = pos.turn();
        let captured = pos.play_unchecked(mv);
        let played = Played {
            by,
            mv,
            captured,
            gives_check: pos.is_check(),
        };
        self.hashes.push(pos.zobrist_hash());
        self.positions.push(pos);
        self.played.push(played);
        played
    }

    /// Takes back the last `plies` moves (all of them if there are fewer).
    pub(crate) fn pop(&mut self, plies: usize) {
        let keep = self.played.len().saturating_sub(plies);
        self.played.truncate(keep);
        self.positions.truncate(keep + 1);
        self.hashes.truncate(keep + 1);
    }
}
