//! The task that moves datagrams between the socket and the sans-IO core.
//!
//! Like quinn's `ConnectionDriver`, it feeds received datagrams and expired timers into the
//! core, flushes `poll_transmit`, arms a timer from `poll_timeout`, wakes the tasks waiting
//! on connections, and loops. It makes no decisions of its own.

use std::collections::HashMap;
use std::io;
use std::net::SocketAddr;
use std::sync::{Arc, Mutex, MutexGuard, PoisonError};
use std::task::Waker;
use std::time::{Duration, Instant};

use tokio::net::UdpSocket;
use tokio::sync::{Notify, watch};

use crate::proto::{self, LinkId, LinkState, Transmit};
use crate::socket;

/// Receive buffer: larger than any valid datagram, so oversized ones are seen and rejected.
const RECV_BUFFER: usize = 2 * proto::MAX_DATAGRAM_SIZE;

/// Datagrams read per wake-up before flushing replies, so acks are batched under load.
const RECV_BATCH: usize = 64;

/// State shared by the driver task and the API handles.
#[derive(Debug)]
pub(crate) struct Shared {
    state: Mutex<State>,
    /// Wakes the driver after an API call changed the core.
    pub(crate) wake_driver: Notify,
    /// Wakes `accept` callers when a client completes its handshake or the endpoint closes.
    pub(crate) incoming: Notify,
}

/// The core and what the API needs around it.
#[derive(Debug)]
pub(crate) struct State {
    pub(crate) core: proto::Endpoint,
    /// Links that have (or had) a `Connection` handle.
    pub(crate) conns: HashMap<LinkId, ConnState>,
    /// Links whose every handle was dropped: each is forgotten once closed. Kept apart so that
    /// the driver looks at these few after each wake-up, not at every connection.
    pub(crate) orphans: Vec<LinkId>,
    /// Cleared by `Endpoint::close` or drop: no more connections are made or accepted, and the
    /// driver stops once the last link is gone.
    pub(crate) open: bool,
}

/// Per-connection wake-ups and ownership.
#[derive(Debug, Default)]
pub(crate) struct ConnState {
    /// The tasks waiting on the link (in `send`, `recv`, `poll_recv`, `close` or `connect`).
    pub(crate) waiters: Waiters,
}

/// The wakers of the tasks waiting on one link, each woken (and forgotten) at the link's next
/// change.
///
/// A connection usually has one waiting task, its reader, which is kept inline and needs no
/// allocation. Every link has an entry in a hash table that keeps up to twice the slots it
/// fills, so each byte here counts: this is 24 bytes where an inline waker beside a vector
/// would be 40.
#[derive(Debug, Default)]
pub(crate) enum Waiters {
    #[default]
    Empty,
    One(Waker),
    /// Kept, emptied, once woken: a link that had several waiters is likely to have them again.
    Many(Vec<Waker>),
}

impl Waiters {
    /// Adds `waker`, unless it would wake a task already there.
    pub(crate) fn register(&mut self, waker: &Waker) {
        *self = match std::mem::take(self) {
            Self::Empty => Self::One(waker.clone()),
            Self::One(first) if first.will_wake(waker) => Self::One(first),
            Self::One(first) => Self::Many(vec![first, waker.clone()]),
            Self::Many(mut all) => {
                if !all.iter().any(|other| other.will_wake(waker)) {
                    all.push(waker.clone());
                }
                Self::Many(all)
            }
        };
    }

    /// Wakes every task waiting on the link, which changed, and forgets them.
    fn wake(&mut self) {
        match std::mem::take(self) {
            Self::Empty => {}
            Self::One(waker) => waker.wake(),
            Self::Many(mut all) => {
                all.drain(..).for_each(Waker::wake);
                *self = Self::Many(all);
            }
        }
    }
}

impl Shared {
    pub(crate) fn new(core: proto::Endpoint) -> Self {
        Self {
            state: Mutex::new(State {
                core,
                conns: HashMap::new(),
                orphans: Vec::new(),
                open: true,
            }),
            wake_driver: Notify::new(),
            incoming: Notify::new(),
        }
    }

    /// Locks the state. A panic while locked cannot leave the core half-updated in a way that
    /// matters more than the panic itself, so poisoning is ignored.
    pub(crate) fn lock(&self) -> MutexGuard<'_, State> {
        self.state.lock().unwrap_or_else(PoisonError::into_inner)
    }
}

impl State {
    fn on_datagram(&mut self, now: Instant, from: SocketAddr, datagram: &[u8], incoming: &Notify) {
        let Ok(Some(id)) = self.core.handle_datagram(now, from, datagram) else {
            return;
        };
        match self.conns.get_mut(&id) {
            Some(conn) => conn.waiters.wake(),
            None => incoming.notify_waiters(),
        }
    }

    /// Takes no more connections: `accept` and `connect` fail, and newcomers' handshakes are
    /// dropped, so that they do not keep the socket open once the links left have drained.
    pub(crate) fn stop(&mut self) {
        self.open = false;
        self.core.stop_accepting();
    }

    /// Closes links nobody will accept any more and forgets closed links nobody holds.
    fn sweep(&mut self) {
        if !self.open {
            while let Some(id) = self.core.poll_incoming() {
                if let Some(link) = self.core.link_mut(id) {
                    link.close();
                }
                self.conns.insert(id, ConnState::default());
                self.orphans.push(id);
            }
        }
        let Self {
            core,
            conns,
            orphans,
            ..
        } = self;
        orphans.retain(|&id| {
            let done = core
                .link(id)
                .is_none_or(|link| link.state() == LinkState::Closed);
            if done {
                conns.remove(&id);
                core.remove_link(id);
            }
            !done
        });
    }

    /// Wakes the tasks waiting on these links.
    pub(crate) fn wake(&mut self, links: &[LinkId]) {
        for id in links {
            if let Some(conn) = self.conns.get_mut(id) {
                conn.waiters.wake();
            }
        }
    }
}

/// The driver's socket, with the signal that it is still open, which [`crate::Closed`] waits
/// for. Fields are dropped in the order they are declared, so the signal goes after the
/// socket however the driver ends: also when its task is dropped before it ever ran, which
/// drops the driver's arguments in their order rather than in the reverse.
pub(crate) struct Bound {
    pub(crate) socket: UdpSocket,
    pub(crate) _open: watch::Sender<()>,
}

/// Runs until the endpoint is closed or dropped and every link is gone.
pub(crate) async fn run(shared: Arc<Shared>, bound: Bound) {
    let socket = &bound.socket;
    let mut buf = vec![0; RECV_BUFFER];
    // Datagrams taken from the core and not yet sent: a batch, or what the socket refused.
    let mut unsent: Vec<Transmit> = Vec::new();
    // One timer, moved only when the core's deadline moves: most wake-ups leave it as it was.
    let timer = tokio::time::sleep(Duration::ZERO);
    tokio::pin!(timer);
    let mut armed = None;
    loop {
        let deadline = {
            let mut state = shared.lock();
            flush(socket, &mut state.core, &mut unsent);
            state.sweep();
            if !state.open && state.core.link_count() == 0 {
                return;
            }
            state.core.poll_timeout()
        };
        if deadline != armed {
            if let Some(deadline) = deadline {
                timer.as_mut().reset(deadline.into());
            }
            armed = deadline;
        }
        tokio::select! {
            received = socket.recv_from(&mut buf) => {
                let mut state = shared.lock();
                let now = Instant::now();
                if let Ok((len, from)) = received {
                    state.on_datagram(now, from, &buf[..len], &shared.incoming);
                }
                for _ in 0..RECV_BATCH {
                    let Ok((len, from)) = socket.try_recv_from(&mut buf) else { break };
                    state.on_datagram(now, from, &buf[..len], &shared.incoming);
                }
            }
            () = &mut timer, if armed.is_some() => {
                // Armed afresh next time round, even at the same deadline.
                armed = None;
                let mut state = shared.lock();
                let fired = state.core.handle_timeout(Instant::now());
                state.wake(&fired);
            }
            () = shared.wake_driver.notified() => {}
            _ = socket.writable(), if !unsent.is_empty() => {}
        }
    }
}

/// Sends everything the core has, in batches, keeping what the socket refused for later.
fn flush(socket: &UdpSocket, core: &mut proto::Endpoint, unsent: &mut Vec<Transmit>) {
    let now = Instant::now();
    loop {
        while unsent.len() < socket::SEND_BATCH {
            let Some(transmit) = core.poll_transmit(now) else {
                break;
            };
            unsent.push(transmit);
        }
        if unsent.is_empty() {
            return;
        }
        match socket::try_send(socket, unsent) {
            Err(error) if error.kind() == io::ErrorKind::WouldBlock => return,
            // Any other failure (unreachable network, ...) loses the first datagram: the link
            // retransmits or times out as with any loss. A call that sent nothing without
            // failing counts as one too, so that the loop always moves on.
            Err(_) | Ok(0) => drop(unsent.remove(0)),
            Ok(sent) => drop(unsent.drain(..sent)),
        }
    }
}

#[cfg(test)]
mod tests {
    use std::sync::atomic::{AtomicUsize, Ordering};
    use std::task::Wake;

    use super::*;

    /// Counts its wake-ups.
    struct Counter(AtomicUsize);

    impl Wake for Counter {
        fn wake(self: Arc<Self>) {
            self.0.fetch_add(1, Ordering::Relaxed);
        }
    }

    fn counter() -> (Arc<Counter>, Waker) {
        let counter = Arc::new(Counter(AtomicUsize::new(0)));
        (Arc::clone(&counter), Waker::from(counter))
    }

    #[test]
    fn every_waiting_task_is_woken_once_per_change() {
        let (reader, reader_waker) = counter();
        let (sender, sender_waker) = counter();
        let mut waiters = Waiters::default();
        waiters.register(&reader_waker);
        waiters.register(&sender_waker);
        // Polled again before the change: still one wake-up.
        waiters.register(&reader_waker);
        waiters.wake();
        assert_eq!(reader.0.load(Ordering::Relaxed), 1);
        assert_eq!(sender.0.load(Ordering::Relaxed), 1);
        // Forgotten once woken: a task that does not wait again is not woken again.
        waiters.register(&sender_waker);
        waiters.register(&sender_waker);
        waiters.wake();
        assert_eq!(reader.0.load(Ordering::Relaxed), 1);
        assert_eq!(sender.0.load(Ordering::Relaxed), 2);
        // A third task joins two.
        let (closer, closer_waker) = counter();
        for waker in [&reader_waker, &sender_waker, &closer_waker, &sender_waker] {
            waiters.register(waker);
        }
        waiters.wake();
        let counts = [&reader, &sender, &closer].map(|c| c.0.load(Ordering::Relaxed));
        assert_eq!(counts, [2, 3, 1]);
    }

    #[test]
    fn a_link_entry_stays_small() {
        // Two per match, in a table that may be half empty: see `Waiters`.
        assert!(size_of::<ConnState>() <= 24, "{}", size_of::<ConnState>());
    }
}
