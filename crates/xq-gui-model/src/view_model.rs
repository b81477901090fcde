//! The view-model: what the window shows and what its inputs do, without a toolkit.

use std::collections::VecDeque;

use xq_rules::{ByColor, Color, Move, Position, Square};
use xq_session::pgn::{self, MoveFormat, PgnError};
use xq_session::{Action as SessionAction, Command, Event, Replay, Status, Timestamp};

use crate::move_list::move_rows;
use crate::text::{capitalized, clock_text, outcome_text, result_text, side_name, turn_text};
use crate::{
    Action, BackendError, Buttons, Click, Cue, Dialog, Evaluation, GameBackend, Goal, MoveRow,
    Notation, Orientation, Presence, RequestId, Selection, ThinkRequest, Thinker, Update,
};

/// Everything the GUI shows and every input it forwards, as plain data and methods: the egui
/// code draws what this says and calls it on clicks, and the tests drive it with a virtual
/// clock and no window.
///
/// It shows one of three things: nothing played yet (the start position, idle), a game
/// through a [`GameBackend`], or a PGN record being replayed. A replay is opened over the game
/// and closed back to it; the game goes on meanwhile.
///
/// **Calling order**: call [`tick`](Self::tick) every frame with the current time, so the
/// game's events (an opponent's move, a flag) reach the view; every method that sends a
/// command takes the time too. After the frame's inputs, drain [`poll_cue`](Self::poll_cue)
/// for the moves to sound.
///
/// With a [`Thinker`] of its own ([`set_analyst`](Self::set_analyst)), it gives hints in
/// games at this screen: [`hint`](Self::hint) asks for the best move of the side to move,
/// which [`hint_move`](Self::hint_move) marks until a move is played, and the search's score
/// becomes the [`evaluation`](Self::evaluation), as the computer's own searches do.
pub struct ViewModel {
    game: Option<Box<dyn GameBackend>>,
    replay: Option<Replay>,
    /// What the board shows while there is neither a game nor a replay.
    idle: Position,
    selection: Selection,
    flipped: bool,
    notation: Notation,
    notice: Option<String>,
    /// The moves to sound, oldest first, until the app drains them.
    cues: VecDeque<Cue>,
    /// What finds hints, if the app gave one.
    analyst: Option<Box<dyn Thinker>>,
    hint: Hint,
    /// The id of the next hint request.
    next_hint: u64,
    /// The last search's verdict: a hint's or the computer's.
    evaluation: Option<Evaluation>,
    /// Derived from the game or replay; recomputed after each change, not every frame.
    shown: Shown,
}

/// Where a hint is at.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Hint {
    /// None asked for, or the last one is gone with the move it was for.
    None,
    /// Asked for, in a position with `turn` to move.
    Asked { id: RequestId, turn: Color },
    /// Found: this move, until a move is played.
    Shown(Move),
}

#[derive(Default)]
struct Shown {
    rows: Vec<MoveRow>,
    last_move: Option<Move>,
    plies: usize,
    buttons: Buttons,
    dialog: Option<Dialog>,
}

/// A step through a replayed record.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Step {
    /// To the start position.
    Start,
    /// One move back.
    Back,
    /// One move forward.
    Forward,
    /// To the final position.
    End,
}

/// Why an input did nothing.
#[derive(Clone, Copy, Debug, PartialEq, Eq, thiserror::Error)]
#[non_exhaustive]
pub enum ActionError {
    /// No game is being played.
    #[error("no game is being played")]
    NoGame,
    /// A record is being replayed: close it to play on.
    #[error("close the replay to play on")]
    Replaying,
    /// The player at this screen plays neither side.
    #[error("you are watching, not playing")]
    Spectating,
    /// No request is waiting for this player's answer.
    #[error("there is nothing to answer")]
    NothingToAnswer,
    /// Hints are for a game at this screen, on the player's move, one at a time.
    #[error("no hint now: hints are for games at this screen, on your move")]
    NoHint,
    /// The game refused the command.
    #[error(transparent)]
    Backend(#[from] BackendError),
}

impl ViewModel {
    /// An idle view: the start position, no game.
    #[must_use]
    pub fn new() -> Self {
        Self {
            game: None,
            replay: None,
            idle: Position::startpos(),
            selection: Selection::default(),
            flipped: false,
            notation: Notation::default(),
            notice: None,
            cues: VecDeque::new(),
            analyst: None,
            hint: Hint::None,
            next_hint: 0,
            evaluation: None,
            shown: Shown::default(),
        }
    }

    /// Gives the view a [`Thinker`] for hints.
    pub fn set_analyst(&mut self, analyst: Box<dyn Thinker>) {
        self.analyst = Some(analyst);
    }

    /// Starts showing `game` (closing any replay). The moves it already has make no
    /// [`Cue`], and the last game's cues not yet drained are dropped.
    pub fn start(&mut self, now: Timestamp, game: Box<dyn GameBackend>) {
        self.game = Some(game);
        self.replay = None;
        self.notice = None;
        self.cues.clear();
        self.selection.clear();
        self.drop_hint();
        self.evaluation = None;
        self.refresh(now);
    }

    /// Lets time pass to `now` and takes in what happened in the game.
    pub fn tick(&mut self, now: Timestamp) {
        self.take_hint();
        let Some(game) = &mut self.game else { return };
        let updates: Vec<Update> = std::iter::from_fn(|| game.poll_event(now)).collect();
        for update in &updates {
            self.take_in(update);
        }
        if !updates.is_empty() {
            self.refresh(now);
        }
    }

    /// The next move to sound, oldest first: one [`Cue`] for each move played in the game since
    /// the view started showing it, at this screen or by the opponent (also while a replay is
    /// open over the game), and none for undos, replays or seeks.
    pub fn poll_cue(&mut self) -> Option<Cue> {
        self.cues.pop_front()
    }

    /// The position on the board: the replay's, the game's, or the start position.
    #[must_use]
    pub fn position(&self) -> &Position {
        shown_position(self.replay.as_ref(), self.game.as_deref(), &self.idle)
    }

    /// How the board is turned: the player's side at the bottom (Red when playing both or
    /// none), given a half turn by [`flip`](Self::flip).
    #[must_use]
    pub fn orientation(&self) -> Orientation {
        let black_only = self
            .game
            .as_ref()
            .is_some_and(|game| game.seats()[Color::Black] && !game.seats()[Color::Red]);
        let base = Orientation {
            bottom: if black_only { Color::Black } else { Color::Red },
        };
        if self.flipped { base.flipped() } else { base }
    }

    /// Turns the board around.
    pub fn flip(&mut self) {
        self.flipped = !self.flipped;
    }

    /// The notation of the move list.
    #[must_use]
    pub const fn notation(&self) -> Notation {
        self.notation
    }

    /// Writes the move list in `notation` from now on.
    pub fn set_notation(&mut self, now: Timestamp, notation: Notation) {
        self.notation = notation;
        self.refresh(now);
    }

    /// The picked-up piece and its legal targets.
    #[must_use]
    pub const fn selection(&self) -> &Selection {
        &self.selection
    }

    /// The move that led to the position shown, to mark on the board.
    #[must_use]
    pub fn last_move(&self) -> Option<Move> {
        match &self.replay {
            Some(replay) => replay.last_move().map(|(played, _)| played.mv),
            None => self.shown.last_move,
        }
    }

    /// The square of the general in check in the position shown, if any: where to announce
    /// "將軍".
    #[must_use]
    pub fn checked_general(&self) -> Option<Square> {
        let pos = self.position();
        pos.is_check().then(|| pos.general(pos.turn()))
    }

    /// Whether [`hint`](Self::hint) would ask for one: the view has a [`Thinker`], a game at
    /// this screen (no network) is shown, the player is to move, and no hint is on its way.
    #[must_use]
    pub fn can_hint(&self) -> bool {
        let local = self
            .game
            .as_ref()
            .is_some_and(|game| game.presence().is_none());
        self.analyst.is_some()
            && local
            && self.mover().is_some()
            && !matches!(self.hint, Hint::Asked { .. })
    }

    /// Asks for the best move of the side to move ([`Goal::HINT`]); it arrives through
    /// [`tick`](Self::tick) and shows in [`hint_move`](Self::hint_move).
    ///
    /// # Errors
    ///
    /// [`ActionError::NoHint`] unless [`can_hint`](Self::can_hint).
    pub fn hint(&mut self) -> Result<(), ActionError> {
        if !self.can_hint() {
            return Err(ActionError::NoHint);
        }
        let (Some(game), Some(analyst)) = (self.game.as_deref(), self.analyst.as_mut()) else {
            return Err(ActionError::NoHint);
        };
        let record = game.record();
        let id = RequestId(self.next_hint);
        self.next_hint += 1;
        analyst.start(ThinkRequest {
            id,
            start: record.start().clone(),
            moves: record.moves().to_vec(),
            goal: Goal::HINT,
        });
        self.hint = Hint::Asked {
            id,
            turn: game.position().turn(),
        };
        Ok(())
    }

    /// The hint to mark on the board, from its square to its target, until a move is played;
    /// `None` behind a replay.
    #[must_use]
    pub fn hint_move(&self) -> Option<Move> {
        match self.hint {
            Hint::Shown(mv) if self.replay.is_none() => Some(mv),
            _ => None,
        }
    }

    /// Whether a hint is being looked for.
    #[must_use]
    pub const fn hinting(&self) -> bool {
        matches!(self.hint, Hint::Asked { .. })
    }

    /// Whether the computer is thinking about its move.
    #[must_use]
    pub fn thinking(&self) -> bool {
        self.game.as_ref().is_some_and(|game| game.thinking())
    }

    /// How the last search (the computer's move, or a hint) judged the game, until another
    /// game starts.
    #[must_use]
    pub const fn evaluation(&self) -> Option<Evaluation> {
        self.evaluation
    }

    /// Handles a click on `square` (`None`: off the board): picks up a piece of the side the
    /// player may move now, puts it back, or plays the move to a legal target.
    ///
    /// # Errors
    ///
    /// The game refused the move (only possible when a remote game moved on meanwhile).
    pub fn click(&mut self, now: Timestamp, square: Option<Square>) -> Result<Click, ActionError> {
        let mover = self.mover();
        let pos = shown_position(self.replay.as_ref(), self.game.as_deref(), &self.idle);
        let click = self.selection.click(pos, mover, square);
        if let (Click::Move(mv), Some(by)) = (click, mover) {
            self.send(now, SessionAction::Play(mv).by(by))?;
        }
        Ok(click)
    }

    /// Which game buttons are enabled.
    #[must_use]
    pub const fn buttons(&self) -> Buttons {
        self.shown.buttons
    }

    /// Presses a game button; returns the command sent.
    ///
    /// # Errors
    ///
    /// Why nothing was sent. A refusal by the game also becomes the [`notice`](Self::notice);
    /// a press that never reached it (a spectator's, one behind a replay) leaves it as it was.
    pub fn act(&mut self, now: Timestamp, action: Action) -> Result<Command, ActionError> {
        let game = self.playing()?;
        let by = action
            .actor(game.seats(), game.position().turn())
            .ok_or(ActionError::Spectating)?;
        let command = action.command(by);
        self.send(now, command)?;
        Ok(command)
    }

    /// Starts the next game with colours swapped, once this one is over.
    ///
    /// # Errors
    ///
    /// Why not; the same text becomes the [`notice`](Self::notice).
    pub fn rematch(&mut self, now: Timestamp) -> Result<(), ActionError> {
        let result = self
            .playing_mut()
            .and_then(|game| game.rematch(now).map_err(ActionError::from));
        self.selection.clear();
        if result.is_ok() {
            self.drop_hint();
            self.evaluation = None;
        }
        self.after(now, result)
    }

    /// The request waiting for this player's answer, if any.
    #[must_use]
    pub const fn dialog(&self) -> Option<Dialog> {
        self.shown.dialog
    }

    /// Answers the open [`dialog`](Self::dialog), also while a replay is open; returns the
    /// command sent.
    ///
    /// # Errors
    ///
    /// Why nothing was sent. A refusal by the game also becomes the [`notice`](Self::notice);
    /// with no dialog open, nothing was attempted and the notice stays as it was.
    pub fn answer(&mut self, now: Timestamp, accept: bool) -> Result<Command, ActionError> {
        let command = self
            .shown
            .dialog
            .ok_or(ActionError::NothingToAnswer)?
            .answer(accept);
        self.send(now, command)?;
        Ok(command)
    }

    /// What the game or replay is at, in words: whose move, a waiting request, the result.
    #[must_use]
    pub fn status_line(&self) -> String {
        if let Some(replay) = &self.replay {
            let at = format!("Replay: move {} of {}", replay.ply(), replay.len());
            let end = replay
                .result()
                .map(result_text)
                .or_else(|| replay.outcome().map(outcome_text));
            return match end.filter(|_| replay.ply() == replay.len()) {
                Some(end) => format!("{at}. {end}"),
                None => at,
            };
        }
        let Some(game) = &self.game else {
            return "Start a local game, play on a relay, or open a record".to_owned();
        };
        let line = game_line(game.as_ref());
        match game.presence() {
            Some(presence) => format!("{line} · {}", presence_text(presence, game.seats())),
            None => line,
        }
    }

    /// The side to move in the game shown while it is being played: whose clock runs, and
    /// whose turn [`turn_line`](Self::turn_line) names. `None` when idle, behind a replay,
    /// while a network game waits for its opponent, and once the game is over.
    #[must_use]
    pub fn to_move(&self) -> Option<Color> {
        let game = self.playing().ok()?;
        let started = game.presence() != Some(Presence::Waiting);
        (started && game.status().is_ongoing()).then(|| game.position().turn())
    }

    /// Whose turn it is, in words, as the player at this screen sees it: "Your turn (Red)" or
    /// "Opponent's turn (Black)" playing one side, "Red's turn" at one screen or watching;
    /// `None` when no side is [`to_move`](Self::to_move).
    #[must_use]
    pub fn turn_line(&self) -> Option<String> {
        let side = self.to_move()?;
        Some(turn_text(side, self.game.as_ref()?.seats()))
    }

    /// Who is connected to the game, on a relay; `None` for a game with no network, or none.
    #[must_use]
    pub fn presence(&self) -> Option<Presence> {
        self.game.as_ref()?.presence()
    }

    /// The [`presence`](Self::presence) in words: "Opponent connected", "Waiting for an
    /// opponent", "Opponent disconnected", and so on.
    #[must_use]
    pub fn presence_line(&self) -> Option<String> {
        let game = self.game.as_ref()?;
        Some(capitalized(&presence_text(game.presence()?, game.seats())))
    }

    /// How the game shown ended, in words ("Game over: Black wins by resignation"); `None`
    /// while it is on, with no game, and behind a replay (whose result the status line gives).
    #[must_use]
    pub fn result_line(&self) -> Option<String> {
        match self.playing().ok()?.status() {
            Status::Finished(result) => Some(format!("Game over: {}", result_text(result))),
            Status::Ongoing => None,
        }
    }

    /// A one-off message about the last thing that happened (a declined offer, a refused
    /// command), until the next move.
    #[must_use]
    pub fn notice(&self) -> Option<&str> {
        self.notice.as_deref()
    }

    /// Each side's clock at `now`, written out; `None` when the game has no clocks or a replay
    /// is shown.
    #[must_use]
    pub fn clocks(&self, now: Timestamp) -> Option<ByColor<String>> {
        if self.replay.is_some() {
            return None;
        }
        Some(self.game.as_ref()?.clocks(now)?.map(clock_text))
    }

    /// Whether a clock is running, so the view must redraw to count it down.
    #[must_use]
    pub fn clock_running(&self, now: Timestamp) -> bool {
        self.clocks(now).is_some()
            && self
                .game
                .as_ref()
                .is_some_and(|game| game.status().is_ongoing())
    }

    /// The move list of the game or replay shown.
    #[must_use]
    pub fn move_rows(&self) -> &[MoveRow] {
        &self.shown.rows
    }

    /// The number of moves that lead to the position shown: the move list marks that entry.
    #[must_use]
    pub fn ply(&self) -> usize {
        self.replay.as_ref().map_or(self.shown.plies, Replay::ply)
    }

    /// The record shown (the replay's, or the game's so far) as PGN; `None` when idle.
    #[must_use]
    pub fn save_pgn(&self) -> Option<String> {
        let record = match (&self.replay, &self.game) {
            (Some(replay), _) => replay.record().clone(),
            (None, Some(game)) => game.record(),
            (None, None) => return None,
        };
        Some(pgn::write(&record, MoveFormat::Iccs))
    }

    /// Opens a PGN record to step through, at its start position.
    ///
    /// # Errors
    ///
    /// Why the text is not a game record; the view is unchanged.
    pub fn open_pgn(&mut self, now: Timestamp, text: &str) -> Result<(), PgnError> {
        self.replay = Some(Replay::new(pgn::parse(text)?));
        self.selection.clear();
        self.notice = None;
        self.refresh(now);
        Ok(())
    }

    /// The replay being shown, if any.
    #[must_use]
    pub const fn replay(&self) -> Option<&Replay> {
        self.replay.as_ref()
    }

    /// Steps through the replay; `false` if there is none or it cannot go that way.
    pub fn step(&mut self, step: Step) -> bool {
        let Some(replay) = &mut self.replay else {
            return false;
        };
        match step {
            Step::Start => replay.ply() > 0 && replay.seek(0),
            Step::Back => replay.back(),
            Step::Forward => replay.forward(),
            Step::End => replay.ply() < replay.len() && replay.seek(replay.len()),
        }
    }

    /// Goes to the position after `ply` moves of the replay (a click in its move list).
    pub fn seek(&mut self, ply: usize) -> bool {
        self.replay.as_mut().is_some_and(|replay| replay.seek(ply))
    }

    /// Closes the replay and shows the game (or the idle board) again.
    pub fn close_replay(&mut self, now: Timestamp) {
        self.replay = None;
        self.refresh(now);
    }

    /// The side the player may move now: the side to move, if the player plays it and the
    /// game is on and shown.
    fn mover(&self) -> Option<Color> {
        let game = self.playing().ok()?;
        let turn = game.position().turn();
        let live = game.presence().is_none_or(Presence::allows_play);
        (live && game.status().is_ongoing() && game.seats()[turn]).then_some(turn)
    }

    /// The game, if it is shown (not hidden behind a replay).
    fn playing(&self) -> Result<&dyn GameBackend, ActionError> {
        if self.replay.is_some() {
            return Err(ActionError::Replaying);
        }
        self.game.as_deref().ok_or(ActionError::NoGame)
    }

    fn playing_mut(&mut self) -> Result<&mut (dyn GameBackend + 'static), ActionError> {
        if self.replay.is_some() {
            return Err(ActionError::Replaying);
        }
        self.game.as_deref_mut().ok_or(ActionError::NoGame)
    }

    /// Sends `command` to the game, then takes in what it caused. It reaches the game even
    /// behind a replay, so that the dialog shown over one can be answered; moves and game
    /// buttons check that the game is shown before they come here.
    fn send(&mut self, now: Timestamp, command: Command) -> Result<(), ActionError> {
        let result = self
            .game
            .as_deref_mut()
            .ok_or(ActionError::NoGame)
            .and_then(|game| game.send(now, command).map_err(ActionError::from));
        self.after(now, result)
    }

    /// Brings the view up to date after an input, and notes a failure.
    fn after(
        &mut self,
        now: Timestamp,
        result: Result<(), ActionError>,
    ) -> Result<(), ActionError> {
        match &result {
            Ok(()) => self.notice = None,
            Err(error) => self.notice = Some(error.to_string()),
        }
        self.tick(now);
        self.refresh(now);
        result
    }

    /// Takes in the hint asked for, once it is found.
    fn take_hint(&mut self) {
        let (Hint::Asked { id, turn }, Some(analyst)) = (self.hint, self.analyst.as_mut()) else {
            return;
        };
        let Some(answer) = std::iter::from_fn(|| analyst.poll()).find(|answer| answer.id == id)
        else {
            return;
        };
        match answer.thought {
            Ok(thought) => {
                self.hint = Hint::Shown(thought.best);
                self.evaluation = Some(Evaluation::new(turn, thought.score));
            }
            Err(error) => {
                self.hint = Hint::None;
                self.notice = Some(error.to_string());
            }
        }
    }

    /// Forgets the hint: the position it was for is gone.
    fn drop_hint(&mut self) {
        if matches!(self.hint, Hint::Asked { .. })
            && let Some(analyst) = &mut self.analyst
        {
            analyst.cancel();
        }
        self.hint = Hint::None;
    }

    /// Updates the selection, the notice and the cues for one update of the game.
    fn take_in(&mut self, update: &Update) {
        if let Update::Game(event) = update {
            self.cues.extend(Cue::of(event));
        }
        if let Update::Evaluated(evaluation) = update {
            self.evaluation = Some(*evaluation);
            return;
        }
        let notice = match update {
            Update::Game(event) => match game_notice(event) {
                Ok(notice) => notice,
                Err(Unremarkable) => return,
            },
            Update::Started => Some("The opponent is here: the game begins".to_owned()),
            Update::Rematch => Some("Rematch: a new game with colours swapped".to_owned()),
            Update::RematchRequested { by } => {
                Some(format!("{} asks for a rematch", side_name(*by)))
            }
            Update::Presence { seat, connected } => Some(format!(
                "{} {}",
                side_name(*seat),
                if *connected {
                    "is back"
                } else {
                    "lost its connection"
                }
            )),
            Update::Refused(why) => Some(format!("Refused: {why}")),
            Update::Reconnecting(why) => Some(format!("Connection lost ({why}); reconnecting")),
            Update::Reconnected => Some("Reconnected".to_owned()),
            Update::Disconnected(why) => Some(format!("Disconnected: {why}")),
            Update::Evaluated(_) => return,
        };
        if matches!(
            update,
            Update::Game(Event::MovePlayed { .. } | Event::UndoApplied { .. } | Event::GameOver(_))
                | Update::Rematch
                | Update::Reconnected
        ) {
            self.selection.clear();
            self.drop_hint();
        }
        self.notice = notice;
    }

    /// Recomputes what is derived from the game or replay.
    fn refresh(&mut self, now: Timestamp) {
        self.shown = Shown::default();
        if let Some(replay) = &self.replay {
            self.shown.rows = move_rows(replay.record(), self.notation);
        }
        let Some(game) = self.game.as_deref() else {
            return;
        };
        let seats = game.seats();
        if self.replay.is_none() {
            let record = game.record();
            let turn = game.position().turn();
            let enabled = |action: Action| {
                action
                    .actor(seats, turn)
                    .is_some_and(|by| game.check(now, action.command(by)).is_ok())
            };
            self.shown.rows = move_rows(&record, self.notation);
            self.shown.last_move = record.moves().last().copied();
            self.shown.plies = record.moves().len();
            self.shown.buttons = Buttons {
                request_undo: enabled(Action::RequestUndo),
                offer_draw: enabled(Action::OfferDraw),
                resign: enabled(Action::Resign),
                rematch: game.check_rematch().is_ok(),
            };
        }
        // Requests are answered even while a replay is open: the opponent is waiting.
        self.shown.dialog = Dialog::incoming(
            |color| seats[color],
            game.pending_undo(),
            game.pending_draw(),
        );
    }
}

/// Where a game is at, in words: whose move and a request the opponent is considering, or the
/// result.
fn game_line(game: &dyn GameBackend) -> String {
    let turn = game.position().turn();
    match game.status() {
        Status::Finished(result) => result_text(result),
        Status::Ongoing => {
            let seats = game.seats();
            let waiting = game
                .pending_undo()
                .map(|request| (request.by, "an undo request"))
                .or_else(|| game.pending_draw().map(|by| (by, "a draw offer")))
                .filter(|&(by, _)| seats[by] && !seats[!by]);
            match waiting {
                Some((by, what)) => format!(
                    "{} to move; {} is considering {what}",
                    side_name(turn),
                    side_name(!by)
                ),
                None => format!("{} to move", side_name(turn)),
            }
        }
    }
}

/// Who is connected, in words: "the opponent" for a player, the colour for a spectator.
fn presence_text(presence: Presence, seats: ByColor<bool>) -> String {
    let playing = seats.red || seats.black;
    match presence {
        Presence::Waiting => "waiting for an opponent".to_owned(),
        Presence::Connected if playing => "opponent connected".to_owned(),
        Presence::Connected => "both players connected".to_owned(),
        Presence::Away(_) if playing => "opponent disconnected".to_owned(),
        Presence::Away(color) => format!("{} disconnected", side_name(color)),
        Presence::Reconnecting => "connection lost, reconnecting…".to_owned(),
        Presence::Offline => "disconnected from the relay".to_owned(),
    }
}

/// The position the board shows: the replay's, else the game's, else `idle`.
fn shown_position<'a>(
    replay: Option<&'a Replay>,
    game: Option<&'a dyn GameBackend>,
    idle: &'a Position,
) -> &'a Position {
    match (replay, game) {
        (Some(replay), _) => replay.position(),
        (None, Some(game)) => game.position(),
        (None, None) => idle,
    }
}

/// An event that leaves the notice as it is (lapsed requests, paused clocks).
struct Unremarkable;

/// The notice a match event leaves: `None` clears it (a move), [`Unremarkable`] keeps it.
fn game_notice(event: &Event) -> Result<Option<String>, Unremarkable> {
    Ok(match *event {
        Event::MovePlayed { .. } | Event::GameOver(_) => None,
        Event::UndoApplied { plies, .. } => Some(match plies {
            1 => "One move taken back".to_owned(),
            n => format!("{n} moves taken back"),
        }),
        Event::UndoRequested(request) => {
            Some(format!("{} asked to take back", side_name(request.by)))
        }
        Event::UndoDeclined { by } => Some(format!("{} declined the undo request", side_name(by))),
        Event::UndoWithdrawn { by } => Some(format!("{} withdrew the undo request", side_name(by))),
        Event::DrawOffered { by } => Some(format!("{} offered a draw", side_name(by))),
        Event::DrawDeclined { by } => Some(format!("{} declined the draw", side_name(by))),
        Event::DrawWithdrawn { by } => Some(format!("{} withdrew the draw offer", side_name(by))),
        Event::UndoLapsed
        | Event::DrawLapsed
        | Event::ClocksPaused { .. }
        | Event::ClocksResumed { .. } => return Err(Unremarkable),
    })
}

impl Default for ViewModel {
    fn default() -> Self {
        Self::new()
    }
}

#[cfg(test)]
mod tests;
