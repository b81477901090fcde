//! The error type of every fallible operation on listeners and connections.

use std::io;
use std::path::PathBuf;

use quinn::{ConnectionError, VarInt};
use rustls::pki_types::pem;

use crate::Fingerprint;

/// Application error code sent when the last handle to a [`Connection`](crate::Connection) is
/// dropped without closing it: zero, which quinn also sends when it drops a connection itself.
pub(crate) const CLOSE_DROPPED: u32 = 0;
/// Application error code sent by [`Connection::close`](crate::Connection::close).
pub(crate) const CLOSE_GRACEFUL: u32 = 1;
/// Application error code sent when the peer broke the framing protocol.
pub(crate) const CLOSE_PROTOCOL: u32 = 2;
/// Application error code sent to a client whose connection was still waiting for
/// [`Listener::accept`](crate::Listener::accept) when the listener closed.
pub(crate) const CLOSE_LISTENER: u32 = 3;

/// Why a QUIC listener or connection operation failed.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum Error {
    /// The UDP socket could not be bound.
    #[error("failed to bind the udp socket")]
    Bind(#[source] io::Error),
    /// rustls rejected the TLS configuration, e.g. a key that does not match its certificate.
    #[error("invalid tls configuration")]
    Tls(#[from] rustls::Error),
    /// The CA file could not be read or holds no certificate.
    #[error("failed to read the ca file {}", path.display())]
    CaFile {
        /// The CA file.
        path: PathBuf,
        /// What went wrong.
        #[source]
        source: pem::Error,
    },
    /// [`Connection::try_send`](crate::Connection::try_send) found an earlier frame still being
    /// written: the peer is behind. Nothing was queued; the connection is unaffected.
    #[error("send buffer full")]
    SendBufferFull,
    /// The connection attempt could not start, e.g. because the server name is invalid.
    #[error("failed to start connecting")]
    Connect(#[from] quinn::ConnectError),
    /// The server presented a certificate whose fingerprint is not the pinned one.
    #[error("server certificate fingerprint {found} does not match the pinned fingerprint")]
    FingerprintMismatch {
        /// The fingerprint the server actually presented.
        found: Fingerprint,
    },
    /// The peer did not start the stream with the xq stream header.
    #[error("peer did not send the xq stream header")]
    BadHeader,
    /// The peer did not open its stream within the idle timeout after the handshake.
    #[error("peer did not open a stream in time")]
    StreamTimeout,
    /// A frame to send is larger than the configured maximum; nothing was sent.
    #[error("frame of {len} bytes exceeds the maximum of {max} bytes")]
    FrameTooLarge {
        /// Length of the refused frame.
        len: usize,
        /// The configured maximum.
        max: u32,
    },
    /// The peer announced a frame larger than the configured maximum; the connection was closed.
    #[error("peer announced a frame of {len} bytes, over the maximum of {max} bytes")]
    IncomingFrameTooLarge {
        /// The announced length.
        len: u32,
        /// The configured maximum.
        max: u32,
    },
    /// The peer finished its stream in the middle of a frame.
    #[error("peer ended the stream inside a frame")]
    TruncatedFrame,
    /// The peer finished its stream and every frame it sent has been received: it closed the
    /// connection gracefully.
    #[error("connection closed by peer")]
    ClosedByPeer,
    /// This side closed the connection.
    #[error("connection closed locally")]
    ClosedLocally,
    /// The listener was closed and accepts no more connections.
    #[error("listener closed")]
    ListenerClosed,
    /// Nothing was heard from the peer for longer than the idle timeout: it is gone.
    #[error("connection timed out")]
    TimedOut,
    /// The peer went away without closing: it dropped its connection, or forgot it (as after a
    /// restart) and answered with a stateless reset. Frames it sent may be lost.
    #[error("peer went away without closing")]
    PeerGone,
    /// The peer abandoned its stream with this application error code.
    #[error("stream reset by peer with code {code}")]
    Reset {
        /// The peer's application error code.
        code: u64,
    },
    /// The peer stopped reading the stream with this application error code.
    #[error("peer stopped reading with code {code}")]
    Stopped {
        /// The peer's application error code.
        code: u64,
    },
    /// The connection failed for another reason: a TLS or QUIC protocol error, a version
    /// mismatch, or the peer closing the connection with a code of its own before finishing its
    /// stream (then frames it sent may be lost).
    #[error("connection failed")]
    Connection(#[source] ConnectionError),
}

impl From<ConnectionError> for Error {
    fn from(error: ConnectionError) -> Self {
        match error {
            ConnectionError::TimedOut => Self::TimedOut,
            ConnectionError::LocallyClosed => Self::ClosedLocally,
            ConnectionError::ApplicationClosed(close)
                if close.error_code == VarInt::from_u32(CLOSE_DROPPED) =>
            {
                Self::PeerGone
            }
            ConnectionError::Reset => Self::PeerGone,
            other => Self::Connection(other),
        }
    }
}

impl From<quinn::ReadError> for Error {
    fn from(error: quinn::ReadError) -> Self {
        use quinn::ReadError;
        match error {
            ReadError::Reset(code) => Self::Reset {
                code: code.into_inner(),
            },
            ReadError::ConnectionLost(error) => error.into(),
            // Only this crate touches the stream, and it never stops, reads unordered or uses
            // 0-RTT, so the stream can only be closed because the connection was.
            ReadError::ClosedStream
            | ReadError::IllegalOrderedRead
            | ReadError::ZeroRttRejected => Self::ClosedLocally,
        }
    }
}

impl From<quinn::WriteError> for Error {
    fn from(error: quinn::WriteError) -> Self {
        use quinn::WriteError;
        match error {
            WriteError::Stopped(code) => Self::Stopped {
                code: code.into_inner(),
            },
            WriteError::ConnectionLost(error) => error.into(),
            // The stream is only finished by `Connection::close`, and 0-RTT is never used.
            WriteError::ClosedStream | WriteError::ZeroRttRejected => Self::ClosedLocally,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn closed_by_peer(code: u32) -> ConnectionError {
        ConnectionError::ApplicationClosed(quinn::ApplicationClose {
            error_code: VarInt::from_u32(code),
            reason: Default::default(),
        })
    }

    #[test]
    fn only_idle_local_and_abandoned_closes_have_their_own_variants() {
        assert!(matches!(
            Error::from(ConnectionError::TimedOut),
            Error::TimedOut
        ));
        assert!(matches!(
            Error::from(ConnectionError::LocallyClosed),
            Error::ClosedLocally
        ));
        assert!(matches!(
            Error::from(closed_by_peer(CLOSE_DROPPED)),
            Error::PeerGone
        ));
        assert!(matches!(
            Error::from(ConnectionError::Reset),
            Error::PeerGone
        ));
        // A peer that closes the connection with its own code without finishing its stream may
        // have lost frames, but it did not just go away.
        for code in [CLOSE_GRACEFUL, CLOSE_PROTOCOL, CLOSE_LISTENER] {
            assert!(matches!(
                Error::from(closed_by_peer(code)),
                Error::Connection(_)
            ));
        }
    }
}
