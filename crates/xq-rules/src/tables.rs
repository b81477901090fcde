//! Move and attack masks, computed at compile time.
//!
//! Every table is indexed by square index (`rank * 9 + file`) and holds bitboards: bit `n` is
//! the square with index `n`, as in [`crate::SquareSet`]. Steps that would leave the board are
//! simply absent from a mask, so the hot loops need no bounds arithmetic.

use crate::Color;

/// One blockable step pattern: the squares in `to` can be reached only while `block` (a single
/// square: a horse's leg, an elephant's eye) is empty. Off-board patterns have both masks empty.
#[derive(Clone, Copy)]
pub(crate) struct Hop {
    pub(crate) block: u128,
    pub(crate) to: u128,
}

impl Hop {
    const NONE: Self = Self { block: 0, to: 0 };
}

/// The ray directions, in [`RAYS`] order. The first two run towards higher indices, so the
/// nearest piece on them is the lowest set bit; the last two run towards lower indices.
pub(crate) const UP: usize = 0;
/// Towards file `i`.
pub(crate) const RIGHT: usize = 1;
/// Towards rank 0.
pub(crate) const DOWN: usize = 2;
/// Towards file `a`.
pub(crate) const LEFT: usize = 3;

/// Unit steps (file delta, rank delta) of the ray directions, indexed by [`UP`], [`RIGHT`],
/// [`DOWN`] and [`LEFT`].
const ORTHO: [(i32, i32); 4] = {
    let mut steps = [(0, 0); 4];
    steps[UP] = (0, 1);
    steps[RIGHT] = (1, 0);
    steps[DOWN] = (0, -1);
    steps[LEFT] = (-1, 0);
    steps
};
const DIAG: [(i32, i32); 4] = [(1, 1), (1, -1), (-1, 1), (-1, -1)];

const fn at(sq: usize, df: i32, dr: i32) -> Option<usize> {
    let file = (sq % 9) as i32 + df;
    let rank = (sq / 9) as i32 + dr;
    if file >= 0 && file < 9 && rank >= 0 && rank < 10 {
        Some((rank * 9 + file) as usize)
    } else {
        None
    }
}

const fn bit_at(sq: usize, df: i32, dr: i32) -> u128 {
    match at(sq, df, dr) {
        Some(s) => 1 << s,
        None => 0,
    }
}

const fn in_palace(sq: usize) -> bool {
    let file = sq % 9;
    let rank = sq / 9;
    file >= 3 && file <= 5 && (rank <= 2 || rank >= 7)
}

/// The squares from each point to the edge in each direction, the point itself left out.
pub(crate) static RAYS: [[u128; 4]; 90] = {
    let mut t = [[0; 4]; 90];
    let mut sq = 0;
    while sq < 90 {
        let mut d = 0;
        while d < 4 {
            let mut k = 1;
            while let Some(s) = at(sq, ORTHO[d].0 * k, ORTHO[d].1 * k) {
                t[sq][d] |= 1 << s;
                k += 1;
            }
            d += 1;
        }
        sq += 1;
    }
    t
};

/// Horse moves by leg: for each orthogonal neighbour (the leg), the two points beyond it.
pub(crate) static HORSE_MOVES: [[Hop; 4]; 90] = {
    let mut t = [[Hop::NONE; 4]; 90];
    let mut sq = 0;
    while sq < 90 {
        let mut d = 0;
        while d < 4 {
            let (lf, lr) = ORTHO[d];
            let leg = bit_at(sq, lf, lr);
            if leg != 0 {
                // The two diagonal continuations away from the origin.
                let to = if lf == 0 {
                    bit_at(sq, 1, 2 * lr) | bit_at(sq, -1, 2 * lr)
                } else {
                    bit_at(sq, 2 * lf, 1) | bit_at(sq, 2 * lf, -1)
                };
                t[sq][d] = Hop { block: leg, to };
            }
            d += 1;
        }
        sq += 1;
    }
    t
};

/// The horses that could attack each square, by leg: each diagonal neighbour is the leg of the
/// two horse points just beyond it.
pub(crate) static HORSE_ATTACKS: [[Hop; 4]; 90] = {
    let mut t = [[Hop::NONE; 4]; 90];
    let mut sq = 0;
    while sq < 90 {
        let mut d = 0;
        while d < 4 {
            let (df, dr) = DIAG[d];
            let leg = bit_at(sq, df, dr);
            if leg != 0 {
                t[sq][d] = Hop {
                    block: leg,
                    to: bit_at(sq, 2 * df, dr) | bit_at(sq, df, 2 * dr),
                };
            }
            d += 1;
        }
        sq += 1;
    }
    t
};

/// Elephant moves by eye; destinations across the river are left out.
pub(crate) static ELEPHANT_MOVES: [[Hop; 4]; 90] = {
    let mut t = [[Hop::NONE; 4]; 90];
    let mut sq = 0;
    while sq < 90 {
        let red_half = sq / 9 < 5;
        let mut d = 0;
        while d < 4 {
            let (df, dr) = DIAG[d];
            if let Some(to) = at(sq, 2 * df, 2 * dr)
                && (to / 9 < 5) == red_half
            {
                t[sq][d] = Hop {
                    block: bit_at(sq, df, dr),
                    to: 1 << to,
                };
            }
            d += 1;
        }
        sq += 1;
    }
    t
};

/// Advisor moves: one point diagonally, staying in the palace.
pub(crate) static ADVISOR_MOVES: [u128; 90] = palace_steps(DIAG);

/// General moves: one point orthogonally, staying in the palace.
pub(crate) static GENERAL_MOVES: [u128; 90] = palace_steps(ORTHO);

const fn palace_steps(dirs: [(i32, i32); 4]) -> [u128; 90] {
    let mut t = [0; 90];
    let mut sq = 0;
    while sq < 90 {
        if in_palace(sq) {
            let mut d = 0;
            while d < 4 {
                if let Some(to) = at(sq, dirs[d].0, dirs[d].1)
                    && in_palace(to)
                {
                    t[sq] |= 1 << to;
                }
                d += 1;
            }
        }
        sq += 1;
    }
    t
}

/// Soldier moves for each colour: forward, plus sideways once across the river.
pub(crate) static SOLDIER_MOVES: [[u128; 90]; 2] =
    [soldier_moves(Color::Red), soldier_moves(Color::Black)];

const fn soldier_moves(color: Color) -> [u128; 90] {
    let mut t = [0; 90];
    let forward = match color {
        Color::Red => 1,
        Color::Black => -1,
    };
    let mut sq = 0;
    while sq < 90 {
        t[sq] = bit_at(sq, 0, forward);
        let crossed = match color {
            Color::Red => sq / 9 >= 5,
            Color::Black => sq / 9 <= 4,
        };
        if crossed {
            t[sq] |= bit_at(sq, -1, 0) | bit_at(sq, 1, 0);
        }
        sq += 1;
    }
    t
}

/// For each colour and square, the points from which one of that colour's soldiers attacks it.
pub(crate) static SOLDIER_ATTACKS: [[u128; 90]; 2] = [
    soldier_attackers(&soldier_moves(Color::Red)),
    soldier_attackers(&soldier_moves(Color::Black)),
];

const fn soldier_attackers(moves: &[u128; 90]) -> [u128; 90] {
    let mut t = [0; 90];
    let mut from = 0;
    while from < 90 {
        let mut to = 0;
        while to < 90 {
            if moves[from] & (1 << to) != 0 {
                t[to] |= 1 << from;
            }
            to += 1;
        }
        from += 1;
    }
    t
}

#[cfg(test)]
mod tests {
    use super::*;

    fn bit(name: &str) -> u128 {
        name.parse::<crate::Square>()
            .map_or(0, |sq| 1 << sq.index())
    }

    fn sq(name: &str) -> usize {
        name.parse::<crate::Square>()
            .map_or(usize::MAX, |sq| sq.index() as usize)
    }

    fn targets(hops: &[Hop; 4]) -> u32 {
        hops.iter().map(|h| h.to.count_ones()).sum()
    }

    #[test]
    fn corner_horse_has_two_moves_with_legs() {
        let hops = HORSE_MOVES[sq("a0")];
        assert_eq!(targets(&hops), 2);
        let up = hops[UP];
        assert_eq!((up.block, up.to), (bit("a1"), bit("b2")));
        let right = hops[RIGHT];
        assert_eq!((right.block, right.to), (bit("b0"), bit("c1")));
        assert_eq!(targets(&HORSE_MOVES[sq("e4")]), 8);
    }

    #[test]
    fn elephants_and_advisors_have_their_points() {
        assert_eq!(
            targets(&ELEPHANT_MOVES[sq("c4")]),
            2,
            "never across the river"
        );
        assert_eq!(targets(&ELEPHANT_MOVES[sq("e2")]), 4);
        assert_eq!(ADVISOR_MOVES[sq("e1")].count_ones(), 4);
        assert_eq!(ADVISOR_MOVES[sq("d0")].count_ones(), 1);
        assert_eq!(GENERAL_MOVES[sq("e1")].count_ones(), 4);
        assert_eq!(GENERAL_MOVES[sq("d9")].count_ones(), 2);
    }

    #[test]
    fn soldiers_gain_sideways_steps_across_the_river() {
        assert_eq!(SOLDIER_MOVES[0][sq("e3")].count_ones(), 1);
        assert_eq!(SOLDIER_MOVES[0][sq("e5")].count_ones(), 3);
        assert_eq!(
            SOLDIER_MOVES[0][sq("a9")],
            bit("b9"),
            "last rank: sideways only"
        );
        assert_eq!(SOLDIER_MOVES[1][sq("e6")].count_ones(), 1);
        assert_eq!(SOLDIER_MOVES[1][sq("e4")].count_ones(), 3);
        assert_eq!(
            SOLDIER_ATTACKS[0][sq("e6")],
            bit("e5") | bit("d6") | bit("f6")
        );
    }

    #[test]
    fn rays_run_to_the_edge() {
        assert_eq!(RAYS[sq("a0")][UP].count_ones(), 9);
        assert_eq!(RAYS[sq("a0")][RIGHT].count_ones(), 8);
        assert_eq!(RAYS[sq("a0")][DOWN] | RAYS[sq("a0")][LEFT], 0);
        assert_eq!(RAYS[sq("i9")][LEFT].count_ones(), 8);
        assert_eq!(
            RAYS[sq("e4")][DOWN],
            bit("e3") | bit("e2") | bit("e1") | bit("e0")
        );
    }

    #[test]
    fn horse_attacks_mirror_horse_moves() {
        for (from, hops) in HORSE_MOVES.iter().enumerate() {
            for hop in hops {
                for (to, attacks) in HORSE_ATTACKS.iter().enumerate() {
                    if hop.to & (1 << to) == 0 {
                        continue;
                    }
                    let found = attacks
                        .iter()
                        .any(|a| a.block == hop.block && a.to & (1 << from) != 0);
                    assert!(found, "horse {from} -> {to}");
                }
            }
        }
    }
}
