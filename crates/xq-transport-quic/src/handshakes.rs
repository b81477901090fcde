//! The handshakes a listener has under way, bounded per address and in all.

use std::collections::hash_map::Entry;
use std::collections::{HashMap, VecDeque};
use std::future::Future;
use std::net::IpAddr;

use tokio::task::{AbortHandle, Id, JoinSet};

/// How many handshakes may be under way at once, in all. Each holds a connection's state (tens
/// of KiB) until the client opens its stream or the idle timeout ends it, and the caller's own
/// limits only see connections once they are accepted: without a bound, clients that complete
/// handshakes and never open their stream could hold any number.
pub(crate) const MAX_HANDSHAKES: usize = 1024;
/// How many of them may come from one IP address: enough for a load generator setting up
/// matches in parallel from one machine. Beyond it a new client from there is refused at once.
pub(crate) const MAX_HANDSHAKES_PER_ADDRESS: usize = 64;

/// Handshake tasks under way, with the address each client came from.
///
/// When the total bound is reached, a new handshake ends the oldest one still under way
/// rather than being refused: a client that completes handshakes from many addresses and
/// never opens its streams cannot keep everyone else out, since an honest client opens its
/// stream within a round trip of its handshake.
#[derive(Debug)]
pub(crate) struct Handshakes {
    max: usize,
    max_per_address: usize,
    tasks: JoinSet<()>,
    /// The client address of each task under way.
    addresses: HashMap<Id, IpAddr>,
    per_address: HashMap<IpAddr, usize>,
    /// The tasks in the order they started; entries of tasks ended since are dropped when they
    /// reach the front.
    order: VecDeque<AbortHandle>,
}

impl Handshakes {
    /// No handshakes, bounded by `max` in all and `max_per_address` from one address.
    pub(crate) fn new(max: usize, max_per_address: usize) -> Self {
        Self {
            max,
            max_per_address,
            tasks: JoinSet::new(),
            addresses: HashMap::new(),
            per_address: HashMap::new(),
            order: VecDeque::new(),
        }
    }

    /// Whether a client from `ip` may start a handshake: its address is under its bound.
    pub(crate) fn admits(&self, ip: IpAddr) -> bool {
        self.per_address.get(&ip).copied().unwrap_or(0) < self.max_per_address
    }

    /// Runs `handshake`, for a client from `ip`, as a task of its own; at the total bound,
    /// the oldest handshake under way ends first.
    pub(crate) fn start(
        &mut self,
        ip: IpAddr,
        handshake: impl Future<Output = ()> + Send + 'static,
    ) {
        if self.addresses.len() >= self.max {
            self.end_oldest();
        }
        let task = self.tasks.spawn(handshake);
        self.addresses.insert(task.id(), ip);
        *self.per_address.entry(ip).or_default() += 1;
        self.order.push_back(task);
    }

    /// Waits until a handshake task ends, and gives its place back. Never returns while none
    /// runs.
    pub(crate) async fn reap(&mut self) {
        let Some(done) = self.tasks.join_next_with_id().await else {
            return std::future::pending().await;
        };
        let id = match done {
            Ok((id, ())) => id,
            Err(error) => error.id(),
        };
        self.release(id);
        while self
            .order
            .front()
            .is_some_and(|task| !self.addresses.contains_key(&task.id()))
        {
            self.order.pop_front();
        }
        // Behind a long-lived oldest task, ended ones pile up: sweep them once they are half.
        if self.order.len() > 2 * self.addresses.len() + 64 {
            let addresses = &self.addresses;
            self.order.retain(|task| addresses.contains_key(&task.id()));
        }
    }

    /// How many handshakes are under way.
    #[cfg(test)]
    pub(crate) fn len(&self) -> usize {
        self.addresses.len()
    }

    fn end_oldest(&mut self) {
        while let Some(task) = self.order.pop_front() {
            if self.release(task.id()) {
                tracing::debug!("ending the oldest handshake to make room");
                task.abort();
                return;
            }
        }
    }

    /// Gives back the place of task `id`, if it still holds one.
    fn release(&mut self, id: Id) -> bool {
        let Some(ip) = self.addresses.remove(&id) else {
            return false;
        };
        if let Entry::Occupied(mut count) = self.per_address.entry(ip) {
            *count.get_mut() -= 1;
            if *count.get() == 0 {
                count.remove();
            }
        }
        true
    }
}

#[cfg(test)]
mod tests {
    use std::time::Duration;

    use tokio::sync::oneshot::{self, error::TryRecvError};
    use tokio::time::timeout;

    use super::*;

    /// A handshake that never ends, and a receiver that says when it was dropped.
    fn endless() -> (
        impl Future<Output = ()> + Send + 'static,
        oneshot::Receiver<()>,
    ) {
        let (dropped, watch) = oneshot::channel::<()>();
        let task = async move {
            let _dropped_with_the_task = dropped;
            std::future::pending::<()>().await;
        };
        (task, watch)
    }

    #[tokio::test]
    async fn the_oldest_handshake_makes_room_and_each_address_is_bounded() {
        let mut handshakes = Handshakes::new(3, 2);
        let (a, b) = (IpAddr::from([10, 0, 0, 1]), IpAddr::from([10, 0, 0, 2]));
        let (first, mut first_dropped) = endless();
        handshakes.start(a, first);
        let (second, _) = endless();
        handshakes.start(a, second);
        assert!(!handshakes.admits(a));
        assert!(handshakes.admits(b));
        let (third, _) = endless();
        handshakes.start(b, third);
        // Full: the next ends the first, which frees a place for its address.
        let (fourth, _) = endless();
        handshakes.start(b, fourth);
        assert_eq!(handshakes.len(), 3);
        assert!(handshakes.admits(a));
        assert!(!handshakes.admits(b));
        timeout(Duration::from_secs(10), handshakes.reap())
            .await
            .unwrap_or_else(|_| panic!("no handshake ended"));
        assert_eq!(first_dropped.try_recv(), Err(TryRecvError::Closed));
        assert_eq!(handshakes.len(), 3);
    }

    /// Handshakes that end behind an older one still under way do not pile up.
    #[tokio::test]
    async fn ended_handshakes_behind_a_long_one_are_swept() {
        let mut handshakes = Handshakes::new(4, 1_000);
        let ip = IpAddr::from([10, 0, 0, 1]);
        let (long, _) = endless();
        handshakes.start(ip, long);
        for _ in 0..1_000 {
            handshakes.start(ip, async {});
            handshakes.reap().await;
        }
        assert_eq!(handshakes.len(), 1);
        assert!(
            handshakes.order.len() <= 2 + 64,
            "{}",
            handshakes.order.len()
        );
    }

    #[tokio::test]
    async fn an_ended_handshake_gives_its_place_back() {
        let mut handshakes = Handshakes::new(4, 1);
        let ip = IpAddr::from([10, 0, 0, 1]);
        handshakes.start(ip, async {});
        assert!(!handshakes.admits(ip));
        handshakes.reap().await;
        assert!(handshakes.admits(ip));
        assert_eq!(handshakes.len(), 0);
        assert!(handshakes.order.is_empty());
    }
}
