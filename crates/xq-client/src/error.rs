//! Why a client operation failed.

use xq_protocol::codec::{DecodeError, EncodeError};
use xq_protocol::{DisconnectReason, ErrorCode, PROTOCOL_VERSION};
#[cfg(feature = "tokio")]
use xq_transport::TransportError;

use crate::{MirrorError, ParseRelaysError};

/// Why a [`crate::Client`] operation failed, or why its connection ended.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum ClientError {
    /// The transport failed: nobody listening, handshake failure, connection lost…
    #[cfg(feature = "tokio")]
    #[error(transparent)]
    Transport(#[from] TransportError),
    /// The relay speaks another protocol version (`None` when it only said so).
    #[error("the relay speaks protocol version {}, this client {PROTOCOL_VERSION}",
        .relay.map_or_else(|| "another".to_string(), |v| v.to_string()))]
    VersionMismatch {
        /// The relay's version, when known.
        relay: Option<u8>,
    },
    /// A frame from the relay does not decode.
    #[error("undecodable frame from the relay: {0}")]
    Decode(DecodeError),
    /// A message could not be encoded (it would exceed the frame limit).
    #[error(transparent)]
    Encode(#[from] EncodeError),
    /// The relay refused the request; nothing changed.
    #[error("refused by the relay ({code:?}): {message}")]
    Refused {
        /// What went wrong, for programs.
        code: ErrorCode,
        /// What went wrong, for people.
        message: String,
    },
    /// The relay closed the connection.
    #[error("closed by the relay ({reason:?}): {message}")]
    ClosedByRelay {
        /// Why.
        reason: DisconnectReason,
        /// Details for people.
        message: String,
    },
    /// The relay broke the conversation's order (for example, no welcome after the hello).
    #[error("unexpected message from the relay while waiting for {expected}")]
    Unexpected {
        /// What the conversation called for.
        expected: &'static str,
    },
    /// The relay did not answer in time.
    #[error("the relay did not answer in time")]
    Timeout,
    /// The relay URLs given do not make a list.
    #[error(transparent)]
    Relays(#[from] ParseRelaysError),
    /// Nodes of a relay cluster sent the request on from one to the next
    /// ([`xq_protocol::ServerMsg::Redirect`]) [`REDIRECT_LIMIT`](crate::REDIRECT_LIMIT) times
    /// without answering it: they disagree on who owns the room. Reconnecting later may
    /// find them agreed.
    #[error(
        "redirected from relay to relay {} times without an answer",
        crate::REDIRECT_LIMIT
    )]
    TooManyRedirects,
    /// The relay's snapshot or events do not fit the mirrored match.
    #[error("out of step with the relay: {0}")]
    Mirror(#[from] MirrorError),
    /// The connection is down and being restored; nothing was sent. Try again after
    /// [`crate::ClientEvent::Reconnected`].
    #[error("not connected (reconnecting)")]
    NotConnected,
    /// The connection was lost before the relay answered the request.
    #[error("connection lost before the relay answered")]
    ConnectionLost,
    /// The client was closed, or its connection ended for good.
    #[error("the client is closed")]
    Closed,
    /// The command needs a seat, and the client is not in a room or only watches.
    #[error("not seated in a room")]
    NotSeated,
    /// Leaving needs a room, and the client is in none.
    #[error("not in a room")]
    NotInRoom,
    /// Another create, join, quick match, spectate or leave request still waits for its
    /// answer.
    #[error("another room request is pending")]
    RequestPending,
}

impl ClientError {
    /// Whether the relay asked for time ([`ErrorCode::Unavailable`]: its cluster out of
    /// reach, or the room on its way to that node).
    pub(crate) const fn asks_for_time(&self) -> bool {
        matches!(
            self,
            Self::Refused {
                code: ErrorCode::Unavailable,
                ..
            }
        )
    }

    /// Whether the relay asked for time, or its nodes sent the client round in circles: the
    /// next attempt waits, even after a connection that was up.
    pub(crate) const fn calls_for_a_pause(&self) -> bool {
        self.asks_for_time() || matches!(self, Self::TooManyRedirects)
    }

    /// Whether the transport failed underneath.
    pub(crate) const fn is_transport(&self) -> bool {
        match self {
            #[cfg(feature = "tokio")]
            Self::Transport(_) => true,
            _ => false,
        }
    }

    /// Whether reconnecting may help: the connection failed, the relay went away in a way it
    /// may come back from (shutting down, or giving the room up to another node of its
    /// cluster), its cluster was out of reach ([`ErrorCode::Unavailable`]) or its nodes sent
    /// the client round in circles. Any other refusal, another protocol version, a removal by
    /// the relay's operator and a disconnection for idling in no room (which a new connection
    /// in no room would only repeat) are final.
    pub(crate) const fn is_transient(&self) -> bool {
        match self {
            #[cfg(feature = "tokio")]
            Self::Transport(_) => true,
            Self::Decode(_)
            | Self::Unexpected { .. }
            | Self::Timeout
            | Self::Mirror(_)
            | Self::ConnectionLost
            | Self::TooManyRedirects => true,
            Self::Refused { code, .. } => matches!(code, ErrorCode::Unavailable),
            Self::ClosedByRelay { reason, .. } => {
                matches!(
                    reason,
                    DisconnectReason::ShuttingDown | DisconnectReason::Moved
                )
            }
            _ => false,
        }
    }
}

impl From<DecodeError> for ClientError {
    /// A frame of another protocol version is a version mismatch, not garbage.
    fn from(error: DecodeError) -> Self {
        match error {
            DecodeError::Version { found } => Self::VersionMismatch { relay: Some(found) },
            other => Self::Decode(other),
        }
    }
}
