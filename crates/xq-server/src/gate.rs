//! Commit before send: the core's outputs wait behind the changes that justify them.

use std::collections::VecDeque;

use xq_store::Persist;

use crate::{ConnId, Output};

/// Holds the core's outputs back until every [`Persist`] before them is committed, and
/// gathers the persists into batches for the storage (**group commit**).
///
/// One batch is committed at a time. The changes the core journals meanwhile form the next
/// batch, so under load each commit carries every move that arrived during the one before,
/// while the core goes on handling input. Outputs keep their order: one that follows a change
/// waits for the batch holding it, and everything after it waits behind it (frames to a
/// connection must leave in order, and "before" is simplest kept globally). Outputs that
/// follow no uncommitted change pass straight through.
///
/// It does no IO: the driver hands batches to the storage thread and reports each commit.
#[derive(Debug, Default)]
pub(crate) struct Gate {
    /// Changes not handed to the storage yet: the next batch.
    open: Vec<Persist>,
    /// Whether a batch is being committed.
    in_flight: bool,
    /// Batches handed out so far; the open batch becomes number `submitted + 1`.
    submitted: u64,
    /// Batches committed so far.
    committed: u64,
    /// The batch the latest change went into: every output from then on waits for it.
    needed: u64,
    /// Outputs waiting, in order, each with the batch it waits for.
    held: VecDeque<(u64, Output)>,
    /// Whether every output waits, committed or not, until [`let_go`](Self::let_go).
    holding: bool,
}

impl Gate {
    /// Takes the core's next output. A change joins the next batch; anything else comes back
    /// to be carried out now if nothing before it is waiting, or is held.
    pub(crate) fn push(&mut self, output: Output) -> Option<Output> {
        match output {
            Output::Persist(change) => {
                self.open.push(change);
                self.needed = self.submitted + 1;
                None
            }
            other if !self.holding && self.held.is_empty() && self.needed <= self.committed => {
                Some(other)
            }
            other => {
                self.held.push_back((self.needed, other));
                None
            }
        }
    }

    /// The next batch to commit: the changes gathered so far, unless a batch is in flight.
    pub(crate) fn next_batch(&mut self) -> Option<Vec<Persist>> {
        if self.in_flight || self.open.is_empty() {
            return None;
        }
        self.in_flight = true;
        self.submitted += 1;
        Some(std::mem::take(&mut self.open))
    }

    /// The batch in flight is committed: the outputs behind it are free to go
    /// ([`pop_released`](Self::pop_released)).
    pub(crate) fn committed(&mut self) {
        self.in_flight = false;
        self.committed = self.submitted;
    }

    /// The next held output whose changes are all committed, in order.
    pub(crate) fn pop_released(&mut self) -> Option<Output> {
        let &(needed, _) = self.held.front()?;
        if self.holding || needed > self.committed {
            return None;
        }
        self.held.pop_front().map(|(_, output)| output)
    }

    /// Holds every output from now on, committed or not, until [`let_go`](Self::let_go):
    /// a stopping node of a cluster keeps its goodbyes until it has given its leases up.
    pub(crate) fn hold(&mut self) {
        self.holding = true;
    }

    /// Ends [`hold`](Self::hold): the held outputs whose changes are committed are released.
    pub(crate) fn let_go(&mut self) {
        self.holding = false;
    }

    /// Drops every output held for `conns`: a room's connections, when the storage refused
    /// the room's changes that these outputs may be waiting for.
    pub(crate) fn cut(&mut self, conns: &[ConnId]) {
        if conns.is_empty() {
            return;
        }
        self.held.retain(|(_, output)| match output {
            Output::Send { to, .. } | Output::Close { conn: to, .. } => !conns.contains(to),
            _ => true,
        });
    }

    /// Whether a batch is being committed.
    pub(crate) const fn is_in_flight(&self) -> bool {
        self.in_flight
    }
}

#[cfg(test)]
mod tests {
    use xq_protocol::RoomCode;

    use super::*;

    fn send(to: u64) -> Output {
        Output::Send {
            to: ConnId(to),
            frame: vec![],
        }
    }

    fn persist(n: u64) -> Output {
        Output::Persist(Persist::RoomClosed {
            code: RoomCode::from_u64(n),
        })
    }

    fn released(gate: &mut Gate) -> Vec<Output> {
        std::iter::from_fn(|| gate.pop_released()).collect()
    }

    #[test]
    fn a_holding_gate_keeps_even_committed_outputs_until_it_lets_go() {
        let mut gate = Gate::default();
        gate.hold();
        assert_eq!(gate.push(send(1)), None, "nothing uncommitted, but held");
        assert_eq!(gate.push(persist(1)), None);
        assert_eq!(gate.push(send(2)), None);
        assert!(gate.next_batch().is_some());
        gate.committed();
        assert_eq!(released(&mut gate), []);
        gate.let_go();
        assert_eq!(released(&mut gate), [send(1), send(2)]);
        assert_eq!(gate.push(send(3)), Some(send(3)));
    }

    #[test]
    fn outputs_wait_for_the_changes_before_them_and_keep_their_order() {
        let mut gate = Gate::default();
        // Nothing uncommitted: straight through.
        assert_eq!(gate.push(send(1)), Some(send(1)));
        assert_eq!(gate.push(persist(1)), None);
        assert_eq!(gate.push(send(2)), None);
        let batch = gate.next_batch().expect("a batch");
        assert_eq!(batch.len(), 1);
        assert_eq!(gate.next_batch(), None, "one batch at a time");

        // While it commits, the core goes on: the next batch gathers, outputs queue behind.
        assert_eq!(gate.push(send(3)), None);
        assert_eq!(gate.push(persist(2)), None);
        assert_eq!(gate.push(persist(3)), None);
        assert_eq!(gate.push(send(4)), None);
        assert_eq!(released(&mut gate), []);

        gate.committed();
        assert_eq!(released(&mut gate), [send(2), send(3)]);
        let batch = gate.next_batch().expect("the second batch");
        assert_eq!(batch.len(), 2, "group commit: both changes in one batch");
        // Held outputs still block later ones, even those that follow no new change.
        assert_eq!(gate.push(send(5)), None);
        gate.committed();
        assert_eq!(released(&mut gate), [send(4), send(5)]);
        assert!(!gate.is_in_flight());
        assert_eq!(gate.next_batch(), None);
        assert_eq!(gate.push(send(6)), Some(send(6)));
    }

    #[test]
    fn a_cut_drops_only_what_is_held_for_the_given_connections() {
        let mut gate = Gate::default();
        assert_eq!(gate.push(persist(1)), None);
        assert_eq!(gate.push(send(1)), None);
        assert_eq!(gate.push(send(2)), None);
        let _batch = gate.next_batch();
        gate.cut(&[ConnId(1)]);
        gate.committed();
        assert_eq!(released(&mut gate), [send(2)]);
    }
}
