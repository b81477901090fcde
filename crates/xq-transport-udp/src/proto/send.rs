//! The sending half of a link: chunks awaiting transmission or acknowledgement, and loss
//! detection.

use std::collections::VecDeque;
use std::time::{Duration, Instant};

use super::packet::{Ack, Chunk, ChunkKind, MAX_CHUNK_PAYLOAD};

/// A chunk is lost once this many later transmissions have been acknowledged (the packet
/// threshold of RFC 9002, counted in transmissions because retransmissions reuse sequence
/// numbers).
const REORDER_THRESHOLD: u64 = 3;

/// What a queued chunk holds beyond its payload: its slot in the queue.
const CHUNK_SLOT: usize = size_of::<Option<Outgoing>>();

/// Chunks from the oldest unacknowledged one on, with their transmission history.
#[derive(Debug)]
pub(crate) struct SendQueue {
    /// Sequence number of `chunks[0]`; everything below it is acknowledged.
    base: u64,
    /// Chunks from `base` on; `None` once acknowledged out of order.
    chunks: VecDeque<Option<Outgoing>>,
    /// Sequence number of the first chunk never transmitted.
    next_unsent: u64,
    /// Chunks declared lost, oldest first; entries acknowledged since are skipped.
    lost: VecDeque<u64>,
    /// Bytes held in `chunks`, as [`SendQueue::cost`] counts them.
    queued_bytes: usize,
    /// Transmissions so far, which orders them for loss detection.
    transmissions: u64,
}

#[derive(Debug)]
struct Outgoing {
    kind: ChunkKind,
    payload: Vec<u8>,
    sent: Option<Sent>,
}

#[derive(Debug, Clone, Copy)]
struct Sent {
    /// Time of the latest transmission.
    at: Instant,
    /// Order of the latest transmission.
    order: u64,
    /// Transmissions so far.
    count: u32,
    /// Declared lost and waiting in `lost` for retransmission.
    lost: bool,
}

/// What an ack changed.
#[derive(Debug, Default)]
pub(crate) struct AckOutcome {
    /// Whether the ack acknowledged anything new.
    pub(crate) progress: bool,
    /// Round trip of the newest acknowledged transmission, if it was not a retransmission.
    pub(crate) rtt_sample: Option<Duration>,
}

impl SendQueue {
    pub(crate) fn new() -> Self {
        Self {
            base: 0,
            chunks: VecDeque::new(),
            next_unsent: 0,
            lost: VecDeque::new(),
            queued_bytes: 0,
            transmissions: 0,
        }
    }

    /// Bytes queued and not yet acknowledged, as [`cost`](Self::cost) counts them.
    pub(crate) fn queued_bytes(&self) -> usize {
        self.queued_bytes
    }

    /// What a frame of `len` bytes holds while queued: its payload and a slot per chunk. The
    /// slots count so that a peer that never acknowledges cannot make the sender hold
    /// unbounded memory with small or empty frames.
    pub(crate) fn cost(len: usize) -> usize {
        len + len.div_ceil(MAX_CHUNK_PAYLOAD).max(1) * CHUNK_SLOT
    }

    /// Whether every chunk has been acknowledged.
    pub(crate) fn is_empty(&self) -> bool {
        self.chunks.is_empty()
    }

    /// Whether some transmitted chunk is not acknowledged yet.
    pub(crate) fn has_in_flight(&self) -> bool {
        self.next_unsent > self.base
    }

    /// Queues a frame, split into chunks of at most one datagram.
    pub(crate) fn push_frame(&mut self, mut frame: Vec<u8>) {
        self.queued_bytes += Self::cost(frame.len());
        if frame.len() <= MAX_CHUNK_PAYLOAD {
            // The common case keeps the caller's allocation.
            let kind = ChunkKind::Fragment {
                first: true,
                last: true,
            };
            frame.shrink_to_fit();
            self.chunks.push_back(Some(Outgoing {
                kind,
                payload: frame,
                sent: None,
            }));
            return;
        }
        let count = frame.len().div_ceil(MAX_CHUNK_PAYLOAD);
        for (i, piece) in frame.chunks(MAX_CHUNK_PAYLOAD).enumerate() {
            let kind = ChunkKind::Fragment {
                first: i == 0,
                last: i + 1 == count,
            };
            self.chunks.push_back(Some(Outgoing {
                kind,
                payload: piece.to_vec(),
                sent: None,
            }));
        }
    }

    /// Queues a payload-less chunk (ping or close) and returns its sequence number.
    pub(crate) fn push_control(&mut self, kind: ChunkKind) -> u64 {
        self.queued_bytes += CHUNK_SLOT;
        let seq = self.base + self.chunks.len() as u64;
        self.chunks.push_back(Some(Outgoing {
            kind,
            payload: Vec::new(),
            sent: None,
        }));
        seq
    }

    /// The next chunk to put on the wire, lost ones first, then new ones while fewer than
    /// `window` chunks are unacknowledged; the flag tells whether it is a retransmission.
    pub(crate) fn transmit(&mut self, now: Instant, window: u64) -> Option<(Chunk<'_>, bool)> {
        let seq = loop {
            match self.lost.pop_front() {
                Some(seq)
                    if self
                        .get(seq)
                        .and_then(Option::as_ref)
                        .is_some_and(|c| c.sent.is_some_and(|s| s.lost)) =>
                {
                    break seq;
                }
                Some(_) => {}
                None => {
                    let seq = self.next_unsent;
                    if seq >= self.base.saturating_add(window)
                        || seq >= self.base + self.chunks.len() as u64
                    {
                        return None;
                    }
                    self.next_unsent += 1;
                    break seq;
                }
            }
        };
        self.transmissions += 1;
        let order = self.transmissions;
        let index = usize::try_from(seq - self.base).ok()?;
        let chunk = self.chunks.get_mut(index)?.as_mut()?;
        let count = chunk.sent.map_or(0, |s| s.count);
        chunk.sent = Some(Sent {
            at: now,
            order,
            count: count + 1,
            lost: false,
        });
        Some((
            Chunk {
                seq,
                kind: chunk.kind,
                payload: &chunk.payload,
            },
            count > 0,
        ))
    }

    /// Whether `ack` only acknowledges chunks that were transmitted.
    pub(crate) fn is_valid(&self, ack: &Ack) -> bool {
        ack.end() <= self.next_unsent
    }

    /// Applies a valid ack: frees acknowledged chunks and declares reordered-past ones lost.
    pub(crate) fn on_ack(&mut self, ack: &Ack, now: Instant) -> AckOutcome {
        let mut newest: Option<Sent> = None;
        let ranges = std::iter::once(self.base..ack.base).chain(ack.ranges.iter().cloned());
        for range in ranges {
            for seq in range.start.max(self.base)..range.end.min(self.next_unsent) {
                let Some(slot) = usize::try_from(seq - self.base)
                    .ok()
                    .and_then(|i| self.chunks.get_mut(i))
                else {
                    continue;
                };
                if let Some(chunk) = slot.take() {
                    self.queued_bytes -= chunk.payload.len() + CHUNK_SLOT;
                    if let Some(sent) = chunk.sent
                        && newest.is_none_or(|n| sent.order > n.order)
                    {
                        newest = Some(sent);
                    }
                }
            }
        }
        while self.chunks.front().is_some_and(Option::is_none) {
            self.chunks.pop_front();
            self.base += 1;
        }
        if self.chunks.is_empty() {
            // Everything is acknowledged, so `lost` names only acknowledged chunks. A relay
            // holds thousands of mostly idle links: none keeps the queues of its last burst.
            self.chunks = VecDeque::new();
            self.lost = VecDeque::new();
        }
        let Some(newest) = newest else {
            return AckOutcome::default();
        };
        for (seq, chunk) in (self.base..).zip(self.chunks.iter_mut()) {
            if let Some(Outgoing {
                sent: Some(sent), ..
            }) = chunk
                && !sent.lost
                && sent.order + REORDER_THRESHOLD <= newest.order
            {
                sent.lost = true;
                self.lost.push_back(seq);
            }
        }
        AckOutcome {
            progress: true,
            rtt_sample: (newest.count == 1).then(|| now.saturating_duration_since(newest.at)),
        }
    }

    /// When the oldest outstanding transmission times out.
    pub(crate) fn retransmit_deadline(&self, rto: Duration) -> Option<Instant> {
        self.in_flight().map(|s| s.at).min().map(|at| at + rto)
    }

    /// Declares every transmission older than `rto` lost; returns how many were.
    pub(crate) fn on_rto(&mut self, now: Instant, rto: Duration) -> usize {
        let mut count = 0;
        for (seq, chunk) in (self.base..).zip(self.chunks.iter_mut()) {
            if let Some(Outgoing {
                sent: Some(sent), ..
            }) = chunk
                && !sent.lost
                && sent.at + rto <= now
            {
                sent.lost = true;
                self.lost.push_back(seq);
                count += 1;
            }
        }
        count
    }

    /// Heap bytes held by the queues and their payloads.
    #[cfg(test)]
    pub(crate) fn heap_bytes(&self) -> usize {
        let payloads: usize = self
            .chunks
            .iter()
            .flatten()
            .map(|c| c.payload.capacity())
            .sum();
        self.chunks.capacity() * size_of::<Option<Outgoing>>()
            + self.lost.capacity() * size_of::<u64>()
            + payloads
    }

    fn in_flight(&self) -> impl Iterator<Item = &Sent> {
        self.chunks
            .iter()
            .flatten()
            .filter_map(|c| c.sent.as_ref())
            .filter(|s| !s.lost)
    }

    fn get(&self, seq: u64) -> Option<&Option<Outgoing>> {
        self.chunks
            .get(usize::try_from(seq.checked_sub(self.base)?).ok()?)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const WINDOW: u64 = 8;

    fn ack(base: u64, range: Option<std::ops::Range<u64>>) -> Ack {
        Ack {
            base,
            ranges: range.into_iter().collect(),
            blocked: false,
        }
    }

    fn sent_seqs(queue: &mut SendQueue, now: Instant) -> Vec<(u64, bool)> {
        std::iter::from_fn(|| queue.transmit(now, WINDOW).map(|(c, re)| (c.seq, re))).collect()
    }

    #[test]
    fn frames_are_split_into_chunks_with_first_and_last_marks() {
        let mut queue = SendQueue::new();
        queue.push_frame(vec![1; MAX_CHUNK_PAYLOAD * 2 + 1]);
        queue.push_frame(Vec::new());
        let now = Instant::now();
        let mut kinds = Vec::new();
        while let Some((chunk, _)) = queue.transmit(now, WINDOW) {
            kinds.push((chunk.kind, chunk.payload.len()));
        }
        let frag = |first, last| ChunkKind::Fragment { first, last };
        assert_eq!(
            kinds,
            [
                (frag(true, false), MAX_CHUNK_PAYLOAD),
                (frag(false, false), MAX_CHUNK_PAYLOAD),
                (frag(false, true), 1),
                (frag(true, true), 0)
            ]
        );
    }

    #[test]
    fn window_limits_new_chunks_and_acks_free_them() {
        let mut queue = SendQueue::new();
        for _ in 0..20 {
            queue.push_frame(vec![0; 10]);
        }
        let now = Instant::now();
        assert_eq!(sent_seqs(&mut queue, now).len(), WINDOW as usize);
        assert!(
            !queue.is_valid(&ack(WINDOW + 1, None)),
            "acks for unsent chunks are invalid"
        );
        let outcome = queue.on_ack(&ack(4, None), now + Duration::from_millis(10));
        assert!(outcome.progress);
        assert_eq!(outcome.rtt_sample, Some(Duration::from_millis(10)));
        assert_eq!(queue.queued_bytes(), 16 * SendQueue::cost(10));
        assert_eq!(sent_seqs(&mut queue, now).len(), 4);
    }

    #[test]
    fn selective_ack_declares_skipped_chunks_lost() {
        let mut queue = SendQueue::new();
        for _ in 0..6 {
            queue.push_frame(vec![0; 10]);
        }
        let now = Instant::now();
        sent_seqs(&mut queue, now);
        // 0 and 1 missing; 2..5 received: 0 and 1 have three later transmissions acknowledged.
        queue.on_ack(&ack(0, Some(2..5)), now);
        assert_eq!(
            queue.queued_bytes(),
            3 * SendQueue::cost(10),
            "0, 1 and 5 still held"
        );
        // 5 was sent after 4 and may still arrive.
        assert_eq!(sent_seqs(&mut queue, now), [(0, true), (1, true)]);
        let outcome = queue.on_ack(&ack(6, None), now);
        assert!(outcome.progress);
        assert_eq!(
            outcome.rtt_sample, None,
            "the newest transmission acknowledged was a retransmission"
        );
        assert!(queue.is_empty());
    }

    #[test]
    fn timeout_declares_old_transmissions_lost() {
        let mut queue = SendQueue::new();
        queue.push_frame(vec![0; 10]);
        let start = Instant::now();
        sent_seqs(&mut queue, start);
        let rto = Duration::from_millis(200);
        assert_eq!(queue.retransmit_deadline(rto), Some(start + rto));
        assert_eq!(queue.on_rto(start + rto / 2, rto), 0);
        assert_eq!(queue.on_rto(start + rto, rto), 1);
        assert_eq!(
            queue.retransmit_deadline(rto),
            None,
            "nothing in flight until resent"
        );
        assert_eq!(sent_seqs(&mut queue, start + rto), [(0, true)]);
        let outcome = queue.on_ack(&ack(1, None), start + rto * 2);
        assert_eq!(
            outcome.rtt_sample, None,
            "Karn: no sample from a retransmission"
        );
    }
}
