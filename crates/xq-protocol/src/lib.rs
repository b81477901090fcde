//! xq's wire protocol: what clients and the relay say to each other, and the one codec that
//! turns it into frames.
//!
//! Messages are typed enums that carry the match session's own [`xq_session::Command`]s and
//! [`xq_session::Event`]s, plus what a relay adds: hello and version, rooms and join codes,
//! quick match, spectating, snapshots for joins and resumes, ping, typed errors and typed
//! disconnect reasons. Moves stay typed on the wire (two square indices).
//!
//! The crate does no IO: [`codec::encode`] and [`codec::decode`] work on byte slices, and
//! transports move the frames. Decoding treats every byte as hostile: it bounds every length,
//! rejects trailing bytes and never panics.
//!
//! # Examples
//!
//! ```
//! use xq_protocol::{ClientMsg, PROTOCOL_VERSION, codec};
//!
//! let hello = ClientMsg::Hello {
//!     version: PROTOCOL_VERSION,
//!     client: "example".into(),
//!     resume: None,
//! };
//! let mut frame = Vec::new();
//! codec::encode(&hello, &mut frame)?;
//! assert_eq!(codec::decode::<ClientMsg>(&frame)?, hello);
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
pub use message::{ClientMsg, ServerMsg};
pub use room::{ParseRoomCodeError, ResumeToken, RoomCode, RoomOptions, SeatChoice};
pub use snapshot::{SeatInfo, Snapshot};

/// The protocol version this crate speaks. A hello with another version is refused with
/// [`DisconnectReason::VersionMismatch`]; every frame also starts with it, so a frame from
/// another version fails to decode with a clear error instead of being misread.
pub const PROTOCOL_VERSION: u8 = 1;
