//! The receiving half of a link: duplicate suppression, reordering, reassembly and the acks
//! that describe what arrived.

use std::collections::{BTreeMap, VecDeque};
use std::ops::Range;

use super::packet::{Ack, Chunk, ChunkKind, MAX_ACK_RANGES};

/// What a whole frame waiting for the application holds beyond its payload: its slot.
const FRAME_SLOT: usize = size_of::<Vec<u8>>();

/// Chunks received, in order of sequence number, and frames ready for the application.
#[derive(Debug)]
pub(crate) struct RecvQueue {
    /// Every chunk below this sequence number has been received and consumed.
    next_expected: u64,
    /// Chunks that arrived ahead of a gap.
    early: BTreeMap<u64, (ChunkKind, Vec<u8>)>,
    /// The frame being reassembled from in-order fragments.
    partial: Option<Vec<u8>>,
    /// Whole frames awaiting the application.
    ready: VecDeque<Vec<u8>>,
    /// Bytes held by `ready`: each frame's payload and its slot, so that a peer cannot fill
    /// the queue with empty frames.
    ready_bytes: usize,
    /// Whether the peer's close chunk has been consumed: nothing follows it.
    closed: bool,
    /// Whether a chunk was refused for lack of room, and the application has not made room
    /// since.
    blocked: bool,
    /// Whether a chunk was refused since the last ack went out. The next ack says blocked
    /// whatever the application has taken meanwhile: a sender that never heard of the refusal
    /// would take the window update that follows for an ordinary ack.
    unreported: bool,
}

/// Limits that protect the receiver from its peer and from a slow application.
#[derive(Debug, Clone, Copy)]
pub(crate) struct RecvLimits {
    /// Chunks at or beyond `next_expected + window` are refused.
    pub(crate) window: u64,
    /// While this many bytes of whole frames wait for the application, chunks are refused.
    pub(crate) buffer: usize,
    /// Largest frame a peer may send.
    pub(crate) max_frame: usize,
}

/// What became of a received chunk.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Received {
    /// Stored; `in_order` tells whether it arrived with no gap before it.
    New { in_order: bool },
    /// Already received before; it is acknowledged again.
    Duplicate,
    /// Not stored (outside the window, or after close); it is not acknowledged, so the peer
    /// sends it again later.
    Refused,
    /// Not stored because the application is behind and the buffer full: as `Refused`, but
    /// acks say so, so that the peer knows its data arrives and waits.
    Blocked,
}

/// Whether taking a frame made room in a queue that had refused chunks for lack of it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct Unblocked(pub(crate) bool);

/// The peer sent chunks that cannot come from a correct sender.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct Violation;

impl RecvQueue {
    pub(crate) fn new() -> Self {
        Self {
            next_expected: 0,
            early: BTreeMap::new(),
            partial: None,
            ready: VecDeque::new(),
            ready_bytes: 0,
            closed: false,
            blocked: false,
            unreported: false,
        }
    }

    /// Whether the peer's close has been received, after all its frames.
    pub(crate) fn is_closed(&self) -> bool {
        self.closed
    }

    /// Takes the next whole frame, and says whether it [`Unblocked`] the queue: the peer
    /// must hear of that at once, or it would wait for its next probe to send again.
    ///
    /// A queue that refused chunks counts as blocked until it is half empty, so that the
    /// peer, once told, can send a window's worth without refusals when half the buffer holds
    /// a window (as with the defaults), and much of one when it does not.
    pub(crate) fn pop_frame(&mut self, limits: RecvLimits) -> Option<(Vec<u8>, Unblocked)> {
        let frame = self.ready.pop_front()?;
        self.ready_bytes -= frame.len() + FRAME_SLOT;
        let unblocked = self.blocked && self.ready_bytes <= limits.buffer / 2;
        self.blocked &= !unblocked;
        if self.ready.is_empty() {
            // A relay holds thousands of mostly idle links: none keeps a queue it is not using.
            self.ready = VecDeque::new();
        }
        Some((frame, Unblocked(unblocked)))
    }

    /// Heap bytes held, counting an early chunk as its entry and payload.
    #[cfg(test)]
    pub(crate) fn heap_bytes(&self) -> usize {
        let early: usize = self
            .early
            .values()
            .map(|(_, payload)| size_of::<(u64, ChunkKind, Vec<u8>)>() + payload.capacity())
            .sum();
        let ready: usize = self.ready.iter().map(Vec::capacity).sum();
        early
            + self.partial.as_ref().map_or(0, Vec::capacity)
            + self.ready.capacity() * size_of::<Vec<u8>>()
            + ready
    }

    /// Stores a chunk and reassembles whatever it completes.
    pub(crate) fn on_chunk(
        &mut self,
        chunk: &Chunk<'_>,
        limits: RecvLimits,
    ) -> Result<Received, Violation> {
        let seq = chunk.seq;
        if seq < self.next_expected || self.early.contains_key(&seq) {
            return Ok(Received::Duplicate);
        }
        if self.closed || seq >= self.next_expected.saturating_add(limits.window) {
            return Ok(Received::Refused);
        }
        if self.ready_bytes >= limits.buffer {
            self.blocked = true;
            self.unreported = true;
            return Ok(Received::Blocked);
        }
        if seq != self.next_expected {
            self.early.insert(seq, (chunk.kind, chunk.payload.to_vec()));
            return Ok(Received::New { in_order: false });
        }
        // The common case bypasses `early`, which would allocate a node for each link.
        let in_order = self.early.is_empty();
        self.next_expected += 1;
        self.consume(chunk.kind, chunk.payload.to_vec(), limits.max_frame)?;
        while let Some((kind, payload)) = self.early.remove(&self.next_expected) {
            self.next_expected += 1;
            self.consume(kind, payload, limits.max_frame)?;
        }
        if self.early.is_empty() {
            // An emptied map keeps its root node (about half a KiB) until dropped.
            self.early = BTreeMap::new();
        }
        Ok(Received::New { in_order })
    }

    /// What to acknowledge: everything below `next_expected` and the lowest runs of early
    /// chunks, the ones that matter most for progress. `None` before anything arrived.
    pub(crate) fn ack(&self) -> Option<Ack> {
        if self.next_expected == 0 && self.early.is_empty() {
            return None;
        }
        let mut ranges: Vec<Range<u64>> = Vec::new();
        for &seq in self.early.keys() {
            match ranges.last_mut() {
                Some(last) if last.end == seq => last.end += 1,
                _ => {
                    if ranges.len() == MAX_ACK_RANGES {
                        break;
                    }
                    ranges.push(seq..seq + 1);
                }
            }
        }
        Some(Ack {
            base: self.next_expected,
            ranges,
            blocked: self.blocked || self.unreported,
        })
    }

    /// Notes that the [`ack`](Self::ack) went out, and says whether another must follow at
    /// once: the window update, when the ack reported a refusal the application has since
    /// made room for.
    pub(crate) fn on_ack_sent(&mut self) -> bool {
        let update = self.unreported && !self.blocked;
        self.unreported = false;
        update
    }

    fn consume(
        &mut self,
        kind: ChunkKind,
        payload: Vec<u8>,
        max_frame: usize,
    ) -> Result<(), Violation> {
        match kind {
            ChunkKind::Fragment { first, last } => {
                let frame = match (self.partial.take(), first) {
                    (None, true) => payload,
                    (Some(mut frame), false) => {
                        frame.extend_from_slice(&payload);
                        frame
                    }
                    (None, false) | (Some(_), true) => return Err(Violation),
                };
                if frame.len() > max_frame {
                    return Err(Violation);
                }
                if last {
                    self.ready_bytes += frame.len() + FRAME_SLOT;
                    self.ready.push_back(frame);
                } else {
                    self.partial = Some(frame);
                }
            }
            ChunkKind::Ping => {}
            ChunkKind::Close => {
                if self.partial.is_some() {
                    return Err(Violation);
                }
                self.closed = true;
                self.early.clear();
            }
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const LIMITS: RecvLimits = RecvLimits {
        window: 8,
        buffer: 100,
        max_frame: 50,
    };

    fn frag(seq: u64, first: bool, last: bool, payload: &[u8]) -> Chunk<'_> {
        Chunk {
            seq,
            kind: ChunkKind::Fragment { first, last },
            payload,
        }
    }

    fn frames(queue: &mut RecvQueue) -> Vec<Vec<u8>> {
        std::iter::from_fn(|| queue.pop_frame(LIMITS).map(|(frame, _)| frame)).collect()
    }

    #[test]
    fn reorders_reassembles_and_suppresses_duplicates() {
        let mut queue = RecvQueue::new();
        assert_eq!(queue.ack(), None);
        assert_eq!(
            queue.on_chunk(&frag(2, true, true, b"c"), LIMITS),
            Ok(Received::New { in_order: false })
        );
        assert_eq!(
            queue.on_chunk(&frag(1, false, true, b"b"), LIMITS),
            Ok(Received::New { in_order: false })
        );
        assert_eq!(
            queue.ack(),
            Some(Ack {
                base: 0,
                ranges: std::iter::once(1..3).collect(),
                blocked: false,
            })
        );
        assert!(frames(&mut queue).is_empty());
        // It fills a gap, which is worth an immediate ack.
        assert_eq!(
            queue.on_chunk(&frag(0, true, false, b"a"), LIMITS),
            Ok(Received::New { in_order: false })
        );
        assert_eq!(
            queue.on_chunk(&frag(1, false, true, b"b"), LIMITS),
            Ok(Received::Duplicate)
        );
        assert_eq!(frames(&mut queue), [b"ab".to_vec(), b"c".to_vec()]);
        assert_eq!(
            queue.ack(),
            Some(Ack {
                base: 3,
                ranges: vec![],
                blocked: false,
            })
        );
    }

    #[test]
    fn refuses_outside_the_window_and_when_the_application_lags() {
        let mut queue = RecvQueue::new();
        assert_eq!(
            queue.on_chunk(&frag(8, true, true, b""), LIMITS),
            Ok(Received::Refused)
        );
        // Each frame counts its 40 bytes and its place in the queue: two fill the 100.
        for seq in 0..2 {
            assert_eq!(
                queue.on_chunk(&frag(seq, true, true, &[0; 40]), LIMITS),
                Ok(Received::New { in_order: true })
            );
        }
        assert_eq!(
            queue.on_chunk(&frag(2, true, true, b""), LIMITS),
            Ok(Received::Blocked)
        );
        assert!(queue.ack().is_some_and(|ack| ack.blocked));
        assert!(!queue.on_ack_sent(), "reported while still blocked");
        assert_eq!(frames(&mut queue).len(), 2);
        assert!(queue.ack().is_some_and(|ack| !ack.blocked));
        assert_eq!(
            queue.on_chunk(&frag(2, true, true, b""), LIMITS),
            Ok(Received::New { in_order: true })
        );
    }

    /// The peer hears of room once there is room for much, not at every frame taken: a
    /// window update that most of the peer's answer to would be refused is worth little.
    #[test]
    fn unblocks_once_the_application_has_emptied_half_the_buffer() {
        let mut queue = RecvQueue::new();
        // 34 bytes each with its slot: the fourth chunk finds 102 of 100 taken.
        for seq in 0..3 {
            assert_eq!(
                queue.on_chunk(&frag(seq, true, true, &[0; 10]), LIMITS),
                Ok(Received::New { in_order: true })
            );
        }
        assert_eq!(
            queue.on_chunk(&frag(3, true, true, b""), LIMITS),
            Ok(Received::Blocked)
        );
        assert!(!queue.on_ack_sent());
        let taken = Some((vec![0; 10], Unblocked(false)));
        assert_eq!(queue.pop_frame(LIMITS), taken);
        assert!(
            queue.ack().is_some_and(|ack| ack.blocked),
            "68 of 100 taken"
        );
        assert_eq!(
            queue.pop_frame(LIMITS),
            Some((vec![0; 10], Unblocked(true)))
        );
        assert!(queue.ack().is_some_and(|ack| !ack.blocked));
        assert_eq!(queue.pop_frame(LIMITS), taken, "said once");
    }

    /// A refusal that the application makes room for before any ack reports it is reported
    /// all the same, and the window update follows at once.
    #[test]
    fn a_refusal_is_reported_though_room_was_made_before_the_ack() {
        let mut queue = RecvQueue::new();
        for seq in 0..3 {
            queue
                .on_chunk(&frag(seq, true, true, &[0; 10]), LIMITS)
                .expect("valid chunk");
        }
        assert_eq!(
            queue.on_chunk(&frag(3, true, true, b""), LIMITS),
            Ok(Received::Blocked)
        );
        assert_eq!(frames(&mut queue).len(), 3);
        assert!(queue.ack().is_some_and(|ack| ack.blocked), "the refusal");
        assert!(queue.on_ack_sent(), "a window update must follow");
        assert!(queue.ack().is_some_and(|ack| !ack.blocked), "the update");
        assert!(!queue.on_ack_sent());
    }

    #[test]
    fn ack_ranges_are_bounded() {
        let mut queue = RecvQueue::new();
        let limits = RecvLimits {
            window: 1000,
            ..LIMITS
        };
        for seq in (1..200).step_by(2) {
            queue.on_chunk(&frag(seq, true, true, b""), limits).ok();
        }
        let ack = queue.ack().expect("something was received");
        assert_eq!(ack.ranges.len(), MAX_ACK_RANGES);
        assert_eq!(ack.ranges[0], 1..2);
    }

    #[test]
    fn malformed_sequences_are_violations() {
        let mut queue = RecvQueue::new();
        assert_eq!(
            queue.on_chunk(&frag(0, false, true, b"x"), LIMITS),
            Err(Violation)
        );
        let mut queue = RecvQueue::new();
        queue.on_chunk(&frag(0, true, false, b"x"), LIMITS).ok();
        assert_eq!(
            queue.on_chunk(&frag(1, true, true, b"y"), LIMITS),
            Err(Violation)
        );
        let mut queue = RecvQueue::new();
        queue.on_chunk(&frag(0, true, false, &[0; 40]), LIMITS).ok();
        assert_eq!(
            queue.on_chunk(&frag(1, false, true, &[0; 40]), LIMITS),
            Err(Violation),
            "frame too large"
        );
    }

    #[test]
    fn nothing_follows_close() {
        let mut queue = RecvQueue::new();
        queue
            .on_chunk(
                &Chunk {
                    seq: 0,
                    kind: ChunkKind::Close,
                    payload: b"",
                },
                LIMITS,
            )
            .ok();
        assert!(queue.is_closed());
        assert_eq!(
            queue.on_chunk(&frag(1, true, true, b"late"), LIMITS),
            Ok(Received::Refused)
        );
    }
}
