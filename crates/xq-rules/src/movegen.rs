//! Legal move generation: the hot loop behind perft and every search.
//!
//! Moves come from bitboard patterns ([`Bitboards::targets`]) and are made legal by what
//! [`KingSafety`] says about the mover's general. Out of check, only the general and the
//! `blockers` need their moves tested one by one; every other piece's moves are legal unless
//! they land on a cannon's would-be screen, so they are taken a whole bitboard at a time (and
//! counting them is one `popcount`). In check, every move is tested on the board after it,
//! which costs a few bit operations and no copy.

use crate::bitboards::{Bitboards, KingSafety};
use crate::{Move, MoveList, Piece, Position, Role, Square};

/// Where generated moves go: a list, a counter or a yes/no flag.
pub(crate) trait Sink {
    /// Takes the move from `from` to each square of `targets`, all legal.
    fn push_set(&mut self, from: u8, targets: u128);

    /// Takes one legal move.
    fn push(&mut self, from: u8, to: u8);

    /// Whether the sink wants no more moves (generation may stop early).
    fn is_done(&self) -> bool {
        false
    }
}

impl Sink for MoveList {
    #[inline]
    fn push_set(&mut self, from: u8, mut targets: u128) {
        let from = Square::from_index_unchecked(from);
        while targets != 0 {
            let to = targets.trailing_zeros() as u8;
            targets &= targets - 1;
            self.push(Move::new(from, Square::from_index_unchecked(to)));
        }
    }

    #[inline]
    fn push(&mut self, from: u8, to: u8) {
        self.push(Move::new(
            Square::from_index_unchecked(from),
            Square::from_index_unchecked(to),
        ));
    }
}

/// Counts moves without listing them.
pub(crate) struct Counter(pub(crate) usize);

impl Sink for Counter {
    #[inline]
    fn push_set(&mut self, _from: u8, targets: u128) {
        self.0 += targets.count_ones() as usize;
    }

    #[inline]
    fn push(&mut self, _from: u8, _to: u8) {
        self.0 += 1;
    }
}

/// Records whether there is any move, and asks for no more once there is.
pub(crate) struct Any(pub(crate) bool);

impl Sink for Any {
    #[inline]
    fn push_set(&mut self, _from: u8, targets: u128) {
        self.0 |= targets != 0;
    }

    #[inline]
    fn push(&mut self, _from: u8, _to: u8) {
        self.0 = true;
    }

    fn is_done(&self) -> bool {
        self.0
    }
}

/// The roles whose moves can be taken a bitboard at a time: all but the general.
const NON_GENERALS: [Role; 6] = [
    Role::Advisor,
    Role::Elephant,
    Role::Horse,
    Role::Chariot,
    Role::Cannon,
    Role::Soldier,
];

/// Sends every legal move of the side to move whose destination is in `wanted` to `sink`
/// (`u128::MAX` for all moves, the opponent's pieces for captures only).
#[inline(always)]
pub(crate) fn generate(pos: &Position, wanted: u128, sink: &mut impl Sink) {
    let us = pos.turn();
    let bitboards = pos.bitboards();
    let general = pos.general(us).index();
    let safety = bitboards.king_safety(general, us);
    if safety.in_check {
        return generate_tested(pos, bitboards, general, wanted, sink);
    }
    let KingSafety {
        blockers, screens, ..
    } = safety;
    let free = wanted & !screens;
    for role in NON_GENERALS {
        let piece = Piece::new(us, role);
        let mut from_set = bitboards.of(us, role) & !blockers;
        while from_set != 0 {
            let from = from_set.trailing_zeros() as u8;
            from_set &= from_set - 1;
            sink.push_set(from, bitboards.targets(piece, from) & free);
        }
        if sink.is_done() {
            return;
        }
    }
    let mut from_set = blockers;
    while from_set != 0 {
        let from = from_set.trailing_zeros() as u8;
        from_set &= from_set - 1;
        let Some(role) = bitboards.role_at(1 << from) else {
            continue;
        };
        let targets = bitboards.targets(Piece::new(us, role), from) & wanted;
        push_safe(bitboards, general, us, from, targets, sink);
    }
    let targets = bitboards.targets(Piece::new(us, Role::General), general) & wanted;
    push_safe_general(bitboards, us, general, targets, sink);
}

/// [`generate`] in check: every move is tested.
#[inline(never)]
fn generate_tested(
    pos: &Position,
    bitboards: &Bitboards,
    general: u8,
    wanted: u128,
    sink: &mut impl Sink,
) {
    let us = pos.turn();
    for role in NON_GENERALS {
        let piece = Piece::new(us, role);
        let mut from_set = bitboards.of(us, role);
        while from_set != 0 {
            let from = from_set.trailing_zeros() as u8;
            from_set &= from_set - 1;
            let targets = bitboards.targets(piece, from) & wanted;
            push_safe(bitboards, general, us, from, targets, sink);
        }
    }
    let targets = bitboards.targets(Piece::new(us, Role::General), general) & wanted;
    push_safe_general(bitboards, us, general, targets, sink);
}

/// Sends the moves from `from` (not the general's square) to `targets` that leave `us`'s
/// general on `general` safe.
#[inline]
fn push_safe(
    bitboards: &Bitboards,
    general: u8,
    us: crate::Color,
    from: u8,
    mut targets: u128,
    sink: &mut impl Sink,
) {
    let occupied = bitboards.occupied() ^ (1 << from);
    while targets != 0 {
        let to = targets.trailing_zeros() as u8;
        targets &= targets - 1;
        let to_bit = 1 << to;
        if !bitboards.is_attacked_with(general, !us, occupied | to_bit, !to_bit) {
            sink.push(from, to);
        }
    }
}

/// Sends the general's moves from `general` to `targets` that leave it safe.
#[inline]
fn push_safe_general(
    bitboards: &Bitboards,
    us: crate::Color,
    general: u8,
    mut targets: u128,
    sink: &mut impl Sink,
) {
    let occupied = bitboards.occupied() ^ (1 << general);
    while targets != 0 {
        let to = targets.trailing_zeros() as u8;
        targets &= targets - 1;
        let to_bit = 1 << to;
        if !bitboards.is_attacked_with(to, !us, occupied | to_bit, !to_bit) {
            sink.push(general, to);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::test_util::position;

    /// Every legal move, found the slow way: each pseudo-legal move played on a copy.
    fn brute_force(pos: &Position) -> Vec<Move> {
        let mut moves = Vec::new();
        for (from, piece) in pos.board().pieces() {
            if piece.color != pos.turn() {
                continue;
            }
            let targets = pos.bitboards().targets(piece, from.index());
            for to in crate::SquareSet::from_bits(targets) {
                let mut after = pos.clone();
                after.play_unchecked(Move::new(from, to));
                if !after
                    .bitboards()
                    .is_attacked(after.general(piece.color).index(), !piece.color)
                {
                    moves.push(Move::new(from, to));
                }
            }
        }
        moves.sort();
        moves
    }

    #[test]
    fn shortcuts_agree_with_playing_every_move() {
        for fen in [
            "rnbakabnr/9/1c5c1/p1p1p1p1p/9/9/P1P1P1P1P/1C5C1/9/RNBAKABNR w",
            // Blockers on a cannon line, a chariot pin, a horse's leg and a cannon screen.
            "3ak3C/9/9/4p4/9/9/4P4/4C4/9/r3K4 w",
            "3ak3C/9/9/4p4/9/9/4P4/4C4/4A4/r2AK4 b",
            "4k4/4a4/9/9/2n6/3N5/4R4/9/4A4/3K5 b",
            "r1ba1a3/4kn3/2n1b4/pNp1p1p1p/4c4/6P2/P1P2R2P/1CcC5/9/2BAKAB2 w",
            "1cbak4/9/n2a5/2p1p3p/5cp2/2n2N3/6PCP/3AB4/2C6/3A1K1N1 w",
        ] {
            let pos = position(fen);
            let mut moves = pos.legal_moves().to_vec();
            moves.sort();
            assert_eq!(moves, brute_force(&pos), "{fen}");
            assert_eq!(pos.count_legal_moves(), moves.len(), "{fen}");
            let mut captures = pos.legal_captures().to_vec();
            captures.sort();
            let expected: Vec<_> = moves
                .iter()
                .copied()
                .filter(|mv| pos.board().piece_at(mv.to).is_some())
                .collect();
            assert_eq!(captures, expected, "{fen}");
        }
    }
}
