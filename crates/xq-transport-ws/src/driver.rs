//! The task behind every connection: it moves frames between the socket and the connection's
//! buffers, keeps the connection alive, notices a silent peer, and closes.
//!
//! One future polls everything (socket, outbox, timers) from one task, as quinn's connection
//! driver does, so that no frame is handed between tasks on its way and nothing is lost when
//! one source is ready before another.

use std::future::Future;
use std::pin::Pin;
use std::sync::Arc;
use std::task::{Context, Poll};
use std::time::Duration;

use futures_util::{SinkExt, StreamExt};
use tokio::io::{AsyncRead, AsyncWrite};
use tokio::sync::{Semaphore, mpsc};
use tokio::time::{Instant, Interval, MissedTickBehavior, Sleep};
use tokio_tungstenite::WebSocketStream;
use tokio_tungstenite::tungstenite::error::{CapacityError, ProtocolError};
use tokio_tungstenite::tungstenite::protocol::CloseFrame;
use tokio_tungstenite::tungstenite::protocol::frame::coding::CloseCode;
use tokio_tungstenite::tungstenite::{Bytes, Error as WsError, Message};

use crate::TransportConfig;
use crate::connection::{Outgoing, Shared};
use crate::error::End;

/// How long a closing connection waits for what it queued to go out and for the peer to
/// answer its close, before it gives up on a peer that does not answer.
pub(crate) const CLOSE_LINGER: Duration = Duration::from_secs(1);

/// Durations beyond this are as good as never, and would overflow the clock.
const NEVER: Duration = Duration::from_secs(100 * 365 * 24 * 60 * 60);

/// The driver is done: the connection's end is recorded, and dropping the driver closes the
/// socket.
struct Done;

/// A connection's driver, a future that runs on a task of its own until the connection ends.
pub(crate) struct Driver<S> {
    ws: WebSocketStream<S>,
    shared: Arc<Shared>,
    outbox: mpsc::UnboundedReceiver<Outgoing>,
    room: Arc<Semaphore>,
    /// A message taken from the outbox (or a ping), waiting for the socket to take it, and
    /// what it took from the send buffer.
    pending: Option<(Message, u32)>,
    /// Something was handed to the socket (or a pong or close queued by tungstenite) and
    /// not flushed yet.
    unflushed: bool,
    phase: Phase,
    /// False once reading failed: the stream has nothing more to give.
    reading: bool,
    /// The inbox was full: the peer is not waited for while the reader is behind.
    paused: bool,
    /// When the peer was last heard from.
    heard: Instant,
    idle_timeout: Option<Duration>,
    idle_timer: Pin<Box<Sleep>>,
    pings: Option<Interval>,
    ping: Ping,
    /// Started once the connection is closed or every handle dropped: what still waits to
    /// go out has this long, for a peer that reads nothing keeps the socket busy forever.
    linger: Option<Pin<Box<Sleep>>>,
}

/// Where the connection is in its life.
enum Phase {
    /// Frames move both ways.
    Open,
    /// A close is under way: ours goes out (`frame`, taken once sent), or the peer's was
    /// answered; what the peer still sends is dropped, until its socket ends or `deadline`.
    Closing {
        frame: Option<CloseFrame>,
        deadline: Pin<Box<Sleep>>,
    },
}

/// The keep-alive pings, and the round trip their pongs measure.
#[derive(Default)]
struct Ping {
    /// A ping should go out at the next chance.
    due: bool,
    next: u64,
    /// The latest ping's payload and when it went out.
    outstanding: Option<([u8; 8], Instant)>,
}

impl<S: AsyncRead + AsyncWrite + Unpin> Driver<S> {
    pub(crate) fn new(
        ws: WebSocketStream<S>,
        shared: Arc<Shared>,
        outbox: mpsc::UnboundedReceiver<Outgoing>,
        room: Arc<Semaphore>,
        config: &TransportConfig,
    ) -> Self {
        let now = Instant::now();
        let idle_timeout = bounded(config.idle_timeout);
        let pings = bounded(config.keep_alive).map(|period| {
            let mut pings = tokio::time::interval_at(now + period, period);
            pings.set_missed_tick_behavior(MissedTickBehavior::Delay);
            pings
        });
        Self {
            ws,
            shared,
            outbox,
            room,
            pending: None,
            unflushed: false,
            phase: Phase::Open,
            reading: true,
            paused: false,
            heard: now,
            idle_timer: Box::pin(tokio::time::sleep_until(
                now + idle_timeout.unwrap_or(NEVER),
            )),
            idle_timeout,
            pings,
            ping: Ping::default(),
            linger: None,
        }
    }

    /// One pass over everything the driver waits on. Each source that is not ready has this
    /// task's waker when it returns.
    fn drive(&mut self, cx: &mut Context<'_>) -> Result<(), Done> {
        let was_open = matches!(self.phase, Phase::Open);
        self.poll_timers(cx)?;
        self.poll_write(cx)?;
        self.poll_read(cx)?;
        // Replies to what was read (pongs, the answer to a close) and a close begun by it.
        self.poll_write(cx)?;
        if let Phase::Closing { frame: None, .. } = self.phase
            && !self.reading
            && !self.unflushed
        {
            // Our close is out and nothing more can be read: nobody to wait for.
            return Err(Done);
        }
        if was_open && !matches!(self.phase, Phase::Open) {
            // The close's deadline has not been polled yet: come back for it.
            cx.waker().wake_by_ref();
        }
        Ok(())
    }

    fn poll_timers(&mut self, cx: &mut Context<'_>) -> Result<(), Done> {
        if self.linger.is_none() && (self.shared.is_closing() || self.outbox.is_closed()) {
            self.linger = Some(Box::pin(tokio::time::sleep(CLOSE_LINGER)));
        }
        if let Some(linger) = &mut self.linger
            && linger.as_mut().poll(cx).is_ready()
        {
            tracing::debug!("giving up on sending what is left to a peer that does not read");
            return Err(self.abort(End::ClosedLocally));
        }
        match &mut self.phase {
            Phase::Closing { deadline, .. } => {
                if deadline.as_mut().poll(cx).is_ready() {
                    tracing::debug!("giving up on a peer that does not answer the close");
                    return Err(Done);
                }
            }
            Phase::Open => {
                if let Some(idle) = self.idle_timeout {
                    while self.idle_timer.as_mut().poll(cx).is_ready() {
                        let now = Instant::now();
                        if !self.paused && now >= self.heard + idle {
                            return Err(self.abort(End::TimedOut));
                        }
                        let next = if self.paused { now } else { self.heard };
                        self.idle_timer.as_mut().reset(next + idle);
                    }
                }
                if let Some(pings) = &mut self.pings {
                    while pings.poll_tick(cx).is_ready() {
                        self.ping.due = true;
                    }
                }
            }
        }
        Ok(())
    }

    /// Hands the socket what there is to send, then flushes it.
    fn poll_write(&mut self, cx: &mut Context<'_>) -> Result<(), Done> {
        loop {
            if self.pending.is_none() {
                self.pending = match self.next_message(cx)? {
                    Some(next) => Some(next),
                    None => break,
                };
            }
            match self.ws.poll_ready_unpin(cx) {
                Poll::Ready(Ok(())) => {}
                Poll::Ready(Err(error)) => return Err(self.write_failed(error)),
                // The socket is still flushing what it has: it wakes this task for more.
                Poll::Pending => return Ok(()),
            }
            let Some((message, cost)) = self.pending.take() else {
                break;
            };
            if let Err(error) = self.ws.start_send_unpin(message) {
                return Err(self.write_failed(error));
            }
            if cost > 0 {
                self.room.add_permits(cost as usize);
            }
            self.unflushed = true;
        }
        if self.unflushed {
            match self.ws.poll_flush_unpin(cx) {
                Poll::Ready(Ok(())) => self.unflushed = false,
                Poll::Ready(Err(error)) => return Err(self.write_failed(error)),
                Poll::Pending => {}
            }
        }
        Ok(())
    }

    /// The next message to send, if there is one now.
    fn next_message(&mut self, cx: &mut Context<'_>) -> Result<Option<(Message, u32)>, Done> {
        loop {
            if let Phase::Closing { frame, .. } = &mut self.phase {
                return Ok(frame.take().map(|frame| (Message::Close(Some(frame)), 0)));
            }
            if std::mem::take(&mut self.ping.due) {
                let payload = self.ping.next.to_be_bytes();
                self.ping.next += 1;
                self.ping.outstanding = Some((payload, Instant::now()));
                return Ok(Some((Message::Ping(Bytes::copy_from_slice(&payload)), 0)));
            }
            match self.outbox.poll_recv(cx) {
                Poll::Ready(Some(Outgoing::Frame { data, cost })) => {
                    return Ok(Some((Message::Binary(data), cost)));
                }
                Poll::Ready(Some(Outgoing::Close)) => {
                    self.shared.end(End::ClosedLocally);
                    self.close_with(CloseCode::Normal, "closed");
                }
                // Every handle is gone without a close: nobody is left to tell.
                Poll::Ready(None) => return Err(self.abort(End::ClosedLocally)),
                Poll::Pending => return Ok(None),
            }
        }
    }

    /// Reads what the peer sent, while the inbox has room.
    fn poll_read(&mut self, cx: &mut Context<'_>) -> Result<(), Done> {
        while self.reading {
            let open = matches!(self.phase, Phase::Open);
            if open && !self.shared.has_room(cx) {
                self.paused = true;
                return Ok(());
            }
            if std::mem::take(&mut self.paused) {
                // Whatever the peer sent meanwhile waits in the socket: it was not silent.
                self.heard = Instant::now();
            }
            let message = match self.ws.poll_next_unpin(cx) {
                Poll::Pending => return Ok(()),
                // The close handshake is complete (the stream reports errors before it ends).
                Poll::Ready(None) => return Err(self.abort(End::Lost)),
                Poll::Ready(Some(Err(error))) => {
                    self.read_failed(error)?;
                    continue;
                }
                Poll::Ready(Some(Ok(message))) => message,
            };
            self.heard = Instant::now();
            match message {
                Message::Binary(data) if open && !self.shared.is_closing() => {
                    self.shared.deliver(Vec::from(data));
                }
                // After our close, as it promises, nothing more is handed out.
                Message::Binary(_) => {}
                Message::Text(_) => self.fail(End::Text, CloseCode::Unsupported),
                // tungstenite queued the pong; the next flush sends it.
                Message::Ping(_) => self.unflushed = true,
                Message::Pong(payload) => self.pong(&payload),
                Message::Close(frame) => self.peer_closed(frame),
                // Only ever sent, never read.
                Message::Frame(_) => {}
            }
        }
        Ok(())
    }

    fn pong(&mut self, payload: &[u8]) {
        if let Some((sent, at)) = self.ping.outstanding
            && payload == sent
        {
            self.shared.set_rtt(at.elapsed());
            self.ping.outstanding = None;
        }
    }

    /// The peer closed (or answered our close): tungstenite queued the answer.
    fn peer_closed(&mut self, frame: Option<CloseFrame>) {
        self.unflushed = true;
        if !matches!(self.phase, Phase::Open) {
            return;
        }
        let end = match frame {
            Some(frame) if !matches!(frame.code, CloseCode::Normal | CloseCode::Away) => {
                End::ClosedWithCode {
                    code: frame.code.into(),
                    reason: frame.reason.to_string(),
                }
            }
            _ => End::ClosedByPeer,
        };
        self.shared.end(end);
        self.phase = closing(None);
    }

    fn read_failed(&mut self, error: WsError) -> Result<(), Done> {
        self.reading = false;
        match error {
            WsError::Capacity(CapacityError::MessageTooLong { size, max_size }) => {
                let end = End::TooLarge {
                    len: size,
                    max: max_size,
                };
                self.fail(end, CloseCode::Size);
            }
            WsError::Protocol(ProtocolError::ResetWithoutClosingHandshake) => {
                return Err(self.abort(End::Lost));
            }
            WsError::Protocol(error) => self.fail(End::Protocol(error), CloseCode::Protocol),
            // Text that is not UTF-8, or a close reason that is not.
            WsError::Utf8(_) => self.fail(End::Text, CloseCode::Invalid),
            error => {
                tracing::debug!(%error, "websocket read failed");
                return Err(self.abort(End::Lost));
            }
        }
        Ok(())
    }

    fn write_failed(&mut self, error: WsError) -> Done {
        match error {
            // The close handshake is complete: the end is recorded already.
            WsError::ConnectionClosed | WsError::AlreadyClosed => {}
            error => tracing::debug!(%error, "websocket write failed"),
        }
        self.abort(End::Lost)
    }

    /// Fails the connection for a broken rule: the reader hears `end`, and the peer `code`.
    fn fail(&mut self, end: End, code: CloseCode) {
        tracing::debug!(?end, "failing the connection");
        self.shared.end(end);
        if matches!(self.phase, Phase::Open) {
            let reason = match code {
                CloseCode::Size => "message too large",
                CloseCode::Unsupported | CloseCode::Invalid => "binary messages only",
                _ => "protocol violation",
            };
            self.close_with(code, reason);
        }
    }

    /// Begins our close, with `code`.
    fn close_with(&mut self, code: CloseCode, reason: &'static str) {
        self.phase = closing(Some(CloseFrame {
            code,
            reason: reason.into(),
        }));
    }

    /// Ends at once: the reader hears `end` unless it heard something else already.
    fn abort(&mut self, end: End) -> Done {
        self.shared.end(end);
        Done
    }
}

impl<S: AsyncRead + AsyncWrite + Unpin> Future for Driver<S> {
    type Output = ();

    fn poll(self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<()> {
        let this = self.get_mut();
        match this.drive(cx) {
            Ok(()) => {
                this.shared.park(cx);
                Poll::Pending
            }
            Err(Done) => {
                // Waiting senders fail now, and see the end.
                this.shared.end(End::Lost);
                this.room.close();
                Poll::Ready(())
            }
        }
    }
}

fn closing(frame: Option<CloseFrame>) -> Phase {
    Phase::Closing {
        frame,
        deadline: Box::pin(tokio::time::sleep(CLOSE_LINGER)),
    }
}

/// `duration`, unless it is zero or as good as never.
fn bounded(duration: Duration) -> Option<Duration> {
    (!duration.is_zero() && duration < NEVER).then_some(duration)
}
