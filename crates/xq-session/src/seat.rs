//! Players as seats at the table, which keep their identity when colours swap.

use xq_rules::Color;

/// One of the two players of a pairing, stable across rematches while the colours swap.
///
/// A [`crate::Match`] and its commands speak of colours only. The relay keeps one connection
/// per seat and asks the match which colour each seat plays ([`crate::Match::color_of`]). The
/// first match of a pairing seats [`Seat::First`] at Red unless the relay chose otherwise
/// ([`crate::Match::with_seats`], for example after drawing lots); each
/// [`crate::Match::rematch`] gives each seat the other colour.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
pub enum Seat {
    /// The first player (by default Red in the first game).
    First,
    /// The second player.
    Second,
}

impl Seat {
    /// The other player.
    #[must_use]
    pub const fn other(self) -> Self {
        match self {
            Self::First => Self::Second,
            Self::Second => Self::First,
        }
    }

    /// The colour this seat plays when `red` plays Red.
    #[must_use]
    pub(crate) fn color(self, red: Self) -> Color {
        if self == red {
            Color::Red
        } else {
            Color::Black
        }
    }
}
