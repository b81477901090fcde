//! One connection's state machine.

use std::sync::Arc;
use std::time::{Duration, Instant};

use crate::Config;

use super::error::{ConnectionError, Dropped, SendError};
use super::packet::{Ack, Chunk, ChunkKind, ConnectionId, Packet};
use super::recv::{Received, RecvLimits, RecvQueue, Unblocked};
use super::rtt::{RtoBounds, RttEstimator};
use super::send::SendQueue;
use super::stats::Stats;

/// Draining lasts this many RTOs: long enough to acknowledge the peer's retransmitted close.
const DRAIN_RTOS: u32 = 3;

/// A reliable, ordered connection to one peer, without IO.
///
/// Inputs: [`handle_datagram`](Self::handle_datagram) (usually through
/// [`Endpoint::handle_datagram`](super::Endpoint::handle_datagram), which checks the source
/// address), [`send`](Self::send), [`close`](Self::close) and
/// [`handle_timeout`](Self::handle_timeout). Outputs: [`poll_transmit`](Self::poll_transmit)
/// (call until `None` after every input), [`poll_frame`](Self::poll_frame),
/// [`poll_timeout`](Self::poll_timeout), [`state`](Self::state),
/// [`is_established`](Self::is_established) and [`close_reason`](Self::close_reason).
#[derive(Debug)]
pub struct Link {
    config: Arc<Config>,
    side: Side,
    local_cid: ConnectionId,
    state: State,
    /// Whether the handshake has completed: from the start for a server link, at the
    /// `Accept` for a client's. It stays set whatever becomes of the link.
    established: bool,
    send: SendQueue,
    recv: RecvQueue,
    rtt: RttEstimator,
    /// Consecutive retransmission timeouts without progress.
    backoff: u32,
    /// Whether the peer's latest ack said its application is behind: the ack that says it
    /// has caught up (a window update) has what it refused sent again at once.
    peer_blocked: bool,
    acks: AckState,
    /// Last time a datagram from the peer was accepted.
    last_received: Instant,
    /// Last time a chunk (which the peer must acknowledge) was sent.
    last_chunk_sent: Instant,
    /// Since when the oldest unacknowledged data has waited without any ack progress.
    waiting_since: Instant,
    /// Sequence number of our close chunk, once queued.
    close_seq: Option<u64>,
    reason: Option<ConnectionError>,
    stats: Stats,
}

/// The coarse state of a [`Link`].
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum LinkState {
    /// The client's handshake is in progress; frames sent now wait for it.
    Connecting,
    /// Frames flow both ways.
    Connected,
    /// A close was requested by either side; queued frames are still delivered.
    Closing,
    /// Both sides closed; only the peer's retransmissions are acknowledged for a short while.
    Draining,
    /// Finished; [`Link::close_reason`] says why.
    Closed,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Side {
    Client,
    Server,
}

#[derive(Debug)]
enum State {
    /// The client waits for `Accept`; `token` is the server's cookie once a `Retry` arrived.
    Connecting {
        token: Option<Box<[u8]>>,
        sent: Option<Instant>,
        attempts: u32,
    },
    /// The server has to send `Accept` when `accept_pending`.
    Established {
        remote_cid: ConnectionId,
        accept_pending: bool,
    },
    Draining {
        remote_cid: ConnectionId,
        until: Instant,
    },
    Closed,
}

/// When to send an ack that cannot wait for outgoing data.
#[derive(Debug, Default)]
struct AckState {
    /// Chunks received since the last ack sent.
    unacked: u32,
    immediate: bool,
    deadline: Option<Instant>,
}

impl AckState {
    fn on_received(&mut self, now: Instant, received: Received, config: &Config) {
        match received {
            Received::New { in_order: true } => {
                self.unacked += 1;
                // Acking every few chunks at once keeps a bulk sender's window moving.
                self.immediate |= self.unacked >= config.ack_threshold;
                self.deadline.get_or_insert(now + config.max_ack_delay);
            }
            // Gaps and duplicates are reported at once so the sender learns of losses early.
            Received::New { in_order: false } | Received::Duplicate => self.immediate = true,
            // The sender learns at once that its data arrives though the application is
            // behind, before the application can make room: the window update that follows
            // means something only to a sender that knows it was refused.
            Received::Blocked => self.immediate = true,
            Received::Refused => {}
        }
    }

    fn is_due(&self, now: Instant) -> bool {
        self.immediate || self.deadline.is_some_and(|d| d <= now)
    }

    fn on_sent(&mut self) {
        *self = Self::default();
    }
}

impl Link {
    /// A client link; its first `poll_transmit` yields the `Initial`.
    pub(crate) fn client(config: Arc<Config>, local_cid: ConnectionId, now: Instant) -> Self {
        Self::new(
            config,
            Side::Client,
            local_cid,
            State::Connecting {
                token: None,
                sent: None,
                attempts: 0,
            },
            now,
        )
    }

    /// A server link for a client that proved its address; it answers with `Accept`.
    pub(crate) fn server(
        config: Arc<Config>,
        local_cid: ConnectionId,
        remote_cid: ConnectionId,
        now: Instant,
    ) -> Self {
        Self::new(
            config,
            Side::Server,
            local_cid,
            State::Established {
                remote_cid,
                accept_pending: true,
            },
            now,
        )
    }

    fn new(
        config: Arc<Config>,
        side: Side,
        local_cid: ConnectionId,
        state: State,
        now: Instant,
    ) -> Self {
        Self {
            config,
            side,
            local_cid,
            state,
            established: side == Side::Server,
            send: SendQueue::new(),
            recv: RecvQueue::new(),
            rtt: RttEstimator::new(),
            backoff: 0,
            peer_blocked: false,
            acks: AckState::default(),
            last_received: now,
            last_chunk_sent: now,
            waiting_since: now,
            close_seq: None,
            reason: None,
            stats: Stats::default(),
        }
    }

    /// The connection id the peer puts on datagrams for this link.
    pub fn local_cid(&self) -> ConnectionId {
        self.local_cid
    }

    /// For a server link, the connection id the client chose in its `Initial`, which a
    /// repeated `Initial` must carry. `None` for a client link, and for a closed one: a closed
    /// link answers nothing, so its client's repeated `Initial` is dropped as unknown.
    pub(crate) fn client_cid(&self) -> Option<ConnectionId> {
        match self.state {
            State::Established { remote_cid, .. } | State::Draining { remote_cid, .. }
                if self.side == Side::Server =>
            {
                Some(remote_cid)
            }
            State::Connecting { .. }
            | State::Established { .. }
            | State::Draining { .. }
            | State::Closed => None,
        }
    }

    /// The coarse state.
    pub fn state(&self) -> LinkState {
        match self.state {
            State::Connecting { .. } => LinkState::Connecting,
            State::Established { .. } if self.is_closing() => LinkState::Closing,
            State::Established { .. } => LinkState::Connected,
            State::Draining { .. } => LinkState::Draining,
            State::Closed => LinkState::Closed,
        }
    }

    /// Whether the handshake has completed, however the link has fared since: a server link's
    /// has from the start, a client link's once the server's `Accept` arrived. A server may
    /// send its frames and close at once (a relay turning a client away says why first), so
    /// a client link can be closing, or closed, by the time its driver looks: the handshake
    /// still succeeded, and the frames wait in [`poll_frame`](Self::poll_frame).
    pub fn is_established(&self) -> bool {
        self.established
    }

    /// Why no more frames will arrive, once that is known: set when the peer's close arrives
    /// (after all its frames) or when the connection fails. Frames already received can still
    /// be taken with [`poll_frame`](Self::poll_frame).
    pub fn close_reason(&self) -> Option<&ConnectionError> {
        self.reason.as_ref()
    }

    /// Counters of this connection.
    pub fn stats(&self) -> Stats {
        Stats {
            rtt: self.rtt.srtt(),
            ..self.stats
        }
    }

    /// Heap bytes held by this link's queues and buffers (the shared config aside).
    #[cfg(test)]
    pub(crate) fn heap_bytes(&self) -> usize {
        let token = match &self.state {
            State::Connecting {
                token: Some(token), ..
            } => token.len(),
            State::Connecting { .. }
            | State::Established { .. }
            | State::Draining { .. }
            | State::Closed => 0,
        };
        token + self.send.heap_bytes() + self.recv.heap_bytes()
    }

    /// Whether [`send`](Self::send) would accept a frame of `len` bytes now.
    ///
    /// # Errors
    ///
    /// The error `send` would return.
    pub fn check_send(&self, len: usize) -> Result<(), SendError> {
        let open = matches!(
            self.state,
            State::Connecting { .. } | State::Established { .. }
        );
        if !open || self.close_seq.is_some() || self.reason.is_some() {
            return Err(SendError::Closed);
        }
        let max = self.config.max_frame_size;
        if len > max {
            return Err(SendError::FrameTooLarge { size: len, max });
        }
        if !self.send.is_empty()
            && self.send.queued_bytes() + SendQueue::cost(len) > self.config.send_buffer_size
        {
            return Err(SendError::QueueFull);
        }
        Ok(())
    }

    /// Queues a frame for reliable, in-order delivery.
    ///
    /// # Errors
    ///
    /// [`SendError::FrameTooLarge`] above [`Config::max_frame_size`]; [`SendError::QueueFull`]
    /// when unacknowledged frames fill [`Config::send_buffer_size`] (backpressure: the link
    /// stays up, retry later); [`SendError::Closed`] after [`close`](Self::close) or once the
    /// connection ended. A refused frame changes nothing.
    pub fn send(&mut self, frame: Vec<u8>) -> Result<(), SendError> {
        self.check_send(frame.len())?;
        self.stats.frames_sent += 1;
        self.send.push_frame(frame);
        Ok(())
    }

    /// Takes the next frame received whole and in order.
    ///
    /// Taking the frame that makes room in a receive buffer that refused chunks makes an ack
    /// due at once, a window update: see [`has_immediate_ack`](Self::has_immediate_ack).
    pub fn poll_frame(&mut self) -> Option<Vec<u8>> {
        let (frame, Unblocked(unblocked)) = self.recv.pop_frame(self.recv_limits())?;
        self.acks.immediate |= unblocked;
        self.stats.frames_received += 1;
        Some(frame)
    }

    /// Whether an ack is due now rather than with the next data or after the ack delay: a
    /// driver that flushes only after datagrams and timers checks this after taking frames,
    /// so that a window update goes out at once.
    pub fn has_immediate_ack(&self) -> bool {
        self.acks.immediate
    }

    /// Starts a graceful close: frames already queued are delivered, then a close is
    /// exchanged with the peer. A client still connecting closes at once.
    pub fn close(&mut self) {
        match self.state {
            State::Connecting { .. } => self.finish(ConnectionError::LocallyClosed),
            State::Established { .. } if self.close_seq.is_none() && self.reason.is_none() => {
                self.close_seq = Some(self.send.push_control(ChunkKind::Close));
            }
            State::Established { .. } | State::Draining { .. } | State::Closed => {}
        }
    }

    /// Ends the link at once, without the close exchange: for a peer that is not expected to
    /// answer any more (a graceful close to a vanished peer lasts until the idle timeout).
    pub fn abort(&mut self) {
        self.finish(ConnectionError::LocallyClosed);
    }

    /// Processes a datagram known to come from this link's peer address.
    ///
    /// # Errors
    ///
    /// Why the datagram was dropped; a dropped datagram changes no state.
    pub fn handle_datagram(&mut self, now: Instant, datagram: &[u8]) -> Result<(), Dropped> {
        let packet = Packet::decode(datagram)?;
        if packet.dst_cid() != Some(self.local_cid) {
            return Err(Dropped::UnknownConnection);
        }
        self.handle_packet(now, packet, datagram.len())
    }

    /// Processes a decoded packet addressed to this link; an `Initial` must already have had
    /// its cookie checked.
    pub(crate) fn handle_packet(
        &mut self,
        now: Instant,
        packet: Packet<'_>,
        len: usize,
    ) -> Result<(), Dropped> {
        match (&mut self.state, packet) {
            (State::Closed, _) => return Err(Dropped::Closed),
            (
                State::Connecting {
                    token,
                    sent,
                    attempts,
                },
                Packet::Retry { token: cookie, .. },
            ) => {
                *token = Some(cookie.into());
                *sent = None;
                *attempts = 0;
            }
            (
                State::Connecting {
                    token: Some(_),
                    sent,
                    attempts,
                },
                Packet::Accept { src_cid, .. },
            ) => {
                if let (Some(sent), 0) = (*sent, *attempts) {
                    self.rtt.on_sample(now.saturating_duration_since(sent));
                }
                self.state = State::Established {
                    remote_cid: src_cid,
                    accept_pending: false,
                };
                self.established = true;
            }
            (State::Established { accept_pending, .. }, Packet::Initial { .. })
                if self.side == Side::Server =>
            {
                *accept_pending = true;
            }
            // A duplicate of the `Accept` that completed the handshake.
            (State::Established { remote_cid, .. }, Packet::Accept { src_cid, .. })
                if self.side == Side::Client && *remote_cid == src_cid => {}
            (
                State::Established { .. } | State::Draining { .. },
                Packet::Data { ack, chunk, .. },
            ) => {
                if ack.as_ref().is_some_and(|ack| !self.send.is_valid(ack)) {
                    return Err(Dropped::InvalidAck);
                }
                self.on_data(now, ack, chunk);
            }
            _ => return Err(Dropped::Unexpected),
        }
        self.last_received = now;
        self.stats.datagrams_received += 1;
        self.stats.bytes_received += len as u64;
        Ok(())
    }

    /// Fires the timers that are due at `now`.
    pub fn handle_timeout(&mut self, now: Instant) {
        match self.state {
            State::Closed => return,
            State::Draining { until, .. } => {
                if now >= until {
                    self.state = State::Closed;
                }
                return;
            }
            State::Connecting { .. } | State::Established { .. } => {}
        }
        if now >= self.last_received + self.config.idle_timeout {
            return self.finish(ConnectionError::TimedOut);
        }
        if self.send.has_in_flight() && now >= self.waiting_since + self.config.idle_timeout {
            return self.finish(ConnectionError::Unacknowledged);
        }
        let rto = self.rto();
        if let State::Connecting { sent, attempts, .. } = &mut self.state {
            if sent
                .is_some_and(|sent| now >= sent + self.rtt.rto(rto_bounds(&self.config), *attempts))
            {
                *sent = None;
                *attempts += 1;
            }
            return;
        }
        if self
            .send
            .retransmit_deadline(rto)
            .is_some_and(|deadline| now >= deadline)
        {
            self.send.on_rto(now, rto);
            self.backoff += 1;
        }
        if self
            .keep_alive_deadline()
            .is_some_and(|deadline| now >= deadline)
        {
            self.send.push_control(ChunkKind::Ping);
        }
        if self.acks.deadline.is_some_and(|deadline| now >= deadline) {
            self.acks.immediate = true;
        }
    }

    /// When [`handle_timeout`](Self::handle_timeout) must next be called, if ever.
    pub fn poll_timeout(&self) -> Option<Instant> {
        let idle = self.last_received + self.config.idle_timeout;
        match &self.state {
            State::Closed => None,
            State::Draining { until, .. } => Some(*until),
            State::Connecting { sent, attempts, .. } => {
                let resend =
                    sent.map(|sent| sent + self.rtt.rto(rto_bounds(&self.config), *attempts));
                Some(resend.map_or(idle, |resend| resend.min(idle)))
            }
            State::Established { .. } => {
                let unacked = self
                    .send
                    .has_in_flight()
                    .then(|| self.waiting_since + self.config.idle_timeout);
                [
                    Some(idle),
                    unacked,
                    self.send.retransmit_deadline(self.rto()),
                    self.keep_alive_deadline(),
                    self.acks.deadline,
                ]
                .into_iter()
                .flatten()
                .min()
            }
        }
    }

    /// The next datagram to send to the peer.
    pub fn poll_transmit(&mut self, now: Instant) -> Option<Vec<u8>> {
        let datagram = match &mut self.state {
            State::Closed => return None,
            State::Connecting { token, sent, .. } => {
                if sent.is_some() {
                    return None;
                }
                *sent = Some(now);
                Packet::Initial {
                    src_cid: self.local_cid,
                    token: token.as_deref().unwrap_or_default(),
                }
                .encode()
            }
            State::Established {
                remote_cid,
                accept_pending: accept_pending @ true,
            } => {
                *accept_pending = false;
                Packet::Accept {
                    dst_cid: *remote_cid,
                    src_cid: self.local_cid,
                }
                .encode()
            }
            State::Established { remote_cid, .. } => {
                let dst_cid = *remote_cid;
                let ack = self.recv.ack();
                let idle = !self.send.has_in_flight();
                let window = u64::from(self.config.window);
                if let Some((chunk, retransmission)) = self.send.transmit(now, window) {
                    let datagram = data(dst_cid, ack, Some(chunk));
                    self.stats.retransmits += u64::from(retransmission);
                    if idle {
                        self.waiting_since = now;
                    }
                    self.last_chunk_sent = now;
                    self.ack_sent();
                    datagram
                } else {
                    self.pure_ack(now, dst_cid, ack)?
                }
            }
            State::Draining { remote_cid, .. } => {
                let dst_cid = *remote_cid;
                let ack = self.recv.ack();
                self.pure_ack(now, dst_cid, ack)?
            }
        };
        self.stats.datagrams_sent += 1;
        self.stats.bytes_sent += datagram.len() as u64;
        Some(datagram)
    }

    fn pure_ack(
        &mut self,
        now: Instant,
        dst_cid: ConnectionId,
        ack: Option<Ack>,
    ) -> Option<Vec<u8>> {
        if !self.acks.is_due(now) {
            return None;
        }
        let datagram = ack.map(|ack| data(dst_cid, Some(ack), None));
        self.ack_sent();
        datagram
    }

    /// Notes that an ack went out (with data or alone); a window update may have to follow.
    fn ack_sent(&mut self) {
        self.acks.on_sent();
        self.acks.immediate = self.recv.on_ack_sent();
    }

    fn on_data(&mut self, now: Instant, ack: Option<Ack>, chunk: Option<Chunk<'_>>) {
        if let Some(ack) = ack {
            let outcome = self.send.on_ack(&ack, now);
            if outcome.progress {
                self.backoff = 0;
                self.waiting_since = now;
            } else if ack.blocked && !self.is_closing() {
                // The peer receives our data but its application is behind: no reason to give
                // up on it (this is flow control), only to keep probing at the backed-off RTO.
                // A close, though, must end: a peer that never reads again is given up on.
                self.waiting_since = now;
            }
            if self.peer_blocked && !ack.blocked {
                // A window update: what is still in flight was refused (or crossed this ack,
                // and arrives twice, harmlessly), and the backoff measured a pause, not a loss.
                self.send.on_rto(now, Duration::ZERO);
                self.backoff = 0;
            }
            self.peer_blocked = ack.blocked;
            if let Some(sample) = outcome.rtt_sample {
                self.rtt.on_sample(sample);
            }
        }
        if let Some(chunk) = chunk {
            match self.recv.on_chunk(&chunk, self.recv_limits()) {
                Ok(received) => {
                    self.stats.duplicates += u64::from(received == Received::Duplicate);
                    self.acks.on_received(now, received, &self.config);
                }
                Err(_) => return self.finish(ConnectionError::ProtocolViolation),
            }
        }
        self.advance_close(now);
    }

    /// Answers the peer's close with ours, and starts draining once everything we sent is
    /// acknowledged: acks are selective, so our close can be acknowledged before a frame sent
    /// ahead of it, which draining would never send again.
    fn advance_close(&mut self, now: Instant) {
        let State::Established { remote_cid, .. } = self.state else {
            return;
        };
        if !self.recv.is_closed() {
            return;
        }
        if self.reason.is_none() {
            let initiated_here = self.close_seq.is_some();
            self.reason = Some(if initiated_here {
                ConnectionError::LocallyClosed
            } else {
                ConnectionError::ClosedByPeer
            });
        }
        if self.close_seq.is_none() {
            self.close_seq = Some(self.send.push_control(ChunkKind::Close));
        }
        if self.send.is_empty() {
            let until = now + self.rto() * DRAIN_RTOS;
            self.state = State::Draining { remote_cid, until };
        }
    }

    /// Ends the link at once; a reason already known (a graceful close) is kept.
    fn finish(&mut self, reason: ConnectionError) {
        self.reason.get_or_insert(reason);
        self.state = State::Closed;
    }

    fn recv_limits(&self) -> RecvLimits {
        RecvLimits {
            window: u64::from(self.config.window),
            buffer: self.config.recv_buffer_size,
            max_frame: self.config.max_frame_size,
        }
    }

    fn rto(&self) -> Duration {
        self.rtt.rto(rto_bounds(&self.config), self.backoff)
    }

    /// Whether either side has asked to close.
    fn is_closing(&self) -> bool {
        self.close_seq.is_some() || self.recv.is_closed()
    }

    /// When to send a ping: only on an open, quiet link with nothing left to send.
    fn keep_alive_deadline(&self) -> Option<Instant> {
        let interval = self.config.keep_alive_interval?;
        let quiet = self.send.is_empty() && !self.is_closing();
        quiet.then_some(self.last_chunk_sent + interval)
    }
}

fn rto_bounds(config: &Config) -> RtoBounds {
    RtoBounds {
        initial: config.initial_rto,
        min: config.min_rto,
        max: config.max_rto,
        max_ack_delay: config.max_ack_delay,
    }
}

fn data(dst_cid: ConnectionId, ack: Option<Ack>, chunk: Option<Chunk<'_>>) -> Vec<u8> {
    Packet::Data {
        dst_cid,
        ack,
        chunk,
    }
    .encode()
}
