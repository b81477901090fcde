//! A room's two seats and who holds each.

use std::ops::{Index, IndexMut};

use xq_session::{Seat, Timestamp};

use crate::ConnId;

/// A value for each of a room's two seats, indexed by [`Seat`].
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub(crate) struct Seats<T> {
    pub(crate) first: T,
    pub(crate) second: T,
}

impl<T> Index<Seat> for Seats<T> {
    type Output = T;

    fn index(&self, seat: Seat) -> &T {
        match seat {
            Seat::First => &self.first,
            Seat::Second => &self.second,
        }
    }
}

impl<T> IndexMut<Seat> for Seats<T> {
    fn index_mut(&mut self, seat: Seat) -> &mut T {
        match seat {
            Seat::First => &mut self.first,
            Seat::Second => &mut self.second,
        }
    }
}

/// Both seats, first then second.
pub(crate) const SEATS: [Seat; 2] = [Seat::First, Seat::Second];

/// One seat of a room over its life: empty, held by a player (here or away), or lost.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub(crate) enum SeatState {
    /// Nobody has taken it yet.
    #[default]
    Empty,
    /// Its player is on this connection.
    Connected(ConnId),
    /// Its player has been away since this time (its connection failed, or it left); the seat
    /// waits for a resume until the grace period ends.
    Away(Timestamp),
    /// Its player stayed away past the grace period: the token is void and the seat lost.
    Gone,
}

impl SeatState {
    /// The connection of the player sitting here now.
    pub(crate) const fn conn(self) -> Option<ConnId> {
        match self {
            Self::Connected(conn) => Some(conn),
            _ => None,
        }
    }

    /// When the player went away, if it is away.
    pub(crate) const fn away_since(self) -> Option<Timestamp> {
        match self {
            Self::Away(since) => Some(since),
            _ => None,
        }
    }

    /// Whether a player has ever sat here.
    pub(crate) const fn is_taken(self) -> bool {
        !matches!(self, Self::Empty)
    }

    /// Whether a player still holds the seat, here or away.
    pub(crate) const fn is_held(self) -> bool {
        matches!(self, Self::Connected(_) | Self::Away(_))
    }
}
