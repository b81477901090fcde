//! Move generation and attack detection: the hot loops behind legality and perft.
//!
//! Moves are generated pseudo-legally from the tables in [`crate::tables`] and then filtered.
//! A move can only expose its own general if it touches the general's file or rank (opening or
//! closing a chariot, cannon or flying-general line) or leaves one of the general's diagonal
//! neighbours (a horse's leg). All other moves of a side not in check are legal without a test,
//! which is what keeps counting fast.

use std::ops::ControlFlow;

use crate::board::{EMPTY, code, is_color};
use crate::tables::{
    ADVISOR, DIAGONAL_NEIGHBOURS, ELEPHANT, GENERAL, HORSE, HORSE_CHECKS, LINES, NONE, RAYS,
    SOLDIER, SOLDIER_ATTACKERS,
};
use crate::{Board, Color, Move, Piece, Position, Role, Square};

/// Read access to a placement, so attack tests can run on a board with one move applied
/// without copying or mutating it.
pub(crate) trait View {
    /// The byte ([`code`]) at a square index known to be on the board.
    fn code_at(&self, index: u8) -> u8;
}

impl View for Board {
    #[inline]
    fn code_at(&self, index: u8) -> u8 {
        Self::code_at(self, index)
    }
}

/// A board as it would be after a move.
pub(crate) struct After<'a> {
    board: &'a Board,
    from: u8,
    to: u8,
    /// The moving piece's byte.
    piece: u8,
}

impl<'a> After<'a> {
    pub(crate) fn new(board: &'a Board, mv: Move, piece: Piece) -> Self {
        Self {
            board,
            from: mv.from.index(),
            to: mv.to.index(),
            piece: code(piece),
        }
    }
}

impl View for After<'_> {
    #[inline]
    fn code_at(&self, index: u8) -> u8 {
        if index == self.to {
            self.piece
        } else if index == self.from {
            EMPTY
        } else {
            self.board.code_at(index)
        }
    }
}

/// Whether a general on `target` is attacked by `by`: by a chariot or the other general on an
/// open line, a cannon over exactly one screen, a horse with a free leg, or a soldier.
#[inline]
pub(crate) fn is_attacked(view: &impl View, target: u8, by: Color) -> bool {
    let chariot = code(Piece::new(by, Role::Chariot));
    let general = code(Piece::new(by, Role::General));
    let cannon = code(Piece::new(by, Role::Cannon));
    for (dir, ray) in RAYS[target as usize].iter().enumerate() {
        let squares = &ray.squares[..ray.len as usize];
        let mut rest = squares.iter();
        // The first piece on the ray: a chariot, or (vertically) the flying general, attacks.
        for &sq in rest.by_ref() {
            let piece = view.code_at(sq);
            if piece != EMPTY {
                if piece == chariot || (piece == general && dir < 2) {
                    return true;
                }
                break;
            }
        }
        // The second piece: a cannon attacks over the first as its screen.
        for &sq in rest {
            let piece = view.code_at(sq);
            if piece != EMPTY {
                if piece == cannon {
                    return true;
                }
                break;
            }
        }
    }
    let horse = code(Piece::new(by, Role::Horse));
    for check in &HORSE_CHECKS[target as usize] {
        if check.leg != NONE && view.code_at(check.leg) == EMPTY {
            for &h in &check.horses {
                if h != NONE && view.code_at(h) == horse {
                    return true;
                }
            }
        }
    }
    let soldier = code(Piece::new(by, Role::Soldier));
    let attackers = &SOLDIER_ATTACKERS[by as usize][target as usize];
    attackers.to[..attackers.len as usize]
        .iter()
        .any(|&s| view.code_at(s) == soldier)
}

/// Calls `f` with every pseudo-legal destination of `piece` standing on `from`: the piece's own
/// pattern, blocking and area rules, never onto a piece of its own side.
#[inline]
pub(crate) fn for_each_target(pos: &Position, from: u8, piece: Piece, mut f: impl FnMut(u8)) {
    let board = pos.board();
    let own = pos.occupied(piece.color);
    let free = |to: u8| own & (1 << to) == 0;
    let mut steps = |to: &[u8], via: &[u8], len: u8, blockable: bool| {
        for i in 0..len as usize {
            if free(to[i]) && (!blockable || board.code_at(via[i]) == EMPTY) {
                f(to[i]);
            }
        }
    };
    let from_us = from as usize;
    match piece.role {
        Role::General => {
            let s = &GENERAL[from_us];
            steps(&s.to, &s.via, s.len, false);
        }
        Role::Advisor => {
            let s = &ADVISOR[from_us];
            steps(&s.to, &s.via, s.len, false);
        }
        Role::Elephant => {
            let s = &ELEPHANT[from_us];
            steps(&s.to, &s.via, s.len, true);
        }
        Role::Horse => {
            let s = &HORSE[from_us];
            steps(&s.to, &s.via, s.len, true);
        }
        Role::Soldier => {
            let s = &SOLDIER[piece.color as usize][from_us];
            steps(&s.to, &s.via, s.len, false);
        }
        Role::Chariot => {
            for ray in &RAYS[from_us] {
                for &to in &ray.squares[..ray.len as usize] {
                    let target = board.code_at(to);
                    if target == EMPTY {
                        f(to);
                    } else {
                        if !is_color(target, piece.color) {
                            f(to);
                        }
                        break;
                    }
                }
            }
        }
        Role::Cannon => {
            for ray in &RAYS[from_us] {
                let mut rest = ray.squares[..ray.len as usize].iter();
                for &to in rest.by_ref() {
                    if board.code_at(to) != EMPTY {
                        break;
                    }
                    f(to);
                }
                for &to in rest {
                    let target = board.code_at(to);
                    if target != EMPTY {
                        if !is_color(target, piece.color) {
                            f(to);
                        }
                        break;
                    }
                }
            }
        }
    }
}

/// Calls `f` with every legal move of the side to move.
#[inline]
pub(crate) fn for_each_legal(pos: &Position, mut f: impl FnMut(Move)) {
    let _ = try_for_each_legal(pos, |mv| {
        f(mv);
        ControlFlow::Continue(())
    });
}

/// Calls `f` with the legal moves of the side to move until it breaks, which this returns.
#[inline(always)]
pub(crate) fn try_for_each_legal(
    pos: &Position,
    mut f: impl FnMut(Move) -> ControlFlow<()>,
) -> ControlFlow<()> {
    let us = pos.turn();
    let general = pos.general(us).index() as usize;
    let in_check = pos.is_check();
    let lines = LINES[general];
    let exposed_from = lines | DIAGONAL_NEIGHBOURS[general];
    let mut pieces = pos.occupied(us);
    while pieces != 0 {
        let from = pieces.trailing_zeros() as u8;
        pieces &= pieces - 1;
        let Some(piece) = pos.board().at(from) else {
            // The bitboards mirror the board; a mismatch would be a bug in play_unchecked.
            debug_assert!(false, "occupancy out of step with the board at {from}");
            continue;
        };
        let test_all = in_check || piece.role == Role::General || exposed_from & (1 << from) != 0;
        let from_sq = Square::from_index_unchecked(from);
        let mut flow = ControlFlow::Continue(());
        for_each_target(pos, from, piece, |to| {
            if flow.is_break() {
                return;
            }
            let mv = Move::new(from_sq, Square::from_index_unchecked(to));
            if (!test_all && lines & (1 << to) == 0) || pos.is_safe(mv, piece) {
                flow = f(mv);
            }
        });
        flow?;
    }
    ControlFlow::Continue(())
}
