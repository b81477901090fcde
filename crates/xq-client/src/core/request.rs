//! The owner's entry into a room, from its request to the snapshot that completes it.

use xq_protocol::{ClientMsg, RequestId, RoomCode};

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
    /// What the entry asked for, when a relay may send it to another node
    /// ([`xq_protocol::ServerMsg::Redirect`]) to ask again there.
    ask: Option<Ask>,
    /// Whether a redirect sent the entry to another node, where it is asked again after the
    /// hello.
    unsent: bool,
}

/// A room request that a node of a relay cluster may redirect to the room's owner.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) enum Ask {
    /// Take the free seat of this room.
    Join(RoomCode),
    /// Watch this room.
    Spectate(RoomCode),
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
            ask: None,
            unsent: false,
        }
    }

    /// The entry of `ask`, which a redirect sends elsewhere to ask again.
    pub(super) const fn asking(self, ask: Ask) -> Self {
        Self {
            ask: Some(ask),
            ..self
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

    /// Whether a relay's redirect of the entry can be followed: the hello with a resume token
    /// repeats itself on the next connection, a join or spectate is asked again.
    pub(super) const fn is_redirectable(&self) -> bool {
        self.awaits_seat || self.ask.is_some()
    }

    /// Whether the entry is the owner's first hello with a resume token.
    pub(super) fn is_resume_hello(&self) -> bool {
        self.awaits_seat && matches!(self.purpose, Purpose::Owner { .. })
    }

    /// The entry, redirected: the join or spectate is to be asked again after the next hello.
    pub(super) const fn redirected(self) -> Self {
        Self {
            unsent: self.ask.is_some(),
            ..self
        }
    }

    /// The request to ask again on a new connection, once: the join or spectate a redirect
    /// sent here.
    pub(super) fn take_unsent(&mut self) -> Option<ClientMsg> {
        if !std::mem::take(&mut self.unsent) {
            return None;
        }
        self.ask.map(|ask| match ask {
            Ask::Join(code) => ClientMsg::JoinRoom { code },
            Ask::Spectate(code) => ClientMsg::Spectate { code },
        })
    }

    /// Whether a `Joined` answering `id` is this entry's.
    pub(super) fn is_joined_by(&self, id: Option<RequestId>) -> bool {
        match id {
            Some(id) => id == self.id,
            None => self.awaits_seat || self.queued,
        }
    }
}
