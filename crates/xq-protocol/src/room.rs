//! Rooms: join codes, resume tokens and the options a room is created with.

use std::fmt;
use std::str::FromStr;
use std::time::Duration;

use serde::{Deserialize, Serialize};
use xq_session::{MatchConfig, RepetitionRule, TimeControl, UndoPolicy};

use crate::ErrorCode;

/// The least time a room's clocks may start with: below it, Red would lose on time before its
/// first move could reach the relay.
pub const MIN_CLOCK: Duration = Duration::from_secs(1);

/// The symbols of a join code: upper-case letters and digits without the look-alikes
/// `0 O 1 I L`, so a code read aloud or from a screen is hard to get wrong.
const ALPHABET: &[u8; 31] = b"ABCDEFGHJKMNPQRSTUVWXYZ23456789";

/// A room's short join code, six symbols such as `K7QX3M`. Parsing text accepts lower case;
/// on the wire a code is always upper case ([`codec::decode`](crate::codec::decode) refuses
/// any other spelling).
#[derive(Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize)]
#[serde(try_from = "String", into = "String")]
pub struct RoomCode([u8; Self::LEN]);

/// A text that is not a join code.
#[derive(Clone, Copy, Debug, PartialEq, Eq, thiserror::Error)]
#[error("invalid room code (six letters and digits, without 0 O 1 I L)")]
pub struct ParseRoomCodeError;

impl RoomCode {
    /// The number of symbols in a code.
    pub const LEN: usize = 6;

    /// The code for a number (the relay draws the number at random; 31⁶ ≈ 887 million codes).
    #[must_use]
    pub fn from_u64(mut n: u64) -> Self {
        let mut code = [0; Self::LEN];
        for symbol in &mut code {
            *symbol = ALPHABET[(n % ALPHABET.len() as u64) as usize];
            n /= ALPHABET.len() as u64;
        }
        Self(code)
    }

    /// The code as text.
    #[must_use]
    pub fn as_str(&self) -> &str {
        // Every byte comes from ALPHABET, which is ASCII.
        std::str::from_utf8(&self.0).unwrap_or_default()
    }
}

impl FromStr for RoomCode {
    type Err = ParseRoomCodeError;

    fn from_str(text: &str) -> Result<Self, ParseRoomCodeError> {
        let bytes = text.as_bytes();
        if bytes.len() != Self::LEN {
            return Err(ParseRoomCodeError);
        }
        let mut code = [0; Self::LEN];
        for (symbol, byte) in code.iter_mut().zip(bytes) {
            let upper = byte.to_ascii_uppercase();
            if !ALPHABET.contains(&upper) {
                return Err(ParseRoomCodeError);
            }
            *symbol = upper;
        }
        Ok(Self(code))
    }
}

impl TryFrom<String> for RoomCode {
    type Error = ParseRoomCodeError;

    fn try_from(text: String) -> Result<Self, ParseRoomCodeError> {
        text.parse()
    }
}

impl From<RoomCode> for String {
    fn from(code: RoomCode) -> Self {
        code.as_str().to_string()
    }
}

impl fmt::Display for RoomCode {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

impl fmt::Debug for RoomCode {
    /// The code as text (`RoomCode("K7QX3M")`), so that logs of rooms can be read.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_tuple("RoomCode").field(&self.as_str()).finish()
    }
}

/// A secret that lets a player take back its seat after a disconnect, on any transport.
#[derive(Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub struct ResumeToken(pub [u8; 16]);

impl fmt::Debug for ResumeToken {
    /// Never prints the secret itself, so tokens stay out of logs.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("ResumeToken(..)")
    }
}

/// Which colour the creator of a room takes.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub enum SeatChoice {
    /// Red, who moves first.
    Red,
    /// Black.
    Black,
    /// Drawn by the relay.
    #[default]
    Random,
}

/// How a room's matches are played.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct RoomOptions {
    /// The clocks.
    pub time_control: TimeControl,
    /// Whether and how often a player may take moves back.
    pub undo: UndoPolicy,
    /// The creator's colour (ignored by quick match, which draws it).
    pub seat: SeatChoice,
    /// How a threefold repetition is judged: by the Asian rules on perpetual check and
    /// chase (the default), or on perpetual check alone.
    pub repetition: RepetitionRule,
}

impl RoomOptions {
    /// The rules a room with these options plays its matches under: the standard start and
    /// move limit, with these clocks, this undo policy and this repetition rule.
    #[must_use]
    pub fn match_config(&self) -> MatchConfig {
        let mut config = MatchConfig::default();
        config.time_control = self.time_control;
        config.undo = self.undo;
        config.repetition = self.repetition;
        config
    }

    /// Whether a relay accepts these options for a new room.
    ///
    /// # Errors
    ///
    /// [`ErrorCode::InvalidOptions`] if the clocks start with less than [`MIN_CLOCK`].
    pub fn check(&self) -> Result<(), ErrorCode> {
        match self.time_control {
            TimeControl::Increment { base, .. } if base < MIN_CLOCK => {
                Err(ErrorCode::InvalidOptions)
            }
            _ => Ok(()),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn codes_round_trip_and_refuse_look_alikes() {
        for n in [0, 1, 30, 31, 887_503_680, u64::MAX] {
            let code = RoomCode::from_u64(n);
            assert_eq!(code.to_string().parse::<RoomCode>(), Ok(code));
            assert_eq!(
                code.to_string().to_lowercase().parse::<RoomCode>(),
                Ok(code)
            );
        }
        assert_eq!(
            "AAAAAA".parse::<RoomCode>().map(|c| c.to_string()),
            Ok("AAAAAA".into())
        );
        for bad in [
            "", "ABCDE", "ABCDEFG", "ABCDE0", "ABCDEO", "ABCDE1", "ABCDEI", "ABCDEL", "ABCDÉ",
        ] {
            assert_eq!(bad.parse::<RoomCode>(), Err(ParseRoomCodeError), "{bad:?}");
        }
    }

    #[test]
    fn a_rooms_rules_take_its_clocks_undo_policy_and_repetition_rule() {
        let options = RoomOptions {
            time_control: TimeControl::Increment {
                base: Duration::from_secs(300),
                increment: Duration::from_secs(2),
            },
            undo: UndoPolicy::Forbidden,
            seat: SeatChoice::Black,
            repetition: RepetitionRule::ChecksOnly,
        };
        let config = options.match_config();
        assert_eq!(config.time_control, options.time_control);
        assert_eq!(config.undo, UndoPolicy::Forbidden);
        assert_eq!(config.repetition, RepetitionRule::ChecksOnly);
        // Everything else is the standard game's.
        let standard = MatchConfig::default();
        assert_eq!(config.start, standard.start);
        assert_eq!(config.move_limit, standard.move_limit);
    }

    #[test]
    fn clocks_start_with_at_least_a_second() {
        let clocks = |base| RoomOptions {
            time_control: TimeControl::Increment {
                base,
                increment: Duration::from_secs(10),
            },
            ..RoomOptions::default()
        };
        assert_eq!(RoomOptions::default().check(), Ok(()));
        assert_eq!(clocks(MIN_CLOCK).check(), Ok(()));
        assert_eq!(clocks(Duration::MAX).check(), Ok(()));
        for base in [Duration::ZERO, Duration::from_nanos(1), MIN_CLOCK / 2] {
            assert_eq!(clocks(base).check(), Err(ErrorCode::InvalidOptions));
        }
    }

    #[test]
    fn tokens_stay_out_of_debug_output() {
        assert_eq!(format!("{:?}", ResumeToken([7; 16])), "ResumeToken(..)");
    }

    #[test]
    fn codes_read_as_text_in_debug_output() {
        let code: RoomCode = "k7qx3m".parse().unwrap_or_else(|e| panic!("{e}"));
        assert_eq!(format!("{code:?}"), r#"RoomCode("K7QX3M")"#);
    }
}
