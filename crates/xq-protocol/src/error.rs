//! Typed refusals and disconnect reasons.

use serde::{Deserialize, Serialize};
use xq_session::CommandError;

/// Why the relay refused a request (sent in [`crate::ServerMsg::Error`]; the connection stays).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[non_exhaustive]
pub enum ErrorCode {
    /// A message other than hello came first, or a second hello came.
    HelloExpected,
    /// No room has this code.
    RoomNotFound,
    /// Both seats of the room are taken.
    RoomFull,
    /// The connection is already in a room.
    AlreadyInRoom,
    /// The request needs a room and the connection is in none.
    NotInRoom,
    /// Spectators cannot send commands.
    Spectator,
    /// The match session refused the command.
    Rejected(CommandError),
    /// A rematch needs a finished game.
    GameNotOver,
    /// The resume token is unknown or its grace period is over.
    ResumeRefused,
    /// This connection has made too many rooms open, or the relay holds as many as it takes.
    TooManyRooms,
    /// The frame could not be decoded.
    Malformed,
    /// The room's second seat is still empty, so no match is running.
    NoOpponentYet,
    /// The player has offered a draw (or asked for an undo) at this point of the game already,
    /// or later, in moves since taken back: it may offer (or ask) again once the game has gone
    /// past that point. Asking and withdrawing in a loop would otherwise grow the match's
    /// record without end.
    AlreadyAsked,
    /// The room options are out of range: a clock must start with at least
    /// [`crate::MIN_CLOCK`].
    InvalidOptions,
    /// The relay cannot serve this now: its cluster's shared state is out of its reach (or no
    /// room code is free yet). Nothing changed; trying again later may succeed.
    Unavailable,
}

/// Why the relay closed a connection (sent in [`crate::ServerMsg::Disconnect`]).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[non_exhaustive]
pub enum DisconnectReason {
    /// The client speaks another protocol version.
    VersionMismatch,
    /// The client sent faster than its rate limit allows.
    RateLimited,
    /// The room has no place left.
    RoomFull,
    /// What the client asked for does not exist.
    NotFound,
    /// The relay's operator removed the client.
    Kicked,
    /// The relay is shutting down.
    ShuttingDown,
    /// The client sent frames that do not decode.
    Malformed,
    /// The client stayed in no room (neither playing, watching nor waiting for a quick
    /// match) for too long.
    Idle,
    /// The relay turned the connection away when it came: it holds as many connections as it
    /// takes, in total or from the client's address. Trying again later may succeed.
    RelayFull,
    /// The room moved to another node of the relay's cluster (this node lost its ownership,
    /// or the connection was redirected): reconnect, through any node, and resume.
    Moved,
}
