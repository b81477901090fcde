//! The archive of finished games: what a row holds and how a record becomes one, the same
//! for every engine.

use std::fmt;
use std::num::ParseIntError;
use std::str::FromStr;
use std::time::{SystemTime, UNIX_EPOCH};

use xq_protocol::RoomCode;
use xq_session::{
    Record, Seat,
    pgn::{self, MoveFormat},
};

/// An archived game's number, given by the storage in archiving order.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct GameId(pub i64);

/// One archived game as `xq-relay games list` shows it.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct GameSummary {
    /// Its number in the archive.
    pub id: GameId,
    /// The room it was played in.
    pub room: RoomCode,
    /// When the match started.
    pub started: UnixTime,
    /// When it ended.
    pub ended: UnixTime,
    /// Who played Red (see [`player_name`]).
    pub red: String,
    /// Who played Black.
    pub black: String,
    /// The PGN result token: `1-0`, `0-1` or `1/2-1/2`.
    pub result: String,
    /// Why it ended, in the words of PGN's `Termination` tag ("checkmate", "resignation").
    pub termination: String,
    /// How many plies the record holds.
    pub moves: usize,
}

/// A wall-clock time in whole seconds since the Unix epoch, UTC. The relay's own clock
/// ([`xq_session::Timestamp`]) restarts with the process, so the archive keeps these.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct UnixTime(pub i64);

/// A game ready for the archive: the columns of its [`GameSummary`] and the PGN text,
/// derived from the match's record in one way for every engine (SQLite's table, a cluster's
/// archive stream), so that an archived game reads the same wherever it was kept.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Archived {
    /// Who played Red ([`player_name`]).
    pub red: String,
    /// Who played Black.
    pub black: String,
    /// The PGN result token: `1-0`, `0-1` or `1/2-1/2` (`*` for a record without a result).
    pub result: &'static str,
    /// Why it ended, in the words of PGN's `Termination` tag; empty if the record says not.
    pub termination: String,
    /// How many plies the record holds.
    pub moves: usize,
    /// The PGN, with the players' names, the date and the room in its tags.
    pub pgn: String,
}

/// How the archive names a player: players are anonymous, so a seat of a room (`K7QX3M/1`
/// is the room's creator, `K7QX3M/2` the player who joined). The name stays with the seat
/// across rematches, when the colours swap.
#[must_use]
pub fn player_name(code: RoomCode, seat: Seat) -> String {
    let number = match seat {
        Seat::First => 1,
        Seat::Second => 2,
    };
    format!("{code}/{number}")
}

impl Archived {
    /// The archive row of `record`, a game of room `code` with `red` playing Red that started
    /// at `started`. The PGN gets the players' names, the date and the room.
    #[must_use]
    pub fn new(code: RoomCode, red: Seat, started: UnixTime, record: &Record) -> Self {
        let mut record = record.clone();
        let tags = &mut record.tags;
        tags.event = Some(format!("xq relay, room {code}"));
        tags.date = Some(started.pgn_date());
        tags.red = Some(player_name(code, red));
        tags.black = Some(player_name(code, red.other()));
        Self {
            red: player_name(code, red),
            black: player_name(code, red.other()),
            result: pgn::result_token(record.outcome()),
            termination: record
                .result()
                .map_or_else(String::new, |result| result.to_string()),
            moves: record.moves().len(),
            pgn: pgn::write(&record, MoveFormat::Iccs),
        }
    }
}

impl UnixTime {
    /// The time now, by the system clock (the epoch itself if the clock is set before it).
    #[must_use]
    pub fn now() -> Self {
        let secs = SystemTime::now()
            .duration_since(UNIX_EPOCH)
            .map_or(0, |since| since.as_secs());
        Self(i64::try_from(secs).unwrap_or(i64::MAX))
    }

    /// The date as PGN's `Date` tag writes it: `2025.05.01`.
    #[must_use]
    pub fn pgn_date(self) -> String {
        let (year, month, day) = civil_date(self.0.div_euclid(86_400));
        format!("{year:04}.{month:02}.{day:02}")
    }
}

impl fmt::Display for UnixTime {
    /// ISO 8601 in UTC: `2025-05-01T12:34:56Z`.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let (year, month, day) = civil_date(self.0.div_euclid(86_400));
        let secs = self.0.rem_euclid(86_400);
        let (hour, minute, second) = (secs / 3600, secs / 60 % 60, secs % 60);
        write!(
            f,
            "{year:04}-{month:02}-{day:02}T{hour:02}:{minute:02}:{second:02}Z"
        )
    }
}

impl fmt::Display for GameId {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        self.0.fmt(f)
    }
}

impl FromStr for GameId {
    type Err = ParseIntError;

    fn from_str(text: &str) -> Result<Self, ParseIntError> {
        text.parse().map(Self)
    }
}

/// The proleptic Gregorian date of a day counted from 1970-01-01 (Howard Hinnant's
/// `civil_from_days`).
fn civil_date(days: i64) -> (i64, i64, i64) {
    let z = days + 719_468;
    let era = z.div_euclid(146_097);
    let day_of_era = z.rem_euclid(146_097);
    let year_of_era =
        (day_of_era - day_of_era / 1460 + day_of_era / 36_524 - day_of_era / 146_096) / 365;
    let day_of_year = day_of_era - (365 * year_of_era + year_of_era / 4 - year_of_era / 100);
    let shifted_month = (5 * day_of_year + 2) / 153;
    let day = day_of_year - (153 * shifted_month + 2) / 5 + 1;
    let month = if shifted_month < 10 {
        shifted_month + 3
    } else {
        shifted_month - 9
    };
    let year = year_of_era + era * 400 + i64::from(month <= 2);
    (year, month, day)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn times_print_as_utc_dates() {
        assert_eq!(UnixTime(0).to_string(), "1970-01-01T00:00:00Z");
        assert_eq!(UnixTime(951_782_400).pgn_date(), "2000.02.29");
        assert_eq!(UnixTime(1_746_102_896).to_string(), "2025-05-01T12:34:56Z");
        assert_eq!(UnixTime(-1).to_string(), "1969-12-31T23:59:59Z");
    }

    #[test]
    fn players_are_named_by_room_and_seat() {
        let code = RoomCode::from_u64(0);
        assert_eq!(player_name(code, Seat::First), "AAAAAA/1");
        assert_eq!(player_name(code, Seat::Second), "AAAAAA/2");
    }
}
