//! What clients and the relay say: a client's request with its id, and the relay's messages.

use serde::{Deserialize, Serialize};
use xq_rules::Color;
use xq_session::{Action, Event};

use crate::{DisconnectReason, ErrorCode, ResumeToken, RoomCode, RoomOptions, Snapshot};

/// The number a client gives a request. The relay's answer names it, so a client matches
/// answers to requests without counting messages; the relay never reads more into it (a client
/// may reuse numbers, at the cost of telling its own answers apart).
#[derive(
    Clone, Copy, Debug, Default, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize,
)]
pub struct RequestId(pub u32);

impl std::fmt::Display for RequestId {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "#{}", self.0)
    }
}

/// What a client sends: one request, and the id its answer will name.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Request {
    /// Chosen by the client; see [`RequestId`].
    pub id: RequestId,
    /// What the client asks.
    pub msg: ClientMsg,
}

/// What a client asks. It travels inside a [`Request`]; each is answered by exactly one
/// message naming the request's id (the crate docs list which).
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[non_exhaustive]
pub enum ClientMsg {
    /// The first message on every connection.
    Hello {
        /// The client's [`crate::PROTOCOL_VERSION`].
        version: u8,
        /// A free-form client name, for logs.
        client: String,
        /// A token from an earlier [`ServerMsg::Joined`], to take back a seat after a
        /// disconnect.
        resume: Option<ResumeToken>,
    },
    /// Creates a room and takes a seat in it.
    CreateRoom(RoomOptions),
    /// Takes the free seat of the room with this code.
    JoinRoom {
        /// The code the creator shared.
        code: RoomCode,
    },
    /// Waits to be paired with the next player who asks for the same clocks and undo policy
    /// (the seat is drawn).
    QuickMatch(RoomOptions),
    /// Watches a room: a snapshot, then every event; no actions.
    Spectate {
        /// The room's code.
        code: RoomCode,
    },
    /// A player's action in its match. It names no colour: the relay hands it to the match as
    /// the action of the sender's seat, and the match checks the rest.
    Act(Action),
    /// Asks for (or agrees to) a rematch once the game is over: when both seats have asked, a
    /// new match starts in the same room with the colours swapped.
    Rematch,
    /// Asks for a [`ServerMsg::Pong`] (latency and liveness).
    Ping,
    /// Leaves the room, answered by [`ServerMsg::Done`] after which nothing more of the room
    /// arrives; the seat is kept until the reconnect grace period ends. A room whose
    /// second seat nobody has taken yet closes instead, as it does when its creator's
    /// connection drops.
    Leave,
}

/// What the relay sends.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[non_exhaustive]
pub enum ServerMsg {
    /// The answer to a compatible [`ClientMsg::Hello`].
    Welcome {
        /// The hello's request.
        id: RequestId,
        /// The relay's [`crate::PROTOCOL_VERSION`].
        version: u8,
        /// The relay's name and version, for logs.
        server: String,
    },
    /// The client is in a room now: as a player with a seat, or as a spectator.
    Joined {
        /// The request this answers (create, join, quick match when paired at once,
        /// spectate); `None` when nothing the client asked just then brought it here (a quick
        /// match paired later, a resume after the welcome, a rematch).
        id: Option<RequestId>,
        /// The room's join code.
        code: RoomCode,
        /// The seat's colour; `None` for a spectator.
        seat: Option<Color>,
        /// Present for players: the token that takes the seat back after a disconnect.
        resume: Option<ResumeToken>,
    },
    /// Quick match: waiting for an opponent; the pairing comes later as `Joined`.
    Queued {
        /// The quick match request.
        id: RequestId,
    },
    /// The whole state of the room, sent on join, on resume and when a match (re)starts.
    /// Events that follow carry sequence numbers after [`Snapshot::next_seq`].
    Snapshot(Box<Snapshot>),
    /// A session event, numbered so a resuming client can tell what it has already seen.
    Event {
        /// This event's sequence number in the room's current match.
        seq: u64,
        /// What happened.
        event: Event,
        /// To the player whose action caused it, on the first event the action made: that
        /// action's request, which this answers. `None` for everyone else.
        answers: Option<RequestId>,
    },
    /// The seat of this colour lost or regained its connection.
    Presence {
        /// The seat.
        seat: Color,
        /// Whether it is connected now.
        connected: bool,
    },
    /// The seat of this colour asked for a rematch.
    RematchRequested {
        /// Who asked.
        by: Color,
    },
    /// The answer to a [`ClientMsg::Ping`].
    Pong {
        /// The ping's request.
        id: RequestId,
    },
    /// The request was carried out, and what it changed, if anything, comes in messages of
    /// its own: the answer to [`ClientMsg::Leave`] and [`ClientMsg::Rematch`].
    Done {
        /// The request.
        id: RequestId,
    },
    /// A request was refused; nothing changed. Only the sender receives it.
    Error {
        /// The refused request; `None` for a frame that did not decode, whose id is unknown.
        id: Option<RequestId>,
        /// What went wrong, for programs.
        code: ErrorCode,
        /// What went wrong, for people.
        message: String,
    },
    /// The relay is closing this connection.
    Disconnect {
        /// Why.
        reason: DisconnectReason,
        /// Details for people.
        message: String,
    },
    /// The room (or the seat a resume token holds) lives on another node of the relay's
    /// cluster: the client should connect to one of `urls` and send the same request there
    /// (after its hello). The relay closes this connection after it; nothing changed here.
    /// A relay that is not part of a cluster never sends it.
    Redirect {
        /// The request this answers: the hello carrying the resume token, or the join or
        /// spectate naming the room.
        id: RequestId,
        /// The owning node's client URLs, in its order of preference.
        #[serde(deserialize_with = "crate::codec::bounded_vec")]
        urls: Vec<String>,
    },
}
