//! A match as its followers see it: the state that its events build, and the checks a player's
//! action must pass.

use std::time::Duration;

use xq_rules::{ByColor, Color, IllegalMove, Move, Position};

use crate::clock::Clock;
use crate::history::History;
use crate::{
    Action, CommandError, Event, GameResult, MatchConfig, Played, Record, Status, TimeControl,
    Timestamp, UndoRequest, WinReason,
};

/// A match as anyone who follows it holds it: the position and moves, the clocks, pending
/// requests and the status, built by applying the match's [`Event`]s in order.
///
/// [`crate::Match`] is built on it: the match decides, then applies its own events to its
/// `MatchState` through [`apply`](Self::apply)'s own code. So a follower fed the same events
/// (a client, a GUI, a bot, a load generator, another relay node) holds the same state, and
/// [`check`](Self::check) refuses an action exactly as the match would, with the same
/// [`CommandError`].
///
/// It does no IO and reads no clock: every event comes with the time it arrived on the
/// follower's own clock, and [`clocks`](Self::clocks) counts the side to move down from there.
///
/// # Examples
///
/// ```
/// use xq_rules::{Color, Move, Square};
/// use xq_session::{Action, CommandError, Match, MatchConfig, MatchState, Timestamp};
///
/// let start = Timestamp::from_millis(0);
/// let mut game = Match::new(MatchConfig::default(), start);
/// let mut follower = MatchState::follow(&game.standing(start), start)?;
///
/// let mv = Move::new(Square::H2, Square::E2);
/// assert_eq!(follower.check(Color::Black, Action::Play(mv)), Err(CommandError::NotYourTurn));
/// game.handle(start, Action::Play(mv).by(Color::Red))?;
/// while let Some(event) = game.poll_event() {
///     follower.apply(start, &event)?;
/// }
/// assert_eq!(follower.position(), game.position());
/// # Ok::<_, Box<dyn std::error::Error>>(())
/// ```
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct MatchState {
    config: MatchConfig,
    history: History,
    status: Status,
    /// `None` in an untimed match.
    clock: Option<Clock>,
    undos_granted: ByColor<u32>,
    pending_undo: Option<UndoRequest>,
    /// The seat that offered a draw, while the offer stands.
    pending_draw: Option<Color>,
}

/// Everything a new follower needs to hold a match that is under way: what a relay sends a
/// player who joins or comes back. [`crate::Match::standing`] gives it;
/// [`MatchState::follow`] takes it.
#[derive(Clone, Debug, PartialEq, Eq)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
pub struct Standing {
    /// The rules of the match, its start position included.
    pub config: MatchConfig,
    /// The moves played so far, in order.
    pub moves: Vec<Move>,
    /// Each side's time left when the standing was taken; `None` in an untimed match.
    pub clocks: Option<ByColor<Duration>>,
    /// Whether the side to move's clock was running.
    pub clocks_running: bool,
    /// How many undo requests each side has had granted.
    pub undos_granted: ByColor<u32>,
    /// The undo request waiting for an answer.
    pub pending_undo: Option<UndoRequest>,
    /// The side whose draw offer waits for an answer.
    pub pending_draw: Option<Color>,
    /// Whether the game goes on, and its result if not.
    pub status: Status,
}

/// Why a follower refused a standing or an event: it does not fit the match as followed, so
/// the follower needs a fresh standing. A refused input changes nothing.
#[derive(Clone, Copy, Debug, PartialEq, Eq, thiserror::Error)]
#[non_exhaustive]
pub enum FollowError {
    /// A move does not apply to the followed position.
    #[error("move {mv} at ply {ply} does not apply: {reason}")]
    IllegalMove {
        /// The ply the move would be (1 for the first move).
        ply: usize,
        /// The move.
        mv: Move,
        /// Why the rules refuse it.
        reason: IllegalMove,
    },
    /// A move event names a side that is not to move.
    #[error("{by} moved at ply {ply} out of turn")]
    OutOfTurn {
        /// The side the event names.
        by: Color,
        /// The ply the move would be.
        ply: usize,
    },
    /// A move event counts its plies differently from the follower.
    #[error("move event says ply {reported}, the follower is at ply {expected}")]
    PlyMismatch {
        /// The ply the follower would reach.
        expected: usize,
        /// The ply the event reports.
        reported: usize,
    },
    /// An undo takes back more plies than were played.
    #[error("undo of {plies} plies after only {played}")]
    UndoTooFar {
        /// Plies to take back.
        plies: usize,
        /// Plies played.
        played: usize,
    },
    /// A standing's pending undo request is not one its requester could have made there.
    #[error("the pending undo request does not fit the position")]
    UndoMismatch,
    /// A standing's clocks and time control disagree: clocks in an untimed match, or none in a
    /// timed one.
    #[error("the clocks do not fit the time control")]
    ClocksMismatch,
    /// A standing gives an ongoing game a pending request or offer while finished, or the
    /// reverse: only an ongoing game has them.
    #[error("a finished game has no pending request")]
    PendingAfterEnd,
    /// An event arrived after the game was over (game over is always a match's last event).
    #[error("event after the end of the game")]
    AfterGameOver,
}

impl Standing {
    /// A match under `config` that has not started (its room waits for a second player): no
    /// move played, and the clocks, if the match is timed, full and stopped.
    #[must_use]
    pub fn waiting(config: MatchConfig) -> Self {
        let clocks = match config.time_control {
            TimeControl::Untimed => None,
            TimeControl::Increment { base, .. } => Some(ByColor {
                red: base,
                black: base,
            }),
        };
        Self {
            config,
            moves: Vec::new(),
            clocks,
            clocks_running: false,
            undos_granted: ByColor::default(),
            pending_undo: None,
            pending_draw: None,
            status: Status::Ongoing,
        }
    }
}

impl MatchState {
    /// A match under `config` at its start: no move played, the side to move's clock running
    /// from `now`.
    pub(crate) fn new(config: MatchConfig, now: Timestamp) -> Self {
        Self {
            history: History::new(Position::clone(&config.start)),
            clock: Clock::new(config.time_control, now),
            config,
            status: Status::Ongoing,
            undos_granted: ByColor::default(),
            pending_undo: None,
            pending_draw: None,
        }
    }

    /// Follows the match `standing` describes, from its arrival at `now` on the follower's
    /// clock: its moves are replayed from the start position, the rest taken as given once it
    /// is seen to fit.
    ///
    /// # Errors
    ///
    /// A [`FollowError`] when the standing does not describe a match: a move that does not
    /// replay, an undo request its requester could not make, clocks that do not fit the
    /// time control, or a finished game with a pending request.
    pub fn follow(standing: &Standing, now: Timestamp) -> Result<Self, FollowError> {
        let mut history = History::new(Position::clone(&standing.config.start));
        for &mv in &standing.moves {
            let ply = history.played().len() + 1;
            history
                .current()
                .check_move(mv)
                .map_err(|reason| FollowError::IllegalMove { ply, mv, reason })?;
            history.push(mv);
        }
        let clock =
            match (standing.config.time_control, standing.clocks) {
                (TimeControl::Untimed, None) => None,
                (TimeControl::Increment { increment, .. }, Some(reading)) => Some(
                    Clock::from_reading(increment, reading, now, standing.clocks_running),
                ),
                _ => return Err(FollowError::ClocksMismatch),
            };
        let has_pending = standing.pending_undo.is_some() || standing.pending_draw.is_some();
        if has_pending && !standing.status.is_ongoing() {
            return Err(FollowError::PendingAfterEnd);
        }
        let current = history.current();
        if let Some(request) = standing.pending_undo
            && UndoRequest::new(request.by, current.turn(), history.played().len()) != Some(request)
        {
            return Err(FollowError::UndoMismatch);
        }
        Ok(Self {
            config: standing.config.clone(),
            history,
            status: standing.status,
            clock,
            undos_granted: standing.undos_granted,
            pending_undo: standing.pending_undo,
            pending_draw: standing.pending_draw,
        })
    }

    /// What a new follower needs to hold this match, taken at `now`.
    #[must_use]
    pub fn standing(&self, now: Timestamp) -> Standing {
        Standing {
            config: self.config.clone(),
            moves: self
                .history
                .played()
                .iter()
                .map(|played| played.mv)
                .collect(),
            clocks: self.clocks(now),
            clocks_running: self.clocks_running(),
            undos_granted: self.undos_granted,
            pending_undo: self.pending_undo,
            pending_draw: self.pending_draw,
            status: self.status,
        }
    }

    /// Applies the match's next event, which arrived at `now` on the follower's clock. The
    /// event is checked first, so a refused one changes nothing.
    ///
    /// # Errors
    ///
    /// A [`FollowError`] saying why the event does not fit the match as followed.
    pub fn apply(&mut self, now: Timestamp, event: &Event) -> Result<(), FollowError> {
        self.admit(event)?;
        self.commit(now, event);
        Ok(())
    }

    /// Whether the player of `by` may take `action` now: `Ok` if the match would accept it,
    /// else the [`CommandError`] it would refuse it with. The match runs this same check on
    /// every action (after bringing its clocks up to the action's time, which may end the
    /// game on a flag first).
    ///
    /// # Errors
    ///
    /// The [`CommandError`] the match would answer.
    pub fn check(&self, by: Color, action: Action) -> Result<(), CommandError> {
        self.ensure_ongoing()?;
        match action {
            Action::Play(mv) => {
                if by != self.turn() {
                    return Err(CommandError::NotYourTurn);
                }
                self.position().check_move(mv)?;
            }
            Action::RequestUndo => {
                self.undo_request(by)?;
            }
            Action::WithdrawUndo => {
                let request = self.pending_undo.ok_or(CommandError::NoPendingUndo)?;
                if request.by != by {
                    return Err(CommandError::NotYourRequest);
                }
            }
            Action::AnswerUndo { .. } => {
                self.undo_to_answer(by)?;
            }
            Action::OfferDraw => {
                if self.pending_draw.is_some() {
                    return Err(CommandError::DrawAlreadyOffered);
                }
            }
            Action::WithdrawDraw => {
                let offerer = self.pending_draw.ok_or(CommandError::NoPendingDraw)?;
                if offerer != by {
                    return Err(CommandError::NotYourRequest);
                }
            }
            Action::AnswerDraw { .. } => {
                let offerer = self.pending_draw.ok_or(CommandError::NoPendingDraw)?;
                if offerer == by {
                    return Err(CommandError::CannotAnswerOwnRequest);
                }
            }
            Action::Resign => {}
        }
        Ok(())
    }

    /// The rules the match is played under, its start position included.
    #[must_use]
    pub const fn config(&self) -> &MatchConfig {
        &self.config
    }

    /// The current position.
    #[must_use]
    pub fn position(&self) -> &Position {
        self.history.current()
    }

    /// The side to move.
    #[must_use]
    pub fn turn(&self) -> Color {
        self.position().turn()
    }

    /// The moves played so far (taken-back moves are gone).
    #[must_use]
    pub fn moves(&self) -> &[Played] {
        self.history.played()
    }

    /// Whether the game is on, or how it ended.
    #[must_use]
    pub const fn status(&self) -> Status {
        self.status
    }

    /// Each side's remaining time at `now`, the side to move's counted down from the last
    /// report if its clock runs; `None` in an untimed match.
    #[must_use]
    pub fn clocks(&self, now: Timestamp) -> Option<ByColor<Duration>> {
        let turn = self.turn();
        self.clock
            .as_ref()
            .map(|clock| clock.remaining_at(now, turn))
    }

    /// When the side to move's clock last started counting down from a report (on the
    /// follower's clock, the report's arrival); `None` while no clock runs. A view that counts
    /// down on a clock of its own counts from here.
    #[must_use]
    pub fn clock_started(&self) -> Option<Timestamp> {
        self.clock.as_ref().and_then(Clock::running_since)
    }

    /// Whether the clock of the side to move is running: false when untimed, paused or over.
    #[must_use]
    pub fn clocks_running(&self) -> bool {
        self.clock.as_ref().is_some_and(Clock::is_running)
    }

    /// The undo request waiting for an answer, if any.
    #[must_use]
    pub const fn pending_undo(&self) -> Option<UndoRequest> {
        self.pending_undo
    }

    /// The side whose draw offer is waiting for an answer, if any.
    #[must_use]
    pub const fn pending_draw(&self) -> Option<Color> {
        self.pending_draw
    }

    /// How many undo requests `color` has had granted.
    #[must_use]
    pub fn undos_granted(&self, color: Color) -> u32 {
        self.undos_granted[color]
    }

    /// The game so far as a record: the start position, the moves played (taken-back moves
    /// are gone) and, once the game is over, its result with the reason, whatever ended it.
    /// The tags are left empty for the caller to fill in.
    #[must_use]
    pub fn record(&self) -> Record {
        Record::from_history(&self.history, self.status.result(), self.config.repetition)
    }

    /// The moves and every position they passed through.
    pub(crate) const fn history(&self) -> &History {
        &self.history
    }

    /// The clocks, if the match is timed.
    pub(crate) const fn clock(&self) -> Option<&Clock> {
        self.clock.as_ref()
    }

    /// The request the player of `by` would make by asking for an undo now.
    pub(crate) fn undo_request(&self, by: Color) -> Result<UndoRequest, CommandError> {
        self.config.undo.check(self.undos_granted[by])?;
        if self.pending_undo.is_some() {
            return Err(CommandError::UndoAlreadyPending);
        }
        UndoRequest::new(by, self.turn(), self.history.played().len())
            .ok_or(CommandError::NothingToUndo)
    }

    /// The pending request the player of `by` may answer.
    pub(crate) fn undo_to_answer(&self, by: Color) -> Result<UndoRequest, CommandError> {
        let request = self.pending_undo.ok_or(CommandError::NoPendingUndo)?;
        if request.by == by {
            return Err(CommandError::CannotAnswerOwnRequest);
        }
        Ok(request)
    }

    /// Changes the state as `event`, which fits it, says the match changed at `now`.
    pub(crate) fn commit(&mut self, now: Timestamp, event: &Event) {
        match *event {
            Event::MovePlayed { mv, clocks, .. } => {
                self.push_move(now, mv, clocks);
            }
            Event::UndoApplied { by, plies, clocks } => {
                self.history.pop(plies);
                self.undos_granted[by] += 1;
                // Granting the request consumes it without a separate event.
                self.pending_undo = None;
                self.report(now, clocks);
            }
            Event::UndoRequested(request) => self.pending_undo = Some(request),
            Event::UndoWithdrawn { .. } | Event::UndoDeclined { .. } | Event::UndoLapsed => {
                self.pending_undo = None;
            }
            Event::DrawOffered { by } => self.pending_draw = Some(by),
            Event::DrawWithdrawn { .. } | Event::DrawDeclined { .. } | Event::DrawLapsed => {
                self.pending_draw = None;
            }
            Event::ClocksPaused { clocks } => {
                if let Some(clock) = &mut self.clock {
                    clock.stop_with(clocks);
                }
            }
            Event::ClocksResumed { clocks } => {
                if let Some(clock) = &mut self.clock {
                    clock.start_with(now, clocks);
                }
            }
            Event::GameOver(result) => self.finish(now, result),
        }
    }

    /// Plays `mv`, which fits, at `now`, with the clocks its event reports: the change a
    /// [`Event::MovePlayed`] makes, and what the move did. The match calls it to learn what to
    /// put in the event, so a move is played once.
    pub(crate) fn push_move(
        &mut self,
        now: Timestamp,
        mv: Move,
        clocks: Option<ByColor<Duration>>,
    ) -> Played {
        let played = self.history.push(mv);
        self.report(now, clocks);
        played
    }

    /// Checks that `event` can be the next event of the match as followed.
    fn admit(&self, event: &Event) -> Result<(), FollowError> {
        if !self.status.is_ongoing() {
            return Err(FollowError::AfterGameOver);
        }
        let played = self.history.played().len();
        match *event {
            Event::MovePlayed { by, mv, ply, .. } => {
                let expected = played + 1;
                if by != self.turn() {
                    return Err(FollowError::OutOfTurn { by, ply: expected });
                }
                self.position()
                    .check_move(mv)
                    .map_err(|reason| FollowError::IllegalMove {
                        ply: expected,
                        mv,
                        reason,
                    })?;
                if ply != expected {
                    return Err(FollowError::PlyMismatch {
                        expected,
                        reported: ply,
                    });
                }
            }
            Event::UndoApplied { plies, .. } if plies > played => {
                return Err(FollowError::UndoTooFar { plies, played });
            }
            _ => {}
        }
        Ok(())
    }

    /// Takes the clocks an event reported at `now`, if it reported any.
    fn report(&mut self, now: Timestamp, reading: Option<ByColor<Duration>>) {
        if let (Some(clock), Some(reading)) = (&mut self.clock, reading) {
            clock.report(now, reading);
        }
    }

    /// Ends the game at `now` with `result`: the side to move's running clock stops where it
    /// stands, at zero if its flag fell, and nothing is pending any more (an accepted draw
    /// ends the game without lapsing the offer first).
    fn finish(&mut self, now: Timestamp, result: GameResult) {
        let turn = self.turn();
        if let Some(clock) = &mut self.clock {
            let mut reading = clock.remaining_at(now, turn);
            if let GameResult::Win {
                winner,
                reason: WinReason::TimeForfeit,
            } = result
            {
                reading[!winner] = Duration::ZERO;
            }
            clock.stop_with(reading);
        }
        self.pending_undo = None;
        self.pending_draw = None;
        self.status = Status::Finished(result);
    }

    fn ensure_ongoing(&self) -> Result<(), CommandError> {
        match self.status {
            Status::Ongoing => Ok(()),
            Status::Finished(_) => Err(CommandError::GameFinished),
        }
    }
}

#[cfg(test)]
mod tests;
