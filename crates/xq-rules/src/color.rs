//! The two sides and per-side storage.

use std::fmt;
use std::ops::{Index, IndexMut, Not};

/// One of the two sides. Red moves first and sits at ranks 0–4; Black sits at ranks 5–9.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
#[repr(u8)]
pub enum Color {
    /// The side that moves first (upper-case letters in FEN).
    Red = 0,
    /// The side that moves second (lower-case letters in FEN).
    Black = 1,
}

impl Color {
    /// Both colours, Red first.
    pub const ALL: [Self; 2] = [Self::Red, Self::Black];

    /// The opponent.
    #[must_use]
    pub const fn other(self) -> Self {
        match self {
            Self::Red => Self::Black,
            Self::Black => Self::Red,
        }
    }

    /// Picks one of two values by colour.
    #[must_use]
    pub fn fold<T>(self, red: T, black: T) -> T {
        match self {
            Self::Red => red,
            Self::Black => black,
        }
    }

    /// The FEN side-to-move letter: `w` for Red (as Pikafish writes it) or `b` for Black.
    #[must_use]
    pub const fn fen_char(self) -> char {
        match self {
            Self::Red => 'w',
            Self::Black => 'b',
        }
    }
}

impl Not for Color {
    type Output = Self;

    fn not(self) -> Self {
        self.other()
    }
}

impl fmt::Display for Color {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(match self {
            Self::Red => "red",
            Self::Black => "black",
        })
    }
}

/// A value for each side, indexed by [`Color`].
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
pub struct ByColor<T> {
    /// Red's value.
    pub red: T,
    /// Black's value.
    pub black: T,
}

impl<T> ByColor<T> {
    /// Builds both values from a function of the colour.
    pub fn new_with(mut f: impl FnMut(Color) -> T) -> Self {
        Self {
            red: f(Color::Red),
            black: f(Color::Black),
        }
    }

    /// Applies `f` to both values.
    pub fn map<U>(self, mut f: impl FnMut(T) -> U) -> ByColor<U> {
        ByColor {
            red: f(self.red),
            black: f(self.black),
        }
    }
}

impl<T> Index<Color> for ByColor<T> {
    type Output = T;

    fn index(&self, color: Color) -> &T {
        match color {
            Color::Red => &self.red,
            Color::Black => &self.black,
        }
    }
}

impl<T> IndexMut<Color> for ByColor<T> {
    fn index_mut(&mut self, color: Color) -> &mut T {
        match color {
            Color::Red => &mut self.red,
            Color::Black => &mut self.black,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn other_is_an_involution() {
        for c in Color::ALL {
            assert_ne!(c, !c);
            assert_eq!(c, !!c);
        }
    }

    #[test]
    fn by_color_indexes_each_side() {
        let mut v = ByColor::new_with(|c| c as u8);
        assert_eq!((v[Color::Red], v[Color::Black]), (0, 1));
        v[Color::Black] = 7;
        assert_eq!(v.map(u32::from), ByColor { red: 0, black: 7 });
    }
}
