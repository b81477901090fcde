//! The seven kinds of piece.

use std::fmt;

/// A kind of piece, independent of its colour.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
#[repr(u8)]
pub enum Role {
    /// 帥/將: moves one point orthogonally inside the palace.
    General = 0,
    /// 仕/士: moves one point diagonally inside the palace.
    Advisor = 1,
    /// 相/象: moves two points diagonally, blocked by a piece on the "eye", never across the river.
    Elephant = 2,
    /// 馬/马: one point orthogonally then one diagonally outward, blocked by a piece on the "leg".
    Horse = 3,
    /// 車/车: any distance orthogonally.
    Chariot = 4,
    /// 炮/砲: moves like a chariot, but captures by jumping exactly one screen.
    Cannon = 5,
    /// 兵/卒: one point forward; also sideways once across the river.
    Soldier = 6,
}

impl Role {
    /// All roles, in the order of their discriminants.
    pub const ALL: [Self; 7] = [
        Self::General,
        Self::Advisor,
        Self::Elephant,
        Self::Horse,
        Self::Chariot,
        Self::Cannon,
        Self::Soldier,
    ];

    /// The lower-case FEN letter (`k a b n r c p`), as Pikafish and Fairy-Stockfish write it.
    #[must_use]
    pub const fn char(self) -> char {
        match self {
            Self::General => 'k',
            Self::Advisor => 'a',
            Self::Elephant => 'b',
            Self::Horse => 'n',
            Self::Chariot => 'r',
            Self::Cannon => 'c',
            Self::Soldier => 'p',
        }
    }

    /// Parses a FEN letter of either case; also accepts the alternative letters `e` (elephant)
    /// and `h` (horse) that some tools write.
    #[must_use]
    pub const fn from_char(ch: char) -> Option<Self> {
        Some(match ch.to_ascii_lowercase() {
            'k' => Self::General,
            'a' => Self::Advisor,
            'b' | 'e' => Self::Elephant,
            'n' | 'h' => Self::Horse,
            'r' => Self::Chariot,
            'c' => Self::Cannon,
            'p' => Self::Soldier,
            _ => return None,
        })
    }

    /// How many pieces of this role one side has in a full set.
    #[must_use]
    pub const fn count_in_set(self) -> usize {
        match self {
            Self::General => 1,
            Self::Soldier => 5,
            _ => 2,
        }
    }
}

impl fmt::Display for Role {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(match self {
            Self::General => "general",
            Self::Advisor => "advisor",
            Self::Elephant => "elephant",
            Self::Horse => "horse",
            Self::Chariot => "chariot",
            Self::Cannon => "cannon",
            Self::Soldier => "soldier",
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn letters_round_trip() {
        for role in Role::ALL {
            assert_eq!(Role::from_char(role.char()), Some(role));
            assert_eq!(
                Role::from_char(role.char().to_ascii_uppercase()),
                Some(role)
            );
        }
        assert_eq!(Role::from_char('e'), Some(Role::Elephant));
        assert_eq!(Role::from_char('H'), Some(Role::Horse));
        assert_eq!(Role::from_char('x'), None);
    }

    #[test]
    fn a_full_set_has_sixteen_pieces() {
        assert_eq!(
            Role::ALL.iter().map(|r| r.count_in_set()).sum::<usize>(),
            16
        );
    }
}
