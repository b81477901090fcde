//! Validated positions: the rules of play.

use std::num::NonZeroU32;

use crate::bitboards::Bitboards;
use crate::movegen::{self, Any, Counter};
use crate::{Board, ByColor, Color, Move, MoveList, Piece, Role, Setup, Square, zobrist};

/// A legal Xiangqi position: it can only be built by [`Position::from_setup`] (or
/// [`Position::startpos`]), and [`Position::play`] makes legal moves only, so it satisfies the
/// invariants that [`PositionError`] lists. [`Position::play_unchecked`] is the exception: it
/// trusts the caller, and an illegal move leaves a position that breaks them.
///
/// Two rules differ from chess and are part of legality and outcome here:
/// - **Flying general**: the generals may never face each other on an open file, so a move that
///   leaves them facing is illegal, just like one that leaves the mover's general attacked.
/// - **Stalemate loses**: a side with no legal move loses, whether or not it is in check.
///
/// Repetition, perpetual check and the move limit depend on history, so they belong to the match
/// session; a position only supplies the inputs: [`Position::zobrist_hash`],
/// [`Position::halfmoves`] and [`Position::is_check`].
///
/// # Examples
///
/// ```
/// use xq_rules::{Color, Move, Position, Square};
///
/// let pos = Position::startpos();
/// assert_eq!(pos.legal_moves().len(), 44);
/// let pos = pos.play(Move::new(Square::H2, Square::E2))?; // 炮二平五
/// assert_eq!(pos.turn(), Color::Black);
/// assert!(!pos.is_check());
/// # Ok::<_, xq_rules::PlayError>(())
/// ```
#[derive(Clone, Debug)]
pub struct Position {
    board: Board,
    bitboards: Bitboards,
    generals: ByColor<Square>,
    turn: Color,
    halfmoves: u32,
    fullmoves: NonZeroU32,
    hash: u64,
}

/// Why a [`Setup`] is not a legal position.
#[derive(Clone, Copy, Debug, PartialEq, Eq, thiserror::Error)]
pub enum PositionError {
    /// A side has no general.
    #[error("{0} has no general")]
    MissingGeneral(Color),
    /// A side has more than one general.
    #[error("{0} has more than one general")]
    ExtraGeneral(Color),
    /// A side has more pieces of one kind than a set contains (2 of most, 5 soldiers).
    #[error("too many pieces of one kind: more than {} '{}'", .0.role.count_in_set(), .0.char())]
    TooManyPieces(Piece),
    /// A piece stands where it could never get to: a general outside its palace, an advisor off
    /// its five points, an elephant off its seven, a soldier behind its starting rank or on a
    /// file it cannot reach before crossing the river.
    #[error("'{}' can never stand on {square}", .piece.char())]
    ImpossibleSquare {
        /// The piece.
        piece: Piece,
        /// Where it stands.
        square: Square,
    },
    /// The generals face each other on an open file.
    #[error("the generals face each other")]
    GeneralsFacing,
    /// The side that is not to move is in check, so the last move was illegal.
    #[error("the side not to move is in check")]
    OppositeCheck,
}

/// Why a move is not legal in a position.
#[derive(Clone, Copy, Debug, PartialEq, Eq, thiserror::Error)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
pub enum IllegalMove {
    /// No piece stands on the origin.
    #[error("no piece on {0}")]
    NoPiece(Square),
    /// The piece on the origin belongs to the side not to move.
    #[error("the piece on {0} is not the mover's")]
    NotYourPiece(Square),
    /// The piece cannot go there: wrong pattern, blocked, out of its area, or onto its own side's piece.
    #[error("the {0} cannot move that way")]
    CannotMoveThere(Role),
    /// The move would leave the mover's general attacked or facing the other general.
    #[error("the move leaves the general in check")]
    LeavesGeneralInCheck,
}

/// A move was refused: the error hands back the untouched position.
#[derive(Clone, Debug, thiserror::Error)]
#[error("illegal move {mv}: {reason}")]
pub struct PlayError {
    /// The refused move.
    pub mv: Move,
    /// Why it is illegal.
    pub reason: IllegalMove,
    /// The position, unchanged.
    pub position: Box<Position>,
}

/// How a game ended on the board.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
pub enum Outcome {
    /// One side won.
    Decisive {
        /// The winner.
        winner: Color,
    },
    /// Neither side won.
    Draw,
}

impl Position {
    /// The standard starting position.
    #[must_use]
    pub fn startpos() -> Self {
        match Self::from_setup(Setup::startpos()) {
            Ok(pos) => pos,
            // The starting setup is a constant that the tests validate.
            Err(err) => unreachable!("the start position is legal: {err}"),
        }
    }

    /// Validates a setup.
    ///
    /// # Errors
    ///
    /// A [`PositionError`] naming the first rule the setup breaks.
    ///
    /// # Examples
    ///
    /// ```
    /// use xq_rules::{Board, Color, Piece, Position, PositionError, Role, Setup, Square};
    ///
    /// let mut setup = Setup::startpos();
    /// setup.board.set_piece_at(Square::E0, None);
    /// assert_eq!(Position::from_setup(setup).unwrap_err(), PositionError::MissingGeneral(Color::Red));
    /// ```
    pub fn from_setup(setup: Setup) -> Result<Self, PositionError> {
        let Setup {
            board,
            turn,
            halfmoves,
            fullmoves,
        } = setup;
        let mut counts = [0usize; 14];
        let mut generals: ByColor<Option<Square>> = ByColor::default();
        let mut hash = 0;
        for (square, piece) in board.pieces() {
            counts[piece.index()] += 1;
            if counts[piece.index()] > piece.role.count_in_set() {
                return Err(match piece.role {
                    Role::General => PositionError::ExtraGeneral(piece.color),
                    _ => PositionError::TooManyPieces(piece),
                });
            }
            if !can_stand_on(piece, square) {
                return Err(PositionError::ImpossibleSquare { piece, square });
            }
            if piece.role == Role::General {
                generals[piece.color] = Some(square);
            }
            hash ^= zobrist::piece_key(piece, square.index());
        }
        let generals = ByColor {
            red: generals
                .red
                .ok_or(PositionError::MissingGeneral(Color::Red))?,
            black: generals
                .black
                .ok_or(PositionError::MissingGeneral(Color::Black))?,
        };
        if turn == Color::Black {
            hash ^= zobrist::BLACK_TO_MOVE;
        }
        let pos = Self {
            bitboards: Bitboards::from_board(&board),
            board,
            generals,
            turn,
            halfmoves,
            fullmoves,
            hash,
        };
        if pos.generals_face() {
            return Err(PositionError::GeneralsFacing);
        }
        if pos.is_attacked(!turn) {
            return Err(PositionError::OppositeCheck);
        }
        Ok(pos)
    }

    /// The same game seen from the other side: the board turned half way round and the
    /// colours swapped, so Black's pieces stand where Red's stood and Black is to move where
    /// Red was. Every rule is symmetric under it: a move `from`–`to` here is the move
    /// `from.flip()`–`to.flip()` there.
    ///
    /// # Examples
    ///
    /// ```
    /// use xq_rules::{Color, Position};
    ///
    /// let start = Position::startpos();
    /// let mirrored = start.mirrored();
    /// assert_eq!(mirrored.turn(), Color::Black);
    /// assert_eq!(mirrored.board(), start.board());
    /// assert_eq!(mirrored.mirrored(), start);
    /// ```
    #[must_use]
    pub fn mirrored(&self) -> Self {
        let mut board = Board::empty();
        for (square, piece) in self.board.pieces() {
            board.set_piece_at(square.flip(), Some(Piece::new(!piece.color, piece.role)));
        }
        let setup = Setup {
            board,
            turn: !self.turn,
            ..self.to_setup()
        };
        match Self::from_setup(setup) {
            Ok(pos) => pos,
            // Each rule of a legal position holds of its mirror image.
            Err(err) => unreachable!("the mirror of a legal position is legal: {err}"),
        }
    }

    /// The position as an unvalidated setup (for notations and editing).
    #[must_use]
    pub fn to_setup(&self) -> Setup {
        Setup {
            board: self.board.clone(),
            turn: self.turn,
            halfmoves: self.halfmoves,
            fullmoves: self.fullmoves,
        }
    }

    /// The piece placement.
    #[must_use]
    pub const fn board(&self) -> &Board {
        &self.board
    }

    /// The side to move.
    #[must_use]
    pub const fn turn(&self) -> Color {
        self.turn
    }

    /// Plies since the last capture: the input of the natural move limit.
    #[must_use]
    pub const fn halfmoves(&self) -> u32 {
        self.halfmoves
    }

    /// The move number, starting at 1 and increasing after each Black move.
    #[must_use]
    pub const fn fullmoves(&self) -> NonZeroU32 {
        self.fullmoves
    }

    /// Where `color`'s general stands.
    #[must_use]
    pub const fn general(&self, color: Color) -> Square {
        match color {
            Color::Red => self.generals.red,
            Color::Black => self.generals.black,
        }
    }

    /// A Zobrist hash of placement and side to move (not the clocks), kept up to date move by
    /// move. Equal positions have equal hashes, so the session can count repetitions with it.
    #[must_use]
    pub const fn zobrist_hash(&self) -> u64 {
        self.hash
    }

    /// All legal moves, in generation order.
    #[must_use]
    pub fn legal_moves(&self) -> MoveList {
        let mut moves = MoveList::new();
        movegen::generate(self, u128::MAX, &mut moves);
        moves
    }

    /// The legal captures, in generation order: the moves of [`Position::legal_moves`] that
    /// land on an opponent's piece, generated without the others (for a quiescence search).
    ///
    /// # Examples
    ///
    /// ```
    /// use xq_rules::{Move, Position, Square};
    ///
    /// let pos = Position::startpos();
    /// // Each cannon can take the horse behind the opponent's cannon.
    /// assert_eq!(pos.legal_captures().len(), 2);
    /// assert!(pos.legal_captures().contains(&Move::new(Square::B2, Square::B9)));
    /// ```
    #[must_use]
    pub fn legal_captures(&self) -> MoveList {
        let mut moves = MoveList::new();
        movegen::generate(self, self.occupied(!self.turn), &mut moves);
        moves
    }

    /// The number of legal moves, counted without building a list.
    #[must_use]
    pub fn count_legal_moves(&self) -> usize {
        let mut counter = Counter(0);
        movegen::generate(self, u128::MAX, &mut counter);
        counter.0
    }

    /// Whether the side to move has a legal move: stops early, so it is cheaper than counting
    /// them when the answer is yes, as it nearly always is.
    #[must_use]
    pub fn has_legal_move(&self) -> bool {
        let mut any = Any(false);
        movegen::generate(self, u128::MAX, &mut any);
        any.0
    }

    /// The legal moves of the piece on `from` (none if it is not the mover's).
    #[must_use]
    pub fn legal_moves_from(&self, from: Square) -> MoveList {
        let mut moves = MoveList::new();
        if let Some(piece) = self.board.piece_at(from).filter(|p| p.color == self.turn) {
            let targets = self.bitboards.targets(piece, from.index());
            for to in crate::SquareSet::from_bits(targets) {
                let mv = Move::new(from, to);
                if self.is_safe(mv, piece) {
                    moves.push(mv);
                }
            }
        }
        moves
    }

    /// Whether `mv` is legal here.
    #[must_use]
    pub fn is_legal(&self, mv: Move) -> bool {
        self.check_move(mv).is_ok()
    }

    /// Checks `mv` and says why it is illegal if it is.
    ///
    /// # Errors
    ///
    /// The [`IllegalMove`] reason.
    pub fn check_move(&self, mv: Move) -> Result<(), IllegalMove> {
        let piece = self
            .board
            .piece_at(mv.from)
            .ok_or(IllegalMove::NoPiece(mv.from))?;
        if piece.color != self.turn {
            return Err(IllegalMove::NotYourPiece(mv.from));
        }
        if self.bitboards.targets(piece, mv.from.index()) & (1 << mv.to.index()) == 0 {
            return Err(IllegalMove::CannotMoveThere(piece.role));
        }
        if !self.is_safe(mv, piece) {
            return Err(IllegalMove::LeavesGeneralInCheck);
        }
        Ok(())
    }

    /// Plays a legal move.
    ///
    /// # Errors
    ///
    /// A [`PlayError`] holding the unchanged position and the reason, if `mv` is illegal.
    pub fn play(mut self, mv: Move) -> Result<Self, PlayError> {
        match self.check_move(mv) {
            Ok(()) => {
                self.play_unchecked(mv);
                Ok(self)
            }
            Err(reason) => Err(PlayError {
                mv,
                reason,
                position: Box::new(self),
            }),
        }
    }

    /// Plays a move without checking it, and returns the captured piece.
    ///
    /// The move must be legal (for example from [`Position::legal_moves`]); an illegal one leaves
    /// a position that breaks the invariants. A move from an empty square is ignored.
    pub fn play_unchecked(&mut self, mv: Move) -> Option<Piece> {
        let (from, to) = (mv.from.index(), mv.to.index());
        let Some(piece) = self.board.set_piece_at(mv.from, None) else {
            debug_assert!(false, "play_unchecked from an empty square: {mv}");
            return None;
        };
        let captured = self.board.set_piece_at(mv.to, Some(piece));
        let us = self.turn;
        self.hash ^= zobrist::piece_key(piece, from) ^ zobrist::piece_key(piece, to);
        self.bitboards.toggle(piece, (1 << from) | (1 << to));
        if let Some(victim) = captured {
            self.hash ^= zobrist::piece_key(victim, to);
            self.bitboards.toggle(victim, 1 << to);
            self.halfmoves = 0;
        } else {
            self.halfmoves = self.halfmoves.saturating_add(1);
        }
        if piece.role == Role::General {
            self.generals[us] = mv.to;
        }
        if us == Color::Black {
            self.fullmoves = self.fullmoves.saturating_add(1);
        }
        self.turn = !us;
        self.hash ^= zobrist::BLACK_TO_MOVE;
        captured
    }

    /// Whether the side to move is in check (attacked, or facing the other general).
    #[must_use]
    pub fn is_check(&self) -> bool {
        self.is_attacked(self.turn)
    }

    /// Whether the side to move is in check and has no legal move: it has lost.
    #[must_use]
    pub fn is_checkmate(&self) -> bool {
        self.is_check() && !self.has_legal_move()
    }

    /// Whether the side to move is not in check but has no legal move. In Xiangqi it has lost.
    #[must_use]
    pub fn is_stalemate(&self) -> bool {
        !self.is_check() && !self.has_legal_move()
    }

    /// The result decided by the board alone: a side with no legal move (mated or stalemated)
    /// loses. `None` while the side to move can move.
    #[must_use]
    pub fn outcome(&self) -> Option<Outcome> {
        (!self.has_legal_move()).then_some(Outcome::Decisive { winner: !self.turn })
    }

    /// The bitboard of `color`'s pieces (bit `n` is the square with index `n`).
    #[inline]
    pub(crate) const fn occupied(&self, color: Color) -> u128 {
        self.bitboards.by_color(color)
    }

    /// The placement as bitboards.
    #[inline]
    pub(crate) const fn bitboards(&self) -> &Bitboards {
        &self.bitboards
    }

    /// Whether `color`'s general is attacked on the current board.
    fn is_attacked(&self, color: Color) -> bool {
        self.bitboards
            .is_attacked(self.general(color).index(), !color)
    }

    /// Whether `mv` by `piece` (a pseudo-legal move of the side to move) keeps its general safe.
    #[inline]
    pub(crate) fn is_safe(&self, mv: Move, piece: Piece) -> bool {
        self.is_safe_for(self.turn, mv, piece)
    }

    /// Whether `mv` by `piece`, a pseudo-legal move of `color`'s whether or not it is
    /// `color`'s turn, leaves `color`'s general neither attacked nor facing the other.
    #[inline]
    pub(crate) fn is_safe_for(&self, color: Color, mv: Move, piece: Piece) -> bool {
        let general = if piece.role == Role::General {
            mv.to
        } else {
            self.general(color)
        };
        let (from_bit, to_bit) = (1 << mv.from.index(), 1 << mv.to.index());
        let occupied = (self.bitboards.occupied() & !from_bit) | to_bit;
        !self
            .bitboards
            .is_attacked_with(general.index(), !color, occupied, !to_bit)
    }

    fn generals_face(&self) -> bool {
        let (red, black) = (self.generals.red, self.generals.black);
        red.file() == black.file()
            && (red.index() + 9..black.index()).step_by(9).all(|i| {
                self.board
                    .piece_at(Square::from_index_unchecked(i))
                    .is_none()
            })
    }
}

/// Whether `piece` could ever stand on `square` in a game from the start position.
fn can_stand_on(piece: Piece, square: Square) -> bool {
    // Work from Red's point of view: mirror Black's pieces onto Red's half.
    let sq = match piece.color {
        Color::Red => square,
        Color::Black => square.flip(),
    };
    let (file, rank) = (sq.file().index(), sq.rank().index());
    match piece.role {
        Role::General => sq.is_in_palace(Color::Red),
        Role::Advisor => sq.is_in_palace(Color::Red) && (file + rank) % 2 == 1,
        Role::Elephant => rank <= 4 && rank % 2 == 0 && file % 2 == 0 && (file + rank) % 4 == 2,
        Role::Soldier => rank >= 5 || (rank >= 3 && file % 2 == 0),
        Role::Horse | Role::Chariot | Role::Cannon => true,
    }
}

impl PartialEq for Position {
    /// Positions are equal when placement, side to move and both clocks are.
    fn eq(&self, other: &Self) -> bool {
        self.hash == other.hash
            && self.turn == other.turn
            && self.board == other.board
            && self.halfmoves == other.halfmoves
            && self.fullmoves == other.fullmoves
    }
}

impl Eq for Position {}

impl Default for Position {
    fn default() -> Self {
        Self::startpos()
    }
}

#[cfg(test)]
mod tests;
