//! The game the view shows: where commands go and events come from.

use std::time::Duration;

use xq_rules::{ByColor, Color, Position};
use xq_session::{
    Command, CommandError, Event, Record, RematchError, Status, Timestamp, UndoRequest,
};

use crate::Evaluation;

/// A game the view can show and play in: a [`crate::LocalGame`] on this screen, a
/// [`crate::ComputerGame`] against the computer, or a game on a relay (`xq-gui-net`'s
/// `RemoteGame`). The view-model only talks to this trait, so both play
/// through the same code.
///
/// The calling order follows [`xq_session::Match`]: send commands with
/// [`send`](Self::send), then drain [`poll_event`](Self::poll_event); call `poll_event`
/// regularly anyway (every frame), because time passes and a remote opponent acts.
pub trait GameBackend {
    /// The colours the player at this screen plays: both in a local game, one over the network.
    fn seats(&self) -> ByColor<bool>;

    /// The current position.
    fn position(&self) -> &Position;

    /// Whether the game is on, or how it ended.
    fn status(&self) -> Status;

    /// The undo request waiting for an answer, if any.
    fn pending_undo(&self) -> Option<UndoRequest>;

    /// The side whose draw offer is waiting for an answer, if any.
    fn pending_draw(&self) -> Option<Color>;

    /// Each side's remaining time at `now`; `None` in an untimed game.
    fn clocks(&self, now: Timestamp) -> Option<ByColor<Duration>>;

    /// The game record so far.
    fn record(&self) -> Record;

    /// Whether `command` would be accepted at `now`, without sending it: what greys out the
    /// buttons. It asks the session's own rules rather than guessing.
    ///
    /// # Errors
    ///
    /// The reason the command would be refused.
    fn check(&self, now: Timestamp, command: Command) -> Result<(), BackendError>;

    /// Sends `command` at `now`.
    ///
    /// # Errors
    ///
    /// The reason it was refused (locally: at once; over a network: what can be known before
    /// the relay answers).
    fn send(&mut self, now: Timestamp, command: Command) -> Result<(), BackendError>;

    /// The next thing that happened in the game by `now`, oldest first.
    fn poll_event(&mut self, now: Timestamp) -> Option<Update>;

    /// Who is connected to the game; `None` for a game with no network.
    fn presence(&self) -> Option<Presence>;

    /// Whether [`rematch`](Self::rematch) would be accepted, without asking: what greys out
    /// the Rematch button.
    ///
    /// # Errors
    ///
    /// The reason it would be refused: [`BackendError::Rematch`] while the game is still on;
    /// over a network also a spectator's [`BackendError::NotYourSeat`] and a lost connection.
    fn check_rematch(&self) -> Result<(), BackendError>;

    /// Starts the next game between the same players with colours swapped, once this one is
    /// over.
    ///
    /// # Errors
    ///
    /// The reason it was refused, as [`check_rematch`](Self::check_rematch) tells it.
    fn rematch(&mut self, now: Timestamp) -> Result<(), BackendError>;

    /// Whether the computer is thinking about its move: the view says so, and keeps drawing
    /// frames so that its answer is taken in. Only a game against the computer thinks.
    fn thinking(&self) -> bool {
        false
    }
}

/// Why a backend refused something.
#[derive(Clone, Copy, Debug, PartialEq, Eq, thiserror::Error)]
#[non_exhaustive]
pub enum BackendError {
    /// The session refused the command.
    #[error(transparent)]
    Command(#[from] CommandError),
    /// A rematch cannot start yet.
    #[error(transparent)]
    Rematch(#[from] RematchError),
    /// The command is for a side the player at this screen does not play.
    #[error("you do not play that side")]
    NotYourSeat,
    /// Only the relay may issue this command (abandonment, clock pauses).
    #[error("only the relay may do that")]
    Reserved,
    /// Nobody has taken the other seat yet, so no game is running.
    #[error("waiting for an opponent")]
    NoOpponentYet,
    /// The connection to the relay is down.
    #[error("not connected to the relay")]
    Offline,
}

/// Something that happened to a game: a match event, or news from the relay around it.
#[derive(Clone, Debug, PartialEq, Eq)]
#[non_exhaustive]
pub enum Update {
    /// A match event: a move, a request and its answer, the end.
    Game(Event),
    /// The opponent took the free seat: the game begins.
    Started,
    /// Both players asked for a rematch: a new game began with colours swapped.
    Rematch,
    /// The player of this colour asked for a rematch.
    RematchRequested {
        /// Who asked.
        by: Color,
    },
    /// The player of this colour lost or regained its connection.
    Presence {
        /// The seat.
        seat: Color,
        /// Whether it is connected now.
        connected: bool,
    },
    /// The relay refused a command, or it could not be sent; nothing changed. The text says
    /// why, for people.
    Refused(String),
    /// This screen's connection failed and is being restored; the text says why.
    Reconnecting(String),
    /// The connection is back and the game resumed.
    Reconnected,
    /// The connection ended for good; the text says why.
    Disconnected(String),
    /// The computer played, and its search judged the game so.
    Evaluated(Evaluation),
}

/// Who is connected to a network game, as the status line tells it.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Presence {
    /// The other seat is still free.
    Waiting,
    /// Both players are connected.
    Connected,
    /// The player of this colour lost its connection; the relay holds its seat for a while.
    Away(Color),
    /// This screen's own connection is down and being restored.
    Reconnecting,
    /// This screen's connection ended for good.
    Offline,
}

impl Presence {
    /// Whether moves can be played: the game is running and this screen is connected (an
    /// opponent who is away still has its clock running).
    #[must_use]
    pub const fn allows_play(self) -> bool {
        matches!(self, Self::Connected | Self::Away(_))
    }
}
