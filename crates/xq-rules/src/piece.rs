//! A coloured piece.

use std::fmt;

use crate::{Color, Role};

/// A piece: a role and a colour. It has no invariant, so its fields are public.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
pub struct Piece {
    /// The side the piece belongs to.
    pub color: Color,
    /// What kind of piece it is.
    pub role: Role,
}

impl Piece {
    /// Builds a piece.
    #[must_use]
    pub const fn new(color: Color, role: Role) -> Self {
        Self { color, role }
    }

    /// The FEN letter: upper case for Red, lower case for Black.
    #[must_use]
    pub const fn char(self) -> char {
        match self.color {
            Color::Red => self.role.char().to_ascii_uppercase(),
            Color::Black => self.role.char(),
        }
    }

    /// Parses a FEN letter (`K`…`P` for Red, `k`…`p` for Black; `E/e` and `H/h` are accepted too).
    #[must_use]
    pub const fn from_char(ch: char) -> Option<Self> {
        let Some(role) = Role::from_char(ch) else {
            return None;
        };
        let color = if ch.is_ascii_uppercase() {
            Color::Red
        } else {
            Color::Black
        };
        Some(Self { color, role })
    }

    /// The traditional Chinese glyph; the two sides use different characters for most roles.
    #[must_use]
    pub const fn glyph(self) -> char {
        match (self.color, self.role) {
            (Color::Red, Role::General) => '帥',
            (Color::Red, Role::Advisor) => '仕',
            (Color::Red, Role::Elephant) => '相',
            (Color::Red, Role::Horse) => '傌',
            (Color::Red, Role::Chariot) => '俥',
            (Color::Red, Role::Cannon) => '炮',
            (Color::Red, Role::Soldier) => '兵',
            (Color::Black, Role::General) => '將',
            (Color::Black, Role::Advisor) => '士',
            (Color::Black, Role::Elephant) => '象',
            (Color::Black, Role::Horse) => '馬',
            (Color::Black, Role::Chariot) => '車',
            (Color::Black, Role::Cannon) => '砲',
            (Color::Black, Role::Soldier) => '卒',
        }
    }

    /// A dense index `0..14` (colour-major), used by tables such as Zobrist keys.
    #[must_use]
    pub(crate) const fn index(self) -> usize {
        self.color as usize * 7 + self.role as usize
    }
}

impl fmt::Display for Piece {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}", self.char())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn fen_letters_round_trip_and_indices_are_dense() {
        let mut seen = [false; 14];
        for color in Color::ALL {
            for role in Role::ALL {
                let piece = Piece::new(color, role);
                assert_eq!(Piece::from_char(piece.char()), Some(piece));
                assert!(!std::mem::replace(&mut seen[piece.index()], true));
            }
        }
        assert_eq!(
            Piece::from_char('E'),
            Some(Piece::new(Color::Red, Role::Elephant))
        );
        assert_eq!(Piece::from_char('1'), None);
    }
}
