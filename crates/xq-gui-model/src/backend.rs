//! The game the view shows: where commands go and events come from.

use std::time::Duration;

use xq_rules::{ByColor, Color, Position};
use xq_session::{
    Command, CommandError, Event, Record, RematchError, Status, Timestamp, UndoRequest,
};

/// A game the view can show and play in: a [`crate::LocalGame`] on this screen now, a game on a
/// relay later. The view-model only talks to this trait, so a network game plugs in as one more
/// implementation.
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
    fn poll_event(&mut self, now: Timestamp) -> Option<Event>;

    /// Starts the next game between the same players with colours swapped, once this one is
    /// over.
    ///
    /// # Errors
    ///
    /// [`BackendError::Rematch`] while the game is still on.
    fn rematch(&mut self, now: Timestamp) -> Result<(), BackendError>;
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
}
