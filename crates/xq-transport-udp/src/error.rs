//! The error of the tokio API.

use thiserror::Error;

use crate::proto::{ConnectionError, SendError};

/// Why an [`Endpoint`](crate::Endpoint) or [`Connection`](crate::Connection) operation failed.
#[derive(Debug, Error)]
#[non_exhaustive]
pub enum Error {
    /// The UDP socket could not be created, configured or bound.
    #[error("udp socket error")]
    Io(#[from] std::io::Error),
    /// The connection ended: closed by the peer or locally, or failed (timeout, peer not
    /// acknowledging, protocol violation).
    #[error(transparent)]
    Connection(#[from] ConnectionError),
    /// The frame was refused (too large, or sent after `close`).
    #[error(transparent)]
    Send(#[from] SendError),
    /// The endpoint was closed, or dropped before its connections.
    #[error("endpoint closed")]
    EndpointClosed,
}
