//! The one codec: a version byte, then the message in bincode's standard configuration.
//!
//! Decoding is bounded: no frame over [`MAX_FRAME_SIZE`] is looked at, no length inside one can
//! make it allocate more than that (a text's length counts against the frame's bytes, and a
//! list reserves room for at most a frame's worth of items before they arrive), and bytes left
//! over after the message are an error (bincode itself would ignore them silently).
//!
//! Decoding is also strict: a message has exactly one frame, the one [`encode`] writes, and
//! any other frame that would decode to it is refused, so that no two frames mean the same
//! message. bincode reads an integer written in more bytes than it needs (a 0 as the three bytes
//! `fb 00 00`) as if it were the short form, and a field's own parsing may normalise its text
//! (a join code in lower case, a FEN not in its normal form); on the wire, only the form
//! [`encode`] writes is a message.

use std::fmt;
use std::marker::PhantomData;

use serde::de::{DeserializeOwned, SeqAccess, Visitor};
use serde::{Deserialize, Deserializer, Serialize};

use crate::PROTOCOL_VERSION;

/// The largest frame the codec writes or reads, in bytes (the transports' default limit too).
pub const MAX_FRAME_SIZE: usize = 64 * 1024;

/// Nearly every frame is shorter than this: commands, events and replies, all but snapshots.
/// New frames start with this much room, and decoding checks a message this short without
/// allocating.
const SMALL_FRAME: usize = 128;

/// Deserializes a list without trusting its claimed length for more than a frame's worth of
/// room: bincode checks text lengths against the frame limit but not list lengths, and serde
/// would reserve up to a mebibyte for a list that a 100-byte frame claims to hold. The list
/// still grows to whatever the frame really holds.
pub(crate) fn bounded_vec<'de, D, T>(deserializer: D) -> Result<Vec<T>, D::Error>
where
    D: Deserializer<'de>,
    T: Deserialize<'de>,
{
    struct Bounded<T>(PhantomData<T>);

    impl<'de, T: Deserialize<'de>> Visitor<'de> for Bounded<T> {
        type Value = Vec<T>;

        fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
            f.write_str("a list")
        }

        fn visit_seq<A: SeqAccess<'de>>(self, mut seq: A) -> Result<Vec<T>, A::Error> {
            let room = MAX_FRAME_SIZE / size_of::<T>().max(1);
            let mut items = Vec::with_capacity(seq.size_hint().unwrap_or(0).min(room));
            while let Some(item) = seq.next_element()? {
                items.push(item);
            }
            Ok(items)
        }
    }

    deserializer.deserialize_seq(Bounded(PhantomData))
}

fn config() -> impl bincode::config::Config {
    bincode::config::standard().with_limit::<MAX_FRAME_SIZE>()
}

/// Why a message could not be encoded.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum EncodeError {
    /// The encoded message would exceed [`MAX_FRAME_SIZE`].
    #[error("message of {len} bytes exceeds the frame limit of {MAX_FRAME_SIZE}")]
    TooLarge {
        /// The encoded size.
        len: usize,
    },
    /// The serializer failed.
    #[error(transparent)]
    Bincode(#[from] bincode::error::EncodeError),
}

/// Why a frame is not a valid message. Peers are hostile: every way a frame can be wrong is an
/// error here, never a panic.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum DecodeError {
    /// The frame is empty.
    #[error("empty frame")]
    Empty,
    /// The frame is larger than [`MAX_FRAME_SIZE`].
    #[error("frame of {len} bytes exceeds the limit of {MAX_FRAME_SIZE}")]
    TooLarge {
        /// The frame's size.
        len: usize,
    },
    /// The frame was written by another protocol version.
    #[error("protocol version {found} (this side speaks {PROTOCOL_VERSION})")]
    Version {
        /// The version byte found.
        found: u8,
    },
    /// The bytes are not a message: unknown tag, bad length, invalid value, or cut short.
    #[error("malformed message: {0}")]
    Malformed(#[from] bincode::error::DecodeError),
    /// The message ended before the frame did.
    #[error("{extra} unexpected bytes after the message")]
    TrailingBytes {
        /// How many bytes were left.
        extra: usize,
    },
    /// The frame spells out a message, but not the way [`encode`] writes it: an integer in more
    /// bytes than it needs, or text that decoding normalised (a join code in lower case).
    #[error("message not in its one canonical encoding")]
    NonCanonical,
}

/// Appends the frame for `msg` to `out`.
///
/// # Errors
///
/// [`EncodeError::TooLarge`] if the frame would exceed [`MAX_FRAME_SIZE`]; `out` is then left
/// as it was.
pub fn encode<M: Serialize>(msg: &M, out: &mut Vec<u8>) -> Result<(), EncodeError> {
    let start = out.len();
    out.push(PROTOCOL_VERSION);
    let written = bincode::serde::encode_into_std_write(msg, out, bincode::config::standard());
    let len = out.len() - start;
    match written {
        Ok(_) if len <= MAX_FRAME_SIZE => Ok(()),
        Ok(_) => {
            out.truncate(start);
            Err(EncodeError::TooLarge { len })
        }
        Err(err) => {
            out.truncate(start);
            Err(err.into())
        }
    }
}

/// Encodes `msg` into a new frame.
///
/// # Errors
///
/// As [`encode`].
pub fn to_frame<M: Serialize>(msg: &M) -> Result<Vec<u8>, EncodeError> {
    let mut out = Vec::with_capacity(SMALL_FRAME);
    encode(msg, &mut out)?;
    Ok(out)
}

/// Decodes one message from a whole frame.
///
/// # Errors
///
/// A [`DecodeError`] saying what is wrong with the frame.
pub fn decode<M: Serialize + DeserializeOwned>(frame: &[u8]) -> Result<M, DecodeError> {
    if frame.len() > MAX_FRAME_SIZE {
        return Err(DecodeError::TooLarge { len: frame.len() });
    }
    let (&version, body) = frame.split_first().ok_or(DecodeError::Empty)?;
    if version != PROTOCOL_VERSION {
        return Err(DecodeError::Version { found: version });
    }
    let (msg, used) = bincode::serde::decode_from_slice(body, config())?;
    if let extra @ 1.. = body.len() - used {
        return Err(DecodeError::TrailingBytes { extra });
    }
    if !is_canonical(&msg, body) {
        return Err(DecodeError::NonCanonical);
    }
    Ok(msg)
}

/// Whether `body` is the encoding of `msg`, as [`encode`] writes it (after the version byte).
///
/// Encoding into a buffer and comparing once costs a quarter of what comparing each piece as
/// bincode writes it did (11 against 44 ns for a move command).
fn is_canonical<M: Serialize>(msg: &M, body: &[u8]) -> bool {
    let mut small = [0; SMALL_FRAME];
    if body.len() <= small.len() {
        let written =
            bincode::serde::encode_into_slice(msg, &mut small, bincode::config::standard());
        written.is_ok_and(|len| small[..len] == *body)
    } else {
        bincode::serde::encode_to_vec(msg, bincode::config::standard()).is_ok_and(|v| v == body)
    }
}

#[cfg(test)]
mod tests {
    use serde::de::value::Error;
    use serde::de::{DeserializeSeed, IntoDeserializer};

    use super::*;

    /// A list that claims `claimed` items and holds `left` (sevens).
    struct Claims {
        claimed: usize,
        left: usize,
    }

    impl<'de> SeqAccess<'de> for Claims {
        type Error = Error;

        fn next_element_seed<S: DeserializeSeed<'de>>(
            &mut self,
            seed: S,
        ) -> Result<Option<S::Value>, Error> {
            if self.left == 0 {
                return Ok(None);
            }
            self.left -= 1;
            seed.deserialize(7_u8.into_deserializer()).map(Some)
        }

        fn size_hint(&self) -> Option<usize> {
            Some(self.claimed)
        }
    }

    impl<'de> Deserializer<'de> for Claims {
        type Error = Error;

        fn deserialize_any<V: Visitor<'de>>(self, visitor: V) -> Result<V::Value, Error> {
            visitor.visit_seq(self)
        }

        serde::forward_to_deserialize_any! {
            bool i8 i16 i32 i64 i128 u8 u16 u32 u64 u128 f32 f64 char str string bytes
            byte_buf option unit unit_struct newtype_struct seq tuple tuple_struct map struct
            enum identifier ignored_any
        }
    }

    #[test]
    fn a_lists_claimed_length_reserves_at_most_a_frames_worth() -> Result<(), Error> {
        let lying = Claims {
            claimed: usize::MAX,
            left: 3,
        };
        let items: Vec<u8> = bounded_vec(lying)?;
        assert_eq!(items, [7, 7, 7]);
        assert!(items.capacity() <= MAX_FRAME_SIZE, "{}", items.capacity());
        let honest = Claims {
            claimed: 3,
            left: 3,
        };
        let items: Vec<u8> = bounded_vec(honest)?;
        assert_eq!(items.capacity(), 3, "an honest claim is reserved at once");
        Ok(())
    }
}
