//! Why a cluster operation failed.

use std::time::Duration;

/// A NATS error of any kind, boxed: each operation names what it was doing beside it.
pub(crate) type Source = Box<dyn std::error::Error + Send + Sync>;

/// Why connecting to the cluster, or an operation on it, failed.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum ClusterError {
    /// The options name no NATS server.
    #[error("no NATS server given")]
    NoServers,
    /// The node name is empty or has characters other than letters, digits, `-` and `_`.
    #[error("invalid node name {0:?} (letters, digits, '-' and '_' only)")]
    InvalidNode(String),
    /// The lease TTL is too short to renew a lease in (under 300 ms).
    #[error("lease ttl {0:?} is too short (300 ms at least)")]
    LeaseTtl(Duration),
    /// A server URL does not parse.
    #[error("invalid NATS server URL {url:?}: {source}")]
    InvalidUrl {
        /// The URL.
        url: String,
        /// Why it does not parse.
        #[source]
        source: std::io::Error,
    },
    /// The credentials file could not be read.
    #[error("cannot read the NATS credentials file: {0}")]
    Credentials(#[source] std::io::Error),
    /// No NATS server could be reached, or the connection was refused (a wrong URL, a TLS
    /// failure, bad credentials).
    #[error("cannot connect to NATS at {servers}: {source}")]
    Connect {
        /// The servers tried, comma-separated.
        servers: String,
        /// What the client reported.
        #[source]
        source: async_nats::ConnectError,
    },
    /// Connecting and setting up took longer than the connect timeout.
    #[error("no answer from NATS at {servers} within {timeout:?}")]
    ConnectTimeout {
        /// The servers tried, comma-separated.
        servers: String,
        /// The connect timeout.
        timeout: Duration,
    },
    /// The server has no JetStream for this account.
    #[error("the NATS server has no JetStream for this account: {0}")]
    NoJetStream(#[source] Source),
    /// A stream or bucket exists with settings this node cannot work with (another subject
    /// filter, another lease TTL, another replication factor than the one configured).
    #[error("{what} exists with {found}, but this node needs {wanted}")]
    Mismatch {
        /// The stream or bucket.
        what: &'static str,
        /// Its setting.
        found: String,
        /// What this node needs.
        wanted: String,
    },
    /// The NATS servers cannot keep the streams' replicas: a cluster of fewer servers than
    /// the replication factor (3 by default on a clustered server; a cluster of two needs
    /// `replicas` set to 1 or 2).
    #[error(
        "the NATS cluster has too few JetStream servers to keep {replicas} replicas \
         (set the replication factor to at most its number of servers): {source}"
    )]
    TooFewServers {
        /// The replication factor asked for.
        replicas: usize,
        /// What the server answered.
        #[source]
        source: Source,
    },
    /// A NATS request failed (the connection is down, or the server refused it).
    #[error("cannot {what}: {source}")]
    Nats {
        /// What was being done.
        what: &'static str,
        /// What the client reported.
        #[source]
        source: Source,
    },
    /// A stored message does not decode: it was written by something else, or by a newer
    /// release.
    #[error("corrupt {what}: {source}")]
    Corrupt {
        /// What did not decode.
        what: String,
        /// Why.
        #[source]
        source: WireError,
    },
    /// A room's journal decodes but does not make sense (a gap, a change before any match).
    #[error("journal of room {room} does not replay: {source}")]
    Replay {
        /// The room.
        room: xq_protocol::RoomCode,
        /// What is wrong with it.
        #[source]
        source: crate::ReplayError,
    },
}

/// Why a stored message does not decode.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum WireError {
    /// The message is empty.
    #[error("empty message")]
    Empty,
    /// The message starts with a format version this node does not know.
    #[error("unknown format version {0}")]
    UnknownVersion(u8),
    /// The body is not a value of the format.
    #[error(transparent)]
    Decode(#[from] bincode::error::DecodeError),
    /// The body decodes but leaves bytes over.
    #[error("{0} bytes after the value")]
    Trailing(usize),
}

impl ClusterError {
    /// A [`ClusterError::Nats`] while doing `what`.
    pub(crate) fn nats(what: &'static str, source: impl Into<Source>) -> Self {
        Self::Nats {
            what,
            source: source.into(),
        }
    }
}
