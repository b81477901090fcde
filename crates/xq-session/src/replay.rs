//! Stepping through a recorded game.

use xq_rules::{Outcome, Position};

use crate::history::History;
use crate::{GameResult, MoveText, Played, Record};

/// A cursor over a [`Record`]: steps forward and back through the game and gives the position
/// and the move text at every ply. Ply 0 is the start position; ply `n` is the position after
/// `n` moves.
///
/// # Examples
///
/// ```
/// use xq_session::{Replay, pgn};
///
/// let record = pgn::parse("1. h2e2 h9g7 2. h0g2 *")?;
/// let mut replay = Replay::new(record);
/// assert!(replay.forward());
/// assert_eq!(replay.last_move().map(|(_, text)| text.iccs.as_str()), Some("h2e2"));
/// assert!(replay.seek(3));
/// assert!(!replay.forward());
/// assert!(replay.back());
/// assert_eq!(replay.ply(), 2);
/// # Ok::<_, xq_session::pgn::PgnError>(())
/// ```
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Replay {
    record: Record,
    history: History,
    /// `texts[n]` writes the move from ply `n` to ply `n + 1`.
    texts: Vec<MoveText>,
    ply: usize,
}

impl Replay {
    /// A replay of `record`, at its start position.
    #[must_use]
    pub fn new(record: Record) -> Self {
        let history = record.history();
        // Each move is written in the position before it.
        let texts = record
            .moves()
            .iter()
            .zip(history.positions())
            .map(|(&mv, pos)| MoveText::new(pos, mv))
            .collect();
        Self {
            record,
            history,
            texts,
            ply: 0,
        }
    }

    /// The record being replayed.
    #[must_use]
    pub const fn record(&self) -> &Record {
        &self.record
    }

    /// The number of moves in the game.
    #[must_use]
    pub fn len(&self) -> usize {
        self.texts.len()
    }

    /// Whether the game has no moves.
    #[must_use]
    pub fn is_empty(&self) -> bool {
        self.texts.is_empty()
    }

    /// The current ply: the number of moves played to reach [`Replay::position`].
    #[must_use]
    pub const fn ply(&self) -> usize {
        self.ply
    }

    /// The position at the current ply.
    #[must_use]
    pub fn position(&self) -> &Position {
        // `ply` never exceeds the number of moves, so the position exists.
        self.history
            .position_at(self.ply)
            .unwrap_or_else(|| self.history.current())
    }

    /// The move that led to the current ply, and its text; `None` at the start.
    #[must_use]
    pub fn last_move(&self) -> Option<(&Played, &MoveText)> {
        let index = self.ply.checked_sub(1)?;
        Some((self.history.played().get(index)?, self.texts.get(index)?))
    }

    /// Steps one move forward; `false` (and no change) at the end.
    pub fn forward(&mut self) -> bool {
        self.seek(self.ply + 1)
    }

    /// Steps one move back; `false` (and no change) at the start.
    pub fn back(&mut self) -> bool {
        self.ply.checked_sub(1).is_some_and(|ply| self.seek(ply))
    }

    /// Goes to `ply`; `false` (and no change) if the game is shorter.
    pub fn seek(&mut self, ply: usize) -> bool {
        let exists = ply <= self.len();
        if exists {
            self.ply = ply;
        }
        exists
    }

    /// The result the record gives, or `None` if the game was not finished.
    #[must_use]
    pub const fn outcome(&self) -> Option<Outcome> {
        self.record.outcome()
    }

    /// The result with its reason, when the record says why the game ended.
    #[must_use]
    pub const fn result(&self) -> Option<GameResult> {
        self.record.result()
    }
}
