//! Connections as the core sees them: an id from the driver and where the client stands.

use std::fmt;
use std::sync::Arc;

use xq_protocol::RoomCode;
use xq_session::{Seat, Timestamp};

use crate::RateLimit;
use crate::limits::TokenBucket;

/// A connection's id, chosen by the driver and unique while the connection lives. The core
/// knows nothing else about a connection: it reads frames tagged with the id and writes
/// [`crate::Output`]s addressed to it.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct ConnId(pub u64);

impl fmt::Display for ConnId {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "c{}", self.0)
    }
}

/// One client connection's state.
#[derive(Debug)]
pub(crate) struct Conn {
    /// When it connected, for the log line when it goes.
    pub(crate) since: Timestamp,
    /// Whether its hello was accepted; nothing else is served before.
    pub(crate) greeted: bool,
    /// Undecodable frames so far, against [`crate::Config::malformed_limit`].
    pub(crate) malformed: u32,
    /// Where the client is.
    pub(crate) place: Place,
    /// When it last came to the lobby (connected, or left a room), against
    /// [`crate::Config::lobby_timeout`].
    pub(crate) lobby_since: Timestamp,
    /// Whether the relay's lobby timer holds an entry for it; it holds one at most.
    pub(crate) lobby_armed: bool,
    /// Its frames' budget, against [`crate::Config::rate_limit`].
    pub(crate) bucket: TokenBucket,
    /// The transport it came by, for the metrics; shared with its other connections.
    pub(crate) transport: Arc<str>,
}

/// Where a client stands: each connection is in at most one room, in one role.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Place {
    /// In no room.
    Lobby,
    /// Waiting for a quick-match opponent.
    Queued,
    /// Holding a seat.
    Player {
        /// The room.
        code: RoomCode,
        /// The seat.
        seat: Seat,
    },
    /// Watching.
    Spectator {
        /// The room.
        code: RoomCode,
    },
}

impl Conn {
    pub(crate) fn new(since: Timestamp, transport: Arc<str>, rate_limit: RateLimit) -> Self {
        Self {
            since,
            greeted: false,
            malformed: 0,
            place: Place::Lobby,
            lobby_since: since,
            lobby_armed: true,
            bucket: TokenBucket::full(since, rate_limit),
            transport,
        }
    }
}
