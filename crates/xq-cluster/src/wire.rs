//! The encoding of every message this crate stores: a format version byte, then the value
//! in bincode 2's standard configuration (through serde), bounded in size.

use serde::Serialize;
use serde::de::DeserializeOwned;

use crate::error::WireError;

/// The format version this release writes and reads.
const VERSION: u8 = 1;

/// The largest value decoded: NATS's default maximum payload. A length prefix that claims
/// more fails before anything is allocated for it.
const LIMIT: usize = 1024 * 1024;

/// The configuration of every message.
fn config() -> impl bincode::config::Config {
    bincode::config::standard().with_limit::<LIMIT>()
}

/// `value` as a message.
pub(crate) fn encode<T: Serialize>(value: &T) -> Result<Vec<u8>, bincode::error::EncodeError> {
    let mut bytes = vec![VERSION];
    bincode::serde::encode_into_std_write(value, &mut bytes, config())?;
    Ok(bytes)
}

/// The value a message holds.
pub(crate) fn decode<T: DeserializeOwned>(bytes: &[u8]) -> Result<T, WireError> {
    let (&version, body) = bytes.split_first().ok_or(WireError::Empty)?;
    if version != VERSION {
        return Err(WireError::UnknownVersion(version));
    }
    let (value, read) = bincode::serde::decode_from_slice(body, config())?;
    match body.len().saturating_sub(read) {
        0 => Ok(value),
        over => Err(WireError::Trailing(over)),
    }
}
