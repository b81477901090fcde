//! Sets of squares, one bit per point.

use std::fmt;
use std::ops::{BitAnd, BitAndAssign, BitOr, BitOrAssign, Sub, SubAssign};

use crate::Square;

/// A set of the board's points, held as a 90-bit mask: set operations are single instructions,
/// so the analysis that asks "which pieces" of every position (attacks, pins) allocates nothing.
///
/// # Examples
///
/// ```
/// use xq_rules::{Square, SquareSet};
///
/// let mut set = SquareSet::EMPTY;
/// set.insert(Square::E0);
/// set.insert(Square::A9);
/// assert!(set.contains(Square::E0));
/// assert_eq!(set.iter().collect::<Vec<_>>(), [Square::E0, Square::A9]);
/// assert_eq!((set - SquareSet::from(Square::E0)).len(), 1);
/// ```
#[derive(Clone, Copy, Default, PartialEq, Eq, Hash)]
pub struct SquareSet(u128);

impl SquareSet {
    /// No square.
    pub const EMPTY: Self = Self(0);

    /// The set whose bit `n` stands for the square with index `n`; bits above 89 must be clear.
    pub(crate) const fn from_bits(bits: u128) -> Self {
        debug_assert!(bits >> Square::COUNT == 0);
        Self(bits)
    }

    /// Whether `square` is in the set.
    #[must_use]
    pub const fn contains(self, square: Square) -> bool {
        self.0 & (1 << square.index()) != 0
    }

    /// Adds `square`.
    pub const fn insert(&mut self, square: Square) {
        self.0 |= 1 << square.index();
    }

    /// Takes `square` out.
    pub const fn remove(&mut self, square: Square) {
        self.0 &= !(1 << square.index());
    }

    /// The number of squares in the set.
    #[must_use]
    pub const fn len(self) -> usize {
        self.0.count_ones() as usize
    }

    /// Whether the set has no square.
    #[must_use]
    pub const fn is_empty(self) -> bool {
        self.0 == 0
    }

    /// The squares, in index order.
    #[must_use]
    pub const fn iter(self) -> Iter {
        Iter(self.0)
    }
}

impl From<Square> for SquareSet {
    fn from(square: Square) -> Self {
        Self(1 << square.index())
    }
}

impl FromIterator<Square> for SquareSet {
    fn from_iter<I: IntoIterator<Item = Square>>(squares: I) -> Self {
        let mut set = Self::EMPTY;
        for square in squares {
            set.insert(square);
        }
        set
    }
}

impl IntoIterator for SquareSet {
    type Item = Square;
    type IntoIter = Iter;

    fn into_iter(self) -> Iter {
        self.iter()
    }
}

/// The squares of a [`SquareSet`], in index order.
#[derive(Clone, Debug)]
pub struct Iter(u128);

impl Iterator for Iter {
    type Item = Square;

    fn next(&mut self) -> Option<Square> {
        if self.0 == 0 {
            return None;
        }
        let index = self.0.trailing_zeros() as u8;
        self.0 &= self.0 - 1;
        Some(Square::from_index_unchecked(index))
    }

    fn size_hint(&self) -> (usize, Option<usize>) {
        let len = self.0.count_ones() as usize;
        (len, Some(len))
    }
}

impl ExactSizeIterator for Iter {}

impl BitOr for SquareSet {
    type Output = Self;

    fn bitor(self, other: Self) -> Self {
        Self(self.0 | other.0)
    }
}

impl BitOrAssign for SquareSet {
    fn bitor_assign(&mut self, other: Self) {
        self.0 |= other.0;
    }
}

impl BitAnd for SquareSet {
    type Output = Self;

    fn bitand(self, other: Self) -> Self {
        Self(self.0 & other.0)
    }
}

impl BitAndAssign for SquareSet {
    fn bitand_assign(&mut self, other: Self) {
        self.0 &= other.0;
    }
}

impl Sub for SquareSet {
    type Output = Self;

    /// The squares of `self` that are not in `other`.
    fn sub(self, other: Self) -> Self {
        Self(self.0 & !other.0)
    }
}

impl SubAssign for SquareSet {
    fn sub_assign(&mut self, other: Self) {
        self.0 &= !other.0;
    }
}

impl fmt::Debug for SquareSet {
    /// The squares by name: `{e0, a9}`.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_set().entries(self.iter().map(Named)).finish()
    }
}

/// A square that debug-prints as its name.
struct Named(Square);

impl fmt::Debug for Named {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        fmt::Display::fmt(&self.0, f)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn set_operations_work_square_by_square() {
        let a: SquareSet = [Square::A0, Square::E4, Square::I9].into_iter().collect();
        let b: SquareSet = [Square::E4, Square::B7].into_iter().collect();
        assert_eq!((a | b).len(), 4);
        assert_eq!((a & b).iter().collect::<Vec<_>>(), [Square::E4]);
        assert_eq!((a - b).iter().collect::<Vec<_>>(), [Square::A0, Square::I9]);
        let mut c = a;
        c.remove(Square::A0);
        c -= SquareSet::from(Square::I9);
        c |= SquareSet::from(Square::B7);
        c &= b;
        assert_eq!(c, b);
        assert!(SquareSet::EMPTY.is_empty());
        assert_eq!(format!("{a:?}"), "{a0, e4, i9}");
        assert_eq!(Square::all().collect::<SquareSet>().len(), Square::COUNT);
    }
}
