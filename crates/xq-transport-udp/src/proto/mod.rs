//! The sans-IO core: connection state machines that turn datagrams and time into datagrams and
//! frames.
//!
//! Nothing here touches a socket, a clock, a thread or a global RNG: every input is a method
//! argument (`now: Instant` included) and every output is returned by a `poll_*` method.
//! After feeding input with `handle_datagram`, `handle_timeout`, `send` or `close`, drain
//! `poll_transmit` until it returns `None`, take frames with [`Link::poll_frame`], and call
//! `handle_timeout` once `poll_timeout` is reached.
//!
//! # Handshake
//!
//! A client sends an `Initial` padded to [`MAX_DATAGRAM_SIZE`] bytes. The server answers an
//! `Initial` without a valid cookie with a small `Retry` carrying a cookie (an HMAC over the
//! client's address, its connection id and a time bucket) and keeps no state. The client
//! repeats its `Initial` with the cookie; only then does the server create a [`Link`] and
//! answer `Accept` with its own connection id. Every server reply is smaller than the
//! `Initial` it answers, so the server never amplifies traffic towards a spoofed address.
//!
//! # Reliability
//!
//! Frames are split into chunks of at most one datagram, each with a sequence number. The
//! receiver acknowledges the sequence numbers below which it has everything plus up to 16
//! ranges above, buffers chunks that arrive early, drops duplicates and reassembles frames in
//! order. The sender retransmits a chunk when three later transmissions have been acknowledged
//! or when its RTO (RFC 6298, with exponential backoff) expires, and keeps at most
//! [`Config::window`](crate::Config::window) chunks in flight.

mod cookie;
mod endpoint;
mod error;
mod link;
mod packet;
mod recv;
mod rtt;
mod send;
mod stats;
#[cfg(test)]
mod tests;

pub use endpoint::{Endpoint, LinkId, Transmit};
pub use error::{ConnectionError, Dropped, SendError};
pub use link::{Link, LinkState};
pub use packet::{ConnectionId, DecodeError, MAX_DATAGRAM_SIZE};
pub use stats::Stats;
