//! A reliable, ordered, frame-oriented transport over UDP.
//!
//! Frames are byte vectors. The transport guarantees that **frames arrive whole, once and in
//! order, or the connection reports that it failed**. It knows nothing about what the frames
//! mean.
//!
//! The crate has two layers, in the shape of `quinn-proto` and `quinn`:
//!
//! - [`proto`] is the sans-IO core: a per-connection [`proto::Link`] (sequence numbers,
//!   selective acks, RTT-based retransmission, reassembly of fragmented frames, keep-alive,
//!   idle timeout, graceful close) and a [`proto::Endpoint`] that demultiplexes datagrams to
//!   links and runs the stateless cookie handshake. It opens no socket, reads no clock and
//!   draws no randomness of its own: time and a seed are arguments.
//! - [`Endpoint`] and [`Connection`] drive the core over a tokio [`UdpSocket`] whose send and
//!   receive buffers are enlarged (see [`Config::socket_buffer_size`]).
//!
//! What it does not do: encryption or peer authentication (the cookie only proves that a
//! client can receive at its source address), congestion control beyond a fixed window of
//! datagrams in flight, path MTU discovery (datagrams never exceed
//! [`proto::MAX_DATAGRAM_SIZE`] bytes), and connection migration.
//!
//! # Example
//!
//! ```
//! use xq_transport_udp::{Config, Endpoint};
//!
//! # #[tokio::main(flavor = "current_thread")]
//! # async fn main() -> Result<(), xq_transport_udp::Error> {
//! let server = Endpoint::bind("127.0.0.1:0".parse().unwrap(), Config::default()).await?;
//! let client = Endpoint::bind("127.0.0.1:0".parse().unwrap(), Config::default()).await?;
//!
//! let (outgoing, incoming) = tokio::join!(client.connect(server.local_addr()), server.accept());
//! let (outgoing, incoming) = (outgoing?, incoming?);
//! outgoing.send(b"hello".to_vec()).await?;
//! assert_eq!(incoming.recv().await?, b"hello");
//! outgoing.close().await;
//! # Ok(())
//! # }
//! ```
//!
//! # Feature flags
//!
//! None: the core and the tokio driver are always built.
//!
//! [`UdpSocket`]: tokio::net::UdpSocket

#![warn(missing_docs)]

mod config;
mod connection;
mod driver;
mod endpoint;
mod error;
pub mod proto;
mod socket;

pub use config::{Config, LONGEST};
pub use connection::Connection;
pub use endpoint::{Closed, Endpoint};
pub use error::Error;
pub use proto::Stats;
