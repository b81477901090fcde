//! The error every transport reports through.

/// Why a transport operation failed.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum TransportError {
    /// The URL is malformed or names a scheme this build does not support.
    #[error("invalid transport url '{url}': {reason}")]
    InvalidUrl {
        /// The URL as given.
        url: String,
        /// What is wrong with it.
        reason: String,
    },
    /// No in-memory listener has this name.
    #[error("no in-memory listener named '{0}'")]
    NoListener(String),
    /// An in-memory listener with this name already exists.
    #[error("an in-memory listener named '{0}' already exists")]
    NameInUse(String),
    /// The peer closed the connection gracefully; every frame it sent has been received.
    #[error("connection closed by peer")]
    Closed,
    /// This side closed the connection.
    #[error("connection closed locally")]
    ClosedLocally,
    /// Nothing answered the connection's handshake within the idle timeout: no server at
    /// that address, or none reachable.
    #[error("no answer from the server")]
    Unreachable,
    /// The peer vanished without closing: it stopped answering, or dropped its side of a mem
    /// or QUIC connection (a UDP connection dropped by its peer closes gracefully instead:
    /// [`Closed`](Self::Closed)).
    #[error("connection lost")]
    ConnectionLost,
    /// A frame over [`crate::Options::max_frame_size`] was refused.
    #[error("frame of {len} bytes exceeds the maximum of {max}")]
    FrameTooLarge {
        /// The frame's size.
        len: usize,
        /// The limit.
        max: usize,
    },
    /// The send buffer is full: the peer has not taken what was sent before. Nothing was
    /// queued; the connection is unaffected.
    #[error("send buffer full")]
    Full,
    /// The listener was closed.
    #[error("listener closed")]
    ListenerClosed,
    /// An error of the UDP transport.
    #[cfg(feature = "udp")]
    #[error(transparent)]
    Udp(#[from] xq_transport_udp::Error),
    /// An error of the QUIC transport.
    #[cfg(feature = "quic")]
    #[error(transparent)]
    Quic(#[from] xq_transport_quic::Error),
    /// An error of the WebSocket transport.
    #[cfg(feature = "ws")]
    #[error(transparent)]
    Ws(#[from] xq_transport_ws::Error),
    /// The QUIC listener's certificate could not be loaded or created.
    #[cfg(feature = "quic")]
    #[error(transparent)]
    QuicIdentity(#[from] xq_transport_quic::IdentityError),
}
