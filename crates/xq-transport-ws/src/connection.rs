//! An established WebSocket connection carrying frames as binary messages: the handle the
//! caller holds, and what it shares with the connection's driver task.

use std::collections::VecDeque;
use std::net::SocketAddr;
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::sync::{Arc, Mutex, MutexGuard, PoisonError};
use std::task::{Context, Poll, Waker};
use std::time::Duration;

use bytes::Bytes;
use tokio::io::{AsyncRead, AsyncWrite};
use tokio::sync::{Semaphore, TryAcquireError, mpsc, watch};
use tokio_tungstenite::WebSocketStream;

use crate::counted::Counters;
use crate::driver::{CLOSE_LINGER, Driver};
use crate::error::End;
use crate::{Error, TransportConfig};

/// What a queued frame costs in the send buffer besides its bytes: its vector and its place in
/// the queue, so that a flood of empty frames is bounded too.
const FRAME_OVERHEAD: usize = 64;

/// A connection that carries whole frames, in order, or fails.
///
/// Each frame is one binary WebSocket message. A task of its own (the driver) moves them
/// between the socket and the connection's two buffers, sends a ping every
/// [`keep_alive`](TransportConfig::keep_alive) and fails the connection when the peer is
/// silent for the [`idle_timeout`](TransportConfig::idle_timeout).
///
/// Clones share the connection, so one task can [`send`](Self::send) while another
/// [`recv`](Self::recv)s. Dropping the last clone without [`close`](Self::close) ends the
/// connection abruptly: the peer sees [`Error::ConnectionLost`].
#[derive(Debug, Clone)]
pub struct Connection {
    inner: Arc<Inner>,
}

#[derive(Debug)]
struct Inner {
    shared: Arc<Shared>,
    /// Frames for the driver, in order; the close comes through it too, behind them.
    outbox: mpsc::UnboundedSender<Outgoing>,
    /// The send buffer's free bytes: a sender takes a frame's cost before queuing it, and
    /// the driver gives it back once the socket has the frame.
    room: Arc<Semaphore>,
    send_buffer_size: usize,
    /// Ends (its sender is dropped) when the driver is done and the socket gone.
    done: watch::Receiver<()>,
    peer: SocketAddr,
}

/// What a sender hands the driver.
#[derive(Debug)]
pub(crate) enum Outgoing {
    /// A frame, and what it took from the send buffer.
    Frame { data: Bytes, cost: u32 },
    /// [`Connection::close`]: everything before it is sent first.
    Close,
}

/// What the handle and the driver share.
#[derive(Debug)]
pub(crate) struct Shared {
    /// Only ever held for a step, never across an `await`.
    state: Mutex<State>,
    /// Set by [`Connection::close`]: from then on sends and receives fail at once, and frames
    /// received are dropped, as the close promises.
    closing: AtomicBool,
    /// Set with [`State::end`], so that a send fails at once without taking the lock.
    ended: AtomicBool,
    counters: Arc<Counters>,
    frames_sent: AtomicU64,
    frames_received: AtomicU64,
    /// The latest ping's round trip in microseconds; zero until a pong came back.
    rtt_micros: AtomicU64,
    max_frame_size: usize,
    recv_buffer_size: usize,
}

#[derive(Debug, Default)]
struct State {
    /// Frames received and not yet read.
    inbox: VecDeque<Vec<u8>>,
    inbox_bytes: usize,
    /// How the connection ended, once it has: reported after the inbox is read.
    end: Option<End>,
    /// The task waiting in `poll_recv`.
    reader: Option<Waker>,
    /// The driver, while it waits for room in the inbox.
    driver: Option<Waker>,
    /// The driver's task whenever it waits, for [`Connection::close`] to wake it however
    /// busy its socket is.
    task: Option<Waker>,
}

impl Connection {
    /// Starts the driver of `ws`, an upgraded connection to `peer` whose socket counts into
    /// `counters`, and returns its handle.
    pub(crate) fn start<S>(
        ws: WebSocketStream<S>,
        peer: SocketAddr,
        counters: Arc<Counters>,
        config: &TransportConfig,
    ) -> Self
    where
        S: AsyncRead + AsyncWrite + Unpin + Send + 'static,
    {
        let shared = Arc::new(Shared {
            state: Mutex::default(),
            closing: AtomicBool::new(false),
            ended: AtomicBool::new(false),
            counters,
            frames_sent: AtomicU64::new(0),
            frames_received: AtomicU64::new(0),
            rtt_micros: AtomicU64::new(0),
            max_frame_size: config.max_frame_size,
            recv_buffer_size: config.recv_buffer_size,
        });
        let send_buffer_size = config.send_buffer_size.clamp(1, Semaphore::MAX_PERMITS);
        let room = Arc::new(Semaphore::new(send_buffer_size));
        let (outbox, queued) = mpsc::unbounded_channel();
        let (done_tx, done) = watch::channel(());
        let driver = Driver::new(ws, Arc::clone(&shared), queued, Arc::clone(&room), config);
        tokio::spawn(async move {
            driver.await;
            drop(done_tx);
        });
        Self {
            inner: Arc::new(Inner {
                shared,
                outbox,
                room,
                send_buffer_size,
                done,
                peer,
            }),
        }
    }

    /// Queues one frame, waiting while the send buffer is full.
    ///
    /// Returns once the frame is queued; the driver writes it (with others, in one system
    /// call where it can) as the socket takes it.
    ///
    /// # Errors
    ///
    /// [`Error::FrameTooLarge`] if the frame is over the maximum, in which case the connection
    /// is unaffected; [`Error::ClosedLocally`] once [`close`](Self::close) has begun;
    /// otherwise why the connection ended.
    pub async fn send(&self, frame: Vec<u8>) -> Result<(), Error> {
        let cost = self.cost(&frame)?;
        let permit = self
            .inner
            .room
            .acquire_many(cost)
            .await
            .map_err(|_| self.failure())?;
        permit.forget();
        self.queue(frame, cost)
    }

    /// Queues one frame without waiting: for a sender that must not stall on one slow peer (a
    /// relay serving thousands), and decides itself what a full buffer means. Frames queued
    /// this way and with [`send`](Self::send) keep their order.
    ///
    /// # Errors
    ///
    /// [`Error::SendBufferFull`] while the buffer is full (nothing is queued), otherwise as
    /// [`send`](Self::send).
    pub fn try_send(&self, frame: Vec<u8>) -> Result<(), Error> {
        let cost = self.cost(&frame)?;
        match self.inner.room.try_acquire_many(cost) {
            Ok(permit) => permit.forget(),
            Err(TryAcquireError::NoPermits) => return Err(Error::SendBufferFull),
            Err(TryAcquireError::Closed) => return Err(self.failure()),
        }
        self.queue(frame, cost)
    }

    /// What `frame` takes from the send buffer, if it may be sent at all.
    fn cost(&self, frame: &[u8]) -> Result<u32, Error> {
        let shared = &self.inner.shared;
        if shared.closing.load(Ordering::Acquire) || shared.ended.load(Ordering::Acquire) {
            // A connection that failed is not sent on while its driver says goodbye.
            return Err(self.failure());
        }
        let max = shared.max_frame_size;
        if frame.len() > max {
            return Err(Error::FrameTooLarge {
                len: frame.len(),
                max,
            });
        }
        // A frame larger than the whole buffer takes all of it, and goes alone.
        let cost = (frame.len() + FRAME_OVERHEAD).min(self.inner.send_buffer_size);
        Ok(u32::try_from(cost).unwrap_or(u32::MAX))
    }

    /// Hands `frame`, whose cost is taken, to the driver.
    fn queue(&self, frame: Vec<u8>, cost: u32) -> Result<(), Error> {
        let data = Bytes::from(frame);
        self.inner
            .outbox
            .send(Outgoing::Frame { data, cost })
            .map_err(|_| self.failure())?;
        self.inner
            .shared
            .frames_sent
            .fetch_add(1, Ordering::Relaxed);
        Ok(())
    }

    /// Why nothing more can be sent.
    fn failure(&self) -> Error {
        if self.inner.shared.closing.load(Ordering::Acquire) {
            return Error::ClosedLocally;
        }
        self.inner
            .shared
            .lock()
            .end
            .as_ref()
            .map_or(Error::ConnectionLost, Error::from)
    }

    /// Waits for the next frame. Receive from one task at a time: only the task that polled
    /// last is woken.
    ///
    /// # Errors
    ///
    /// [`Error::ClosedByPeer`] once the peer has closed gracefully and every frame it sent
    /// has been returned; [`Error::TimedOut`] if the peer went silent;
    /// [`Error::ConnectionLost`] if its socket ended without a close; [`Error::ClosedLocally`]
    /// after [`close`](Self::close); [`Error::IncomingFrameTooLarge`], [`Error::TextMessage`]
    /// or [`Error::Protocol`] if the peer broke the rules, which failed the connection.
    pub async fn recv(&self) -> Result<Vec<u8>, Error> {
        std::future::poll_fn(|cx| self.poll_recv(cx)).await
    }

    /// Polls for the next frame, as [`recv`](Self::recv) waits for it: for a task that
    /// receives on many connections and would otherwise keep a future alive for each.
    ///
    /// # Errors
    ///
    /// As [`recv`](Self::recv).
    pub fn poll_recv(&self, cx: &mut Context<'_>) -> Poll<Result<Vec<u8>, Error>> {
        let shared = &self.inner.shared;
        if shared.closing.load(Ordering::Acquire) {
            return Poll::Ready(Err(Error::ClosedLocally));
        }
        let mut state = shared.lock();
        if let Some(frame) = state.inbox.pop_front() {
            state.inbox_bytes -= frame.len();
            if let Some(driver) = state.driver.take() {
                driver.wake();
            }
            shared.frames_received.fetch_add(1, Ordering::Relaxed);
            return Poll::Ready(Ok(frame));
        }
        if let Some(end) = &state.end {
            return Poll::Ready(Err(Error::from(end)));
        }
        match &mut state.reader {
            Some(reader) if reader.will_wake(cx.waker()) => {}
            reader => *reader = Some(cx.waker().clone()),
        }
        Poll::Pending
    }

    /// Closes the connection gracefully.
    ///
    /// Frames queued before are sent first, then the WebSocket close; the peer reads every
    /// frame and then [`Error::ClosedByPeer`]. Returns once the peer has answered the close
    /// and the socket is closed, or after about a second for a peer that does not answer.
    /// From the start, sends and receives fail with [`Error::ClosedLocally`], a `send`
    /// waiting for room included.
    pub async fn close(&self) {
        let inner = &self.inner;
        inner.shared.closing.store(true, Ordering::Release);
        inner.room.close();
        {
            let mut state = inner.shared.lock();
            let waiting = [state.reader.take(), state.task.take()];
            drop(state);
            for waker in waiting.into_iter().flatten() {
                waker.wake();
            }
        }
        // Fails if the driver is already done, which is all the better.
        let _ = inner.outbox.send(Outgoing::Close);
        let mut done = inner.done.clone();
        // The driver gives up on a silent peer after `CLOSE_LINGER`; this only guards against
        // one that no longer runs (its runtime is shutting down).
        let _ = tokio::time::timeout(CLOSE_LINGER * 2, done.changed()).await;
    }

    /// The peer's address.
    #[must_use]
    pub fn peer_addr(&self) -> SocketAddr {
        self.inner.peer
    }

    /// Current statistics.
    #[must_use]
    pub fn stats(&self) -> Stats {
        let shared = &self.inner.shared;
        let rtt = shared.rtt_micros.load(Ordering::Relaxed);
        Stats {
            rtt: (rtt > 0).then(|| Duration::from_micros(rtt)),
            bytes_sent: shared.counters.written.load(Ordering::Relaxed),
            bytes_received: shared.counters.read.load(Ordering::Relaxed),
            frames_sent: shared.frames_sent.load(Ordering::Relaxed),
            frames_received: shared.frames_received.load(Ordering::Relaxed),
        }
    }
}

/// A snapshot of a connection's statistics.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
#[non_exhaustive]
pub struct Stats {
    /// The latest ping's round trip, once one came back.
    pub rtt: Option<Duration>,
    /// Bytes written to the socket: WebSocket framing, TLS and the HTTP upgrade included.
    pub bytes_sent: u64,
    /// Bytes read from the socket, the same way.
    pub bytes_received: u64,
    /// Frames queued by [`Connection::send`] and [`Connection::try_send`].
    pub frames_sent: u64,
    /// Frames returned by [`Connection::recv`].
    pub frames_received: u64,
}

impl Shared {
    fn lock(&self) -> MutexGuard<'_, State> {
        // Every update of the state is a single step, so a panic cannot leave it half-done.
        self.state.lock().unwrap_or_else(PoisonError::into_inner)
    }

    /// Whether the driver may read another message; if not, it is woken once there is room.
    pub(crate) fn has_room(&self, cx: &Context<'_>) -> bool {
        let mut state = self.lock();
        if state.inbox_bytes < self.recv_buffer_size {
            return true;
        }
        state.driver = Some(cx.waker().clone());
        false
    }

    /// Keeps the driver's waker, for [`Connection::close`].
    pub(crate) fn park(&self, cx: &Context<'_>) {
        match &mut self.lock().task {
            Some(task) if task.will_wake(cx.waker()) => {}
            task => *task = Some(cx.waker().clone()),
        }
    }

    /// Whether [`Connection::close`] has begun.
    pub(crate) fn is_closing(&self) -> bool {
        self.closing.load(Ordering::Acquire)
    }

    /// Hands a received frame to the reader.
    pub(crate) fn deliver(&self, frame: Vec<u8>) {
        let mut state = self.lock();
        state.inbox_bytes += frame.len();
        state.inbox.push_back(frame);
        if let Some(reader) = state.reader.take() {
            reader.wake();
        }
    }

    /// Records how the connection ended, unless an earlier end was recorded, and wakes the
    /// reader to hear it after the frames before it.
    pub(crate) fn end(&self, end: End) {
        let mut state = self.lock();
        state.end.get_or_insert(end);
        self.ended.store(true, Ordering::Release);
        if let Some(reader) = state.reader.take() {
            reader.wake();
        }
    }

    pub(crate) fn set_rtt(&self, rtt: Duration) {
        let micros = u64::try_from(rtt.as_micros()).unwrap_or(u64::MAX).max(1);
        self.rtt_micros.store(micros, Ordering::Relaxed);
    }
}
