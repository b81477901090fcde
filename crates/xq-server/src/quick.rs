//! The quick-match queue: two players who ask for the same kind of game are paired.

use std::collections::HashMap;

use xq_protocol::RoomOptions;
use xq_session::{RepetitionRule, TimeControl, UndoPolicy};

use crate::ConnId;

/// What a quick-match player asks for: the room options that make the game (the seat is drawn).
type Kind = (TimeControl, UndoPolicy, RepetitionRule);

/// Players waiting for a quick match, at most one per kind of game. A player is paired only
/// with one who asked for the same clocks, undo policy and repetition rule, so nobody is drawn
/// into a game they did not ask for (such as one-second clocks).
#[derive(Debug, Default)]
pub(crate) struct QuickQueue {
    waiting: HashMap<Kind, ConnId>,
    /// What each waiting player asked for.
    kinds: HashMap<ConnId, Kind>,
}

impl QuickQueue {
    /// `conn` asks for a match: the player already waiting for the same kind of game, or
    /// `None` if `conn` now waits itself.
    pub(crate) fn pair(&mut self, conn: ConnId, options: RoomOptions) -> Option<ConnId> {
        let kind = (options.time_control, options.undo, options.repetition);
        let first = self.waiting.remove(&kind);
        match first {
            Some(first) => {
                self.kinds.remove(&first);
            }
            None => {
                self.waiting.insert(kind, conn);
                self.kinds.insert(conn, kind);
            }
        }
        first
    }

    /// `conn` no longer waits (it left or its connection failed).
    pub(crate) fn remove(&mut self, conn: ConnId) {
        if let Some(kind) = self.kinds.remove(&conn) {
            self.waiting.remove(&kind);
        }
    }
}

#[cfg(test)]
mod tests {
    use std::time::Duration;

    use super::*;

    #[test]
    fn pairs_the_next_two_and_forgets_who_left() {
        let mut queue = QuickQueue::default();
        let options = RoomOptions::default();
        assert_eq!(queue.pair(ConnId(1), options), None);
        queue.remove(ConnId(2));
        assert_eq!(queue.pair(ConnId(3), options), Some(ConnId(1)));
        assert_eq!(queue.pair(ConnId(4), options), None);
        queue.remove(ConnId(4));
        assert_eq!(queue.pair(ConnId(5), options), None);
    }

    #[test]
    fn pairs_only_players_who_asked_for_the_same_game() {
        let mut queue = QuickQueue::default();
        let blitz = RoomOptions {
            time_control: TimeControl::Increment {
                base: Duration::from_secs(180),
                increment: Duration::from_secs(2),
            },
            ..RoomOptions::default()
        };
        let no_undo = RoomOptions {
            undo: UndoPolicy::Forbidden,
            ..RoomOptions::default()
        };
        let checks_only = RoomOptions {
            repetition: RepetitionRule::ChecksOnly,
            ..RoomOptions::default()
        };
        assert_eq!(queue.pair(ConnId(1), blitz), None);
        assert_eq!(queue.pair(ConnId(2), RoomOptions::default()), None);
        assert_eq!(queue.pair(ConnId(3), no_undo), None);
        assert_eq!(queue.pair(ConnId(7), checks_only), None);
        // The seat is drawn, so asking for one does not make another kind of game.
        let red = RoomOptions {
            seat: xq_protocol::SeatChoice::Red,
            ..blitz
        };
        assert_eq!(queue.pair(ConnId(4), red), Some(ConnId(1)));
        assert_eq!(queue.pair(ConnId(5), no_undo), Some(ConnId(3)));
        queue.remove(ConnId(2));
        assert_eq!(queue.pair(ConnId(6), RoomOptions::default()), None);
        assert_eq!(queue.pair(ConnId(8), checks_only), Some(ConnId(7)));
        assert!(queue.kinds.len() == 1 && queue.waiting.len() == 1);
    }
}
