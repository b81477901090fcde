//! The quick-match queue: the next two players who ask are paired.

use xq_protocol::RoomOptions;

use crate::ConnId;

/// Players waiting for a quick match. Pairing happens as the second player arrives, so at most
/// one ever waits.
#[derive(Debug, Default)]
pub(crate) struct QuickQueue {
    waiting: Option<(ConnId, RoomOptions)>,
}

impl QuickQueue {
    /// `conn` asks for a match: the player already waiting, with its options (the first
    /// player's options rule the room), or `None` if `conn` now waits itself.
    pub(crate) fn pair(
        &mut self,
        conn: ConnId,
        options: RoomOptions,
    ) -> Option<(ConnId, RoomOptions)> {
        let first = self.waiting.take();
        if first.is_none() {
            self.waiting = Some((conn, options));
        }
        first
    }

    /// `conn` no longer waits (it left or its connection failed).
    pub(crate) fn remove(&mut self, conn: ConnId) {
        if self.waiting.is_some_and(|(waiting, _)| waiting == conn) {
            self.waiting = None;
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn pairs_the_next_two_and_forgets_who_left() {
        let mut queue = QuickQueue::default();
        let options = RoomOptions::default();
        assert_eq!(queue.pair(ConnId(1), options), None);
        queue.remove(ConnId(2));
        assert_eq!(queue.pair(ConnId(3), options), Some((ConnId(1), options)));
        assert_eq!(queue.pair(ConnId(4), options), None);
        queue.remove(ConnId(4));
        assert_eq!(queue.pair(ConnId(5), options), None);
    }
}
