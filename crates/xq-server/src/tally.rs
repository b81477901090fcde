//! Counts by key, for the caps per address.

use std::collections::HashMap;
use std::collections::hash_map::Entry;
use std::hash::Hash;

/// How many of something each key has. A key whose count falls to zero is forgotten, so that
/// keys seen once (an address that connected and left) cost nothing afterwards.
#[derive(Debug)]
pub(crate) struct Tally<K> {
    counts: HashMap<K, u32>,
}

impl<K: Eq + Hash> Tally<K> {
    /// The count of `key`.
    pub(crate) fn get(&self, key: &K) -> u32 {
        self.counts.get(key).copied().unwrap_or(0)
    }

    /// Counts one more for `key`.
    pub(crate) fn add(&mut self, key: K) {
        *self.counts.entry(key).or_default() += 1;
    }

    /// Counts one less for `key`, forgetting it at zero; a key not counted stays so.
    pub(crate) fn remove(&mut self, key: K) {
        if let Entry::Occupied(mut count) = self.counts.entry(key) {
            *count.get_mut() -= 1;
            if *count.get() == 0 {
                count.remove();
            }
        }
    }

    /// Whether no key is counted.
    #[cfg(test)]
    pub(crate) fn is_empty(&self) -> bool {
        self.counts.is_empty()
    }
}

impl<K> Default for Tally<K> {
    fn default() -> Self {
        Self {
            counts: HashMap::new(),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn counts_and_forgets_at_zero() {
        let mut tally = Tally::default();
        tally.add("a");
        tally.add("a");
        tally.remove("b");
        assert_eq!((tally.get(&"a"), tally.get(&"b")), (2, 0));
        tally.remove("a");
        tally.remove("a");
        tally.remove("a");
        assert_eq!(tally.get(&"a"), 0);
        assert!(tally.is_empty());
    }
}
