//! xq's relay engine: it hosts rooms and matches for clients on any transport.
//!
//! Two layers, in [quinn]'s shape:
//!
//! - [`Relay`] is the **sans-IO core**, and the relay's only authority. It takes connections,
//!   whole frames and the passing of time, and says what to send, whom to close and what to
//!   persist. It owns the rooms (join codes, two seats with resume tokens, spectators), the
//!   quick-match queue, the reconnect grace period, rematches, event numbering and
//!   snapshots, and it drives each room's [`xq_session::Match`], whose referee decides every
//!   rule of play. It does no IO, reads no clock and draws randomness from a seed.
//! - [`Server`] is the **tokio driver**. It serves any number of listeners at once through the
//!   [`xq_transport`] interface alone (so `mem://`, `udp://` and `quic://` are all the same to
//!   it), feeds the core from one task, keeps a bounded queue per connection, and shuts down
//!   gracefully.
//!
//! The relay follows the protocol's conversation ([`xq_protocol`]'s crate docs) exactly: a
//! request is checked against the sender's seat and then by the match, each request is
//! answered once by its id, refusals go to the sender alone and change nothing, and events
//! are numbered so a resuming client misses nothing and sees nothing twice.
//!
//! # Durability
//!
//! The core journals what it accepts as [`Output::Persist`] changes ([`xq_store::Persist`]),
//! placed before the frames they justify. With [storage](Builder::storage) the driver keeps
//! the **commit-before-send** rule: every change is committed before any output that follows
//! it is carried out, so no client ever sees an event that a restarted relay would not have.
//! The one thing not stored is a room still waiting for its second player: a restart loses
//! it, and its creator's resume token is refused. Such a room also closes when its creator
//! leaves or drops.
//!
//! Commits are **grouped**: the storage runs on a thread of its own and commits one batch at
//! a time, while the core goes on handling input; the changes made meanwhile form the next
//! batch, and the outputs behind them wait for it. Under load one commit carries many moves,
//! so the database's sync cost is shared instead of paid per move.
//!
//! At start the rooms open in the storage come back ([`Relay::restore`]): each match is
//! rebuilt from its journal, its players resume with their tokens within the grace period,
//! and its clocks restart, so the time the relay was down is charged to nobody. A finished
//! game is archived with its PGN record in the commit that ends it. If a commit fails, the
//! relay stops serving rather than send what it could not commit. Without storage the
//! changes are skipped.
//!
//! # Clusters
//!
//! Several relays can share their rooms as the nodes of a cluster ([`Builder::cluster`] with
//! a [`Directory`], such as `xq-cluster`'s NATS JetStream one, whose storage goes to
//! [`Builder::storage`]). Each room is owned by one node. The core stays sans-IO: it opens
//! rooms only with codes claimed cluster-wide beforehand ([`ClusterMode::reserve`],
//! [`Output::Claim`]), so creating a room never waits for the cluster; a request for a room it
//! does not hold waits while the cluster is asked ([`Output::Locate`]) and is then redirected
//! to the owner ([`xq_protocol::ServerMsg::Redirect`]) or served here once the room is taken
//! over from a node that died ([`Relay::handle_located`]). A commit the shared storage refuses
//! for a room (another node wrote it since) and a lease the node lost both give the room up
//! ([`Relay::evict`]): nothing that waited for the refused changes is sent, and its clients
//! are told to resume elsewhere. The driver also takes over, every so often, the rooms no node
//! owns ([`Directory::orphans`]), and at shutdown gives its rooms up once their last changes are
//! committed.
//!
//! # Abuse limits
//!
//! One client cannot knock the relay over. The core decides what is about frames and rooms
//! ([`Config`]): a token bucket per connection ([`RateLimit`]), a frame size checked before
//! decoding, a cap on the rooms one connection opens, and rooms that expire when idle or when
//! nobody joins. The driver decides what is about sockets ([`Builder`]): caps on connections
//! in total and per source address, and a bounded queue per connection that cuts off a client
//! that does not read. Each limit hits the offender alone.
//!
//! # Metrics
//!
//! The core counts as it decides ([`Relay::metrics`]); [`Server::metrics`] reads those
//! counters and the driver's ([`ServerMetrics`]) from the running relay. With the
//! `metrics-http` feature, `encode` writes a snapshot in the Prometheus text format, and
//! `MetricsEndpoint` serves it over HTTP at `GET /metrics` until the relay stops.
//!
//! # Examples
//!
//! A relay on an in-process listener and a client that says hello; integration tests start
//! one the same way, on `mem://` or on `udp://127.0.0.1:0` / `quic://127.0.0.1:0` (then
//! [`Server::local_urls`] gives the real ports, and the QUIC fingerprint to pin).
//!
//! ```
//! # #[tokio::main(flavor = "current_thread")]
//! # async fn main() -> Result<(), Box<dyn std::error::Error>> {
//! use xq_protocol::{ClientMsg, PROTOCOL_VERSION, Request, RequestId, ServerMsg, codec};
//! use xq_server::Server;
//! use xq_transport::Options;
//!
//! let server = Server::builder().listen("mem://crate-docs").start().await?;
//! let url = &server.local_urls()[0];
//!
//! let client = xq_transport::connect(url, &Options::default()).await?;
//! let msg = ClientMsg::Hello { version: PROTOCOL_VERSION, client: "docs".into(), resume: None };
//! client.send(codec::to_frame(&Request { id: RequestId(1), msg })?).await?;
//! let welcome: ServerMsg = codec::decode(&client.recv().await?)?;
//! assert!(matches!(welcome, ServerMsg::Welcome { id: RequestId(1), .. }));
//!
//! server.shutdown().await;
//! let bye: ServerMsg = codec::decode(&client.recv().await?)?;
//! assert!(matches!(bye, ServerMsg::Disconnect { .. }));
//! # Ok(())
//! # }
//! ```
//!
//! # Feature flags
//!
//! - `metrics-http` (default): `encode` and `MetricsEndpoint`, the Prometheus text format
//!   and the HTTP listener that serves it (hyper, prometheus-client). A relay nobody scrapes
//!   goes without; its counters are still there through [`Server::metrics`].
//!
//! - `sqlite` (default): `xq-store`'s SQLite engine, to pass to [`Builder::storage`]. A
//!   relay that keeps nothing links no database.
//!
//! - `cluster`: the NATS JetStream cluster of `xq-cluster` as a [`Directory`], for
//!   [`Builder::cluster`], with its storage for [`Builder::storage`].
//!
//! - `ws` (default): `ws://` and `wss://` listeners, through `xq-transport`'s `ws` feature.
//!   Their listener is an HTTP server (hyper), so the relay the GUI hosts goes without.
//!
//! [quinn]: https://docs.rs/quinn

#![warn(missing_docs)]

mod admission;
mod cluster;
mod committer;
mod config;
mod conn;
mod deadlines;
mod directory;
mod driver;
#[cfg(feature = "metrics-http")]
mod exposition;
mod gate;
mod limits;
mod lobby;
mod metrics;
#[cfg(feature = "cluster")]
mod nats;
mod output;
mod quick;
mod quotas;
mod relay;
mod room;
mod rooms;
mod seat;
mod server;
mod source;
mod tally;

pub use cluster::{ClusterMode, Located, Lookup};
pub use config::Config;
pub use conn::ConnId;
pub use directory::Directory;
#[cfg(feature = "metrics-http")]
pub use exposition::{CONTENT_TYPE_TEXT, MetricsEndpoint, encode};
pub use limits::RateLimit;
pub use metrics::{ClusterCounters, LatencyHistogram, MetricsHandle, RelayMetrics, ServerMetrics};
pub use output::Output;
pub use relay::Relay;
pub use rooms::RestoreError;
pub use server::{Builder, Server, StartError};
/// The changes the core journals, defined with the storage that keeps them.
pub use xq_store::Persist;
