//! Length-prefixed frames on a byte stream.
//!
//! A QUIC stream is an ordered byte stream with no message boundaries, so every frame is written
//! as a big-endian `u32` length followed by that many bytes. Before the first frame, the client
//! writes [`STREAM_HEADER`] so that the server can tell an xq peer from any other QUIC client that
//! happens to negotiate the same ALPN.
//!
//! Everything here is sans-IO: the connection feeds received chunks into a [`Decoder`] and sends
//! what [`encode`] returns.

use bytes::{Buf, Bytes};

/// The bytes a client writes first on the stream, before any frame.
///
/// Opening a QUIC stream is implicit: the server only learns about the stream when data arrives on
/// it. Writing a fixed header both announces the stream and proves the peer speaks this framing.
/// The last byte is the framing version.
pub(crate) const STREAM_HEADER: [u8; 4] = *b"xqf\x01";

/// Size of the length prefix in front of each frame.
const LEN_SIZE: usize = 4;

/// Returns `frame` with its length prefix, ready to be written to the stream.
///
/// The caller has already checked `frame` against the maximum frame size, which is a `u32`.
pub(crate) fn encode(frame: &[u8]) -> Bytes {
    let mut buf = Vec::with_capacity(LEN_SIZE + frame.len());
    // Cannot truncate: callers reject frames above the `u32` maximum first.
    buf.extend_from_slice(&(frame.len() as u32).to_be_bytes());
    buf.extend_from_slice(frame);
    Bytes::from(buf)
}

/// A peer announced a frame larger than the maximum.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct Oversized {
    /// The announced length.
    pub(crate) len: u32,
    /// The maximum it exceeds.
    pub(crate) max: u32,
}

/// Reassembles frames from the chunks a stream delivers.
///
/// Chunk boundaries are arbitrary: one chunk may hold many frames, or a part of one, or split a
/// length prefix. The decoder keeps the partial state between calls.
#[derive(Debug)]
pub(crate) struct Decoder {
    max: u32,
    state: State,
}

#[derive(Debug)]
enum State {
    /// Collecting the length prefix; `filled` bytes of `buf` are known.
    Len { buf: [u8; LEN_SIZE], filled: usize },
    /// Collecting a frame body of `len` bytes into `frame`.
    Body { frame: Vec<u8>, len: usize },
}

impl Decoder {
    /// Creates a decoder that refuses frames longer than `max` bytes.
    pub(crate) fn new(max: u32) -> Self {
        Self {
            max,
            state: State::empty(),
        }
    }

    /// Consumes bytes from the front of `input` and returns the next complete frame, if any.
    ///
    /// Returns `Ok(None)` once `input` is exhausted without completing a frame. An announced
    /// length above the maximum is reported before anything is allocated for it; the decoder must
    /// not be used afterwards.
    pub(crate) fn decode(&mut self, input: &mut Bytes) -> Result<Option<Vec<u8>>, Oversized> {
        loop {
            match &mut self.state {
                State::Len { buf, filled } => {
                    let n = (LEN_SIZE - *filled).min(input.len());
                    if n == 0 {
                        return Ok(None);
                    }
                    input.copy_to_slice(&mut buf[*filled..*filled + n]);
                    *filled += n;
                    if *filled < LEN_SIZE {
                        return Ok(None);
                    }
                    let len = u32::from_be_bytes(*buf);
                    if len > self.max {
                        return Err(Oversized { len, max: self.max });
                    }
                    // `len <= max`, and `max` is a `u32`, which fits a `usize` on the platforms
                    // quinn supports.
                    let len = len as usize;
                    self.state = State::Body {
                        frame: Vec::with_capacity(len),
                        len,
                    };
                }
                State::Body { frame, len } => {
                    let n = (*len - frame.len()).min(input.len());
                    frame.extend_from_slice(&input[..n]);
                    input.advance(n);
                    if frame.len() < *len {
                        return Ok(None);
                    }
                    let frame = std::mem::take(frame);
                    self.state = State::empty();
                    return Ok(Some(frame));
                }
            }
        }
    }

    /// Whether no part of a frame has been received yet, so that the stream may end here.
    pub(crate) fn is_between_frames(&self) -> bool {
        matches!(self.state, State::Len { filled: 0, .. })
    }
}

impl State {
    fn empty() -> Self {
        Self::Len {
            buf: [0; LEN_SIZE],
            filled: 0,
        }
    }
}

#[cfg(test)]
mod tests {
    use proptest::prelude::*;

    use super::*;

    fn decode_all(decoder: &mut Decoder, mut input: Bytes) -> Vec<Vec<u8>> {
        let mut frames = Vec::new();
        while let Some(frame) = decoder.decode(&mut input).expect("within the limit") {
            frames.push(frame);
        }
        assert!(input.is_empty());
        frames
    }

    #[test]
    fn round_trip_in_one_chunk() {
        let frames: Vec<Vec<u8>> = vec![b"a".to_vec(), Vec::new(), vec![7; 1000]];
        let wire: Vec<u8> = frames.iter().flat_map(|f| encode(f)).collect();
        let mut decoder = Decoder::new(1000);
        assert_eq!(decode_all(&mut decoder, Bytes::from(wire)), frames);
    }

    #[test]
    fn round_trip_one_byte_at_a_time() {
        let frames: Vec<Vec<u8>> = vec![b"hello".to_vec(), b"world!".to_vec(), Vec::new()];
        let wire: Vec<u8> = frames.iter().flat_map(|f| encode(f)).collect();
        let mut decoder = Decoder::new(64);
        let decoded: Vec<Vec<u8>> = wire
            .iter()
            .flat_map(|&b| decode_all(&mut decoder, Bytes::copy_from_slice(&[b])))
            .collect();
        assert_eq!(decoded, frames);
    }

    #[test]
    fn oversized_length_is_refused_before_the_body() {
        let mut decoder = Decoder::new(16);
        let mut input = Bytes::from_static(&[0xff, 0xff, 0xff, 0xff]);
        assert_eq!(
            decoder.decode(&mut input),
            Err(Oversized {
                len: u32::MAX,
                max: 16
            })
        );
    }

    #[test]
    fn tracks_frame_boundaries() {
        let mut decoder = Decoder::new(8);
        assert!(decoder.is_between_frames());
        let mut wire = encode(b"ab");
        let mut head = wire.split_to(5);
        assert_eq!(decoder.decode(&mut head), Ok(None));
        assert!(!decoder.is_between_frames());
        assert_eq!(decoder.decode(&mut wire), Ok(Some(b"ab".to_vec())));
        assert!(decoder.is_between_frames());
    }

    #[test]
    fn frame_at_the_limit_is_accepted() {
        let mut decoder = Decoder::new(3);
        assert_eq!(
            decode_all(&mut decoder, encode(b"abc")),
            vec![b"abc".to_vec()]
        );
    }

    /// Splits `wire` at `cuts` (positions taken modulo its length) and feeds the pieces in
    /// order, returning the frames decoded and the refusal, if one came.
    fn decode_pieces(max: u32, wire: &[u8], cuts: &[usize]) -> (Vec<Vec<u8>>, Option<Oversized>) {
        let mut at: Vec<usize> = cuts.iter().map(|c| c % (wire.len() + 1)).collect();
        at.extend([0, wire.len()]);
        at.sort_unstable();
        let mut decoder = Decoder::new(max);
        let mut frames = Vec::new();
        for piece in at.windows(2) {
            let mut input = Bytes::copy_from_slice(&wire[piece[0]..piece[1]]);
            loop {
                match decoder.decode(&mut input) {
                    Ok(Some(frame)) => frames.push(frame),
                    Ok(None) => break,
                    Err(refused) => return (frames, Some(refused)),
                }
            }
        }
        (frames, None)
    }

    proptest! {
        #[test]
        fn frames_survive_any_chunking(
            frames in prop::collection::vec(prop::collection::vec(any::<u8>(), 0..40), 0..8),
            cuts in prop::collection::vec(any::<usize>(), 0..12),
        ) {
            let wire: Vec<u8> = frames.iter().flat_map(|f| encode(f)).collect();
            prop_assert_eq!(decode_pieces(40, &wire, &cuts), (frames, None));
        }

        #[test]
        fn arbitrary_bytes_decode_alike_however_they_arrive(
            wire in prop::collection::vec(any::<u8>(), 0..200),
            cuts in prop::collection::vec(any::<usize>(), 0..12),
            max in 0u32..64,
        ) {
            // Hostile bytes never panic, and chunk boundaries never change what they mean.
            prop_assert_eq!(decode_pieces(max, &wire, &cuts), decode_pieces(max, &wire, &[]));
        }
    }
}
