//! The datagram wire format: version 2, big-endian, every length bounded.
//!
//! Version 2 added the blocked flag of acks. Peers of different versions do not understand
//! each other: each drops the other's datagrams as [`DecodeError::UnknownVersion`], so a
//! handshake between them times out rather than a connection misbehaving.
//!
//! ```text
//! datagram  = version:u8 type:u8 body
//! Initial   = src_cid:u64 token_len:u8 token padding      (exactly MAX_DATAGRAM_SIZE bytes)
//! Retry     = dst_cid:u64 token_len:u8 token
//! Accept    = dst_cid:u64 src_cid:u64
//! Data      = dst_cid:u64 flags:u8 [ack] [chunk]           (flags: 1 = ack, 2 = chunk,
//!                                                           4 = blocked, only with an ack)
//! ack       = base:u64 count:u8 count*(gap:u32 len:u32)    (all below base, then ranges)
//! chunk     = seq:u64 kind:u8 len:u16 payload
//! ```
//!
//! Decoding borrows from the datagram, rejects anything it does not fully understand and never
//! panics.

use std::fmt;
use std::ops::Range;

use thiserror::Error;

/// The largest datagram this crate sends or accepts, in bytes of UDP payload.
///
/// 1200 bytes fit in every IPv6 path and in nearly all IPv4 paths without IP fragmentation.
pub const MAX_DATAGRAM_SIZE: usize = 1200;

/// Longest handshake cookie accepted from the wire.
pub(crate) const MAX_TOKEN_LEN: usize = 64;

/// Most ack ranges above the cumulative base carried in one ack.
pub(crate) const MAX_ACK_RANGES: usize = 16;

/// The largest chunk payload: what is left of a datagram after the largest headers.
pub(crate) const MAX_CHUNK_PAYLOAD: usize =
    MAX_DATAGRAM_SIZE - DATA_HEADER_LEN - MAX_ACK_LEN - CHUNK_HEADER_LEN;

/// The version this crate speaks; see the module's docs.
pub(crate) const VERSION: u8 = 2;
const DATA_HEADER_LEN: usize = 1 + 1 + 8 + 1;
const MAX_ACK_LEN: usize = 8 + 1 + MAX_ACK_RANGES * 8;
const CHUNK_HEADER_LEN: usize = 8 + 1 + 2;

const TYPE_INITIAL: u8 = 1;
const TYPE_RETRY: u8 = 2;
const TYPE_ACCEPT: u8 = 3;
const TYPE_DATA: u8 = 4;

const FLAG_ACK: u8 = 1;
const FLAG_CHUNK: u8 = 2;
const FLAG_BLOCKED: u8 = 4;

const KIND_FIRST: u8 = 1;
const KIND_LAST: u8 = 2;
const KIND_PING: u8 = 4;
const KIND_CLOSE: u8 = 5;

/// An identifier a peer picks for its end of a connection; datagrams carry the receiver's.
///
/// Connection ids are random (a server derives its own from a secret), so an off-path
/// attacker cannot guess one.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct ConnectionId(u64);

impl ConnectionId {
    /// Wraps a raw id.
    pub const fn new(raw: u64) -> Self {
        Self(raw)
    }

    /// The raw id.
    pub const fn to_u64(self) -> u64 {
        self.0
    }
}

impl fmt::Display for ConnectionId {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{:016x}", self.0)
    }
}

/// Why a datagram could not be decoded.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Error)]
#[non_exhaustive]
pub enum DecodeError {
    /// The datagram ends before a field it announces.
    #[error("datagram truncated")]
    Truncated,
    /// The datagram is larger than [`MAX_DATAGRAM_SIZE`].
    #[error("datagram larger than {MAX_DATAGRAM_SIZE} bytes")]
    TooLarge,
    /// The version byte is not one this crate speaks.
    #[error("unknown protocol version {0}")]
    UnknownVersion(u8),
    /// The type byte names no packet type.
    #[error("unknown packet type {0}")]
    UnknownType(u8),
    /// An `Initial` is not padded to [`MAX_DATAGRAM_SIZE`], as anti-amplification requires.
    #[error("initial packet not padded")]
    InitialNotPadded,
    /// A cookie is empty where one is required, or longer than allowed.
    #[error("invalid cookie length")]
    InvalidTokenLength,
    /// A data packet has unknown flags, neither an ack nor a chunk, or the blocked flag
    /// without an ack.
    #[error("invalid data flags")]
    InvalidFlags,
    /// An ack has too many ranges, or ranges that are empty, overlap or overflow.
    #[error("invalid ack ranges")]
    InvalidAck,
    /// A chunk has an unknown kind, or a ping or close carries a payload.
    #[error("invalid chunk kind")]
    InvalidChunkKind,
    /// A chunk payload is longer than fits in a datagram.
    #[error("chunk payload too long")]
    ChunkTooLong,
    /// Bytes follow the end of the packet.
    #[error("trailing bytes after packet")]
    TrailingBytes,
}

/// One decoded datagram, borrowing its variable-length fields.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) enum Packet<'a> {
    /// A client's handshake attempt, with or without a cookie.
    Initial {
        src_cid: ConnectionId,
        token: &'a [u8],
    },
    /// A server's stateless answer carrying a cookie.
    Retry {
        dst_cid: ConnectionId,
        token: &'a [u8],
    },
    /// A server's acceptance, naming the server's connection id.
    Accept {
        dst_cid: ConnectionId,
        src_cid: ConnectionId,
    },
    /// Everything after the handshake.
    Data {
        dst_cid: ConnectionId,
        ack: Option<Ack>,
        chunk: Option<Chunk<'a>>,
    },
}

/// Acknowledgement of received chunk sequence numbers.
///
/// Invariant: `ranges` are ascending, non-empty, and separated from `base` and from each other
/// by at least one missing sequence number.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct Ack {
    /// Every sequence number below this one has been received.
    pub(crate) base: u64,
    /// Received sequence numbers above `base`.
    pub(crate) ranges: Vec<Range<u64>>,
    /// The receiver refused data for lack of room, since its last ack or without its
    /// application having emptied half its buffer since: it is alive and receiving, only
    /// behind, so the sender keeps waiting for it. The first ack without the flag is a window
    /// update: the sender sends what is unacknowledged again at once rather than at its next
    /// probe.
    pub(crate) blocked: bool,
}

impl Ack {
    /// One past the largest sequence number acknowledged.
    pub(crate) fn end(&self) -> u64 {
        self.ranges.last().map_or(self.base, |r| r.end)
    }
}

/// A piece of the reliable, ordered sequence.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct Chunk<'a> {
    pub(crate) seq: u64,
    pub(crate) kind: ChunkKind,
    pub(crate) payload: &'a [u8],
}

/// What a chunk carries.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum ChunkKind {
    /// Part of a frame; `first` and `last` mark its ends (both for a one-chunk frame).
    Fragment { first: bool, last: bool },
    /// Nothing; it only asks for an ack (keep-alive).
    Ping,
    /// The sender will send no more frames.
    Close,
}

impl Packet<'_> {
    /// The connection id this datagram is addressed to, if it is not an `Initial`.
    pub(crate) fn dst_cid(&self) -> Option<ConnectionId> {
        match self {
            Self::Initial { .. } => None,
            Self::Retry { dst_cid, .. }
            | Self::Accept { dst_cid, .. }
            | Self::Data { dst_cid, .. } => Some(*dst_cid),
        }
    }

    /// Parses one datagram.
    pub(crate) fn decode(datagram: &[u8]) -> Result<Packet<'_>, DecodeError> {
        if datagram.len() > MAX_DATAGRAM_SIZE {
            return Err(DecodeError::TooLarge);
        }
        let mut r = Reader(datagram);
        let version = r.u8()?;
        if version != VERSION {
            return Err(DecodeError::UnknownVersion(version));
        }
        let packet = match r.u8()? {
            TYPE_INITIAL => {
                if datagram.len() != MAX_DATAGRAM_SIZE {
                    return Err(DecodeError::InitialNotPadded);
                }
                let src_cid = r.cid()?;
                let len = usize::from(r.u8()?);
                if len > MAX_TOKEN_LEN {
                    return Err(DecodeError::InvalidTokenLength);
                }
                let token = r.bytes(len)?;
                // The rest is padding, whose content does not matter.
                r.0 = &[];
                Packet::Initial { src_cid, token }
            }
            TYPE_RETRY => {
                let dst_cid = r.cid()?;
                let len = usize::from(r.u8()?);
                if len == 0 || len > MAX_TOKEN_LEN {
                    return Err(DecodeError::InvalidTokenLength);
                }
                Packet::Retry {
                    dst_cid,
                    token: r.bytes(len)?,
                }
            }
            TYPE_ACCEPT => Packet::Accept {
                dst_cid: r.cid()?,
                src_cid: r.cid()?,
            },
            TYPE_DATA => {
                let dst_cid = r.cid()?;
                let flags = r.u8()?;
                let known = FLAG_ACK | FLAG_CHUNK | FLAG_BLOCKED;
                let blocked = flags & FLAG_BLOCKED != 0;
                let has_ack = flags & FLAG_ACK != 0;
                if flags & !known != 0
                    || flags & (FLAG_ACK | FLAG_CHUNK) == 0
                    || blocked && !has_ack
                {
                    return Err(DecodeError::InvalidFlags);
                }
                let ack = if has_ack { Some(r.ack(blocked)?) } else { None };
                let chunk = if flags & FLAG_CHUNK != 0 {
                    Some(r.chunk()?)
                } else {
                    None
                };
                Packet::Data {
                    dst_cid,
                    ack,
                    chunk,
                }
            }
            other => return Err(DecodeError::UnknownType(other)),
        };
        if !r.0.is_empty() {
            return Err(DecodeError::TrailingBytes);
        }
        Ok(packet)
    }

    /// The length of [`encode`](Self::encode)'s datagram, so that it allocates once.
    fn encoded_len(&self) -> usize {
        match self {
            Self::Initial { .. } => MAX_DATAGRAM_SIZE,
            Self::Retry { token, .. } => 1 + 1 + 8 + 1 + sent_token(token).len(),
            Self::Accept { .. } => 1 + 1 + 8 + 8,
            Self::Data { ack, chunk, .. } => {
                DATA_HEADER_LEN
                    + ack
                        .as_ref()
                        .map_or(0, |ack| 8 + 1 + 8 * sent_ranges(ack).len())
                    + chunk
                        .as_ref()
                        .map_or(0, |chunk| CHUNK_HEADER_LEN + chunk.payload.len())
            }
        }
    }

    /// Serialises the packet as one datagram, padding an `Initial` to full size.
    pub(crate) fn encode(&self) -> Vec<u8> {
        let mut out = Vec::with_capacity(self.encoded_len());
        out.push(VERSION);
        match self {
            Self::Initial { src_cid, token } => {
                out.push(TYPE_INITIAL);
                out.extend_from_slice(&src_cid.0.to_be_bytes());
                put_token(&mut out, token);
                out.resize(MAX_DATAGRAM_SIZE, 0);
            }
            Self::Retry { dst_cid, token } => {
                out.push(TYPE_RETRY);
                out.extend_from_slice(&dst_cid.0.to_be_bytes());
                put_token(&mut out, token);
            }
            Self::Accept { dst_cid, src_cid } => {
                out.push(TYPE_ACCEPT);
                out.extend_from_slice(&dst_cid.0.to_be_bytes());
                out.extend_from_slice(&src_cid.0.to_be_bytes());
            }
            Self::Data {
                dst_cid,
                ack,
                chunk,
            } => {
                out.push(TYPE_DATA);
                out.extend_from_slice(&dst_cid.0.to_be_bytes());
                let flags = match ack {
                    Some(Ack { blocked: true, .. }) => FLAG_ACK | FLAG_BLOCKED,
                    Some(_) => FLAG_ACK,
                    None => 0,
                } | (if chunk.is_some() { FLAG_CHUNK } else { 0 });
                out.push(flags);
                if let Some(ack) = ack {
                    put_ack(&mut out, ack);
                }
                if let Some(chunk) = chunk {
                    put_chunk(&mut out, chunk);
                }
            }
        }
        debug_assert!(
            out.len() <= MAX_DATAGRAM_SIZE,
            "encoded packet exceeds the datagram size"
        );
        debug_assert_eq!(out.len(), self.encoded_len());
        out
    }
}

impl ChunkKind {
    fn to_byte(self) -> u8 {
        match self {
            Self::Fragment { first, last } => {
                (if first { KIND_FIRST } else { 0 }) | (if last { KIND_LAST } else { 0 })
            }
            Self::Ping => KIND_PING,
            Self::Close => KIND_CLOSE,
        }
    }

    fn from_byte(byte: u8) -> Option<Self> {
        match byte {
            0..=3 => Some(Self::Fragment {
                first: byte & KIND_FIRST != 0,
                last: byte & KIND_LAST != 0,
            }),
            KIND_PING => Some(Self::Ping),
            KIND_CLOSE => Some(Self::Close),
            _ => None,
        }
    }
}

/// The part of `token` a packet carries: tokens are produced by this crate or taken from a
/// decoded packet, so both are bounded already, but the format has room for no more.
fn sent_token(token: &[u8]) -> &[u8] {
    &token[..token.len().min(MAX_TOKEN_LEN)]
}

/// The ranges of `ack` a packet carries: at most [`MAX_ACK_RANGES`].
fn sent_ranges(ack: &Ack) -> &[Range<u64>] {
    &ack.ranges[..ack.ranges.len().min(MAX_ACK_RANGES)]
}

fn put_token(out: &mut Vec<u8>, token: &[u8]) {
    let token = sent_token(token);
    // At most MAX_TOKEN_LEN (64), so the length fits in a byte.
    out.push(token.len() as u8);
    out.extend_from_slice(token);
}

fn put_ack(out: &mut Vec<u8>, ack: &Ack) {
    out.extend_from_slice(&ack.base.to_be_bytes());
    let ranges = sent_ranges(ack);
    // At most MAX_ACK_RANGES (16), so the count fits in a byte.
    out.push(ranges.len() as u8);
    let mut prev_end = ack.base;
    for range in ranges {
        // The receive window keeps ranges within u32 distance of the base.
        out.extend_from_slice(
            &u32::try_from(range.start - prev_end)
                .unwrap_or(u32::MAX)
                .to_be_bytes(),
        );
        out.extend_from_slice(
            &u32::try_from(range.end - range.start)
                .unwrap_or(u32::MAX)
                .to_be_bytes(),
        );
        prev_end = range.end;
    }
}

fn put_chunk(out: &mut Vec<u8>, chunk: &Chunk<'_>) {
    out.extend_from_slice(&chunk.seq.to_be_bytes());
    out.push(chunk.kind.to_byte());
    // Senders split frames into chunks of at most MAX_CHUNK_PAYLOAD bytes, which fits in u16.
    out.extend_from_slice(&(chunk.payload.len() as u16).to_be_bytes());
    out.extend_from_slice(chunk.payload);
}

/// A cursor over hostile bytes: every read is bounds-checked.
struct Reader<'a>(&'a [u8]);

impl<'a> Reader<'a> {
    fn bytes(&mut self, len: usize) -> Result<&'a [u8], DecodeError> {
        if self.0.len() < len {
            return Err(DecodeError::Truncated);
        }
        let (head, rest) = self.0.split_at(len);
        self.0 = rest;
        Ok(head)
    }

    fn array<const N: usize>(&mut self) -> Result<[u8; N], DecodeError> {
        let mut array = [0; N];
        array.copy_from_slice(self.bytes(N)?);
        Ok(array)
    }

    fn u8(&mut self) -> Result<u8, DecodeError> {
        Ok(self.array::<1>()?[0])
    }

    fn u16(&mut self) -> Result<u16, DecodeError> {
        Ok(u16::from_be_bytes(self.array()?))
    }

    fn u32(&mut self) -> Result<u32, DecodeError> {
        Ok(u32::from_be_bytes(self.array()?))
    }

    fn u64(&mut self) -> Result<u64, DecodeError> {
        Ok(u64::from_be_bytes(self.array()?))
    }

    fn cid(&mut self) -> Result<ConnectionId, DecodeError> {
        Ok(ConnectionId(self.u64()?))
    }

    fn ack(&mut self, blocked: bool) -> Result<Ack, DecodeError> {
        let base = self.u64()?;
        let count = usize::from(self.u8()?);
        if count > MAX_ACK_RANGES {
            return Err(DecodeError::InvalidAck);
        }
        let mut ranges = Vec::with_capacity(count);
        let mut prev_end = base;
        for _ in 0..count {
            let gap = u64::from(self.u32()?);
            let len = u64::from(self.u32()?);
            if gap == 0 || len == 0 {
                return Err(DecodeError::InvalidAck);
            }
            let start = prev_end.checked_add(gap).ok_or(DecodeError::InvalidAck)?;
            let end = start.checked_add(len).ok_or(DecodeError::InvalidAck)?;
            ranges.push(start..end);
            prev_end = end;
        }
        Ok(Ack {
            base,
            ranges,
            blocked,
        })
    }

    fn chunk(&mut self) -> Result<Chunk<'a>, DecodeError> {
        let seq = self.u64()?;
        let kind = ChunkKind::from_byte(self.u8()?).ok_or(DecodeError::InvalidChunkKind)?;
        let len = usize::from(self.u16()?);
        if len > MAX_CHUNK_PAYLOAD {
            return Err(DecodeError::ChunkTooLong);
        }
        if len != 0 && !matches!(kind, ChunkKind::Fragment { .. }) {
            return Err(DecodeError::InvalidChunkKind);
        }
        Ok(Chunk {
            seq,
            kind,
            payload: self.bytes(len)?,
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn round_trip(packet: &Packet<'_>) {
        let bytes = packet.encode();
        assert_eq!(Packet::decode(&bytes).as_ref(), Ok(packet));
        for len in 0..bytes.len() {
            assert!(
                Packet::decode(&bytes[..len]).is_err(),
                "prefix of {len} bytes decoded"
            );
        }
    }

    #[test]
    fn every_packet_type_round_trips_and_truncation_is_rejected() {
        let cid = ConnectionId::new(0x0102_0304_0506_0708);
        round_trip(&Packet::Initial {
            src_cid: cid,
            token: b"",
        });
        round_trip(&Packet::Initial {
            src_cid: cid,
            token: &[7; MAX_TOKEN_LEN],
        });
        round_trip(&Packet::Retry {
            dst_cid: cid,
            token: b"cookie",
        });
        round_trip(&Packet::Accept {
            dst_cid: cid,
            src_cid: ConnectionId::new(9),
        });
        let ack = Ack {
            base: 10,
            ranges: vec![12..14, 20..21],
            blocked: false,
        };
        round_trip(&Packet::Data {
            dst_cid: cid,
            ack: Some(ack.clone()),
            chunk: None,
        });
        round_trip(&Packet::Data {
            dst_cid: cid,
            ack: Some(Ack {
                blocked: true,
                ..ack.clone()
            }),
            chunk: None,
        });
        let payload = [0xAB; MAX_CHUNK_PAYLOAD];
        let chunk = Chunk {
            seq: 5,
            kind: ChunkKind::Fragment {
                first: true,
                last: false,
            },
            payload: &payload,
        };
        round_trip(&Packet::Data {
            dst_cid: cid,
            ack: Some(ack),
            chunk: Some(chunk.clone()),
        });
        round_trip(&Packet::Data {
            dst_cid: cid,
            ack: None,
            chunk: Some(chunk),
        });
        let close = Chunk {
            seq: 6,
            kind: ChunkKind::Close,
            payload: b"",
        };
        round_trip(&Packet::Data {
            dst_cid: cid,
            ack: None,
            chunk: Some(close),
        });
    }

    #[test]
    fn largest_data_packet_fits_in_a_datagram() {
        let ranges = (0..MAX_ACK_RANGES as u64)
            .map(|i| 2 + 2 * i..3 + 2 * i)
            .collect();
        let payload = [0; MAX_CHUNK_PAYLOAD];
        let packet = Packet::Data {
            dst_cid: ConnectionId::new(1),
            ack: Some(Ack {
                base: 0,
                ranges,
                blocked: false,
            }),
            chunk: Some(Chunk {
                seq: u64::MAX,
                kind: ChunkKind::Fragment {
                    first: true,
                    last: true,
                },
                payload: &payload,
            }),
        };
        assert_eq!(packet.encode().len(), MAX_DATAGRAM_SIZE);
    }

    #[test]
    fn oversized_acks_and_tokens_are_cut_to_what_the_format_holds() {
        let ranges: Vec<_> = (0..MAX_ACK_RANGES as u64 + 4)
            .map(|i| 2 + 2 * i..3 + 2 * i)
            .collect();
        let data = Packet::Data {
            dst_cid: ConnectionId::new(1),
            ack: Some(Ack {
                base: 0,
                ranges: ranges.clone(),
                blocked: false,
            }),
            chunk: None,
        };
        let Ok(Packet::Data { ack: Some(ack), .. }) = Packet::decode(&data.encode()) else {
            panic!("data does not decode");
        };
        assert_eq!(ack.ranges, ranges[..MAX_ACK_RANGES]);

        let token = [7; MAX_TOKEN_LEN + 10];
        let retry = Packet::Retry {
            dst_cid: ConnectionId::new(1),
            token: &token,
        };
        let encoded = retry.encode();
        let Ok(Packet::Retry { token: sent, .. }) = Packet::decode(&encoded) else {
            panic!("retry does not decode");
        };
        assert_eq!(sent, &token[..MAX_TOKEN_LEN]);
    }

    #[test]
    fn hostile_fields_are_rejected() {
        let cid = ConnectionId::new(1);
        let data = Packet::Data {
            dst_cid: cid,
            ack: Some(Ack {
                base: 1,
                ranges: vec![],
                blocked: false,
            }),
            chunk: None,
        }
        .encode();
        let mut bad = data.clone();
        bad[0] = 1;
        assert_eq!(Packet::decode(&bad), Err(DecodeError::UnknownVersion(1)));
        bad = data.clone();
        bad[1] = 99;
        assert_eq!(Packet::decode(&bad), Err(DecodeError::UnknownType(99)));
        for flags in [0, FLAG_BLOCKED, FLAG_BLOCKED | FLAG_CHUNK, 8] {
            bad = data.clone();
            bad[10] = flags;
            assert_eq!(
                Packet::decode(&bad),
                Err(DecodeError::InvalidFlags),
                "{flags}"
            );
        }
        bad = data.clone();
        bad[19] = MAX_ACK_RANGES as u8 + 1;
        assert_eq!(Packet::decode(&bad), Err(DecodeError::InvalidAck));
        bad = data.clone();
        bad.push(0);
        assert_eq!(Packet::decode(&bad), Err(DecodeError::TrailingBytes));
        let short_initial = &Packet::Initial {
            src_cid: cid,
            token: b"",
        }
        .encode()[..100];
        assert_eq!(
            Packet::decode(short_initial),
            Err(DecodeError::InitialNotPadded)
        );
        assert_eq!(
            Packet::decode(&[1; MAX_DATAGRAM_SIZE + 1]),
            Err(DecodeError::TooLarge)
        );
        let ping_with_payload = Packet::Data {
            dst_cid: cid,
            ack: None,
            chunk: Some(Chunk {
                seq: 0,
                kind: ChunkKind::Fragment {
                    first: true,
                    last: true,
                },
                payload: b"x",
            }),
        };
        let mut bad = ping_with_payload.encode();
        bad[19] = KIND_PING;
        assert_eq!(Packet::decode(&bad), Err(DecodeError::InvalidChunkKind));
    }

    #[test]
    fn overflowing_ack_ranges_are_rejected() {
        let mut bytes = vec![VERSION, TYPE_DATA];
        bytes.extend_from_slice(&1u64.to_be_bytes());
        bytes.push(FLAG_ACK);
        bytes.extend_from_slice(&(u64::MAX - 2).to_be_bytes());
        bytes.push(1);
        bytes.extend_from_slice(&1u32.to_be_bytes());
        bytes.extend_from_slice(&5u32.to_be_bytes());
        assert_eq!(Packet::decode(&bytes), Err(DecodeError::InvalidAck));
    }
}
