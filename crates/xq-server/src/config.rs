//! What the relay core is tuned by.

use std::time::Duration;

use crate::{ClusterMode, RateLimit};

/// The relay core's settings. The defaults suit a public relay; tests shorten the grace period
/// to drive abandonment with a virtual clock.
///
/// The abuse limits here are the core's decisions, about frames and rooms. The limits about
/// sockets (connections per address and in total, each connection's outgoing queue) are the
/// driver's: see [`crate::Builder`].
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Config {
    /// How long a player's seat is held after its connection fails or it leaves. A resume
    /// within this time takes the seat back; after it, an ongoing game is lost by abandonment
    /// (drawn, if both seats' grace periods end at the same moment, as after a restart that
    /// neither player came back to) and the resume token is refused.
    pub grace: Duration,
    /// How many undecodable frames a connection may send before it is disconnected: a client
    /// with a bug gets typed errors to debug with, a flood of garbage does not get a relay's
    /// attention for long.
    pub malformed_limit: u32,
    /// How fast one connection may send frames; a connection over it is disconnected with
    /// [`xq_protocol::DisconnectReason::RateLimited`].
    pub rate_limit: RateLimit,
    /// The largest frame a client may send, in bytes, checked before anything is decoded. A
    /// larger one disconnects its sender ([`xq_protocol::DisconnectReason::Malformed`]): no
    /// client message comes near it, so only a broken or hostile client sends one.
    pub max_frame_size: usize,
    /// How many open rooms one connection may have made open, by creating them or by quick
    /// matching into them: each holds resume tokens and a match, and a room outlives its
    /// players' leaving by the grace period, so creating (or quick matching) and leaving in a
    /// loop would otherwise fill the relay. Asking for more is refused with
    /// [`xq_protocol::ErrorCode::TooManyRooms`].
    pub max_rooms_per_connection: u32,
    /// How many rooms the relay holds open at most. The per-connection cap does not bound a
    /// client that connects again and again, each room held for the grace period after its
    /// players leave; this bounds what all of them cost (a room with its match is well under
    /// a kilobyte). Asking for a room beyond it is refused with
    /// [`xq_protocol::ErrorCode::TooManyRooms`].
    pub max_rooms: usize,
    /// How many open rooms the connections from one IP address (an IPv6 /64 counts as one)
    /// may have made open, counting those of its connections gone since whose rooms are still
    /// held: without it, one host connecting again and again could take the whole
    /// [`max_rooms`](Self::max_rooms) and leave nobody else a room. Asking for more is
    /// refused with [`xq_protocol::ErrorCode::TooManyRooms`]. In-process connections are not
    /// counted, nor are rooms brought back after a restart.
    pub max_rooms_per_address: u32,
    /// How long a room may have no player connected before it is closed, whatever the grace
    /// period: the bound on what a deserted room costs.
    pub idle_room: Duration,
    /// How long a created room waits for its second player before it is closed (its creator
    /// is then disconnected with [`xq_protocol::DisconnectReason::NotFound`]).
    pub waiting_room: Duration,
    /// How long a connection may stay in no room (from its connecting, or from its leaving a
    /// room) before it is disconnected with [`xq_protocol::DisconnectReason::Idle`]. The
    /// transports' keep-alives would otherwise hold a silent connection open for ever, and
    /// with it a place under the driver's connection caps: enough of them would lock
    /// everyone else out. Waiting in the quick-match queue, holding a seat and watching a
    /// room are not idle, so a client that does those keeps its places: the caps per address
    /// bound what one host holds that way.
    pub lobby_timeout: Duration,
    /// The relay's name and version, sent in every welcome (for clients' logs).
    pub server_name: String,
    /// `Some` for a node of a cluster that shares rooms with other relays: new rooms take
    /// codes claimed cluster-wide, and a room this node does not hold is looked up on the
    /// others ([`crate::Output::Claim`], [`crate::Output::Locate`]). `None` (the default): a
    /// relay alone. A [`crate::Server`] sets it from [`crate::Builder::cluster`] (the
    /// default mode unless one is given here), and clears it without one.
    pub cluster: Option<ClusterMode>,
}

impl Default for Config {
    fn default() -> Self {
        Self {
            grace: Duration::from_secs(60),
            malformed_limit: 3,
            rate_limit: RateLimit::default(),
            max_frame_size: 4 * 1024,
            max_rooms_per_connection: 8,
            max_rooms: 100_000,
            max_rooms_per_address: 128,
            idle_room: Duration::from_secs(10 * 60),
            waiting_room: Duration::from_secs(30 * 60),
            lobby_timeout: Duration::from_secs(60),
            server_name: format!("xq-server {}", env!("CARGO_PKG_VERSION")),
            cluster: None,
        }
    }
}
