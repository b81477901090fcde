//! When each room next needs [`crate::Relay::handle_timeout`]: one ordered set for all rooms.

use std::collections::BTreeSet;

use xq_protocol::RoomCode;
use xq_session::Timestamp;

/// Every room's next deadline (a flag, or the end of a seat's grace period), earliest first.
/// Each room has at most one entry, replaced whenever the room changes, so the set stays as
/// small as the number of rooms with a clock running or a player away, and finding the next
/// deadline costs the same with ten rooms or ten thousand.
#[derive(Debug, Default)]
pub(crate) struct Deadlines {
    set: BTreeSet<(Timestamp, RoomCode)>,
}

impl Deadlines {
    /// Moves `code`'s entry from `*armed` to `next` and records `next` in `*armed`.
    pub(crate) fn rearm(
        &mut self,
        code: RoomCode,
        armed: &mut Option<Timestamp>,
        next: Option<Timestamp>,
    ) {
        if *armed == next {
            return;
        }
        if let Some(old) = armed.take() {
            self.set.remove(&(old, code));
        }
        if let Some(new) = next {
            self.set.insert((new, code));
        }
        *armed = next;
    }

    /// The earliest deadline.
    pub(crate) fn next(&self) -> Option<Timestamp> {
        self.set.first().map(|&(at, _)| at)
    }

    /// Takes out the earliest entry due by `now`; its room must be re-armed after handling.
    pub(crate) fn pop_due(&mut self, now: Timestamp) -> Option<RoomCode> {
        let &(at, _) = self.set.first()?;
        if at > now {
            return None;
        }
        self.set.pop_first().map(|(_, code)| code)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn keeps_one_entry_per_room_in_time_order() {
        let (a, b) = (RoomCode::from_u64(1), RoomCode::from_u64(2));
        let ms = Timestamp::from_millis;
        let mut deadlines = Deadlines::default();
        let (mut armed_a, mut armed_b) = (None, None);
        deadlines.rearm(a, &mut armed_a, Some(ms(50)));
        deadlines.rearm(b, &mut armed_b, Some(ms(30)));
        deadlines.rearm(a, &mut armed_a, Some(ms(10)));
        assert_eq!(deadlines.next(), Some(ms(10)));
        assert_eq!(deadlines.pop_due(ms(9)), None);
        assert_eq!(deadlines.pop_due(ms(40)), Some(a));
        assert_eq!(deadlines.pop_due(ms(40)), Some(b));
        assert_eq!(deadlines.pop_due(ms(99)), None);
        armed_b = None;
        deadlines.rearm(b, &mut armed_b, Some(ms(70)));
        deadlines.rearm(a, &mut armed_a, None);
        assert_eq!(deadlines.next(), Some(ms(70)));
    }
}
