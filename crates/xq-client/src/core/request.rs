//! The owner's entry into a room, from its request to the snapshot that completes it.

use xq_protocol::RequestId;

/// An entry into a room in progress: complete once `Joined` and then a snapshot arrive.
#[derive(Clone, Copy, Debug)]
pub(super) struct Entry {
    /// The request the relay's `Joined` answers.
    pub(super) id: RequestId,
    pub(super) purpose: Purpose,
    /// Whether `Joined` has arrived.
    pub(super) joined: bool,
    /// Whether a `Joined` that names no request completes the entry too: the seat a resume
    /// hello takes back.
    awaits_seat: bool,
    /// Whether the entry is a quick match that waits: its pairing is a `Joined` that names no
    /// request, and a refusal at the pairing names none either.
    queued: bool,
}

/// Who waits for an entry.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) enum Purpose {
    /// The owner's create, join, quick match or spectate request, or its first hello with a
    /// token. `starts_match`: the answer starts the room's match (a join or a quick match),
    /// which the owner is told with [`crate::ClientEvent::MatchStarted`], as the creator is
    /// when its room fills.
    Owner { starts_match: bool },
    /// The core, taking the room back on a new connection.
    Resume,
}

impl Entry {
    pub(super) const fn new(id: RequestId, purpose: Purpose) -> Self {
        Self {
            id,
            purpose,
            joined: false,
            awaits_seat: false,
            queued: false,
        }
    }

    /// The entry of a hello with a resume token: the seat's `Joined` names no request.
    pub(super) const fn resuming(self) -> Self {
        Self {
            awaits_seat: true,
            ..self
        }
    }

    /// The entry, now a quick match that waits for its pairing.
    pub(super) const fn queued(self) -> Self {
        Self {
            queued: true,
            ..self
        }
    }

    /// Whether the entry is a quick match that waits for its pairing.
    pub(super) const fn is_queued(&self) -> bool {
        self.queued
    }

    /// Whether a `Joined` answering `id` is this entry's.
    pub(super) fn is_joined_by(&self, id: Option<RequestId>) -> bool {
        match id {
            Some(id) => id == self.id,
            None => self.awaits_seat || self.queued,
        }
    }
}
