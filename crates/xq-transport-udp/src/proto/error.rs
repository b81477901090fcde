//! Errors of the sans-IO core, one enum per operation.

use thiserror::Error;

use super::packet::DecodeError;

/// Why [`Link::send`](super::Link::send) refused a frame. A refused frame changes nothing.
#[derive(Debug, Clone, PartialEq, Eq, Error)]
#[non_exhaustive]
pub enum SendError {
    /// The frame is larger than [`Config::max_frame_size`](crate::Config::max_frame_size).
    #[error("frame of {size} bytes exceeds the maximum of {max} bytes")]
    FrameTooLarge {
        /// Size of the refused frame.
        size: usize,
        /// The configured maximum.
        max: usize,
    },
    /// Queued and unacknowledged frames already fill
    /// [`Config::send_buffer_size`](crate::Config::send_buffer_size); try again once the peer
    /// has acknowledged some.
    #[error("send queue full")]
    QueueFull,
    /// The connection is closing or closed; no more frames can be sent.
    #[error("connection closed")]
    Closed,
}

/// Why a connection ended: no more frames will arrive once this is known.
#[derive(Debug, Clone, PartialEq, Eq, Error)]
#[non_exhaustive]
pub enum ConnectionError {
    /// The peer closed the connection gracefully after sending all its frames.
    #[error("closed by peer")]
    ClosedByPeer,
    /// This side closed the connection gracefully.
    #[error("closed locally")]
    LocallyClosed,
    /// Nothing was received for [`Config::idle_timeout`](crate::Config::idle_timeout): the
    /// peer or the path is dead, or the handshake did not complete.
    #[error("connection timed out")]
    TimedOut,
    /// The peer keeps talking but acknowledged none of our data for
    /// [`Config::idle_timeout`](crate::Config::idle_timeout), nor said that its application
    /// is behind.
    #[error("peer stopped acknowledging data")]
    Unacknowledged,
    /// The peer sent a sequence of chunks that no correct peer sends.
    #[error("peer violated the protocol")]
    ProtocolViolation,
}

/// Why a datagram was dropped. A dropped datagram changes no state.
#[derive(Debug, Clone, PartialEq, Eq, Error)]
#[non_exhaustive]
pub enum Dropped {
    /// The bytes are not a valid datagram.
    #[error("malformed datagram")]
    Malformed(#[from] DecodeError),
    /// No connection has this id at this source address (unknown or spoofed).
    #[error("no connection for this address and connection id")]
    UnknownConnection,
    /// The packet type makes no sense in the connection's state.
    #[error("unexpected packet")]
    Unexpected,
    /// The ack acknowledges data that was never sent.
    #[error("ack for unsent data")]
    InvalidAck,
    /// The connection is closed and no longer processes datagrams.
    #[error("connection closed")]
    Closed,
    /// Too many incoming connections await `accept`, or too many stateless replies await
    /// sending.
    #[error("endpoint busy")]
    Busy,
}
