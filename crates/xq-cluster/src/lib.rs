//! The xq relay's shared state on NATS JetStream, for several relay nodes that share rooms.
//!
//! A [`Cluster`] is one node's link to the cluster: it claims codes for new rooms, finds
//! the rooms other nodes own (for a redirect) or takes over those nobody owns any more,
//! and renews its rooms' leases in the background. Its [`ClusterStorage`] is the relay's
//! [`xq_store::Storage`] engine: what SQLite does for one relay, with a fence, so that a
//! node that lost a room can no longer write to it.
//!
//! # What is kept where
//!
//! | name | kind | what |
//! | --- | --- | --- |
//! | `XQ_ROOMS`, subjects `xq.room.<CODE>` | stream | each room's journal: one message per room per commit ([`Append`]) |
//! | `XQ_GAMES`, subjects `xq.game.<CODE>.<seq>` | stream | one message per finished game ([`ArchivedGame`]); its [`xq_store::GameId`] is its stream sequence |
//! | `XQ_LEASES`, key = room code | KV bucket | the room's owner: node, incarnation, client URLs (JSON); max age = the lease TTL |
//! | `XQ_TOKENS`, key = token in hex | KV bucket | the room code of a resume token |
//!
//! - **Appends are fenced.** Each is published with `Nats-Expected-Last-Subject-Sequence`
//!   set to the stream sequence of the room's last message as this node knows it (0 for
//!   none), so a node whose room another node has written to since gets its append refused
//!   (and [`xq_store::Committed::refused`] names the room). Its `Nats-Msg-Id` is
//!   `<node>.<incarnation>.<CODE>.<expected-seq>`: a retry after a lost acknowledgement is
//!   deduplicated by the stream, and no two writers ever share an id. Each message records
//!   its writer, the lease revision it held and a per-room counter (see [`Append`]).
//! - **Leases.** A room's lease is created with KV `create` (so a code is unique
//!   cluster-wide) and renewed with a compare-and-set `update` every quarter of the TTL.
//!   The TTL must outlast a JetStream leader election (a few seconds after a NATS server
//!   dies), or a NATS node loss costs every node its rooms: the default is 10 s.
//!   The bucket's max age is the TTL: a dead owner's leases vanish by themselves. A node
//!   believes a lease only until the time it *sent* its last successful renewal plus three
//!   quarters of the TTL, by its own monotonic clock: past that it neither appends nor
//!   renews, and reports the room lost ([`Cluster::lost_rooms`]). A renewal that finds
//!   another revision loses the room at once.
//! - **Takeover.** [`Cluster::locate`] on a room without a lease creates one, reads the
//!   journal back and appends a [`Change::TakenOver`] fenced on its last message: from then
//!   on, nothing its former owner might still send can land.
//! - **Archive.** A game is published on `xq.game.<CODE>.<seq>`, `seq` the stream sequence
//!   of the message that started its match, with expected last subject sequence 0: it is
//!   archived at most once, whoever (or however often) tries. The journal keeps the game's
//!   archived form too, so that a node taking a room over archives a game its former owner
//!   could not.
//! - **Close.** A room's close is a fenced append like any other; then its subject is
//!   purged and its lease and tokens deleted, and its code may be claimed again.
//! - **Replication.** Every stream and bucket has [`ClusterOptions::replicas`] replicas:
//!   by default 3 if the NATS server is part of a cluster (its server info names one),
//!   else 1; a cluster of two servers needs `replicas` set, or [`Cluster::connect`] fails
//!   with [`ClusterError::TooFewServers`]. Existing streams and buckets are bound as they are, unless their
//!   settings cannot work: other subjects, a max age that is not this node's lease TTL,
//!   purges denied, a duplicate window shorter than the retry window, or (only when
//!   `replicas` is set explicitly) another replication factor. Then [`Cluster::connect`]
//!   fails with [`ClusterError::Mismatch`]: nothing is changed behind the other nodes'
//!   backs; an operator updates a stream with the `nats` CLI.
//!
//! The crate holds no rule of the game: the relay core (`xq-server`) decides what to
//! persist, and rebuilds matches from the [`xq_store::OpenRoom`]s this crate returns.
//!
//! # Examples
//!
//! ```no_run
//! use std::time::Duration;
//! use xq_cluster::{Cluster, ClusterOptions, Location, Lookup};
//! use xq_protocol::RoomCode;
//!
//! # async fn run() -> Result<(), xq_cluster::ClusterError> {
//! let mut options = ClusterOptions::new(["nats://127.0.0.1:4222"], "relay-a");
//! options.advertise = vec!["udp://relay-a.example:7878".into()];
//! options.lease_ttl = Duration::from_secs(10);
//! let cluster = Cluster::connect(options).await?;
//! let code = RoomCode::from_u64(42);
//! if cluster.claim(code).await? {
//!     // A new room of this node: its changes go through `cluster.storage()`.
//! }
//! match cluster.locate(Lookup::Room(code)).await? {
//!     Location::Owner { urls, .. } => println!("redirect to {urls:?}"),
//!     Location::Taken(room) => println!("restore {} here", room.code),
//!     Location::Nowhere => println!("no such room"),
//!     Location::Settling => println!("this node is taking it over: ask again"),
//! }
//! cluster.close().await;
//! # Ok(())
//! # }
//! ```
//!
//! # Feature flags
//!
//! - `testing`: the `testing` module, real `nats-server` processes (one, or a routed cluster of
//!   three) started on loopback for tests, killed when dropped.

#![warn(missing_docs)]

mod archive;
mod cluster;
mod error;
mod journal;
mod lease;
mod metrics;
pub mod names;
mod options;
mod presence;
mod setup;
mod storage;
#[cfg(feature = "testing")]
pub mod testing;
mod wire;

pub use archive::ClusterArchive;
pub use cluster::{Cluster, Location, Lookup};
pub use error::{ClusterError, WireError};
pub use journal::{Append, ArchivedGame, Change, ReplayError, Writer};
pub use metrics::ClusterMetrics;
pub use options::{ClientCert, ClusterOptions, ClusterTls};
pub use storage::ClusterStorage;
