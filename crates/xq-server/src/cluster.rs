//! What the core needs of a cluster: room codes claimed cluster-wide before use, and the
//! rooms it does not hold looked up on the other nodes.
//!
//! The core stays sans-IO: it asks ([`Output::Claim`](crate::Output::Claim),
//! [`Output::Locate`](crate::Output::Locate)) and the driver answers
//! ([`Relay::handle_claim`](crate::Relay::handle_claim),
//! [`Relay::handle_located`](crate::Relay::handle_located)) once the cluster has.

use std::collections::HashSet;

use xq_protocol::{ResumeToken, RoomCode};
use xq_store::OpenRoom;

/// How the core plays its part in a cluster of relay nodes that share rooms.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ClusterMode {
    /// How many claimed room codes the core keeps ready (64 by default). A new room takes one
    /// at once, so creating a room never waits for the cluster; a code is claimed (unique
    /// cluster-wide) before it is ready. With none ready (a burst of new rooms faster than the
    /// claims come back), a new room is refused with [`xq_protocol::ErrorCode::Unavailable`].
    /// Each code held costs a lease renewal every quarter of the lease.
    pub reserve: usize,
}

impl Default for ClusterMode {
    fn default() -> Self {
        Self { reserve: 64 }
    }
}

/// What the core asks the cluster to find: a room it does not hold, by its code or by the
/// resume token of one of its seats.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Lookup {
    /// The room with this code (a join or a spectate).
    Room(RoomCode),
    /// The room whose seat this token holds (a resume).
    Token(ResumeToken),
}

/// What the cluster found for a [`Lookup`].
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Located {
    /// Another node owns the room: the client is redirected to its URLs.
    Elsewhere(Vec<String>),
    /// Nobody owned the room, and this node took it over: its journal read back, to restore.
    Here(Box<OpenRoom>),
    /// No such room in the cluster.
    Nowhere,
    /// This node is taking the room over at this moment (another request found it first):
    /// the request is refused with [`xq_protocol::ErrorCode::Unavailable`], to try again.
    Settling,
    /// The cluster could not be asked.
    Unreachable,
}

/// The claimed codes ready for new rooms, and those being claimed.
#[derive(Debug)]
pub(crate) struct CodeReserve {
    target: usize,
    ready: Vec<RoomCode>,
    claiming: HashSet<RoomCode>,
}

impl CodeReserve {
    pub(crate) fn new(mode: &ClusterMode) -> Self {
        Self {
            target: mode.reserve.max(1),
            ready: Vec::new(),
            claiming: HashSet::new(),
        }
    }

    /// Whether a code is ready for a new room.
    pub(crate) fn is_empty(&self) -> bool {
        self.ready.is_empty()
    }

    /// A ready code, gone from the reserve.
    pub(crate) fn take(&mut self) -> Option<RoomCode> {
        self.ready.pop()
    }

    /// How many more codes to claim to be back at the target.
    pub(crate) fn shortfall(&self) -> usize {
        self.target
            .saturating_sub(self.ready.len() + self.claiming.len())
    }

    /// Whether `code` is ready or being claimed.
    pub(crate) fn holds(&self, code: RoomCode) -> bool {
        self.claiming.contains(&code) || self.ready.contains(&code)
    }

    /// Whether `code` is this node's, claimed and not used yet.
    pub(crate) fn is_ready(&self, code: RoomCode) -> bool {
        self.ready.contains(&code)
    }

    /// `code` is being claimed.
    pub(crate) fn claiming(&mut self, code: RoomCode) {
        self.claiming.insert(code);
    }

    /// The claim of `code` is settled: won, it is ready. Whether it was being claimed.
    pub(crate) fn settle(&mut self, code: RoomCode, won: bool) -> bool {
        let known = self.claiming.remove(&code);
        if known && won {
            self.ready.push(code);
        }
        known
    }

    /// Drops `code`, whose claim the cluster says this node lost; whether it held it.
    pub(crate) fn forget(&mut self, code: RoomCode) -> bool {
        let claimed = self.claiming.remove(&code);
        let ready = self.ready.len();
        self.ready.retain(|&held| held != code);
        claimed || self.ready.len() < ready
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_reserve_tops_up_to_its_target_with_won_claims_only() {
        let mut reserve = CodeReserve::new(&ClusterMode { reserve: 2 });
        assert_eq!(reserve.shortfall(), 2);
        let (a, b) = (RoomCode::from_u64(1), RoomCode::from_u64(2));
        reserve.claiming(a);
        reserve.claiming(b);
        assert_eq!(reserve.shortfall(), 0);
        assert!(reserve.settle(a, true));
        assert!(reserve.settle(b, false), "a lost claim is settled too");
        assert!(!reserve.settle(b, true), "an unknown claim is not taken");
        assert_eq!(reserve.shortfall(), 1);
        assert_eq!(reserve.take(), Some(a));
        assert!(reserve.is_empty());
        assert_eq!(reserve.shortfall(), 2);
    }
}
