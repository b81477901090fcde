//! The places for connections that are not upgraded yet, bounded per address and in all.

use std::collections::HashMap;
use std::collections::hash_map::Entry;
use std::net::IpAddr;
use std::sync::{Arc, Mutex, MutexGuard, PoisonError};

/// The table of places. A connection takes one at accept, before anything is read from it,
/// and holds it until it is upgraded and handed out or closed; one that finds none is closed
/// at once, which costs nothing.
#[derive(Debug, Clone)]
pub(crate) struct Slots(Arc<Mutex<Table>>);

#[derive(Debug)]
struct Table {
    max: usize,
    max_per_address: usize,
    taken: usize,
    per_address: HashMap<IpAddr, usize>,
}

/// A place held by a connection from `ip`, given back when dropped.
#[derive(Debug)]
pub(crate) struct Slot {
    table: Arc<Mutex<Table>>,
    ip: IpAddr,
}

impl Slots {
    /// `max` places in all, `max_per_address` of them for one address.
    pub(crate) fn new(max: usize, max_per_address: usize) -> Self {
        Self(Arc::new(Mutex::new(Table {
            max,
            max_per_address,
            taken: 0,
            per_address: HashMap::new(),
        })))
    }

    /// A place for a connection from `ip`, if its address and the table have room. A refusal
    /// leaves no entry behind.
    pub(crate) fn take(&self, ip: IpAddr) -> Option<Slot> {
        let mut table = lock(&self.0);
        if table.taken >= table.max
            || table.per_address.get(&ip).copied().unwrap_or(0) >= table.max_per_address
        {
            return None;
        }
        table.taken += 1;
        *table.per_address.entry(ip).or_default() += 1;
        Some(Slot {
            table: Arc::clone(&self.0),
            ip,
        })
    }
}

impl Drop for Slot {
    fn drop(&mut self) {
        let mut table = lock(&self.table);
        table.taken -= 1;
        if let Entry::Occupied(mut count) = table.per_address.entry(self.ip) {
            *count.get_mut() -= 1;
            if *count.get() == 0 {
                count.remove();
            }
        }
    }
}

/// Every update of the table is one step, so a panic cannot leave it half-done.
fn lock(table: &Mutex<Table>) -> MutexGuard<'_, Table> {
    table.lock().unwrap_or_else(PoisonError::into_inner)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn each_address_and_the_table_are_bounded() {
        let slots = Slots::new(3, 2);
        let (a, b, c) = (
            IpAddr::from([10, 0, 0, 1]),
            IpAddr::from([10, 0, 0, 2]),
            IpAddr::from([10, 0, 0, 3]),
        );
        let first = slots.take(a);
        let _second = slots.take(a).unwrap_or_else(|| panic!("a's second place"));
        assert!(first.is_some() && slots.take(a).is_none());
        let _third = slots.take(b).unwrap_or_else(|| panic!("b's place"));
        assert!(slots.take(c).is_none(), "the table is full");
        drop(first);
        assert!(slots.take(c).is_some());
    }

    #[test]
    fn places_given_back_leave_nothing_behind() {
        let slots = Slots::new(10, 1);
        for host in 0..100 {
            let slot = slots.take(IpAddr::from([10, 0, 0, host]));
            assert!(slot.is_some());
        }
        let table = lock(&slots.0);
        assert_eq!(table.taken, 0);
        assert!(table.per_address.is_empty());
    }
}
