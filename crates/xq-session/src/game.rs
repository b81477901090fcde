//! The match: a referee between two seats.

use std::collections::VecDeque;
use std::time::Duration;

use xq_rules::{ByColor, Color, Move, Position};

use crate::journal::{Entry, Input, Journal, RebuildError};
use crate::{
    Action, Command, CommandError, DrawReason, Event, GameResult, MatchConfig, MatchState,
    MoveText, Played, Record, Seat, Standing, Status, Timestamp, UndoRequest, WinReason,
    adjudication,
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
/// The match decides; what it decided reaches its [`MatchState`] as the events it emits,
/// applied by the same code that any follower of the match runs ([`MatchState::apply`]), and a
/// player's action is checked by [`MatchState::check`], which a follower can run too.
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
/// use xq_session::{Action, Event, Match, MatchConfig, Timestamp};
///
/// let mut game = Match::new(MatchConfig::default(), Timestamp::from_millis(0));
/// let mv = Move::new(Square::H2, Square::E2);
/// game.handle(Timestamp::from_millis(1_000), Action::Play(mv).by(Color::Red))?;
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
    state: MatchState,
    /// With the config the state holds, the match's [`Journal`].
    red: Seat,
    started: Timestamp,
    entries: Vec<Entry>,
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
            state: MatchState::new(config, now),
            red,
            started: now,
            entries: Vec::new(),
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
            self.config().clone(),
            self.red.other(),
            now,
        ))
    }

    /// Whether [`rematch`](Self::rematch) would give a new match, without building it.
    ///
    /// # Errors
    ///
    /// [`RematchError::Ongoing`] while this game is still being played.
    pub const fn check_rematch(&self) -> Result<(), RematchError> {
        match self.state.status() {
            Status::Ongoing => Err(RematchError::Ongoing),
            Status::Finished(_) => Ok(()),
        }
    }

    /// The match as its followers hold it: position, moves, clocks, pending requests, status,
    /// and the checks an action must pass.
    #[must_use]
    pub const fn state(&self) -> &MatchState {
        &self.state
    }

    /// What a follower needs to hold this match from `now` on ([`MatchState::follow`]).
    #[must_use]
    pub fn standing(&self, now: Timestamp) -> Standing {
        self.state.standing(now)
    }

    /// The rules this match is played under.
    #[must_use]
    pub const fn config(&self) -> &MatchConfig {
        self.state.config()
    }

    /// The match's journal, from which [`Match::from_journal`] rebuilds it: the config, the
    /// seating, the start and a copy of the accepted inputs so far.
    #[must_use]
    pub fn journal(&self) -> Journal {
        Journal {
            config: self.config().clone(),
            red: self.red,
            started: self.started,
            entries: self.entries.clone(),
        }
    }

    /// The accepted inputs so far, oldest first: the journal's entries, without a copy.
    #[must_use]
    pub fn entries(&self) -> &[Entry] {
        &self.entries
    }

    /// The colour `seat` plays.
    #[must_use]
    pub fn color_of(&self, seat: Seat) -> Color {
        seat.color(self.red)
    }

    /// The seat playing `color`.
    #[must_use]
    pub fn seat_of(&self, color: Color) -> Seat {
        color.fold(self.red, self.red.other())
    }

    /// The current position: [`MatchState::position`].
    #[must_use]
    pub fn position(&self) -> &Position {
        self.state.position()
    }

    /// The side to move: [`MatchState::turn`].
    #[must_use]
    pub fn turn(&self) -> Color {
        self.state.turn()
    }

    /// The moves played so far: [`MatchState::moves`].
    #[must_use]
    pub fn moves(&self) -> &[Played] {
        self.state.moves()
    }

    /// Whether the game is on, or how it ended: [`MatchState::status`].
    #[must_use]
    pub const fn status(&self) -> Status {
        self.state.status()
    }

    /// Each side's remaining time at `now`: [`MatchState::clocks`].
    #[must_use]
    pub fn clocks(&self, now: Timestamp) -> Option<ByColor<Duration>> {
        self.state.clocks(now)
    }

    /// Whether the side to move's clock runs: [`MatchState::clocks_running`].
    #[must_use]
    pub fn clocks_running(&self) -> bool {
        self.state.clocks_running()
    }

    /// The undo request waiting for an answer: [`MatchState::pending_undo`].
    #[must_use]
    pub const fn pending_undo(&self) -> Option<UndoRequest> {
        self.state.pending_undo()
    }

    /// The side whose draw offer waits for an answer: [`MatchState::pending_draw`].
    #[must_use]
    pub const fn pending_draw(&self) -> Option<Color> {
        self.state.pending_draw()
    }

    /// How many undo requests `color` has had granted: [`MatchState::undos_granted`].
    #[must_use]
    pub fn undos_granted(&self, color: Color) -> u32 {
        self.state.undos_granted(color)
    }

    /// The game record so far: [`MatchState::record`].
    #[must_use]
    pub fn record(&self) -> Record {
        self.state.record()
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
            Command::Act { by, action } => self.act(now, by, action),
            Command::Abandon { by } => self.concede(now, by, WinReason::Abandonment),
            Command::PauseClocks => self.pause_clocks(now),
            Command::ResumeClocks => self.resume_clocks(now),
            Command::AbandonBoth => self.draw(now, DrawReason::Abandonment),
        }?;
        self.entries.push(Entry {
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
            self.handle(now, Action::Play(mv).by(by))?;
            played.push(mv);
        }
        Ok(played)
    }

    /// Handles the passing of time: if the side to move has run out of time by `now`, it loses.
    /// Harmless to call early or often.
    pub fn handle_timeout(&mut self, now: Timestamp) {
        if self.flag_falls(now) {
            self.entries.push(Entry {
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
        match self.state.status() {
            Status::Ongoing => self.state.clock()?.deadline(self.turn()),
            Status::Finished(_) => None,
        }
    }

    fn flag_falls(&self, now: Timestamp) -> bool {
        self.poll_timeout().is_some_and(|deadline| now >= deadline)
    }

    fn ensure_ongoing(&self) -> Result<(), CommandError> {
        match self.state.status() {
            Status::Ongoing => Ok(()),
            Status::Finished(_) => Err(CommandError::GameFinished),
        }
    }

    /// Applies `event` to the match's state and queues it for the seats.
    fn emit(&mut self, now: Timestamp, event: Event) {
        self.state.commit(now, &event);
        self.events.push_back(event);
    }

    /// Takes the action of the player of `by`, once the state's check accepts it.
    fn act(&mut self, now: Timestamp, by: Color, action: Action) -> Result<(), CommandError> {
        self.state.check(by, action)?;
        match action {
            Action::Play(mv) => self.play(now, by, mv),
            Action::RequestUndo => {
                let request = self.state.undo_request(by)?;
                self.emit(now, Event::UndoRequested(request));
            }
            Action::WithdrawUndo => self.emit(now, Event::UndoWithdrawn { by }),
            Action::AnswerUndo { accept } => self.answer_undo(now, by, accept)?,
            Action::OfferDraw => self.emit(now, Event::DrawOffered { by }),
            Action::WithdrawDraw => self.emit(now, Event::DrawWithdrawn { by }),
            Action::AnswerDraw { accept: true } => {
                // The offer is taken, not lapsed: the end of the game clears it.
                self.lapse_undo(now);
                let reason = DrawReason::Agreement;
                self.emit(now, Event::GameOver(GameResult::Draw { reason }));
            }
            Action::AnswerDraw { accept: false } => self.emit(now, Event::DrawDeclined { by }),
            Action::Resign => self.finish(
                now,
                GameResult::Win {
                    winner: !by,
                    reason: WinReason::Resignation,
                },
            ),
        }
        Ok(())
    }

    /// Plays `mv` for `by`, which the state's check accepted.
    fn play(&mut self, now: Timestamp, by: Color, mv: Move) {
        let text = MoveText::new(self.position(), mv);
        let clocks = self.state.clock().map(|clock| clock.after_move(now, by));
        // The state plays the move as a follower applies its event (`commit`), and says what
        // it did, which the event carries.
        let played = self.state.push_move(now, mv, clocks);
        self.events.push_back(Event::MovePlayed {
            by,
            mv,
            text,
            captured: played.captured,
            gives_check: played.gives_check,
            ply: self.moves().len(),
            clocks,
        });
        self.lapse_undo(now);
        // A draw offer stands until the seat it was made to answers or moves: the offerer may
        // offer and then make its own move, as over the board.
        if self.state.pending_draw() == Some(!by) {
            self.lapse_draw(now);
        }
        if let Some(result) = self.adjudicate() {
            self.finish(now, result);
        }
    }

    /// The result the current position forces under this match's repetition rule and move
    /// limit, if any. Judged after every move and on the start position.
    fn adjudicate(&self) -> Option<GameResult> {
        let config = self.config();
        adjudication::adjudicate(self.state.history(), config.repetition, config.move_limit)
    }

    fn answer_undo(&mut self, now: Timestamp, by: Color, accept: bool) -> Result<(), CommandError> {
        let request = self.state.undo_to_answer(by)?;
        if !accept {
            self.emit(now, Event::UndoDeclined { by });
            return Ok(());
        }
        // Time already spent stays spent: the side that was on move (answering) is charged up
        // to now, then the requester's clock runs.
        let clocks = self.clocks(now);
        self.emit(
            now,
            Event::UndoApplied {
                by: request.by,
                plies: request.plies,
                clocks,
            },
        );
        self.lapse_draw(now);
        Ok(())
    }

    /// `loser` gives the game up by leaving.
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
        let clock = self.state.clock().ok_or(CommandError::NoClocks)?;
        if !clock.is_running() {
            return Err(CommandError::ClocksAlreadyPaused);
        }
        let clocks = clock.remaining_at(now, turn);
        self.emit(now, Event::ClocksPaused { clocks });
        Ok(())
    }

    fn resume_clocks(&mut self, now: Timestamp) -> Result<(), CommandError> {
        self.ensure_ongoing()?;
        let clock = self.state.clock().ok_or(CommandError::NoClocks)?;
        let clocks = clock.banked();
        self.emit(now, Event::ClocksResumed { clocks });
        Ok(())
    }

    fn lapse_undo(&mut self, now: Timestamp) {
        if self.state.pending_undo().is_some() {
            self.emit(now, Event::UndoLapsed);
        }
    }

    fn lapse_draw(&mut self, now: Timestamp) {
        if self.state.pending_draw().is_some() {
            self.emit(now, Event::DrawLapsed);
        }
    }

    fn finish(&mut self, now: Timestamp, result: GameResult) {
        self.lapse_undo(now);
        self.lapse_draw(now);
        self.emit(now, Event::GameOver(result));
    }
}

#[cfg(test)]
mod tests;
