//! Why a storage operation failed.

use xq_protocol::RoomCode;

/// Why a [`crate::Storage`] operation failed. A failed commit changed nothing.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum StoreError {
    /// SQLite reported an error (the file is unreadable, the disk is full…).
    #[cfg(feature = "sqlite")]
    #[error(transparent)]
    Sqlite(#[from] rusqlite::Error),
    /// The database was written by a relay with a schema this one does not know (a newer
    /// release, most likely): it is left untouched.
    #[error("unknown database schema version {found} (this relay knows version {supported})")]
    UnknownVersion {
        /// The version the file records.
        found: i64,
        /// The version this relay writes.
        supported: i64,
    },
    /// The file is an SQLite database of something else.
    #[error("not an xq-relay database (it has tables but no schema version)")]
    NotOurs,
    /// SQLite would not switch the database to write-ahead logging.
    #[error("cannot enable write-ahead logging (journal mode is {0})")]
    Journaling(String),
    /// A stored value does not decode: the file was edited or damaged.
    #[error("corrupt {what} of room {code}")]
    Corrupt {
        /// What did not decode.
        what: &'static str,
        /// The room it belongs to.
        code: String,
    },
    /// A value could not be encoded for storage.
    #[cfg(feature = "sqlite")]
    #[error("cannot encode a value for storage: {0}")]
    Encode(#[from] bincode::error::EncodeError),
    /// A change names a room whose match was never started (or is closed already).
    #[error("no open match in room {0}")]
    UnknownRoom(RoomCode),
    /// An engine other than SQLite failed in its own way.
    #[error("storage engine: {0}")]
    Engine(Box<dyn std::error::Error + Send + Sync>),
}
