//! Game records: a start position, the moves and the result, ready for PGN and replay.

use xq_rules::{Move, Outcome, Position};

use crate::history::History;
use crate::{GameResult, RepetitionRule};

/// A finished or unfinished game as a record: what [`crate::pgn`] writes and reads and what
/// [`crate::Replay`] steps through.
///
/// The moves are legal from the start position by construction: a record comes from a match
/// ([`crate::Match::record`]) or from a PGN that was checked move by move, and whose result
/// was checked against the final position where the board decides it ([`crate::pgn::parse`]).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Record {
    /// Who played, where and when; free to edit since it has no bearing on the moves.
    pub tags: Tags,
    start: Position,
    moves: Vec<Move>,
    ending: Ending,
    repetition: RepetitionRule,
}

/// The descriptive PGN tags of a record. `None` is written as PGN's "unknown" (`?`).
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Tags {
    /// The event (tournament, "casual game").
    pub event: Option<String>,
    /// Where it was played (a server's name or address).
    pub site: Option<String>,
    /// The date, as PGN writes it: `YYYY.MM.DD`.
    pub date: Option<String>,
    /// Red's name.
    pub red: Option<String>,
    /// Black's name.
    pub black: Option<String>,
    /// Any other tags, in file order: [`crate::pgn::parse`] keeps here the tags it has no field
    /// for (and a `Termination` it cannot take as the result's reason), and
    /// [`crate::pgn::write()`] writes them back. The writer leaves out an entry its reader
    /// would refuse or that would contradict the record's own fields; the [`crate::pgn`]
    /// module lists what else a round trip normalises.
    pub other: Vec<(String, String)>,
}

/// How much a record knows about the end of the game.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Ending {
    /// The game was not finished (`*`).
    Unfinished,
    /// The result is known but not why (a PGN without a `Termination` we understand).
    Outcome(Outcome),
    /// The result and its reason.
    Result(GameResult),
}

impl Record {
    /// The record of a match's history so far, played under `repetition`.
    pub(crate) fn from_history(
        history: &History,
        result: Option<GameResult>,
        repetition: RepetitionRule,
    ) -> Self {
        Self {
            tags: Tags::default(),
            start: history.start().clone(),
            moves: history.played().iter().map(|played| played.mv).collect(),
            ending: result.map_or(Ending::Unfinished, Ending::Result),
            repetition,
        }
    }

    /// A record from parts that the caller has checked: every move legal in turn from `start`,
    /// and the ending borne out by the final position under `repetition`.
    pub(crate) const fn from_checked_parts(
        tags: Tags,
        start: Position,
        moves: Vec<Move>,
        ending: Ending,
        repetition: RepetitionRule,
    ) -> Self {
        Self {
            tags,
            start,
            moves,
            ending,
            repetition,
        }
    }

    /// The game replayed from the start: every position, and what each move did.
    pub(crate) fn history(&self) -> History {
        let mut history = History::new(self.start.clone());
        for &mv in &self.moves {
            history.push(mv);
        }
        history
    }

    /// The position the game started from.
    #[must_use]
    pub const fn start(&self) -> &Position {
        &self.start
    }

    /// The moves, each legal in the position the previous ones lead to.
    #[must_use]
    pub fn moves(&self) -> &[Move] {
        &self.moves
    }

    /// The position after the last move.
    #[must_use]
    pub fn final_position(&self) -> Position {
        let mut pos = self.start.clone();
        for &mv in &self.moves {
            pos.play_unchecked(mv);
        }
        pos
    }

    /// The result, or `None` if the game was not finished.
    #[must_use]
    pub const fn outcome(&self) -> Option<Outcome> {
        match self.ending {
            Ending::Unfinished => None,
            Ending::Outcome(outcome) => Some(outcome),
            Ending::Result(result) => Some(result.outcome()),
        }
    }

    /// The rule the game's repetitions were judged by, which its result was checked against.
    #[must_use]
    pub const fn repetition(&self) -> RepetitionRule {
        self.repetition
    }

    /// The result with its reason, when the record says why the game ended.
    #[must_use]
    pub const fn result(&self) -> Option<GameResult> {
        match self.ending {
            Ending::Result(result) => Some(result),
            Ending::Unfinished | Ending::Outcome(_) => None,
        }
    }
}
