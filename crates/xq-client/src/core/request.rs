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
    /// Whether a `Joined` that names no request completes the entry too: the pairing of a
    /// quick match that waited, or the seat a resume hello takes back.
    awaits_pairing: bool,
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
            awaits_pairing: false,
        }
    }

    /// The entry, now also completed by a `Joined` that names no request.
    pub(super) const fn paired(self) -> Self {
        Self {
            awaits_pairing: true,
            ..self
        }
    }

    /// Whether a `Joined` that names no request completes the entry.
    pub(super) const fn awaits_pairing(&self) -> bool {
        self.awaits_pairing
    }

    /// Whether a `Joined` answering `id` is this entry's.
    pub(super) fn is_joined_by(&self, id: Option<RequestId>) -> bool {
        match id {
            Some(id) => id == self.id,
            None => self.awaits_pairing,
        }
    }
}
