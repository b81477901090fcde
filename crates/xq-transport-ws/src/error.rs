//! The error type of every fallible operation on listeners and connections.

use std::io;
use std::path::PathBuf;
use std::time::Duration;

use rustls::pki_types::pem;
use tokio_tungstenite::tungstenite;
use tokio_tungstenite::tungstenite::error::ProtocolError;

/// Why a WebSocket listener or connection operation failed.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum Error {
    /// The TCP listener could not be bound.
    #[error("failed to bind the tcp listener")]
    Bind(#[source] io::Error),
    /// The TCP connection to the server could not be made: nobody listens there, or the
    /// network said no.
    #[error("failed to connect")]
    Connect(#[source] io::Error),
    /// The client's handshake (TCP, TLS and the upgrade) did not finish in time.
    #[error("the handshake did not finish within {0:?}")]
    HandshakeTimeout(Duration),
    /// rustls rejected the TLS configuration, e.g. a key that does not match its certificate.
    #[error("invalid tls configuration")]
    Tls(#[from] rustls::Error),
    /// The TLS handshake failed: the server's certificate is not trusted, or the peer speaks
    /// no TLS.
    #[error("tls handshake failed")]
    TlsHandshake(#[source] io::Error),
    /// A PEM file (certificate, key or CA) could not be read or holds nothing usable.
    #[error("failed to read {}", path.display())]
    Pem {
        /// The file.
        path: PathBuf,
        /// What went wrong.
        #[source]
        source: pem::Error,
    },
    /// The host to connect to is not a valid TLS server name.
    #[error("'{0}' is not a valid tls server name")]
    ServerName(String),
    /// An entry of [`ServerConfig::allowed_origins`](crate::ServerConfig::allowed_origins) is
    /// not a web origin (`scheme://host[:port]`).
    #[error("'{0}' is not a web origin")]
    InvalidOrigin(String),
    /// The server answered the upgrade request with this HTTP status instead of switching
    /// protocols: 403 for a refused origin, 404 for a server with no WebSocket endpoint…
    #[error("the server refused the websocket upgrade with status {status}")]
    Refused {
        /// The status the server answered with.
        status: http::StatusCode,
    },
    /// The client's WebSocket handshake failed for another reason (a malformed answer…).
    #[error("websocket handshake failed")]
    Handshake(#[source] tungstenite::Error),
    /// [`Connection::try_send`](crate::Connection::try_send) found the send buffer full: the
    /// peer is behind. Nothing was queued; the connection is unaffected.
    #[error("send buffer full")]
    SendBufferFull,
    /// A frame to send is larger than the configured maximum; nothing was sent.
    #[error("frame of {len} bytes exceeds the maximum of {max} bytes")]
    FrameTooLarge {
        /// Length of the refused frame.
        len: usize,
        /// The configured maximum.
        max: usize,
    },
    /// The peer announced a message larger than the configured maximum; the connection was
    /// failed before the message was read.
    #[error("peer announced a message of {len} bytes, over the maximum of {max} bytes")]
    IncomingFrameTooLarge {
        /// The announced length.
        len: usize,
        /// The configured maximum.
        max: usize,
    },
    /// The peer sent a text message. xq frames travel as binary messages only, so this is a
    /// peer of another protocol, and the connection was failed.
    #[error("peer sent a text message; xq frames are binary")]
    TextMessage,
    /// The peer broke the WebSocket protocol; the connection was failed.
    #[error("websocket protocol violation")]
    Protocol(#[source] ProtocolError),
    /// The peer closed the connection gracefully (close code 1000 or 1001), and every frame it
    /// sent has been received.
    #[error("connection closed by peer")]
    ClosedByPeer,
    /// The peer closed the connection with a code that says something went wrong on its side;
    /// every frame it sent before has been received.
    #[error("peer closed the connection with code {code}: {reason}")]
    ClosedWithCode {
        /// The close code.
        code: u16,
        /// The peer's reason, if it gave one.
        reason: String,
    },
    /// This side closed the connection.
    #[error("connection closed locally")]
    ClosedLocally,
    /// The listener was closed and accepts no more connections.
    #[error("listener closed")]
    ListenerClosed,
    /// Nothing was heard from the peer for longer than the idle timeout: it is gone.
    #[error("connection timed out")]
    TimedOut,
    /// The TCP connection ended without a WebSocket close, or failed: the peer's process
    /// died, or it dropped its connection without closing it.
    #[error("connection lost")]
    ConnectionLost,
}

/// How a connection ended, kept so that every later call can report it: [`Error`] holds IO
/// errors, which cannot be cloned.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) enum End {
    ClosedByPeer,
    ClosedWithCode { code: u16, reason: String },
    ClosedLocally,
    TimedOut,
    Lost,
    TooLarge { len: usize, max: usize },
    Text,
    Protocol(ProtocolError),
}

impl From<&End> for Error {
    fn from(end: &End) -> Self {
        match end {
            End::ClosedByPeer => Self::ClosedByPeer,
            End::ClosedWithCode { code, reason } => Self::ClosedWithCode {
                code: *code,
                reason: reason.clone(),
            },
            End::ClosedLocally => Self::ClosedLocally,
            End::TimedOut => Self::TimedOut,
            End::Lost => Self::ConnectionLost,
            End::TooLarge { len, max } => Self::IncomingFrameTooLarge {
                len: *len,
                max: *max,
            },
            End::Text => Self::TextMessage,
            End::Protocol(error) => Self::Protocol(error.clone()),
        }
    }
}
