//! The task behind a [`crate::Client`]: it drives the sans-IO core over a transport
//! connection on tokio, and makes no decision of its own.

use std::collections::HashMap;
use std::future::pending;
use std::sync::{Arc, Mutex, MutexGuard, PoisonError};

use tokio::sync::{Notify, mpsc, oneshot, watch};
use tokio::time::{Instant, sleep_until, timeout_at};
use xq_protocol::RequestId;
use xq_session::Timestamp;
use xq_transport::Connection;

use crate::client::Waiter;
use crate::relays::Rotation;
use crate::{Answer, ClientCore, ClientError, ClientEvent, CoreEvent};

/// What the client's handle and its driver share.
pub(crate) struct Shared {
    inner: Mutex<Inner>,
    /// Wakes the driver to send what the handle's requests queued.
    queued: Notify,
    /// The driver's clock starts here: the core's timestamps count from it.
    origin: Instant,
}

/// The core, and who waits for which answer. The lock is never held across an `await`.
pub(crate) struct Inner {
    pub(crate) core: ClientCore,
    waiters: HashMap<RequestId, Waiter>,
}

impl Shared {
    /// Shared state around `core`, whose clock started at `origin`, with the owner waiting
    /// for the answer to `first` (the first hello).
    pub(crate) fn new(
        core: ClientCore,
        origin: Instant,
        first: RequestId,
    ) -> (Arc<Self>, oneshot::Receiver<Result<Answer, ClientError>>) {
        let (waiter, answer) = oneshot::channel();
        let shared = Self {
            inner: Mutex::new(Inner {
                core,
                waiters: HashMap::from([(first, waiter)]),
            }),
            queued: Notify::new(),
            origin,
        };
        (Arc::new(shared), answer)
    }

    pub(crate) fn lock(&self) -> MutexGuard<'_, Inner> {
        // Every critical section leaves the state consistent before anything can panic, so a
        // poisoned lock holds usable data.
        self.inner.lock().unwrap_or_else(PoisonError::into_inner)
    }

    /// Makes a request of the core and has the driver send it.
    pub(crate) fn request(
        &self,
        request: impl FnOnce(&mut ClientCore) -> Result<RequestId, ClientError>,
    ) -> Result<RequestId, ClientError> {
        let id = request(&mut self.lock().core)?;
        self.queued.notify_one();
        Ok(id)
    }

    /// Makes a request of the core, has the driver send it, and gives the receiver of its
    /// answer.
    pub(crate) fn request_answered(
        &self,
        request: impl FnOnce(&mut ClientCore) -> Result<RequestId, ClientError>,
    ) -> Result<oneshot::Receiver<Result<Answer, ClientError>>, ClientError> {
        let (waiter, answer) = oneshot::channel();
        {
            let mut inner = self.lock();
            let id = request(&mut inner.core)?;
            inner.waiters.insert(id, waiter);
        }
        self.queued.notify_one();
        Ok(answer)
    }

    /// The core's time now.
    pub(crate) fn now(&self) -> Timestamp {
        stamp(self.origin, Instant::now())
    }
}

/// `at` on a clock that starts at `origin`.
pub(crate) fn stamp(origin: Instant, at: Instant) -> Timestamp {
    let millis = at.saturating_duration_since(origin).as_millis();
    Timestamp::from_millis(u64::try_from(millis).unwrap_or(u64::MAX))
}

/// The core's driver: the transport's frames and the time in, the core's frames and events
/// out.
pub(crate) struct Driver {
    shared: Arc<Shared>,
    /// The owner's event stream; it ends when the driver does.
    events: mpsc::UnboundedSender<ClientEvent>,
    /// Where the next connection goes.
    relays: Rotation,
    /// The connection; `None` between a failure and the next connection.
    conn: Option<Arc<dyn Connection>>,
}

impl Driver {
    pub(crate) fn new(
        shared: Arc<Shared>,
        events: mpsc::UnboundedSender<ClientEvent>,
        relays: Rotation,
        conn: Arc<dyn Connection>,
    ) -> Self {
        Self {
            shared,
            events,
            relays,
            conn: Some(conn),
        }
    }

    /// Runs until the core ends, or `shutdown` changes (or its sender, the client, is
    /// dropped).
    pub(crate) async fn run(mut self, mut shutdown: watch::Receiver<bool>) {
        loop {
            let connect = self.flush().await;
            let (closed, wake) = {
                let inner = self.shared.lock();
                (inner.core.is_closed(), inner.core.poll_timeout())
            };
            if closed {
                break;
            }
            let wake = wake.map(|at| self.instant(at));
            if connect {
                self.conn = None;
                tokio::select! {
                    biased;
                    _ = shutdown.changed() => break,
                    () = self.connect(wake) => {}
                }
                continue;
            }
            let shared = Arc::clone(&self.shared);
            let conn = self.conn.clone();
            tokio::select! {
                biased;
                // Closing (`Client::close`) has told the core already; a dropped client just
                // goes, as a connection that fails does.
                _ = shutdown.changed() => break,
                () = shared.queued.notified() => {}
                received = async {
                    match &conn {
                        Some(conn) => conn.recv().await,
                        None => pending().await,
                    }
                } => {
                    let now = self.shared.now();
                    let mut inner = self.shared.lock();
                    match received {
                        // Time is due too: a relay that keeps sending must not hold off the
                        // core's deadlines.
                        Ok(frame) => {
                            inner.core.handle_frame(now, &frame);
                            inner.core.handle_timeout(now);
                        }
                        Err(error) => inner.core.handle_disconnected(now, error.into()),
                    }
                    // A connection the core gave up on is dropped: nothing on it counts.
                    if inner.core.is_reconnecting() {
                        drop(inner);
                        self.conn = None;
                    }
                }
                () = async {
                    match wake {
                        Some(at) => sleep_until(at).await,
                        None => pending().await,
                    }
                } => {
                    let now = self.shared.now();
                    let mut inner = self.shared.lock();
                    inner.core.handle_timeout(now);
                    if inner.core.is_reconnecting() {
                        drop(inner);
                        self.conn = None;
                    }
                }
            }
        }
        // The core's last frames (a leave) go out before the connection closes.
        self.flush().await;
        if let Some(conn) = self.conn.take() {
            conn.close().await;
        }
    }

    /// Sends what the core queued and hands its events on. Returns whether the core asked
    /// for a new connection.
    async fn flush(&mut self) -> bool {
        let mut connect = false;
        loop {
            let (frames, events) = {
                let mut inner = self.shared.lock();
                let frames: Vec<_> = std::iter::from_fn(|| inner.core.poll_transmit()).collect();
                let events: Vec<_> = std::iter::from_fn(|| inner.core.poll_event()).collect();
                (frames, events)
            };
            if frames.is_empty() && events.is_empty() {
                return connect;
            }
            for event in events {
                match event {
                    CoreEvent::Client(event) => {
                        // The owner may have dropped the client already.
                        let _ = self.events.send(event);
                    }
                    CoreEvent::Answered { id, outcome } => {
                        if let Some(waiter) = self.shared.lock().waiters.remove(&id) {
                            let _ = waiter.send(outcome);
                        }
                    }
                    CoreEvent::Connect => connect = true,
                    CoreEvent::Redirected { urls } => self.relays.redirect(urls),
                    CoreEvent::Retry => self.relays.again(),
                }
            }
            for frame in frames {
                let Some(conn) = &self.conn else {
                    // The frames of a failed connection are lost with it; the core knows.
                    break;
                };
                if let Err(error) = conn.send(frame).await {
                    let now = self.shared.now();
                    self.shared
                        .lock()
                        .core
                        .handle_disconnected(now, error.into());
                    self.conn = None;
                }
            }
        }
    }

    /// Opens the connection the core asked for, to the next relay, by `deadline`.
    async fn connect(&mut self, deadline: Option<Instant>) {
        let options = self.shared.lock().core.options().transport.clone();
        let url = self.relays.next_url();
        tracing::debug!(%url, "connecting");
        let attempt = xq_transport::connect(&url, &options);
        let result = match deadline {
            Some(deadline) => timeout_at(deadline, attempt).await.ok(),
            None => Some(attempt.await),
        };
        let now = self.shared.now();
        let mut inner = self.shared.lock();
        match result {
            Some(Ok(conn)) => {
                self.conn = Some(conn);
                // A client closed meanwhile says nothing on it.
                let _ = inner.core.handle_connected(now);
            }
            Some(Err(error)) => inner.core.handle_disconnected(now, error.into()),
            None => inner.core.handle_timeout(now),
        }
    }

    /// The instant of the core's timestamp `at`.
    fn instant(&self, at: Timestamp) -> Instant {
        self.shared.origin + std::time::Duration::from_millis(at.as_millis())
    }
}
