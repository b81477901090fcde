//! Every connection the relay serves, where each stands, and the lobby's idle timer: how long
//! each has stood in no room.

use std::cmp::Reverse;
use std::collections::{BinaryHeap, HashMap};
use std::sync::Arc;
use std::time::Duration;

use xq_session::Timestamp;

use crate::conn::{Conn, Place};
use crate::{ConnId, RateLimit};

/// The connections, and the timer that sends away those idle in the lobby for
/// [`crate::Config::lobby_timeout`].
#[derive(Debug)]
pub(crate) struct Lobby {
    conns: HashMap<ConnId, Conn>,
    /// When to look again at connections in the lobby, earliest first: at most one entry per
    /// connection (`Conn::lobby_armed`), so leaving rooms in a loop does not grow it.
    idle: BinaryHeap<Reverse<(Timestamp, ConnId)>>,
    timeout: Duration,
}

impl Lobby {
    /// No connections; one in the lobby for `timeout` is idle.
    pub(crate) fn new(timeout: Duration) -> Self {
        Self {
            conns: HashMap::new(),
            idle: BinaryHeap::new(),
            timeout,
        }
    }

    /// How many connections there are.
    pub(crate) fn len(&self) -> usize {
        self.conns.len()
    }

    /// `conn` connected at `now`, by `transport`; it starts in the lobby.
    pub(crate) fn connect(
        &mut self,
        now: Timestamp,
        conn: ConnId,
        transport: Arc<str>,
        rate_limit: RateLimit,
    ) {
        self.conns
            .insert(conn, Conn::new(now, transport, rate_limit));
        self.idle.push(Reverse((now + self.timeout, conn)));
    }

    pub(crate) fn get(&self, conn: ConnId) -> Option<&Conn> {
        self.conns.get(&conn)
    }

    pub(crate) fn get_mut(&mut self, conn: ConnId) -> Option<&mut Conn> {
        self.conns.get_mut(&conn)
    }

    /// Forgets `conn`, giving back what was known of it.
    pub(crate) fn remove(&mut self, conn: ConnId) -> Option<Conn> {
        self.conns.remove(&conn)
    }

    /// Forgets every connection, giving them back, and stops the timer.
    pub(crate) fn drain(&mut self) -> impl Iterator<Item = (ConnId, Conn)> + '_ {
        self.idle.clear();
        self.conns.drain()
    }

    /// Where `conn` stands; the lobby for a connection not known.
    pub(crate) fn place(&self, conn: ConnId) -> Place {
        self.conns
            .get(&conn)
            .map_or(Place::Lobby, |state| state.place)
    }

    /// Moves `conn` to `place`; to come back to the lobby, see [`enter`](Self::enter).
    pub(crate) fn set_place(&mut self, conn: ConnId, place: Place) {
        if let Some(state) = self.conns.get_mut(&conn) {
            state.place = place;
        }
    }

    /// Puts `conn` back in the lobby, its idle time counting from `now`.
    pub(crate) fn enter(&mut self, now: Timestamp, conn: ConnId) {
        if let Some(state) = self.conns.get_mut(&conn) {
            state.place = Place::Lobby;
            state.lobby_since = now;
            if !state.lobby_armed {
                state.lobby_armed = true;
                self.idle.push(Reverse((now + self.timeout, conn)));
            }
        }
    }

    /// The next connection idle in the lobby by `now`, which the caller is to close and
    /// [`remove`](Self::remove).
    pub(crate) fn pop_idle(&mut self, now: Timestamp) -> Option<ConnId> {
        while let Some(&Reverse((due, conn))) = self.idle.peek()
            && due <= now
        {
            self.idle.pop();
            let Some(state) = self.conns.get_mut(&conn) else {
                continue;
            };
            let idle_until = state.lobby_since + self.timeout;
            if state.place != Place::Lobby {
                // Armed again if it comes back ([`Self::enter`]).
                state.lobby_armed = false;
            } else if idle_until > now {
                // It left a room since this entry was made.
                self.idle.push(Reverse((idle_until, conn)));
            } else {
                return Some(conn);
            }
        }
        None
    }

    /// When [`pop_idle`](Self::pop_idle) has something to do next.
    pub(crate) fn next_timeout(&self) -> Option<Timestamp> {
        self.idle.peek().map(|&Reverse((due, _))| due)
    }
}

#[cfg(test)]
mod tests {
    use xq_protocol::RoomCode;

    use super::*;

    /// Leaving rooms in a loop keeps one lobby timer entry per connection, and the timer still
    /// counts from the last leave.
    #[test]
    fn the_lobby_timer_holds_one_entry_per_connection() {
        let timeout = Duration::from_secs(60);
        let mut lobby = Lobby::new(timeout);
        let mut now = Timestamp::from_millis(0);
        let (creator, watcher) = (ConnId(1), ConnId(2));
        for conn in [creator, watcher] {
            lobby.connect(now, conn, Arc::from("mem"), RateLimit::default());
        }
        let code = RoomCode::from_u64(1);
        let seat = xq_session::Seat::First;
        lobby.set_place(creator, Place::Player { code, seat });
        // For longer than the timeout, so entries fall due meanwhile; the relay looks at the
        // timer before each request.
        for _ in 0..300 {
            now = now + Duration::from_millis(500);
            assert_eq!(lobby.pop_idle(now), None);
            lobby.set_place(watcher, Place::Spectator { code });
            assert_eq!(lobby.pop_idle(now), None);
            lobby.enter(now, watcher);
        }
        // The watcher's entry; the creator's went once it was found in its room.
        assert_eq!(lobby.idle.len(), 1);
        let left = now;
        let just_before = left + (timeout - Duration::from_millis(1));
        assert_eq!(lobby.pop_idle(just_before), None);
        assert_eq!(lobby.pop_idle(left + timeout), Some(watcher));
    }
}
