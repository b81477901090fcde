//! Captures, pins and attacks: what the Asian rules' chase clauses ask of a position.
//!
//! The match session judges a repeated cycle with these, and engines and analysis tools can
//! ask the same questions. Every answer is about legal play, whoever is to move: a capture
//! counts only if it leaves the capturer's general neither attacked nor facing the other
//! general, so a pinned piece can take only its pinner, and a pinned defender, or one whose
//! recapture would bare the generals to each other, defends nothing (a "fake root").
//!
//! Nothing here allocates: sets of squares are [`SquareSet`] bit masks, boards are looked at
//! through views with a move applied rather than copied, except the one board a recapture
//! test needs.

use crate::bitboards::Bitboards;
use crate::tables::HORSE_ATTACKS;
use crate::{Color, Move, Piece, Position, Role, Square, SquareSet};

impl Position {
    /// The pieces of `by` that can legally capture what stands on `target`, whoever is to move.
    /// Empty when `target` is empty or holds a piece of `by`'s own.
    ///
    /// # Examples
    ///
    /// ```
    /// use xq_rules::{Color, Square, fen::Fen};
    ///
    /// // Red's chariot on e3 is pinned to its general by Black's chariot on e9: it may take
    /// // the pinner, not the horse beside it.
    /// let pos = "3kr4/9/9/9/9/9/3nR4/9/9/4K4 w - - 0 1".parse::<Fen>()?.into_position()?;
    /// assert!(pos.capturers(Square::D3, Color::Red).is_empty());
    /// assert!(pos.capturers(Square::E9, Color::Red).contains(Square::E3));
    /// # Ok::<_, Box<dyn std::error::Error>>(())
    /// ```
    #[must_use]
    pub fn capturers(&self, target: Square, by: Color) -> SquareSet {
        let board = self.board();
        if board.piece_at(target).is_none_or(|piece| piece.color == by) {
            return SquareSet::EMPTY;
        }
        legal_capturers(self.bitboards(), self.general(by), target.index(), by)
    }

    /// The pieces of `by` whose moving pattern reaches `target` as a capture, whether or not
    /// the capture would be legal: [`Position::capturers`] before its legality test. A piece
    /// pinned to its general, or kept from capturing by a check, is among them.
    ///
    /// # Examples
    ///
    /// ```
    /// use xq_rules::{Color, Square, fen::Fen};
    ///
    /// // Red's chariot on e3 is pinned: it reaches the horse on d3 but may not take it.
    /// let pos = "3kr4/9/9/9/9/9/3nR4/9/9/4K4 w - - 0 1".parse::<Fen>()?.into_position()?;
    /// assert!(pos.attackers(Square::D3, Color::Red).contains(Square::E3));
    /// assert!(pos.capturers(Square::D3, Color::Red).is_empty());
    /// # Ok::<_, Box<dyn std::error::Error>>(())
    /// ```
    #[must_use]
    pub fn attackers(&self, target: Square, by: Color) -> SquareSet {
        let board = self.board();
        if board.piece_at(target).is_none_or(|piece| piece.color == by) {
            return SquareSet::EMPTY;
        }
        SquareSet::from_bits(self.bitboards().attackers(target.index(), by))
    }

    /// The pieces of the side whose piece `capture` takes that could legally take back on the
    /// same square right after it: the victim's protectors against that capture. Empty when
    /// `capture` takes nothing (or a piece of the capturer's own side).
    ///
    /// The capture itself is not checked for legality; its effect on the board is what
    /// counts, since the piece that moves away may open or close a defender's line.
    ///
    /// # Examples
    ///
    /// ```
    /// use xq_rules::{Move, Square, fen::Fen};
    ///
    /// // Black's advisor on e8 guards the horse on d7; if Red's chariot takes it, the
    /// // advisor takes back.
    /// let pos = "3k5/4a4/3n5/9/9/9/9/9/3R5/4K4 w - - 0 1".parse::<Fen>()?.into_position()?;
    /// let protectors = pos.recaptures(Move::new(Square::D1, Square::D7));
    /// assert_eq!(protectors.iter().collect::<Vec<_>>(), [Square::E8]);
    /// # Ok::<_, Box<dyn std::error::Error>>(())
    /// ```
    #[must_use]
    pub fn recaptures(&self, capture: Move) -> SquareSet {
        let board = self.board();
        let (Some(attacker), Some(victim)) =
            (board.piece_at(capture.from), board.piece_at(capture.to))
        else {
            return SquareSet::EMPTY;
        };
        if attacker.color == victim.color || victim.role == Role::General {
            return SquareSet::EMPTY;
        }
        let after = self
            .bitboards()
            .after_move(attacker, capture.from.index(), capture.to.index());
        legal_capturers(
            &after,
            self.general(victim.color),
            capture.to.index(),
            victim.color,
        )
    }

    /// The pieces of `color` (its general aside) pinned to their general: taking one off the
    /// board would leave the general attacked, by a chariot, a cannon over the piece that
    /// would remain its screen, a horse whose leg the piece blocks, or the other general on
    /// the opened file. A pinned piece may still move along its pinning line, or capture its
    /// pinner. Meaningful when `color` is not in check (then every piece would count).
    ///
    /// # Examples
    ///
    /// ```
    /// use xq_rules::{Color, Square, fen::Fen};
    ///
    /// // Red's advisor on e1 is all that keeps the generals apart.
    /// let pos = "4k4/9/9/9/9/9/3n5/3R5/4A4/4K4 w - - 0 1".parse::<Fen>()?.into_position()?;
    /// assert_eq!(pos.pinned(Color::Red).iter().collect::<Vec<_>>(), [Square::E1]);
    /// assert!(pos.pinned(Color::Black).is_empty());
    /// # Ok::<_, Box<dyn std::error::Error>>(())
    /// ```
    #[must_use]
    pub fn pinned(&self, color: Color) -> SquareSet {
        let bitboards = self.bitboards();
        let general = self.general(color).index();
        let occupied = bitboards.occupied();
        let mut pinned = 0;
        for square in SquareSet::from_bits(self.occupied(color)) {
            let bit = 1 << square.index();
            if square.index() != general
                && bitboards.is_attacked_with(general, !color, occupied & !bit, u128::MAX)
            {
                pinned |= bit;
            }
        }
        SquareSet::from_bits(pinned)
    }

    /// The pieces of `color` standing on the leg of an enemy horse aimed at `color`'s general:
    /// each holds back a check, so it cannot step off the point except to take that horse.
    ///
    /// # Examples
    ///
    /// ```
    /// use xq_rules::{Color, Square, fen::Fen};
    ///
    /// // Black's chariot on d8 blocks the leg of Red's horse on d7, which would check e9.
    /// let pos = "3ak4/3r5/3N5/9/9/9/9/9/9/3K5 w - - 0 1".parse::<Fen>()?.into_position()?;
    /// assert_eq!(pos.horse_leg_pins(Color::Black).iter().collect::<Vec<_>>(), [Square::D8]);
    /// # Ok::<_, Box<dyn std::error::Error>>(())
    /// ```
    #[must_use]
    pub fn horse_leg_pins(&self, color: Color) -> SquareSet {
        let bitboards = self.bitboards();
        let horses = bitboards.of(!color, Role::Horse);
        let own = bitboards.by_color(color);
        let mut pins = 0;
        for hop in &HORSE_ATTACKS[self.general(color).index() as usize] {
            if hop.to & horses != 0 {
                pins |= hop.block & own;
            }
        }
        SquareSet::from_bits(pins)
    }

    /// The enemy pieces that `by` attacks in the sense of the Asian rules' chase clauses (its
    /// *attack set*): the pieces V that a piece Y of `by`, neither its general nor a soldier,
    /// can capture legally, where
    ///
    /// - V is never the general (that is check), nor a soldier on its own side of the river;
    /// - V always counts when Y is a horse or a cannon and V a chariot, or Y an advisor or an
    ///   elephant and V a chariot, a cannon or a horse;
    /// - otherwise V counts only if it is unprotected: after Y takes it, no piece of V's side
    ///   can legally take back ([`Position::recaptures`]);
    /// - and when Y and V are of one kind, V counts only if it cannot legally capture Y
    ///   back, as a pinned V or a horse with its leg toward Y blocked cannot: a mutual attack
    ///   offers an exchange, it does not chase.
    ///
    /// The answer does not depend on whose turn it is.
    ///
    /// # Examples
    ///
    /// ```
    /// use xq_rules::{Color, Square, fen::Fen};
    ///
    /// // Red's horse on d5 can take Black's chariot on c7, which counts protected or not, and
    /// // the cannon on e7, which the chariot protects: only the chariot is attacked.
    /// let pos = "3k5/9/2r1c4/9/3N5/9/9/9/9/4K4 w - - 0 1".parse::<Fen>()?.into_position()?;
    /// assert_eq!(pos.attack_set(Color::Red).iter().collect::<Vec<_>>(), [Square::C7]);
    /// # Ok::<_, Box<dyn std::error::Error>>(())
    /// ```
    #[must_use]
    pub fn attack_set(&self, by: Color) -> SquareSet {
        let board = self.board();
        let mut set = 0;
        for from in SquareSet::from_bits(self.occupied(by)) {
            let Some(attacker) = board.piece_at(from) else {
                continue;
            };
            if !can_chase(attacker.role) {
                continue;
            }
            let targets = self.bitboards().targets(attacker, from.index()) & self.occupied(!by);
            for to in SquareSet::from_bits(targets) {
                let Some(victim) = board.piece_at(to) else {
                    continue;
                };
                if self.is_chased(Move::new(from, to), attacker, victim) {
                    set |= 1 << to.index();
                }
            }
        }
        SquareSet::from_bits(set)
    }

    /// The pieces of `by` that attack the piece on `target` in the sense of
    /// [`Position::attack_set`]: those whose capture of it counts. Empty when `target` is
    /// empty or holds a piece of `by`'s own; a piece is in `by`'s attack set exactly when it
    /// has a chaser.
    ///
    /// # Examples
    ///
    /// ```
    /// use xq_rules::{Color, Square, fen::Fen};
    ///
    /// // Red's horse on d5 and chariot on c3 can both take the chariot on c7, which the
    /// // chariot on c9 protects: only the horse's attack counts.
    /// let pos = "2rk5/9/2r6/9/3N5/9/2R6/9/9/4K4 w - - 0 1".parse::<Fen>()?.into_position()?;
    /// let chasers = pos.chasers(Square::C7, Color::Red);
    /// assert_eq!(chasers.iter().collect::<Vec<_>>(), [Square::D5]);
    /// # Ok::<_, Box<dyn std::error::Error>>(())
    /// ```
    #[must_use]
    pub fn chasers(&self, target: Square, by: Color) -> SquareSet {
        let board = self.board();
        let Some(victim) = board.piece_at(target).filter(|piece| piece.color != by) else {
            return SquareSet::EMPTY;
        };
        let mut chasers = 0;
        for from in SquareSet::from_bits(self.bitboards().attackers(target.index(), by)) {
            let attacker = board.piece_at(from);
            if attacker.is_some_and(|attacker| {
                can_chase(attacker.role)
                    && self.is_chased(Move::new(from, target), attacker, victim)
            }) {
                chasers |= 1 << from.index();
            }
        }
        SquareSet::from_bits(chasers)
    }

    /// Whether `capture`, by `attacker` of `victim` (a pseudo-legal capture), puts the victim
    /// in its side's attack set: see [`Position::attack_set`].
    fn is_chased(&self, capture: Move, attacker: Piece, victim: Piece) -> bool {
        let on_own_half = capture.to.rank().half() == victim.color;
        if victim.role == Role::General || (victim.role == Role::Soldier && on_own_half) {
            return false;
        }
        if !self.is_safe_for(attacker.color, capture, attacker) {
            return false;
        }
        if outranks(attacker.role, victim.role) {
            return true;
        }
        let exchange = attacker.role == victim.role
            && self.can_capture(Move::new(capture.to, capture.from), victim);
        !exchange && self.recaptures(capture).is_empty()
    }

    /// Whether `piece`, standing on `mv.from`, can legally make `mv`, whoever is to move.
    fn can_capture(&self, mv: Move, piece: Piece) -> bool {
        let reaches = self.bitboards().targets(piece, mv.from.index()) & (1 << mv.to.index());
        reaches != 0 && self.is_safe_for(piece.color, mv, piece)
    }
}

/// Whether a piece of `role` can chase: generals and soldiers never do.
const fn can_chase(role: Role) -> bool {
    !matches!(role, Role::General | Role::Soldier)
}

/// Whether an attack of `attacker` on `victim` threatens without regard to protection: a
/// minor piece on a chariot, a palace piece on anything stronger than itself. Taking the
/// stronger piece wins material even if it is taken back.
const fn outranks(attacker: Role, victim: Role) -> bool {
    matches!(
        (attacker, victim),
        (Role::Horse | Role::Cannon, Role::Chariot)
            | (
                Role::Advisor | Role::Elephant,
                Role::Chariot | Role::Cannon | Role::Horse
            )
    )
}

/// The pieces of `by` on `board` that can take on `target` without leaving their general
/// (standing on `general` unless it is the capturer) attacked or facing the other one.
fn legal_capturers(bitboards: &Bitboards, general: Square, target: u8, by: Color) -> SquareSet {
    let target_bit = 1 << target;
    let occupied = bitboards.occupied();
    let generals = bitboards.of(by, Role::General);
    let mut legal = 0;
    for from in SquareSet::from_bits(bitboards.attackers(target, by)) {
        let from_bit = 1 << from.index();
        let king = if generals & from_bit != 0 {
            target
        } else {
            general.index()
        };
        // The target is occupied before and after: only the origin empties.
        if !bitboards.is_attacked_with(king, !by, occupied & !from_bit, !target_bit) {
            legal |= from_bit;
        }
    }
    SquareSet::from_bits(legal)
}

#[cfg(test)]
mod tests;
