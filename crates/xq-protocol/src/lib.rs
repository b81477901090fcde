//! xq's wire protocol: what clients and the relay say to each other, and the one codec that
//! turns it into frames.
//!
//! Messages are typed enums that carry the match session's own [`xq_session::Action`]s and
//! [`xq_session::Event`]s, plus what a relay adds: hello and version, rooms and join codes,
//! quick match, spectating, snapshots for joins and resumes, ping, typed errors and typed
//! disconnect reasons. Moves stay typed on the wire (two square indices).
//!
//! The crate does no IO: [`codec::encode`] and [`codec::decode`] work on byte slices, and
//! transports move the frames. Decoding treats every byte as hostile: it bounds every length,
//! rejects trailing bytes and never panics.
//!
//! # The conversation
//!
//! Every relay and client follows this order; the relay is the only authority.
//!
//! 0. **Requests and answers.** A client sends [`Request`]s: a [`ClientMsg`] with a
//!    [`RequestId`] of its choosing. Each request gets exactly one answer naming its id:
//!    [`ServerMsg::Welcome`] for a hello, [`ServerMsg::Joined`] for entering a room (or
//!    [`ServerMsg::Queued`] for a quick match that has to wait), [`ServerMsg::Pong`] for a
//!    ping, [`ServerMsg::Done`] for a leave or a rematch, for an accepted action the first
//!    [`ServerMsg::Event`] it made (its `answers` field, in the copy the actor receives), and
//!    [`ServerMsg::Error`] for any refusal. Everything else the relay sends (a snapshot after
//!    `Joined`, the other players' events, presence, a pairing found later) names no request.
//!    Two refusals name none either: of a frame that did not decode (its id could not be
//!    read), and of a quick match that waited, when its pairing fails (its request was
//!    answered by `Queued`). A [`ServerMsg::Disconnect`] answers nothing: it ends the
//!    connection.
//! 1. **Hello.** The client's first frame is [`ClientMsg::Hello`]. Another protocol version gets
//!    [`ServerMsg::Disconnect`] with [`DisconnectReason::VersionMismatch`] and the connection is
//!    closed; otherwise the relay answers [`ServerMsg::Welcome`]. Anything else before the hello,
//!    or a second hello, gets [`ErrorCode::HelloExpected`].
//! 2. **Resume.** A hello with a resume token whose seat is still held (within the reconnect
//!    grace period, on any transport) is followed by [`ServerMsg::Joined`] (the same token) and
//!    a [`ServerMsg::Snapshot`]; the opponent receives [`ServerMsg::Presence`] with
//!    `connected: true`; those two name no request (the welcome answered the hello). A hello
//!    whose token is unknown or expired is refused as a whole with
//!    [`ErrorCode::ResumeRefused`]: the connection stays open, and a hello without the token
//!    greets it.
//! 3. **Rooms.** [`ClientMsg::CreateRoom`] answers `Joined` (code, seat, token) and a snapshot
//!    of a room waiting for its second player (no clock runs yet), or
//!    [`ErrorCode::InvalidOptions`] for options out of range ([`RoomOptions::check`]).
//!    [`ClientMsg::JoinRoom`] takes the free seat: the joiner gets `Joined` and both players
//!    get a snapshot of the started match. [`ClientMsg::QuickMatch`] answers
//!    [`ServerMsg::Queued`] until a second player asks for the same clocks, undo policy and
//!    repetition rule;
//!    then both get `Joined` and a snapshot (colours drawn by the relay).
//!    [`ClientMsg::Spectate`] answers `Joined` with no seat and no token, then a snapshot.
//! 4. **Play.** [`ClientMsg::Act`] carries an [`xq_session::Action`], which names no colour:
//!    the relay hands it to the match as the action of the sender's seat, so a player cannot
//!    act for the other seat, and the relay's own verdicts (abandonment, clock pauses) cannot
//!    be sent at all. Spectators get [`ErrorCode::Spectator`]; before the opponent arrives,
//!    [`ErrorCode::NoOpponentYet`]; a second draw offer or undo request at the same point of
//!    the game, [`ErrorCode::AlreadyAsked`]; what the session refuses comes back as
//!    [`ErrorCode::Rejected`], the error [`xq_session::MatchState::check`] gives a client
//!    before it sends. A refusal goes to the sender alone and changes nothing. Accepted
//!    actions produce [`ServerMsg::Event`]s for both players and every spectator.
//! 5. **Numbering.** Within one match, events are numbered from 0 without gaps; a snapshot's
//!    [`Snapshot::next_seq`] is the number of the next event. A client mirrors the snapshot and
//!    then applies exactly the events numbered from `next_seq` on, so after a resume nothing is
//!    missing and nothing is applied twice.
//! 6. **Presence.** When a player's connection fails (or it sends [`ClientMsg::Leave`], which
//!    is answered by [`ServerMsg::Done`], after which nothing more of the room arrives) the
//!    opponent and spectators get `Presence { connected: false }`; the seat is held for the
//!    grace period, after which the session's abandonment rule ends the game.
//! 7. **Rematch.** After the game, [`ClientMsg::Rematch`] from one player is announced as
//!    [`ServerMsg::RematchRequested`]; when the other asks too, a new match starts in the same
//!    room with colours swapped: each player gets `Joined` with its new colour and everyone a
//!    snapshot (numbering starts again at 0). Asking during a game gets
//!    [`ErrorCode::GameNotOver`].
//! 8. **Liveness and exit.** [`ClientMsg::Ping`] gets [`ServerMsg::Pong`]. Frames that do not
//!    decode get [`ErrorCode::Malformed`] (with no id: none could be read); a relay may
//!    disconnect a client that keeps sending them ([`DisconnectReason::Malformed`]). A relay
//!    shutting down sends
//!    [`DisconnectReason::ShuttingDown`] to everyone; a connection refused at the relay's caps
//!    gets [`DisconnectReason::RelayFull`].
//! 9. **Clusters.** A relay node of a cluster that is asked for a room another node owns (a
//!    resume, a join, a spectate) answers [`ServerMsg::Redirect`] with that node's URLs and
//!    closes the connection; the client repeats the request there. A node that loses a room
//!    to another sends its connections [`DisconnectReason::Moved`]: they reconnect through any
//!    node and resume. When the cluster's state is out of reach, requests that need it are
//!    refused with [`ErrorCode::Unavailable`].
//!
//! # Examples
//!
//! ```
//! use xq_protocol::{ClientMsg, PROTOCOL_VERSION, Request, RequestId, codec};
//!
//! let hello = Request {
//!     id: RequestId(1),
//!     msg: ClientMsg::Hello {
//!         version: PROTOCOL_VERSION,
//!         client: "example".into(),
//!         resume: None,
//!     },
//! };
//! let mut frame = Vec::new();
//! codec::encode(&hello, &mut frame)?;
//! assert_eq!(codec::decode::<Request>(&frame)?, hello);
//! # Ok::<_, Box<dyn std::error::Error>>(())
//! ```
//!
//! # Feature flags
//!
//! None.

#![warn(missing_docs)]

pub mod codec;
mod error;
mod message;
mod room;
mod snapshot;

pub use error::{DisconnectReason, ErrorCode};
pub use message::{ClientMsg, Request, RequestId, ServerMsg};
pub use room::{MIN_CLOCK, ParseRoomCodeError, ResumeToken, RoomCode, RoomOptions, SeatChoice};
pub use snapshot::{SeatInfo, Snapshot};

/// The protocol version this crate speaks. A hello with another version is refused with
/// [`DisconnectReason::VersionMismatch`]; every frame also starts with it, so a frame from
/// another version fails to decode with a clear error instead of being misread.
///
/// Version 2 added the draw by abandonment of both seats ([`xq_session::Command::AbandonBoth`],
/// [`xq_session::DrawReason::Abandonment`]), which a version 1 peer could not decode; version 3
/// the refusals [`ErrorCode::AlreadyAsked`] and [`ErrorCode::InvalidOptions`]; version 4 the
/// Asian repetition rules: [`RoomOptions::repetition`] (also in the snapshot's
/// configuration) and [`xq_session::WinReason::PerpetualChase`]; version 5 colourless player
/// actions ([`ClientMsg::Act`] in place of a command naming its colour, without the refusals
/// that only a colour could earn), the undos granted in the snapshot, request ids on every
/// request and answer ([`Request`], [`ServerMsg::Done`]) and
/// [`DisconnectReason::RelayFull`]; version 6 the relay cluster's [`ServerMsg::Redirect`],
/// [`DisconnectReason::Moved`] and [`ErrorCode::Unavailable`].
pub const PROTOCOL_VERSION: u8 = 6;
