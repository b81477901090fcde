//! The tokio handle of one connection.

use std::net::SocketAddr;
use std::sync::Arc;
use std::task::{Context, Poll};

use crate::Error;
use crate::driver::Shared;
use crate::proto::{Link, LinkId, LinkState, SendError, Stats};

/// A reliable, ordered connection carrying frames.
///
/// Clones share the connection: `send` and `recv` may run concurrently on different tasks.
/// When the last clone is dropped the connection is closed gracefully in the background.
#[derive(Debug, Clone)]
pub struct Connection {
    inner: Arc<Handle>,
}

#[derive(Debug)]
struct Handle {
    shared: Arc<Shared>,
    id: LinkId,
    peer: SocketAddr,
}

impl Connection {
    pub(crate) fn new(shared: Arc<Shared>, id: LinkId, peer: SocketAddr) -> Self {
        Self {
            inner: Arc::new(Handle { shared, id, peer }),
        }
    }

    /// Queues a frame, waiting while the send buffer is full.
    ///
    /// # Errors
    ///
    /// [`Error::Send`] with [`SendError::FrameTooLarge`] above
    /// [`Config::max_frame_size`](crate::Config::max_frame_size) or [`SendError::Closed`] while
    /// [`close`](Self::close) is in progress; [`Error::Connection`] with the reason once the
    /// connection has ended.
    pub async fn send(&self, frame: Vec<u8>) -> Result<(), Error> {
        let mut frame = Some(frame);
        self.wait(Output::Queued, |link| {
            let len = frame.as_ref().map_or(0, Vec::len);
            match link.check_send(len) {
                Ok(()) => Some(
                    frame
                        .take()
                        .map_or(Ok(()), |frame| link.send(frame).map_err(Error::from)),
                ),
                Err(SendError::QueueFull) => None,
                Err(error) => Some(Err(refusal(link, error))),
            }
        })
        .await
    }

    /// Queues a frame without waiting: for a sender that must not stall on one slow peer (a
    /// relay serving thousands), which decides itself what to do when the buffer is full.
    ///
    /// # Errors
    ///
    /// [`Error::Send`] with [`SendError::QueueFull`] while the send buffer is full (nothing
    /// is queued), otherwise as [`send`](Self::send).
    pub fn try_send(&self, frame: Vec<u8>) -> Result<(), Error> {
        let queued = self
            .with_link(|link| link.send(frame).map_err(|error| refusal(link, error)))
            .and_then(std::convert::identity);
        if queued.is_ok() {
            self.inner.shared.wake_driver.notify_one();
        }
        queued
    }

    /// Receives the next frame.
    ///
    /// # Errors
    ///
    /// [`Error::Connection`] once every frame has been received: with
    /// [`ClosedByPeer`](crate::proto::ConnectionError::ClosedByPeer) after the peer's graceful
    /// close, [`LocallyClosed`](crate::proto::ConnectionError::LocallyClosed) after ours, or the
    /// failure (timeout, peer not acknowledging, protocol violation).
    pub async fn recv(&self) -> Result<Vec<u8>, Error> {
        // Taking a frame sends nothing, but for the window update after a full buffer, which
        // the link asks for itself.
        self.wait(Output::None, next_frame).await
    }

    /// Polls for the next frame, as [`recv`](Self::recv) waits for it: for a task that
    /// receives on many connections and would otherwise keep a future alive for each. Like
    /// every wait on the link, the task is woken at the link's next change.
    ///
    /// # Errors
    ///
    /// As [`recv`](Self::recv).
    pub fn poll_recv(&self, cx: &mut Context<'_>) -> Poll<Result<Vec<u8>, Error>> {
        self.poll_step(cx, Output::None, next_frame)
    }

    /// Closes gracefully: frames already sent are delivered, then both sides exchange a close.
    /// Returns once that exchange is done or the connection failed.
    pub async fn close(&self) {
        let closed = self
            .wait(Output::Queued, |link| {
                link.close();
                matches!(link.state(), LinkState::Draining | LinkState::Closed).then_some(Ok(()))
            })
            .await;
        // Either way the connection is over; a failure was already recorded as its reason.
        drop(closed);
    }

    /// The peer's address.
    pub fn peer_addr(&self) -> SocketAddr {
        self.inner.peer
    }

    /// Counters of this connection.
    pub fn stats(&self) -> Stats {
        self.inner
            .shared
            .lock()
            .core
            .link(self.inner.id)
            .map(Link::stats)
            .unwrap_or_default()
    }

    /// Runs `f` on the link under the lock; the link may have output afterwards.
    fn with_link<T>(&self, f: impl FnOnce(&mut Link) -> T) -> Result<T, Error> {
        let mut state = self.inner.shared.lock();
        let link = state
            .core
            .link_mut(self.inner.id)
            .ok_or(Error::EndpointClosed)?;
        Ok(f(link))
    }

    /// Runs `step` on the link under the lock until it returns a result, sleeping until the
    /// driver changes the link in between. If `step` may have queued output, the driver is
    /// woken after each run to send it.
    pub(crate) async fn wait<T>(
        &self,
        output: Output,
        mut step: impl FnMut(&mut Link) -> Option<Result<T, Error>>,
    ) -> Result<T, Error> {
        std::future::poll_fn(|cx| self.poll_step(cx, output, &mut step)).await
    }

    /// Runs `step` once; without a result, the task is woken at the link's next change. The
    /// task is registered under the lock that the driver changes the link under, so no
    /// change falls between the step and the registration.
    fn poll_step<T>(
        &self,
        cx: &mut Context<'_>,
        output: Output,
        step: impl FnOnce(&mut Link) -> Option<Result<T, Error>>,
    ) -> Poll<Result<T, Error>> {
        let mut flush = output == Output::Queued;
        let outcome = {
            let mut state = self.inner.shared.lock();
            let state = &mut *state;
            let Some(link) = state.core.link_mut(self.inner.id) else {
                return Poll::Ready(Err(Error::EndpointClosed));
            };
            let outcome = step(link);
            flush |= link.has_immediate_ack();
            if outcome.is_none() {
                // A handle's link keeps its entry until the handle is dropped; without one,
                // nothing would wake this task.
                let Some(conn) = state.conns.get_mut(&self.inner.id) else {
                    return Poll::Ready(Err(Error::EndpointClosed));
                };
                conn.waiters.register(cx.waker());
            }
            outcome
        };
        if flush {
            self.inner.shared.wake_driver.notify_one();
        }
        outcome.map_or(Poll::Pending, Poll::Ready)
    }
}

/// The next frame, or why none will come.
fn next_frame(link: &mut Link) -> Option<Result<Vec<u8>, Error>> {
    match link.poll_frame() {
        Some(frame) => Some(Ok(frame)),
        None => link.close_reason().map(|reason| Err(reason.clone().into())),
    }
}

/// The error for a frame `link` refused: why the connection ended, if it has.
fn refusal(link: &Link, error: SendError) -> Error {
    match (error, link.close_reason()) {
        (SendError::Closed, Some(reason)) => reason.clone().into(),
        (error, _) => error.into(),
    }
}

/// Whether a step of [`Connection::wait`] may give the link something to send.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Output {
    /// It may: the driver must look at the link.
    Queued,
    /// It does not, though the link may ask for an ack at once (a window update), which
    /// [`Link::has_immediate_ack`] tells.
    None,
}

impl Drop for Handle {
    fn drop(&mut self) {
        let mut state = self.shared.lock();
        if state.conns.contains_key(&self.id) {
            state.orphans.push(self.id);
        }
        if let Some(link) = state.core.link_mut(self.id) {
            link.close();
        }
        drop(state);
        self.shared.wake_driver.notify_one();
    }
}
