//! Zobrist keys, generated at compile time from a fixed seed so hashes are stable across runs
//! and machines (they are stored in game records and compared across the network).

use crate::{Piece, Square};

const fn splitmix64(state: u64) -> (u64, u64) {
    let state = state.wrapping_add(0x9E37_79B9_7F4A_7C15);
    let mut z = state;
    z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
    z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
    (state, z ^ (z >> 31))
}

static PIECE_KEYS: [[u64; Square::COUNT]; 14] = {
    let mut keys = [[0; Square::COUNT]; 14];
    let mut state = 0x5851_F42D_4C95_7F2D;
    let mut piece = 0;
    while piece < 14 {
        let mut sq = 0;
        while sq < Square::COUNT {
            let (next, key) = splitmix64(state);
            state = next;
            keys[piece][sq] = key;
            sq += 1;
        }
        piece += 1;
    }
    keys
};

/// Folded into the hash when Black is to move.
pub(crate) const BLACK_TO_MOVE: u64 = splitmix64(0x1234_5678_9ABC_DEF0).1;

/// The key of `piece` standing on the square with index `square`.
#[inline]
pub(crate) fn piece_key(piece: Piece, square: u8) -> u64 {
    PIECE_KEYS[piece.index()][square as usize]
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::collections::HashSet;

    #[test]
    fn keys_are_distinct() {
        let keys: HashSet<u64> = PIECE_KEYS.iter().flatten().copied().collect();
        assert_eq!(keys.len(), 14 * Square::COUNT);
        assert!(!keys.contains(&BLACK_TO_MOVE));
    }
}
