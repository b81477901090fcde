//! Game records: a start position, the moves and the result, ready for PGN and replay.

use xq_rules::{Color, IllegalMove, Move, Outcome, Position};

use crate::adjudication::adjudicate;
use crate::history::History;
use crate::{DrawReason, GameResult, RepetitionRule, WinReason};

/// A finished or unfinished game as a record: what [`crate::pgn`] writes and reads and what
/// [`crate::Replay`] steps through.
///
/// The moves are legal from the start position by construction: a record comes from a match
/// ([`crate::Match::record`], [`crate::MatchState::record`]), from parts that were checked
/// ([`Record::new`]) or from a PGN that was checked move by move ([`crate::pgn::parse`]); and
/// its result was checked against the final position where the board decides it.
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

/// Why [`Record::new`] refused its parts: the moves do not replay, or the result is not the
/// one the final position gives.
#[derive(Clone, Copy, Debug, PartialEq, Eq, thiserror::Error)]
#[non_exhaustive]
pub enum RecordError {
    /// A move is not legal where it is played.
    #[error("move {mv} at ply {ply} is illegal: {reason}")]
    IllegalMove {
        /// The ply of the move (1 for the first).
        ply: usize,
        /// The move.
        mv: Move,
        /// Why the rules refuse it.
        reason: IllegalMove,
    },
    /// The result is one the board settles (checkmate, stalemate, a repetition), and the
    /// final position does not show it.
    #[error("the final position does not show {0}")]
    Unfounded(GameResult),
    /// The side to move in the final position is mated or stalemated, and the result given is
    /// another (or none).
    #[error("the final position is {reason}, a win for {winner}")]
    Decided {
        /// The side the final position gives the game to.
        winner: Color,
        /// How: checkmate or stalemate.
        reason: WinReason,
    },
}

impl Record {
    /// The record of a game played from `start` with `moves`, ended with `result` (`None`:
    /// not finished), its repetitions judged by `repetition`. The tags are left empty.
    ///
    /// # Errors
    ///
    /// A [`RecordError`] if a move is illegal where it is played, or the result goes against
    /// the final position: a checkmate, stalemate or repetition the position does not show,
    /// or any other ending (a finished game among them) where the side to move is mated or
    /// stalemated. Results the board has no say in (time, resignation, agreement,
    /// abandonment, the move limit, which is a match setting) are taken as given.
    ///
    /// # Examples
    ///
    /// ```
    /// use xq_rules::{Color, Move, Position, Square};
    /// use xq_session::{GameResult, Record, RecordError, RepetitionRule, WinReason};
    ///
    /// let moves = vec![Move::new(Square::H2, Square::E2)];
    /// let resigned = GameResult::Win { winner: Color::Red, reason: WinReason::Resignation };
    /// let record = Record::new(Position::startpos(), moves.clone(), Some(resigned), RepetitionRule::Asian)?;
    /// assert_eq!(record.result(), Some(resigned));
    ///
    /// let mated = GameResult::Win { winner: Color::Red, reason: WinReason::Checkmate };
    /// assert_eq!(
    ///     Record::new(Position::startpos(), moves, Some(mated), RepetitionRule::Asian),
    ///     Err(RecordError::Unfounded(mated)),
    /// );
    /// # Ok::<_, RecordError>(())
    /// ```
    pub fn new(
        start: Position,
        moves: Vec<Move>,
        result: Option<GameResult>,
        repetition: RepetitionRule,
    ) -> Result<Self, RecordError> {
        let mut history = History::new(start);
        for (index, &mv) in moves.iter().enumerate() {
            history
                .current()
                .check_move(mv)
                .map_err(|reason| RecordError::IllegalMove {
                    ply: index + 1,
                    mv,
                    reason,
                })?;
            history.push(mv);
        }
        let ending = result.map_or(Ending::Unfinished, Ending::Result);
        match board_conflict(&history, ending, repetition) {
            None => Ok(Self::from_history(&history, result, repetition)),
            Some(BoardConflict::Unfounded(claimed)) => Err(RecordError::Unfounded(claimed)),
            Some(BoardConflict::Decided { winner, reason }) => {
                Err(RecordError::Decided { winner, reason })
            }
        }
    }

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

/// How the ending a record gives goes against its final position.
pub(crate) enum BoardConflict {
    /// The side to move is mated or stalemated, so `winner` has won by `reason`, and the
    /// record says otherwise.
    Decided { winner: Color, reason: WinReason },
    /// The record gives a result that the board settles, and the final position does not
    /// show it.
    Unfounded(GameResult),
}

/// How `ending` goes against the final position of `history`, its repetitions judged by
/// `rule`, where the board decides it (see [`crate::pgn`]); `None` if it does not.
pub(crate) fn board_conflict(
    history: &History,
    ending: Ending,
    rule: RepetitionRule,
) -> Option<BoardConflict> {
    let decided = adjudicate(history, rule, None);
    if let Some(GameResult::Win {
        winner,
        reason: reason @ (WinReason::Checkmate | WinReason::Stalemate),
    }) = decided
    {
        // The side to move cannot move: the game is over, and lost. An unfinished record
        // claims no ending, so it has nothing to contradict.
        let agrees = match ending {
            Ending::Unfinished => true,
            Ending::Outcome(outcome) => outcome == Outcome::Decisive { winner },
            Ending::Result(result) => Some(result) == decided,
        };
        return (!agrees).then_some(BoardConflict::Decided { winner, reason });
    }
    match ending {
        Ending::Result(result) if is_settled_by_board(result) && Some(result) != decided => {
            Some(BoardConflict::Unfounded(result))
        }
        Ending::Unfinished | Ending::Outcome(_) | Ending::Result(_) => None,
    }
}

/// Whether the board alone settles `result`, so that a record's final position must bear it
/// out. The move limit would too, but it is a match setting that a record does not carry.
const fn is_settled_by_board(result: GameResult) -> bool {
    matches!(
        result,
        GameResult::Win {
            reason: WinReason::Checkmate
                | WinReason::Stalemate
                | WinReason::PerpetualCheck
                | WinReason::PerpetualChase,
            ..
        } | GameResult::Draw {
            reason: DrawReason::Repetition
        }
    )
}

#[cfg(test)]
mod tests {
    use xq_rules::Square;
    use xq_rules::fen::Fen;

    use super::*;

    fn position(text: &str) -> Position {
        let fen: Fen = text.parse().unwrap_or_else(|e| panic!("{text}: {e}"));
        fen.into_position()
            .unwrap_or_else(|e| panic!("{text}: {e}"))
    }

    #[test]
    fn a_record_replays_its_moves_and_refuses_an_illegal_one() {
        let cannon = Move::new(Square::H2, Square::E2);
        let record = Record::new(
            Position::startpos(),
            vec![cannon],
            None,
            RepetitionRule::Asian,
        );
        assert_eq!(record.map(|r| r.moves().to_vec()), Ok(vec![cannon]));
        let twice = Record::new(
            Position::startpos(),
            vec![cannon, cannon],
            None,
            RepetitionRule::Asian,
        );
        assert!(matches!(
            twice,
            Err(RecordError::IllegalMove { ply: 2, .. })
        ));
    }

    #[test]
    fn a_mated_side_cannot_be_given_another_result() {
        let start = position("3k5/R8/9/9/9/9/9/9/9/1R2K4 w - - 0 1");
        let mate = vec![Move::new(Square::B0, Square::B9)];
        let mated = GameResult::Win {
            winner: Color::Red,
            reason: WinReason::Checkmate,
        };
        let agreed = GameResult::Draw {
            reason: DrawReason::Agreement,
        };
        let record = Record::new(
            start.clone(),
            mate.clone(),
            Some(mated),
            RepetitionRule::Asian,
        );
        assert_eq!(record.map(|r| r.result()), Ok(Some(mated)));
        assert_eq!(
            Record::new(start, mate, Some(agreed), RepetitionRule::Asian),
            Err(RecordError::Decided {
                winner: Color::Red,
                reason: WinReason::Checkmate
            })
        );
    }
}
