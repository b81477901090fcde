//! The match: a referee between two seats.

use std::collections::VecDeque;
use std::time::Duration;

use xq_rules::{ByColor, Color, Move, Position};

use crate::clock::Clock;
use crate::history::History;
use crate::journal::{Entry, Input, Journal, RebuildError};
use crate::{
    Command, CommandError, DrawReason, Event, GameResult, MatchConfig, MoveText, Played, Record,
    Seat, Status, Timestamp, UndoRequest, WinReason, adjudication,
};

/// A Xiangqi match between two seats, from the first move to the result: the single referee
/// that the relay, a local game and the tests all drive.
///
/// It does no IO and reads no clock. Inputs and outputs, in [quinn-proto]'s shape:
///
/// - **Inputs**: [`handle`](Self::handle) for [`Command`]s from the seats (and the relay's
///   own), [`handle_timeout`](Self::handle_timeout) when the time from
///   [`poll_timeout`](Self::poll_timeout) has come. Each takes the current [`Timestamp`].
/// - **Outputs**: [`poll_event`](Self::poll_event) yields the [`Event`]s to pass on to both
///   seats; [`poll_timeout`](Self::poll_timeout) says when to call `handle_timeout` next.
///
/// **Calling order**: after every `handle*` call, drain `poll_event` until it returns `None`,
/// then re-arm the timer from `poll_timeout` (it changes with every move).
///
/// A refused command returns a [`CommandError`] and changes nothing, except that time passes
/// first: a flag that fell before the command arrived ends the game as `handle_timeout` would,
/// and the command is refused with [`CommandError::GameFinished`].
///
/// A match is a pure function of its [`Journal`]: the config, the seating, the start time and
/// the accepted inputs with their times. [`Match::from_journal`] rebuilds it.
///
/// # Examples
///
/// ```
/// use xq_rules::{Color, Move, Square};
/// use xq_session::{Command, Event, Match, MatchConfig, Timestamp};
///
/// let mut game = Match::new(MatchConfig::default(), Timestamp::from_millis(0));
/// let mv = Move::new(Square::H2, Square::E2);
/// game.handle(Timestamp::from_millis(1_000), Command::Play { by: Color::Red, mv })?;
/// let Some(Event::MovePlayed { text, .. }) = game.poll_event() else { panic!() };
/// assert_eq!(text.iccs, "h2e2");
/// assert_eq!(game.poll_event(), None);
/// assert_eq!(game.turn(), Color::Black);
/// # Ok::<_, xq_session::CommandError>(())
/// ```
///
/// [quinn-proto]: https://docs.rs/quinn-proto
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Match {
    journal: Journal,
    history: History,
    status: Status,
    /// `None` in an untimed match.
    clock: Option<Clock>,
    undos_granted: ByColor<u32>,
    pending_undo: Option<UndoRequest>,
    /// The seat that offered a draw, while the offer stands.
    pending_draw: Option<Color>,
    events: VecDeque<Event>,
}

/// Why [`Match::rematch`] refused.
#[derive(Clone, Copy, Debug, PartialEq, Eq, thiserror::Error)]
#[non_exhaustive]
pub enum RematchError {
    /// The game is still being played.
    #[error("the game is not over")]
    Ongoing,
}

impl Match {
    /// A new match with [`Seat::First`] playing Red. The side to move's clock starts at `now`.
    ///
    /// A set-up start position that is already decided (the side to move is mated or
    /// stalemated, or the move limit is reached) finishes the match at once, as that position
    /// would after a move: [`Event::GameOver`] is queued and no clock runs.
    #[must_use]
    pub fn new(config: MatchConfig, now: Timestamp) -> Self {
        Self::with_seats(config, Seat::First, now)
    }

    /// A new match with `red` playing Red (the relay may draw lots for it). A decided start
    /// position finishes it at once, as in [`Match::new`].
    #[must_use]
    pub fn with_seats(config: MatchConfig, red: Seat, now: Timestamp) -> Self {
        let mut game = Self {
            history: History::new(Position::clone(&config.start)),
            clock: Clock::new(config.time_control, now),
            journal: Journal {
                config,
                red,
                started: now,
                entries: Vec::new(),
            },
            status: Status::Ongoing,
            undos_granted: ByColor::default(),
            pending_undo: None,
            pending_draw: None,
            events: VecDeque::new(),
        };
        // No move can be played from a decided position, so the verdict cannot wait for one.
        if let Some(result) = game.adjudicate() {
            game.finish(now, result);
        }
        game
    }

    /// Rebuilds a match by replaying its journal. The result equals the match that wrote the
    /// journal, except that it has no events queued.
    ///
    /// # Errors
    ///
    /// A [`RebuildError`] naming the first entry that does not replay.
    pub fn from_journal(journal: &Journal) -> Result<Self, RebuildError> {
        let mut game = Self::with_seats(journal.config.clone(), journal.red, journal.started);
        for (index, entry) in journal.entries.iter().enumerate() {
            match entry.input {
                Input::Command(command) => game
                    .handle(entry.at, command)
                    .map_err(|error| RebuildError::Refused { index, error })?,
                Input::Flag => {
                    if !game.flag_falls(entry.at) {
                        return Err(RebuildError::NoFlag { index });
                    }
                    game.handle_timeout(entry.at);
                }
            }
        }
        game.events.clear();
        Ok(game)
    }

    /// A new match between the same seats under the same config, each seat playing the other
    /// colour. The new match starts at `now`.
    ///
    /// # Errors
    ///
    /// [`RematchError::Ongoing`] while this game is still being played.
    pub fn rematch(&self, now: Timestamp) -> Result<Self, RematchError> {
        self.check_rematch()?;
        Ok(Self::with_seats(
            self.journal.config.clone(),
            self.journal.red.other(),
            now,
        ))
    }

    /// Whether [`rematch`](Self::rematch) would give a new match, without building it.
    ///
    /// # Errors
    ///
    /// [`RematchError::Ongoing`] while this game is still being played.
    pub const fn check_rematch(&self) -> Result<(), RematchError> {
        match self.status {
            Status::Ongoing => Err(RematchError::Ongoing),
            Status::Finished(_) => Ok(()),
        }
    }

    /// The rules this match is played under.
    #[must_use]
    pub const fn config(&self) -> &MatchConfig {
        &self.journal.config
    }

    /// The accepted inputs so far, from which [`Match::from_journal`] rebuilds the match.
    #[must_use]
    pub const fn journal(&self) -> &Journal {
        &self.journal
    }

    /// The colour `seat` plays.
    #[must_use]
    pub fn color_of(&self, seat: Seat) -> Color {
        seat.color(self.journal.red)
    }

    /// The seat playing `color`.
    #[must_use]
    pub fn seat_of(&self, color: Color) -> Seat {
        color.fold(self.journal.red, self.journal.red.other())
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

    /// Each side's remaining time at `now`; `None` in an untimed match.
    #[must_use]
    pub fn clocks(&self, now: Timestamp) -> Option<ByColor<Duration>> {
        let turn = self.turn();
        self.clock
            .as_ref()
            .map(|clock| clock.remaining_at(now, turn))
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

    /// The seat whose draw offer is waiting for an answer, if any.
    #[must_use]
    pub const fn pending_draw(&self) -> Option<Color> {
        self.pending_draw
    }

    /// How many undo requests `color` has had granted.
    #[must_use]
    pub fn undos_granted(&self, color: Color) -> u32 {
        self.undos_granted[color]
    }

    /// The game record so far: start position, moves and result (no tags; the relay knows the
    /// players' names and the date).
    #[must_use]
    pub fn record(&self) -> Record {
        Record::from_history(
            &self.history,
            self.status.result(),
            self.journal.config.repetition,
        )
    }

    /// Handles a command at `now`.
    ///
    /// First the clocks are brought up to `now` as by [`handle_timeout`](Self::handle_timeout)
    /// (except before [`Command::ResumeClocks`], which re-bases time: after a restart `now`
    /// comes from a new origin and says nothing about the old deadlines); then the command is
    /// checked against the rules and, if it is accepted, applied.
    ///
    /// # Errors
    ///
    /// A [`CommandError`] saying why the command is refused. A refused command changes nothing.
    pub fn handle(&mut self, now: Timestamp, command: Command) -> Result<(), CommandError> {
        if command != Command::ResumeClocks {
            self.handle_timeout(now);
        }
        match command {
            Command::Play { by, mv } => self.play(now, by, mv),
            Command::RequestUndo { by } => self.request_undo(by),
            Command::WithdrawUndo { by } => self.withdraw_undo(by),
            Command::AnswerUndo { by, accept } => self.answer_undo(now, by, accept),
            Command::OfferDraw { by } => self.offer_draw(by),
            Command::WithdrawDraw { by } => self.withdraw_draw(by),
            Command::AnswerDraw { by, accept } => self.answer_draw(now, by, accept),
            Command::Resign { by } => self.concede(now, by, WinReason::Resignation),
            Command::Abandon { by } => self.concede(now, by, WinReason::Abandonment),
            Command::PauseClocks => self.pause_clocks(now),
            Command::ResumeClocks => self.resume_clocks(now),
            Command::AbandonBoth => self.draw(now, DrawReason::Abandonment),
        }?;
        self.journal.entries.push(Entry {
            at: now,
            input: Input::Command(command),
        });
        Ok(())
    }

    /// Plays the game out at `now`: the side to move plays the move `pick` chooses among the
    /// legal ones, until the game is over or `pick` chooses none. Returns the moves played.
    /// This is self-play for scripted games (load generators, benchmarks); the events stay
    /// queued as for any move.
    ///
    /// # Errors
    ///
    /// The [`CommandError`] for a move `pick` chose that is not legal; the moves before it
    /// stay played.
    pub fn play_out(
        &mut self,
        now: Timestamp,
        mut pick: impl FnMut(&[Move]) -> Option<Move>,
    ) -> Result<Vec<Move>, CommandError> {
        let mut played = Vec::new();
        while self.status().is_ongoing() {
            let by = self.turn();
            let Some(mv) = pick(&self.position().legal_moves()) else {
                break;
            };
            self.handle(now, Command::Play { by, mv })?;
            played.push(mv);
        }
        Ok(played)
    }

    /// Handles the passing of time: if the side to move has run out of time by `now`, it loses.
    /// Harmless to call early or often.
    pub fn handle_timeout(&mut self, now: Timestamp) {
        if self.flag_falls(now) {
            self.journal.entries.push(Entry {
                at: now,
                input: Input::Flag,
            });
            let winner = !self.turn();
            self.finish(
                now,
                GameResult::Win {
                    winner,
                    reason: WinReason::TimeForfeit,
                },
            );
        }
    }

    /// The next event to pass on, oldest first.
    pub fn poll_event(&mut self) -> Option<Event> {
        self.events.pop_front()
    }

    /// When to call [`handle_timeout`](Self::handle_timeout) next: the moment the side to
    /// move's time runs out. `None` while no clock runs.
    #[must_use]
    pub fn poll_timeout(&self) -> Option<Timestamp> {
        match self.status {
            Status::Ongoing => self.clock.as_ref()?.deadline(self.turn()),
            Status::Finished(_) => None,
        }
    }

    fn flag_falls(&self, now: Timestamp) -> bool {
        self.poll_timeout().is_some_and(|deadline| now >= deadline)
    }

    fn ensure_ongoing(&self) -> Result<(), CommandError> {
        match self.status {
            Status::Ongoing => Ok(()),
            Status::Finished(_) => Err(CommandError::GameFinished),
        }
    }

    fn play(&mut self, now: Timestamp, by: Color, mv: Move) -> Result<(), CommandError> {
        self.ensure_ongoing()?;
        if by != self.turn() {
            return Err(CommandError::NotYourTurn);
        }
        self.position().check_move(mv)?;

        let text = MoveText::new(self.position(), mv);
        let played = self.history.push(mv);
        let clocks = self.clock.as_mut().map(|clock| clock.after_move(now, by));
        self.events.push_back(Event::MovePlayed {
            by,
            mv,
            text,
            captured: played.captured,
            gives_check: played.gives_check,
            ply: self.history.played().len(),
            clocks,
        });
        self.lapse_undo();
        // A draw offer stands until the seat it was made to answers or moves: the offerer may
        // offer and then make its own move, as over the board.
        if self.pending_draw == Some(!by) {
            self.lapse_draw();
        }
        if let Some(result) = self.adjudicate() {
            self.finish(now, result);
        }
        Ok(())
    }

    /// The result the current position forces under this match's repetition rule and move
    /// limit, if any. Judged after every move and on the start position.
    fn adjudicate(&self) -> Option<GameResult> {
        let config = &self.journal.config;
        adjudication::adjudicate(&self.history, config.repetition, config.move_limit)
    }

    fn request_undo(&mut self, by: Color) -> Result<(), CommandError> {
        self.ensure_ongoing()?;
        self.journal.config.undo.check(self.undos_granted[by])?;
        if self.pending_undo.is_some() {
            return Err(CommandError::UndoAlreadyPending);
        }
        let request = UndoRequest::new(by, self.turn(), self.history.played().len())
            .ok_or(CommandError::NothingToUndo)?;
        self.pending_undo = Some(request);
        self.events.push_back(Event::UndoRequested(request));
        Ok(())
    }

    fn withdraw_undo(&mut self, by: Color) -> Result<(), CommandError> {
        self.ensure_ongoing()?;
        let request = self.pending_undo.ok_or(CommandError::NoPendingUndo)?;
        if request.by != by {
            return Err(CommandError::NotYourRequest);
        }
        self.pending_undo = None;
        self.events.push_back(Event::UndoWithdrawn { by });
        Ok(())
    }

    fn answer_undo(&mut self, now: Timestamp, by: Color, accept: bool) -> Result<(), CommandError> {
        self.ensure_ongoing()?;
        let request = self.pending_undo.ok_or(CommandError::NoPendingUndo)?;
        if request.by == by {
            return Err(CommandError::CannotAnswerOwnRequest);
        }
        self.pending_undo = None;
        if !accept {
            self.events.push_back(Event::UndoDeclined { by });
            return Ok(());
        }
        // Time already spent stays spent: the side that was on move (answering) is charged up
        // to now, then the requester's clock runs.
        let turn = self.turn();
        if let Some(clock) = &mut self.clock {
            clock.charge(now, turn);
        }
        self.history.pop(request.plies);
        self.undos_granted[request.by] += 1;
        self.events.push_back(Event::UndoApplied {
            by: request.by,
            plies: request.plies,
            clocks: self.clocks(now),
        });
        self.lapse_draw();
        Ok(())
    }

    fn offer_draw(&mut self, by: Color) -> Result<(), CommandError> {
        self.ensure_ongoing()?;
        if self.pending_draw.is_some() {
            return Err(CommandError::DrawAlreadyOffered);
        }
        self.pending_draw = Some(by);
        self.events.push_back(Event::DrawOffered { by });
        Ok(())
    }

    fn withdraw_draw(&mut self, by: Color) -> Result<(), CommandError> {
        self.ensure_ongoing()?;
        let offerer = self.pending_draw.ok_or(CommandError::NoPendingDraw)?;
        if offerer != by {
            return Err(CommandError::NotYourRequest);
        }
        self.pending_draw = None;
        self.events.push_back(Event::DrawWithdrawn { by });
        Ok(())
    }

    fn answer_draw(&mut self, now: Timestamp, by: Color, accept: bool) -> Result<(), CommandError> {
        self.ensure_ongoing()?;
        let offerer = self.pending_draw.ok_or(CommandError::NoPendingDraw)?;
        if offerer == by {
            return Err(CommandError::CannotAnswerOwnRequest);
        }
        self.pending_draw = None;
        if accept {
            let reason = DrawReason::Agreement;
            self.finish(now, GameResult::Draw { reason });
        } else {
            self.events.push_back(Event::DrawDeclined { by });
        }
        Ok(())
    }

    /// `loser` gives the game up, by resigning or by leaving.
    fn concede(
        &mut self,
        now: Timestamp,
        loser: Color,
        reason: WinReason,
    ) -> Result<(), CommandError> {
        self.ensure_ongoing()?;
        let winner = !loser;
        self.finish(now, GameResult::Win { winner, reason });
        Ok(())
    }

    fn draw(&mut self, now: Timestamp, reason: DrawReason) -> Result<(), CommandError> {
        self.ensure_ongoing()?;
        self.finish(now, GameResult::Draw { reason });
        Ok(())
    }

    fn pause_clocks(&mut self, now: Timestamp) -> Result<(), CommandError> {
        self.ensure_ongoing()?;
        let turn = self.turn();
        let clock = self.clock.as_mut().ok_or(CommandError::NoClocks)?;
        if !clock.is_running() {
            return Err(CommandError::ClocksAlreadyPaused);
        }
        let clocks = clock.stop(now, turn);
        self.events.push_back(Event::ClocksPaused { clocks });
        Ok(())
    }

    fn resume_clocks(&mut self, now: Timestamp) -> Result<(), CommandError> {
        self.ensure_ongoing()?;
        let clock = self.clock.as_mut().ok_or(CommandError::NoClocks)?;
        let clocks = clock.restart(now);
        self.events.push_back(Event::ClocksResumed { clocks });
        Ok(())
    }

    fn lapse_undo(&mut self) {
        if self.pending_undo.take().is_some() {
            self.events.push_back(Event::UndoLapsed);
        }
    }

    fn lapse_draw(&mut self) {
        if self.pending_draw.take().is_some() {
            self.events.push_back(Event::DrawLapsed);
        }
    }

    fn finish(&mut self, now: Timestamp, result: GameResult) {
        let turn = self.turn();
        if let Some(clock) = &mut self.clock {
            clock.stop(now, turn);
        }
        self.lapse_undo();
        self.lapse_draw();
        self.status = Status::Finished(result);
        self.events.push_back(Event::GameOver(result));
    }
}

#[cfg(test)]
mod tests;
