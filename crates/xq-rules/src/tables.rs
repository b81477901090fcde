//! Move and attack tables, computed at compile time.
//!
//! Every table is indexed by square index (`rank * 9 + file`). Entries use [`NONE`] where a step
//! leaves the board, so the hot loops need no bounds arithmetic.

use crate::Color;

/// Marks an empty slot in a table.
pub(crate) const NONE: u8 = u8::MAX;

/// Up to `N` destinations, each with the square that must be empty for the step (a horse's leg,
/// an elephant's eye; unused for other pieces).
#[derive(Clone, Copy)]
pub(crate) struct Steps<const N: usize> {
    pub(crate) to: [u8; N],
    pub(crate) via: [u8; N],
    pub(crate) len: u8,
}

impl<const N: usize> Steps<N> {
    const EMPTY: Self = Self {
        to: [NONE; N],
        via: [NONE; N],
        len: 0,
    };

    const fn push(mut self, to: u8, via: u8) -> Self {
        self.to[self.len as usize] = to;
        self.via[self.len as usize] = via;
        self.len += 1;
        self
    }
}

/// The squares from one point to the edge in one direction, nearest first.
#[derive(Clone, Copy)]
pub(crate) struct Ray {
    pub(crate) squares: [u8; 9],
    pub(crate) len: u8,
}

/// A horse that could attack a square: `leg` must be empty for either of `horses` to reach it.
#[derive(Clone, Copy)]
pub(crate) struct HorseCheck {
    pub(crate) leg: u8,
    pub(crate) horses: [u8; 2],
}

const fn at(sq: usize, df: i32, dr: i32) -> u8 {
    let file = (sq % 9) as i32 + df;
    let rank = (sq / 9) as i32 + dr;
    if file >= 0 && file < 9 && rank >= 0 && rank < 10 {
        (rank * 9 + file) as u8
    } else {
        NONE
    }
}

const fn in_palace(sq: u8) -> bool {
    let file = sq % 9;
    let rank = sq / 9;
    file >= 3 && file <= 5 && (rank <= 2 || rank >= 7)
}

/// The orthogonal directions (file delta, rank delta): up, down, left, right.
const ORTHO: [(i32, i32); 4] = [(0, 1), (0, -1), (-1, 0), (1, 0)];
const DIAG: [(i32, i32); 4] = [(1, 1), (1, -1), (-1, 1), (-1, -1)];

/// Rays in the four orthogonal directions (up, down, left, right).
pub(crate) static RAYS: [[Ray; 4]; 90] = {
    let mut t = [[Ray {
        squares: [NONE; 9],
        len: 0,
    }; 4]; 90];
    let mut sq = 0;
    while sq < 90 {
        let mut d = 0;
        while d < 4 {
            let mut k = 1;
            loop {
                let s = at(sq, ORTHO[d].0 * k, ORTHO[d].1 * k);
                if s == NONE {
                    break;
                }
                t[sq][d].squares[t[sq][d].len as usize] = s;
                t[sq][d].len += 1;
                k += 1;
            }
            d += 1;
        }
        sq += 1;
    }
    t
};

/// Horse moves: destination with its leg (the orthogonal neighbour on the long side).
pub(crate) static HORSE: [Steps<8>; 90] = {
    let mut t = [Steps::EMPTY; 90];
    let mut sq = 0;
    while sq < 90 {
        let mut d = 0;
        while d < 4 {
            let (lf, lr) = ORTHO[d];
            let leg = at(sq, lf, lr);
            if leg != NONE {
                // The two diagonal continuations away from the origin.
                let (a, b) = if lf == 0 {
                    ((1, lr), (-1, lr))
                } else {
                    ((lf, 1), (lf, -1))
                };
                let to_a = at(sq, lf + a.0, lr + a.1);
                if to_a != NONE {
                    t[sq] = t[sq].push(to_a, leg);
                }
                let to_b = at(sq, lf + b.0, lr + b.1);
                if to_b != NONE {
                    t[sq] = t[sq].push(to_b, leg);
                }
            }
            d += 1;
        }
        sq += 1;
    }
    t
};

/// For each square, the horses that could attack it: each diagonal neighbour is the leg of the
/// two horse points just beyond it.
pub(crate) static HORSE_CHECKS: [[HorseCheck; 4]; 90] = {
    let mut t = [[HorseCheck {
        leg: NONE,
        horses: [NONE; 2],
    }; 4]; 90];
    let mut sq = 0;
    while sq < 90 {
        let mut d = 0;
        while d < 4 {
            let (df, dr) = DIAG[d];
            let leg = at(sq, df, dr);
            if leg != NONE {
                t[sq][d] = HorseCheck {
                    leg,
                    horses: [at(sq, 2 * df, dr), at(sq, df, 2 * dr)],
                };
            }
            d += 1;
        }
        sq += 1;
    }
    t
};

/// Elephant moves with their eyes; destinations across the river are left out.
pub(crate) static ELEPHANT: [Steps<4>; 90] = {
    let mut t = [Steps::EMPTY; 90];
    let mut sq = 0;
    while sq < 90 {
        let red_half = sq / 9 < 5;
        let mut d = 0;
        while d < 4 {
            let (df, dr) = DIAG[d];
            let to = at(sq, 2 * df, 2 * dr);
            if to != NONE && ((to / 9) < 5) == red_half {
                t[sq] = t[sq].push(to, at(sq, df, dr));
            }
            d += 1;
        }
        sq += 1;
    }
    t
};

/// Advisor moves: one point diagonally, staying in the palace.
pub(crate) static ADVISOR: [Steps<4>; 90] = palace_steps(DIAG);

/// General moves: one point orthogonally, staying in the palace.
pub(crate) static GENERAL: [Steps<4>; 90] = palace_steps(ORTHO);

const fn palace_steps(dirs: [(i32, i32); 4]) -> [Steps<4>; 90] {
    let mut t = [Steps::EMPTY; 90];
    let mut sq = 0;
    while sq < 90 {
        if in_palace(sq as u8) {
            let mut d = 0;
            while d < 4 {
                let to = at(sq, dirs[d].0, dirs[d].1);
                if to != NONE && in_palace(to) {
                    t[sq] = t[sq].push(to, NONE);
                }
                d += 1;
            }
        }
        sq += 1;
    }
    t
}

/// Soldier moves for each colour: forward, plus sideways once across the river.
pub(crate) static SOLDIER: [[Steps<3>; 90]; 2] =
    [soldier_steps(Color::Red), soldier_steps(Color::Black)];

const fn soldier_steps(color: Color) -> [Steps<3>; 90] {
    let mut t = [Steps::EMPTY; 90];
    let forward = match color {
        Color::Red => 1,
        Color::Black => -1,
    };
    let mut sq = 0;
    while sq < 90 {
        let to = at(sq, 0, forward);
        if to != NONE {
            t[sq] = t[sq].push(to, NONE);
        }
        let crossed = match color {
            Color::Red => sq / 9 >= 5,
            Color::Black => sq / 9 <= 4,
        };
        if crossed {
            let left = at(sq, -1, 0);
            if left != NONE {
                t[sq] = t[sq].push(left, NONE);
            }
            let right = at(sq, 1, 0);
            if right != NONE {
                t[sq] = t[sq].push(right, NONE);
            }
        }
        sq += 1;
    }
    t
}

/// For each colour and square, the points from which one of that colour's soldiers attacks it.
pub(crate) static SOLDIER_ATTACKERS: [[Steps<3>; 90]; 2] = [
    soldier_attackers(&soldier_steps(Color::Red)),
    soldier_attackers(&soldier_steps(Color::Black)),
];

const fn soldier_attackers(moves: &[Steps<3>; 90]) -> [Steps<3>; 90] {
    let mut t = [Steps::EMPTY; 90];
    let mut from = 0;
    while from < 90 {
        let mut i = 0;
        while i < moves[from].len as usize {
            let to = moves[from].to[i] as usize;
            t[to] = t[to].push(from as u8, NONE);
            i += 1;
        }
        from += 1;
    }
    t
}

/// The squares on the same file or rank as each square (including it): a move touching them can
/// open or close a chariot, cannon or flying-general line to a general standing there.
pub(crate) static LINES: [u128; 90] = {
    let mut t = [0u128; 90];
    let mut sq = 0;
    while sq < 90 {
        let mut other = 0;
        while other < 90 {
            if other % 9 == sq % 9 || other / 9 == sq / 9 {
                t[sq] |= 1 << other;
            }
            other += 1;
        }
        sq += 1;
    }
    t
};

/// The diagonal neighbours of each square: the legs of every horse that could attack it.
pub(crate) static DIAGONAL_NEIGHBOURS: [u128; 90] = {
    let mut t = [0u128; 90];
    let mut sq = 0;
    while sq < 90 {
        let mut d = 0;
        while d < 4 {
            let n = at(sq, DIAG[d].0, DIAG[d].1);
            if n != NONE {
                t[sq] |= 1 << n;
            }
            d += 1;
        }
        sq += 1;
    }
    t
};

#[cfg(test)]
mod tests {
    use super::*;

    fn idx(name: &str) -> u8 {
        name.parse::<crate::Square>()
            .map(crate::Square::index)
            .unwrap_or(NONE)
    }

    #[test]
    fn corner_horse_has_two_moves_with_legs() {
        let s = HORSE[idx("a0") as usize];
        assert_eq!(s.len, 2);
        let mut got: Vec<_> = (0..2).map(|i| (s.to[i], s.via[i])).collect();
        got.sort();
        assert_eq!(got, vec![(idx("c1"), idx("b0")), (idx("b2"), idx("a1"))]);
        assert_eq!(HORSE[idx("e4") as usize].len, 8);
    }

    #[test]
    fn elephants_and_advisors_have_their_points() {
        assert_eq!(
            ELEPHANT[idx("c4") as usize].len,
            2,
            "never across the river"
        );
        assert_eq!(ELEPHANT[idx("e2") as usize].len, 4);
        assert_eq!(ADVISOR[idx("e1") as usize].len, 4);
        assert_eq!(ADVISOR[idx("d0") as usize].len, 1);
        assert_eq!(GENERAL[idx("e1") as usize].len, 4);
        assert_eq!(GENERAL[idx("d9") as usize].len, 2);
    }

    #[test]
    fn soldiers_gain_sideways_steps_across_the_river() {
        assert_eq!(SOLDIER[0][idx("e3") as usize].len, 1);
        assert_eq!(SOLDIER[0][idx("e5") as usize].len, 3);
        assert_eq!(
            SOLDIER[0][idx("a9") as usize].len,
            1,
            "last rank: sideways only"
        );
        assert_eq!(SOLDIER[1][idx("e6") as usize].len, 1);
        assert_eq!(SOLDIER[1][idx("e4") as usize].len, 3);
    }

    #[test]
    fn horse_checks_mirror_horse_moves() {
        for from in 0..90u8 {
            let s = HORSE[from as usize];
            for i in 0..s.len as usize {
                let (to, leg) = (s.to[i], s.via[i]);
                let found = HORSE_CHECKS[to as usize]
                    .iter()
                    .any(|c| c.leg == leg && c.horses.contains(&from));
                assert!(found, "horse {from} -> {to} via {leg}");
            }
        }
    }
}
