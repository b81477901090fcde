//! The game a search starts from: its root and the history behind it.

use xq_rules::{IllegalMove, Move, Position};

/// A start position and the legal moves played since: the search's root is the position they
/// lead to, and its repetition judge sees every position since the last capture.
///
/// # Examples
///
/// ```
/// use xq_engine::Game;
/// use xq_rules::{Move, Position, Square};
///
/// let game = Game::from_moves(Position::startpos(), [Move::new(Square::H2, Square::E2)])?;
/// assert_eq!(game.moves().len(), 1);
/// # Ok::<_, xq_engine::IllegalMoveError>(())
/// ```
#[derive(Clone, Debug)]
pub struct Game {
    /// `positions[n]` is the position after `n` moves; never empty.
    positions: Vec<Position>,
    moves: Vec<Move>,
}

/// A move of a [`Game`] is illegal where it was played.
#[derive(Clone, Copy, Debug, PartialEq, Eq, thiserror::Error)]
#[error("move {ply} ({mv}) is illegal: {reason}")]
pub struct IllegalMoveError {
    /// How many moves came before it.
    pub ply: usize,
    /// The move.
    pub mv: Move,
    /// Why it is illegal.
    pub reason: IllegalMove,
}

impl Game {
    /// A game with no move played yet.
    #[must_use]
    pub fn new(start: Position) -> Self {
        Self {
            positions: vec![start],
            moves: Vec::new(),
        }
    }

    /// A game from `start` through `moves`.
    ///
    /// # Errors
    ///
    /// The first illegal move, as an [`IllegalMoveError`].
    pub fn from_moves(
        start: Position,
        moves: impl IntoIterator<Item = Move>,
    ) -> Result<Self, IllegalMoveError> {
        let mut game = Self::new(start);
        for mv in moves {
            game.push(mv)?;
        }
        Ok(game)
    }

    /// Plays `mv`.
    ///
    /// # Errors
    ///
    /// An [`IllegalMoveError`] if `mv` is illegal in the current position, which stays as it was.
    pub fn push(&mut self, mv: Move) -> Result<(), IllegalMoveError> {
        let current = self.position();
        current.check_move(mv).map_err(|reason| IllegalMoveError {
            ply: self.moves.len(),
            mv,
            reason,
        })?;
        let mut next = current.clone();
        next.play_unchecked(mv);
        self.positions.push(next);
        self.moves.push(mv);
        Ok(())
    }

    /// The current position: the search's root.
    #[must_use]
    pub fn position(&self) -> &Position {
        // Never empty: `new` puts the start in and nothing takes it out.
        &self.positions[self.positions.len() - 1]
    }

    /// The start position.
    #[must_use]
    pub fn start(&self) -> &Position {
        &self.positions[0]
    }

    /// The moves played, in order.
    #[must_use]
    pub fn moves(&self) -> &[Move] {
        &self.moves
    }

    /// The positions from the start, one more than the moves.
    #[must_use]
    pub fn positions(&self) -> &[Position] {
        &self.positions
    }
}

impl From<Position> for Game {
    fn from(start: Position) -> Self {
        Self::new(start)
    }
}

#[cfg(test)]
mod tests {
    use xq_rules::Square;

    use super::*;

    #[test]
    fn an_illegal_move_is_refused_and_changes_nothing() {
        let mut game = Game::new(Position::startpos());
        assert!(game.push(Move::new(Square::H2, Square::E2)).is_ok());
        let wrong = Move::new(Square::H2, Square::E2);
        let Err(err) = game.push(wrong) else {
            panic!("{wrong} played twice");
        };
        assert_eq!((err.ply, err.mv), (1, wrong));
        assert_eq!(game.moves().len(), 1);
        assert_eq!(game.positions().len(), 2);
        assert!(Game::from_moves(Position::startpos(), [wrong, wrong]).is_err());
    }
}
