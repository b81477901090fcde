//! Files, ranks and squares in ICCS coordinates.
//!
//! Files run `a`–`i` from Red's left, ranks `0`–`9` from Red's back rank, so Red's general starts
//! on `e0` and Black's on `e9`. A [`Square`] can only hold one of the 90 points of the board.

use std::fmt;
use std::str::FromStr;

use crate::Color;

/// A file (vertical line), `a` to `i` from Red's left.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
#[repr(u8)]
#[allow(missing_docs)]
pub enum File {
    A = 0,
    B,
    C,
    D,
    E,
    F,
    G,
    H,
    I,
}

impl File {
    /// All files, `a` first.
    pub const ALL: [Self; 9] = [
        Self::A,
        Self::B,
        Self::C,
        Self::D,
        Self::E,
        Self::F,
        Self::G,
        Self::H,
        Self::I,
    ];

    /// The file with this index (`0` is `a`), if there is one.
    #[must_use]
    pub const fn new(index: u8) -> Option<Self> {
        if index < 9 {
            Some(Self::ALL[index as usize])
        } else {
            None
        }
    }

    /// The file's index, `0` for `a`.
    #[must_use]
    pub const fn index(self) -> u8 {
        self as u8
    }

    /// The file's letter.
    #[must_use]
    pub const fn char(self) -> char {
        (b'a' + self as u8) as char
    }

    /// Parses a file letter of either case.
    #[must_use]
    pub const fn from_char(ch: char) -> Option<Self> {
        let lower = ch.to_ascii_lowercase();
        if lower.is_ascii_lowercase() {
            Self::new(lower as u8 - b'a')
        } else {
            None
        }
    }

    /// The mirror file (`a` ↔ `i`).
    #[must_use]
    pub const fn flip(self) -> Self {
        Self::ALL[8 - self as usize]
    }
}

/// A rank (horizontal line), `0` (Red's back rank) to `9` (Black's back rank).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
#[repr(u8)]
#[allow(missing_docs)]
pub enum Rank {
    R0 = 0,
    R1,
    R2,
    R3,
    R4,
    R5,
    R6,
    R7,
    R8,
    R9,
}

impl Rank {
    /// All ranks, Red's back rank first.
    pub const ALL: [Self; 10] = [
        Self::R0,
        Self::R1,
        Self::R2,
        Self::R3,
        Self::R4,
        Self::R5,
        Self::R6,
        Self::R7,
        Self::R8,
        Self::R9,
    ];

    /// The rank with this index, if there is one.
    #[must_use]
    pub const fn new(index: u8) -> Option<Self> {
        if index < 10 {
            Some(Self::ALL[index as usize])
        } else {
            None
        }
    }

    /// The rank's index, `0` for Red's back rank.
    #[must_use]
    pub const fn index(self) -> u8 {
        self as u8
    }

    /// The rank's digit.
    #[must_use]
    pub const fn char(self) -> char {
        (b'0' + self as u8) as char
    }

    /// Parses a rank digit.
    #[must_use]
    pub const fn from_char(ch: char) -> Option<Self> {
        if ch.is_ascii_digit() {
            Self::new(ch as u8 - b'0')
        } else {
            None
        }
    }

    /// The mirror rank across the river (`0` ↔ `9`).
    #[must_use]
    pub const fn flip(self) -> Self {
        Self::ALL[9 - self as usize]
    }

    /// Which side's half of the board this rank lies in.
    #[must_use]
    pub const fn half(self) -> Color {
        if (self as u8) < 5 {
            Color::Red
        } else {
            Color::Black
        }
    }
}

/// One of the 90 points of the board. Its index is `rank * 9 + file`, so `a0` is 0 and `i9` is 89.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
#[cfg_attr(feature = "serde", serde(try_from = "u8", into = "u8"))]
pub struct Square(u8);

/// An index outside `0..90` was given where a square was expected.
#[derive(Clone, Copy, Debug, PartialEq, Eq, thiserror::Error)]
#[error("square index out of range: {0}")]
pub struct SquareIndexError(pub u8);

/// A text that is not a square name such as `e0` or `h9`.
#[derive(Clone, Copy, Debug, PartialEq, Eq, thiserror::Error)]
#[error("invalid square name")]
pub struct ParseSquareError;

macro_rules! square_consts {
    ($($name:ident = $index:expr),* $(,)?) => {
        impl Square {
            $(
                #[doc = concat!("The square `", stringify!($name), "`.")]
                pub const $name: Self = Self($index);
            )*
        }
    };
}

square_consts! {
    A0 = 0, B0 = 1, C0 = 2, D0 = 3, E0 = 4, F0 = 5, G0 = 6, H0 = 7, I0 = 8,
    A1 = 9, B1 = 10, C1 = 11, D1 = 12, E1 = 13, F1 = 14, G1 = 15, H1 = 16, I1 = 17,
    A2 = 18, B2 = 19, C2 = 20, D2 = 21, E2 = 22, F2 = 23, G2 = 24, H2 = 25, I2 = 26,
    A3 = 27, B3 = 28, C3 = 29, D3 = 30, E3 = 31, F3 = 32, G3 = 33, H3 = 34, I3 = 35,
    A4 = 36, B4 = 37, C4 = 38, D4 = 39, E4 = 40, F4 = 41, G4 = 42, H4 = 43, I4 = 44,
    A5 = 45, B5 = 46, C5 = 47, D5 = 48, E5 = 49, F5 = 50, G5 = 51, H5 = 52, I5 = 53,
    A6 = 54, B6 = 55, C6 = 56, D6 = 57, E6 = 58, F6 = 59, G6 = 60, H6 = 61, I6 = 62,
    A7 = 63, B7 = 64, C7 = 65, D7 = 66, E7 = 67, F7 = 68, G7 = 69, H7 = 70, I7 = 71,
    A8 = 72, B8 = 73, C8 = 74, D8 = 75, E8 = 76, F8 = 77, G8 = 78, H8 = 79, I8 = 80,
    A9 = 81, B9 = 82, C9 = 83, D9 = 84, E9 = 85, F9 = 86, G9 = 87, H9 = 88, I9 = 89,
}

impl Square {
    /// The number of squares.
    pub const COUNT: usize = 90;

    /// The square on `file` and `rank`.
    #[must_use]
    pub const fn new(file: File, rank: Rank) -> Self {
        Self(rank as u8 * 9 + file as u8)
    }

    /// The square with this index (`rank * 9 + file`), if the index is below 90.
    ///
    /// # Examples
    ///
    /// ```
    /// use xq_rules::Square;
    /// assert_eq!(Square::from_index(4), Some(Square::E0));
    /// assert_eq!(Square::from_index(90), None);
    /// ```
    #[must_use]
    pub const fn from_index(index: u8) -> Option<Self> {
        if (index as usize) < Self::COUNT {
            Some(Self(index))
        } else {
            None
        }
    }

    /// Builds a square from an index the caller knows to be below 90.
    pub(crate) const fn from_index_unchecked(index: u8) -> Self {
        debug_assert!((index as usize) < Self::COUNT);
        Self(index)
    }

    /// All 90 squares in index order.
    pub fn all() -> impl DoubleEndedIterator<Item = Self> + ExactSizeIterator {
        (0..Self::COUNT as u8).map(Self)
    }

    /// The square's index, `rank * 9 + file`.
    #[must_use]
    pub const fn index(self) -> u8 {
        self.0
    }

    /// The square's file.
    #[must_use]
    pub const fn file(self) -> File {
        File::ALL[(self.0 % 9) as usize]
    }

    /// The square's rank.
    #[must_use]
    pub const fn rank(self) -> Rank {
        Rank::ALL[(self.0 / 9) as usize]
    }

    /// The square `df` files right and `dr` ranks up from this one, if it is on the board.
    #[must_use]
    pub const fn offset(self, df: i8, dr: i8) -> Option<Self> {
        let file = (self.0 % 9) as i8 + df;
        let rank = (self.0 / 9) as i8 + dr;
        if file >= 0 && file < 9 && rank >= 0 && rank < 10 {
            Some(Self((rank * 9 + file) as u8))
        } else {
            None
        }
    }

    /// The square seen from the other side: both file and rank mirrored (a half turn).
    #[must_use]
    pub const fn flip(self) -> Self {
        Self(89 - self.0)
    }

    /// Whether the square lies inside `color`'s palace (files d–f, three ranks at its end).
    #[must_use]
    pub const fn is_in_palace(self, color: Color) -> bool {
        let file = self.0 % 9;
        let rank = self.0 / 9;
        file >= 3
            && file <= 5
            && match color {
                Color::Red => rank <= 2,
                Color::Black => rank >= 7,
            }
    }
}

impl TryFrom<u8> for Square {
    type Error = SquareIndexError;

    fn try_from(index: u8) -> Result<Self, SquareIndexError> {
        Self::from_index(index).ok_or(SquareIndexError(index))
    }
}

impl From<Square> for u8 {
    fn from(square: Square) -> Self {
        square.0
    }
}

impl fmt::Display for Square {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}{}", self.file().char(), self.rank().char())
    }
}

impl FromStr for Square {
    type Err = ParseSquareError;

    /// Parses a square name such as `e0` (the file letter may be upper case).
    fn from_str(s: &str) -> Result<Self, ParseSquareError> {
        let mut chars = s.chars();
        match (chars.next(), chars.next(), chars.next()) {
            (Some(f), Some(r), None) => match (File::from_char(f), Rank::from_char(r)) {
                (Some(file), Some(rank)) => Ok(Self::new(file, rank)),
                _ => Err(ParseSquareError),
            },
            _ => Err(ParseSquareError),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_round_trip_for_every_square() {
        for sq in Square::all() {
            assert_eq!(sq.to_string().parse::<Square>(), Ok(sq));
            assert_eq!(Square::new(sq.file(), sq.rank()), sq);
            assert_eq!(sq.flip().flip(), sq);
        }
        assert_eq!(Square::E0.to_string(), "e0");
        assert_eq!(Square::I9.to_string(), "i9");
        assert_eq!("H2".parse::<Square>(), Ok(Square::H2));
    }

    #[test]
    fn bad_names_and_indices_are_refused() {
        for bad in ["", "e", "j0", "e10", "0e", "e0 "] {
            assert_eq!(bad.parse::<Square>(), Err(ParseSquareError), "{bad:?}");
        }
        assert_eq!(Square::try_from(90), Err(SquareIndexError(90)));
        assert_eq!(Square::try_from(89), Ok(Square::I9));
    }

    #[test]
    fn offsets_stay_on_the_board() {
        assert_eq!(Square::E0.offset(0, 1), Some(Square::E1));
        assert_eq!(Square::E0.offset(0, -1), None);
        assert_eq!(Square::A5.offset(-1, 0), None);
        assert_eq!(Square::I4.offset(1, 0), None);
        assert_eq!(Square::B0.offset(1, 2), Some(Square::C2));
    }

    #[test]
    fn palaces_have_nine_points_each() {
        for color in Color::ALL {
            assert_eq!(Square::all().filter(|sq| sq.is_in_palace(color)).count(), 9);
        }
        assert!(Square::E0.is_in_palace(Color::Red));
        assert!(Square::D9.is_in_palace(Color::Black));
        assert!(!Square::C0.is_in_palace(Color::Red));
    }
}
