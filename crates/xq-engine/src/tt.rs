//! The transposition table: what earlier searches found about a position, by Zobrist hash.

use xq_rules::{Move, Square};

/// What a stored score says about the true one.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Bound {
    /// The true score is at least this (the search failed high).
    Lower = 1,
    /// The true score is at most this (no move reached alpha).
    Upper = 2,
    /// The true score.
    Exact = 3,
}

/// One stored search result.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) struct Hit {
    /// The best move found, if any was.
    pub(crate) mv: Option<Move>,
    /// The score in table terms ([`crate::score::to_table`]).
    pub(crate) score: i32,
    /// The static evaluation of the position.
    pub(crate) eval: i32,
    /// The depth searched.
    pub(crate) depth: i32,
    pub(crate) bound: Bound,
}

/// A fixed-size table of one-slot buckets, replaced by depth and age. Each slot is the full
/// hash and a packed word, so a lookup confirms the whole key.
#[derive(Clone, Debug)]
pub(crate) struct Table {
    slots: Vec<[u64; 2]>,
    generation: u8,
}

impl Table {
    /// A table of about `mib` mebibytes (a power of two slots, at least 1024).
    pub(crate) fn new(mib: usize) -> Self {
        let wanted = (mib.max(1) << 20) / size_of::<[u64; 2]>();
        let slots = 1usize << (usize::BITS - 1 - wanted.max(1024).leading_zeros());
        Self {
            slots: vec![[0; 2]; slots],
            generation: 0,
        }
    }

    /// Forgets everything.
    pub(crate) fn clear(&mut self) {
        self.slots.fill([0; 2]);
        self.generation = 0;
    }

    /// Starts a new search: older entries become cheaper to replace.
    pub(crate) const fn age(&mut self) {
        self.generation = (self.generation + 1) & 63;
    }

    const fn index(&self, key: u64) -> usize {
        (key as usize) & (self.slots.len() - 1)
    }

    pub(crate) fn probe(&self, key: u64) -> Option<Hit> {
        let [stored, data] = self.slots[self.index(key)];
        (stored == key && data != 0).then(|| unpack(data))
    }

    pub(crate) fn store(&mut self, key: u64, hit: Hit) {
        let index = self.index(key);
        let [stored, data] = self.slots[index];
        if data != 0 && stored != key {
            let old = unpack(data);
            let old_generation = ((data >> 58) & 63) as u8;
            if old_generation == self.generation && old.depth > hit.depth + 2 {
                return;
            }
        }
        let mut hit = hit;
        if hit.mv.is_none() && stored == key && data != 0 {
            hit.mv = unpack(data).mv;
        }
        self.slots[index] = [key, pack(hit, self.generation)];
    }
}

fn pack(hit: Hit, generation: u8) -> u64 {
    let mv = hit.mv.map_or(0, |mv| {
        1 + u64::from(mv.from.index()) * 90 + u64::from(mv.to.index())
    });
    mv | (u64::from(hit.score as i16 as u16) << 16)
        | (u64::from(hit.eval as i16 as u16) << 32)
        | (u64::from((hit.depth.clamp(-1, 126) + 1) as u8) << 48)
        | ((hit.bound as u64) << 56)
        | (u64::from(generation) << 58)
}

fn unpack(data: u64) -> Hit {
    let mv = (data & 0xFFFF) as u16;
    let mv = (mv != 0).then(|| {
        let n = mv - 1;
        Square::from_index((n / 90) as u8).zip(Square::from_index((n % 90) as u8))
    });
    let bound = match (data >> 56) & 3 {
        1 => Bound::Lower,
        2 => Bound::Upper,
        _ => Bound::Exact,
    };
    Hit {
        mv: mv.flatten().map(|(from, to)| Move::new(from, to)),
        score: i32::from((data >> 16) as u16 as i16),
        eval: i32::from((data >> 32) as u16 as i16),
        depth: i32::from((data >> 48) as u8) - 1,
        bound,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn entries_round_trip() {
        let mut table = Table::new(1);
        let hit = Hit {
            mv: Some(Move::new(Square::H2, Square::E2)),
            score: -29_990,
            eval: 35,
            depth: 7,
            bound: Bound::Lower,
        };
        table.store(0xDEAD_BEEF, hit);
        assert_eq!(table.probe(0xDEAD_BEEF), Some(hit));
        assert_eq!(table.probe(0xDEAD_BEEE), None);
        let shallow = Hit {
            mv: None,
            depth: 0,
            bound: Bound::Exact,
            ..hit
        };
        table.store(0xDEAD_BEEF, shallow);
        // The same position keeps its move when the new result has none.
        assert_eq!(table.probe(0xDEAD_BEEF).and_then(|hit| hit.mv), hit.mv);
        table.clear();
        assert_eq!(table.probe(0xDEAD_BEEF), None);
    }
}
