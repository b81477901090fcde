//! Piece placement as bitboards, and the attack patterns computed from them.
//!
//! A [`Board`] answers "what stands here"; [`Bitboards`] answer "where are the red cannons" and
//! "what does this chariot see" with a handful of 128-bit operations, which is what move
//! generation and check detection ask all the time. Sliding pieces walk [`RAYS`]: the nearest
//! piece on a ray is its lowest or highest set bit under the occupancy, so no loop visits the
//! empty points in between.

use crate::tables::{
    ADVISOR_MOVES, DOWN, ELEPHANT_MOVES, GENERAL_MOVES, HORSE_ATTACKS, HORSE_MOVES, Hop, LEFT,
    RAYS, SOLDIER_ATTACKS, SOLDIER_MOVES, UP,
};
use crate::{Board, Color, Piece, Role};

/// Where each side's pieces and each role's pieces stand: a piece of colour `c` and role `r`
/// is on the squares in `color(c) & role(r)`.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub(crate) struct Bitboards {
    color: [u128; 2],
    role: [u128; 7],
}

impl Bitboards {
    /// The bitboards of a placement.
    pub(crate) fn from_board(board: &Board) -> Self {
        let mut bitboards = Self::default();
        for (square, piece) in board.pieces() {
            bitboards.toggle(piece, 1 << square.index());
        }
        bitboards
    }

    /// Every occupied square.
    #[inline]
    pub(crate) const fn occupied(&self) -> u128 {
        self.color[0] | self.color[1]
    }

    /// The squares of `color`'s pieces.
    #[inline]
    pub(crate) const fn by_color(&self, color: Color) -> u128 {
        self.color[color as usize]
    }

    /// The squares of `color`'s pieces of one `role`.
    #[inline]
    pub(crate) const fn of(&self, color: Color, role: Role) -> u128 {
        self.color[color as usize] & self.role[role as usize]
    }

    /// The role of the piece on the square of `bit`, if any.
    pub(crate) fn role_at(&self, bit: u128) -> Option<Role> {
        Role::ALL
            .into_iter()
            .find(|&role| self.role[role as usize] & bit != 0)
    }

    /// Puts `piece` on the squares of `bits` where it is absent, and takes it off where it is
    /// present: a move is one toggle of `from | to`.
    #[inline]
    pub(crate) const fn toggle(&mut self, piece: Piece, bits: u128) {
        self.color[piece.color as usize] ^= bits;
        self.role[piece.role as usize] ^= bits;
    }

    /// The placement after `piece` moves from `from` to `to`, capturing whatever stands there.
    pub(crate) fn after_move(&self, piece: Piece, from: u8, to: u8) -> Self {
        let to_bit = 1 << to;
        let mut after = *self;
        if let Some(victim) = self.role_at(to_bit) {
            after.toggle(Piece::new(!piece.color, victim), to_bit);
        }
        after.toggle(piece, (1 << from) | to_bit);
        after
    }

    /// The pseudo-legal destinations of `piece` standing on `from`: its pattern, blocking and
    /// area rules, never onto a piece of its own side.
    #[inline]
    pub(crate) fn targets(&self, piece: Piece, from: u8) -> u128 {
        let occupied = self.occupied();
        let own = self.by_color(piece.color);
        let enemy = self.by_color(!piece.color);
        let from = from as usize;
        let reach = match piece.role {
            Role::General => GENERAL_MOVES[from],
            Role::Advisor => ADVISOR_MOVES[from],
            Role::Elephant => hops(&ELEPHANT_MOVES[from], occupied),
            Role::Horse => hops(&HORSE_MOVES[from], occupied),
            Role::Chariot => chariot_attacks(from, occupied),
            Role::Cannon => {
                let (quiet, captures) = cannon_moves(from, occupied);
                return quiet | (captures & enemy);
            }
            Role::Soldier => SOLDIER_MOVES[piece.color as usize][from],
        };
        reach & !own
    }

    /// Whether a general on `target` would be attacked by `by`'s pieces in `mask`, with
    /// `occupied` as the occupancy: by a chariot or the other general on an open line, a cannon
    /// over exactly one screen, a horse with a free leg, or a soldier.
    ///
    /// Passing an occupancy and a mask lets the caller ask about the board after a move
    /// without building it: the occupancy with the move made, and the mask without the
    /// captured piece.
    #[inline]
    pub(crate) fn is_attacked_with(
        &self,
        target: u8,
        by: Color,
        occupied: u128,
        mask: u128,
    ) -> bool {
        let t = target as usize;
        let them = self.by_color(by) & mask;
        let chariots = self.role[Role::Chariot as usize] & them;
        let cannons = self.role[Role::Cannon as usize] & them;
        let general = self.role[Role::General as usize] & them;
        let rays = &RAYS[t];
        for (dir, &ray) in rays.iter().enumerate() {
            let lines = if dir == UP || dir == DOWN {
                chariots | general
            } else {
                chariots
            };
            if ray & (lines | cannons) == 0 {
                continue;
            }
            let Some(first) = nearest(dir, ray & occupied) else {
                continue;
            };
            if lines & (1 << first) != 0 {
                return true;
            }
            if let Some(second) = nearest(dir, RAYS[first as usize][dir] & occupied)
                && cannons & (1 << second) != 0
            {
                return true;
            }
        }
        let horses = self.role[Role::Horse as usize] & them;
        if horses != 0 {
            for hop in &HORSE_ATTACKS[t] {
                if hop.to & horses != 0 && hop.block & occupied == 0 {
                    return true;
                }
            }
        }
        SOLDIER_ATTACKS[by as usize][t] & self.role[Role::Soldier as usize] & them != 0
    }

    /// Whether a general on `target` is attacked by `by` on this placement.
    #[inline]
    pub(crate) fn is_attacked(&self, target: u8, by: Color) -> bool {
        self.is_attacked_with(target, by, self.occupied(), u128::MAX)
    }

    /// Every piece of `by` that could move onto `target` by its pattern, ignoring whether the
    /// move would leave its own general attacked (the generals' facing is no capture).
    pub(crate) fn attackers(&self, target: u8, by: Color) -> u128 {
        let t = target as usize;
        let occupied = self.occupied();
        let (_, captures) = cannon_moves(t, occupied);
        let by_role = |role| self.of(by, role);
        // Advisors, elephants and generals move symmetrically: they reach `target` from
        // exactly the points they could reach from it.
        (chariot_attacks(t, occupied) & by_role(Role::Chariot))
            | (captures & by_role(Role::Cannon))
            | (horse_attackers(t, occupied) & by_role(Role::Horse))
            | (ADVISOR_MOVES[t] & by_role(Role::Advisor))
            | (hops(&ELEPHANT_MOVES[t], occupied) & by_role(Role::Elephant))
            | (GENERAL_MOVES[t] & by_role(Role::General))
            | (SOLDIER_ATTACKS[by as usize][t] & by_role(Role::Soldier))
    }

    /// What endangers `color`'s general on `general` where it stands, for legal move
    /// generation; see [`KingSafety`].
    #[inline]
    pub(crate) fn king_safety(&self, general: u8, color: Color) -> KingSafety {
        let g = general as usize;
        let occupied = self.occupied();
        let own = self.by_color(color);
        let them = !color;
        let chariots = self.of(them, Role::Chariot);
        let cannons = self.of(them, Role::Cannon);
        let enemy_general = self.of(them, Role::General);
        let mut safety = KingSafety {
            in_check: false,
            blockers: 0,
            screens: 0,
        };
        for (dir, &ray) in RAYS[g].iter().enumerate() {
            let lines = if dir == UP || dir == DOWN {
                chariots | enemy_general
            } else {
                chariots
            };
            if ray & (lines | cannons) == 0 {
                continue;
            }
            let Some(first) = nearest(dir, ray & occupied) else {
                continue;
            };
            let first_bit = 1 << first;
            let beyond_first = RAYS[first as usize][dir];
            if lines & first_bit != 0 {
                safety.in_check = true;
                continue;
            }
            if cannons & first_bit != 0 {
                // A piece put between them would be the cannon's screen.
                safety.screens |= ray & !beyond_first & !first_bit;
            }
            let Some(second) = nearest(dir, beyond_first & occupied) else {
                continue;
            };
            let second_bit = 1 << second;
            if cannons & second_bit != 0 {
                safety.in_check = true;
                continue;
            }
            if lines & second_bit != 0 {
                safety.blockers |= first_bit & own;
                continue;
            }
            if let Some(third) = nearest(dir, RAYS[second as usize][dir] & occupied)
                && cannons & (1 << third) != 0
            {
                safety.blockers |= (first_bit | second_bit) & own;
            }
        }
        let horses = self.of(them, Role::Horse);
        if horses != 0 {
            for hop in &HORSE_ATTACKS[g] {
                if hop.to & horses != 0 {
                    if hop.block & occupied == 0 {
                        safety.in_check = true;
                    } else {
                        safety.blockers |= hop.block & own;
                    }
                }
            }
        }
        if SOLDIER_ATTACKS[them as usize][g] & self.of(them, Role::Soldier) != 0 {
            safety.in_check = true;
        }
        safety
    }
}

/// How a general stands, as legal move generation needs to know it.
///
/// When the general is not in check, a move by any piece but the general is legal unless it
/// moves one of the `blockers` or lands on one of the `screens`: taking a piece off a line or a
/// horse's leg is the only way to open an attack, and putting one on a line only creates one
/// by becoming the sole screen of a cannon. Captures only take attackers away.
#[derive(Clone, Copy, Debug)]
pub(crate) struct KingSafety {
    /// The general is attacked (or faces the other general).
    pub(crate) in_check: bool,
    /// The general's own pieces whose leaving their square could expose it: the only piece
    /// between it and a chariot or the other general, one of the two between it and a cannon,
    /// or on the leg of a horse that aims at it.
    pub(crate) blockers: u128,
    /// The empty points between the general and a cannon with nothing in between.
    pub(crate) screens: u128,
}

/// The nearest square of `squares` (a subset of a ray in direction `dir`) to the ray's origin.
#[inline(always)]
fn nearest(dir: usize, squares: u128) -> Option<u8> {
    if squares == 0 {
        None
    } else if dir == DOWN || dir == LEFT {
        Some(127 - squares.leading_zeros() as u8)
    } else {
        Some(squares.trailing_zeros() as u8)
    }
}

/// The destinations of blockable steps whose block point is empty.
#[inline(always)]
fn hops(hops: &[Hop; 4], occupied: u128) -> u128 {
    let mut to = 0;
    for hop in hops {
        if hop.block & occupied == 0 {
            to |= hop.to;
        }
    }
    to
}

/// The horses' points from which a horse would attack `target`.
#[inline]
fn horse_attackers(target: usize, occupied: u128) -> u128 {
    hops(&HORSE_ATTACKS[target], occupied)
}

/// The points a chariot on `from` sees: along each ray, up to and including the first piece.
#[inline]
pub(crate) fn chariot_attacks(from: usize, occupied: u128) -> u128 {
    let mut seen = 0;
    for (dir, &ray) in RAYS[from].iter().enumerate() {
        seen |= match nearest(dir, ray & occupied) {
            None => ray,
            Some(first) => ray ^ RAYS[first as usize][dir],
        };
    }
    seen
}

/// A cannon's quiet moves from `from` (the empty points before the first piece on each ray) and
/// the points it could capture on (the second piece on each ray, of either colour).
#[inline]
pub(crate) fn cannon_moves(from: usize, occupied: u128) -> (u128, u128) {
    let (mut quiet, mut captures) = (0, 0);
    for (dir, &ray) in RAYS[from].iter().enumerate() {
        match nearest(dir, ray & occupied) {
            None => quiet |= ray,
            Some(first) => {
                let beyond = RAYS[first as usize][dir];
                quiet |= ray & !beyond & !(1 << first);
                if let Some(second) = nearest(dir, beyond & occupied) {
                    captures |= 1 << second;
                }
            }
        }
    }
    (quiet, captures)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::test_util::position;

    fn squares(bits: u128) -> Vec<String> {
        crate::SquareSet::from_bits(bits)
            .iter()
            .map(|sq| sq.to_string())
            .collect()
    }

    #[test]
    fn startpos_cannon_sees_its_screens() {
        let pos = position("rnbakabnr/9/1c5c1/p1p1p1p1p/9/9/P1P1P1P1P/1C5C1/9/RNBAKABNR w");
        let bitboards = Bitboards::from_board(pos.board());
        let b2 = crate::Square::B2.index() as usize;
        let (quiet, captures) = cannon_moves(b2, bitboards.occupied());
        assert_eq!(squares(captures), ["b9".to_string()]);
        assert_eq!(quiet.count_ones(), 4 + 1 + 1 + 5);
        assert_eq!(
            chariot_attacks(b2, bitboards.occupied()).count_ones(),
            5 + 2 + 1 + 6
        );
    }

    #[test]
    fn king_safety_finds_blockers_and_screens() {
        // The red cannon on e2 aims over two screens at the black general on e9, and the red
        // cannon on i9 has no screen; the black chariot on a0 checks the red general.
        let pos = position("3ak3C/9/9/4p4/9/9/4P4/4C4/9/r3K4 w");
        let bitboards = Bitboards::from_board(pos.board());
        let e9 = crate::Square::E9.index();
        let safety = bitboards.king_safety(e9, Color::Black);
        assert!(!safety.in_check);
        assert_eq!(squares(safety.blockers), ["e6".to_string()]);
        assert_eq!(
            squares(safety.screens),
            ["f9", "g9", "h9"].map(String::from)
        );
        let e0 = crate::Square::E0.index();
        assert!(bitboards.is_attacked(e0, Color::Black));
    }
}
