//! The page's links: what the location hash asks for, parsed strictly.

use std::fmt;
use std::str::FromStr;

use xq_engine::Level;
use xq_gui_model::ComputerSetup;
use xq_protocol::{ParseRoomCodeError, RoomCode};
use xq_rules::Color;

/// What the page was opened for: the web lobby, or a way into a room.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Route {
    /// No hash: the lobby panel, where the player chooses.
    Lobby,
    /// Straight into a room.
    Enter(Entry),
    /// `#computer`, `#computer/LEVEL` or `#computer/LEVEL/black`: a game against the computer
    /// in this browser, at level 3 and playing Red unless the link says otherwise.
    Computer(ComputerSetup),
}

/// A way into a room on the relay, as a link names it.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Entry {
    /// `#create`: create a room and wait in it for an opponent.
    Create,
    /// `#join/CODE`: take the free seat of the room, or take back this browser's seat in it.
    Join(RoomCode),
    /// `#watch/CODE`: watch the room.
    Watch(RoomCode),
    /// `#quick`: be paired with the next player who asks the same.
    Quick,
}

/// A hash that names no route.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
#[non_exhaustive]
pub enum RouteError {
    /// The hash is none of `#create`, `#join/CODE`, `#watch/CODE` or `#quick`.
    #[error("unknown link #{0} (try #create, #join/CODE, #watch/CODE or #quick)")]
    Unknown(String),
    /// `#join` or `#watch` without a room code.
    #[error("the link #{0} needs a room code: #{0}/CODE")]
    MissingCode(&'static str),
    /// The level or side of `#computer/…` is not one.
    #[error(
        "bad link #computer/{0}: expected #computer/LEVEL (1 to 10) or #computer/LEVEL/red|black"
    )]
    BadComputer(String),
    /// The room code of `#join/…` or `#watch/…` is not one.
    #[error("bad room code {code:?} in the link: {source}")]
    BadCode {
        /// The text where the code should be.
        code: String,
        /// Why it is not a code.
        #[source]
        source: ParseRoomCodeError,
    },
}

impl Route {
    /// The route of a location hash, with or without its `#`.
    ///
    /// # Examples
    ///
    /// ```
    /// use xq_gui_web::{Entry, Route};
    ///
    /// assert_eq!(Route::from_hash("")?, Route::Lobby);
    /// assert_eq!(Route::from_hash("#quick")?, Route::Enter(Entry::Quick));
    /// let Route::Enter(Entry::Join(code)) = Route::from_hash("#join/k7qx3m")? else {
    ///     panic!("a join link");
    /// };
    /// assert_eq!(code.as_str(), "K7QX3M");
    /// assert!(Route::from_hash("#join/K7").is_err());
    /// # Ok::<_, xq_gui_web::RouteError>(())
    /// ```
    ///
    /// # Errors
    ///
    /// [`RouteError`] says why the hash names no route.
    pub fn from_hash(hash: &str) -> Result<Self, RouteError> {
        let text = hash.strip_prefix('#').unwrap_or(hash);
        if text.is_empty() {
            return Ok(Self::Lobby);
        }
        if let Some(rest) = text.strip_prefix("computer") {
            return computer(rest).map(Self::Computer);
        }
        text.parse().map(Self::Enter)
    }

    /// The hash that opens this route: `""` for the lobby, else `#` and the entry.
    #[must_use]
    pub fn to_hash(self) -> String {
        match self {
            Self::Lobby => String::new(),
            Self::Enter(entry) => format!("#{entry}"),
            Self::Computer(setup) => {
                let side = match setup.person {
                    Color::Red => "red",
                    Color::Black => "black",
                };
                format!("#computer/{}/{side}", setup.level)
            }
        }
    }
}

/// The game a `#computer` link asks for, from what follows `computer`: nothing, `/LEVEL` or
/// `/LEVEL/SIDE`.
fn computer(rest: &str) -> Result<ComputerSetup, RouteError> {
    let bad = || RouteError::BadComputer(rest.trim_start_matches('/').to_owned());
    let mut setup = ComputerSetup::default();
    if rest.is_empty() {
        return Ok(setup);
    }
    let parts: Vec<&str> = rest.strip_prefix('/').ok_or_else(bad)?.split('/').collect();
    let (level, side) = match parts[..] {
        [level] => (level, None),
        [level, side] => (level, Some(side)),
        _ => return Err(bad()),
    };
    setup.level = level.parse::<Level>().map_err(|_| bad())?;
    setup.person = match side {
        None | Some("red") => Color::Red,
        Some("black") => Color::Black,
        Some(_) => return Err(bad()),
    };
    Ok(setup)
}

impl Entry {
    /// The room the entry names, if it names one.
    #[must_use]
    pub const fn code(self) -> Option<RoomCode> {
        match self {
            Self::Join(code) | Self::Watch(code) => Some(code),
            Self::Create | Self::Quick => None,
        }
    }
}

impl FromStr for Entry {
    type Err = RouteError;

    /// Parses an entry as it stands after the `#`: `create`, `join/CODE`, `watch/CODE` or
    /// `quick`. Room codes may be in lower case; nothing else may be added.
    fn from_str(text: &str) -> Result<Self, RouteError> {
        let (name, code) = match text.split_once('/') {
            Some((name, code)) => (name, Some(code)),
            None => (text, None),
        };
        let room = |route: &'static str| -> Result<RoomCode, RouteError> {
            let code = code.filter(|code| !code.is_empty());
            let code = code.ok_or(RouteError::MissingCode(route))?;
            code.parse().map_err(|source| RouteError::BadCode {
                code: code.to_owned(),
                source,
            })
        };
        match name {
            "create" if code.is_none() => Ok(Self::Create),
            "quick" if code.is_none() => Ok(Self::Quick),
            "join" => room("join").map(Self::Join),
            "watch" => room("watch").map(Self::Watch),
            _ => Err(RouteError::Unknown(text.to_owned())),
        }
    }
}

impl fmt::Display for Entry {
    /// The entry as a link writes it after the `#`.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Self::Create => f.write_str("create"),
            Self::Join(code) => write!(f, "join/{code}"),
            Self::Watch(code) => write!(f, "watch/{code}"),
            Self::Quick => f.write_str("quick"),
        }
    }
}

/// The link that brings an opponent into the room `code` on the relay serving the page at
/// `origin` (`https://host:port`, as `location.origin` gives it).
///
/// # Examples
///
/// ```
/// let code = "K7QX3M".parse()?;
/// assert_eq!(
///     xq_gui_web::share_link("http://127.0.0.1:7880", code),
///     "http://127.0.0.1:7880/#join/K7QX3M"
/// );
/// # Ok::<_, xq_protocol::ParseRoomCodeError>(())
/// ```
#[must_use]
pub fn share_link(origin: &str, code: RoomCode) -> String {
    format!(
        "{}/{}",
        origin.trim_end_matches('/'),
        Route::Enter(Entry::Join(code)).to_hash()
    )
}

/// The URL of the relay's WebSocket for a page served with `protocol` (`location.protocol`:
/// `https:` or `http:`) from `host` (`location.host`, with the port): the relay serves both on
/// one port, under `/ws`, encrypted when the page is.
#[must_use]
pub fn relay_url(protocol: &str, host: &str) -> String {
    let scheme = if protocol == "https:" { "wss" } else { "ws" };
    format!("{scheme}://{host}/ws")
}

#[cfg(test)]
mod tests {
    use super::*;

    fn code() -> RoomCode {
        "K7QX3M".parse().unwrap_or_else(|e| panic!("{e}"))
    }

    #[test]
    fn every_route_reads_back_from_its_hash() {
        for route in [
            Route::Lobby,
            Route::Enter(Entry::Create),
            Route::Enter(Entry::Join(code())),
            Route::Enter(Entry::Watch(code())),
            Route::Enter(Entry::Quick),
            Route::Computer(ComputerSetup::default()),
            Route::Computer(ComputerSetup {
                person: Color::Black,
                level: Level::MAX,
            }),
        ] {
            assert_eq!(Route::from_hash(&route.to_hash()), Ok(route), "{route:?}");
        }
        assert_eq!(Route::from_hash("#"), Ok(Route::Lobby));
        assert_eq!(
            Route::from_hash("join/K7QX3M"),
            Ok(Route::Enter(Entry::Join(code())))
        );
    }

    #[test]
    fn a_computer_link_names_a_level_and_a_side() {
        let setup = |hash: &str| match Route::from_hash(hash) {
            Ok(Route::Computer(setup)) => Ok(setup),
            Ok(other) => panic!("{hash}: {other:?}"),
            Err(error) => Err(error),
        };
        assert_eq!(setup("#computer"), Ok(ComputerSetup::default()));
        let five = setup("#computer/5").unwrap_or_else(|e| panic!("{e}"));
        assert_eq!((five.level.get(), five.person), (5, Color::Red));
        let black = setup("#computer/10/black").unwrap_or_else(|e| panic!("{e}"));
        assert_eq!((black.level, black.person), (Level::MAX, Color::Black));
        for bad in [
            "#computer/0",
            "#computer/11",
            "#computer/x",
            "#computer/3/blue",
            "#computer/",
            "#computers",
            "#computer/3/red/x",
        ] {
            assert!(
                matches!(setup(bad), Err(RouteError::BadComputer(_))),
                "{bad}"
            );
        }
    }

    #[test]
    fn bad_links_are_errors_that_say_why() {
        assert_eq!(
            Route::from_hash("#join"),
            Err(RouteError::MissingCode("join"))
        );
        assert_eq!(
            Route::from_hash("#watch/"),
            Err(RouteError::MissingCode("watch"))
        );
        assert!(matches!(
            Route::from_hash("#join/K7QX3"),
            Err(RouteError::BadCode { code, .. }) if code == "K7QX3"
        ));
        // O and 0 are not in the alphabet; neither is a trailing part.
        assert!(matches!(
            Route::from_hash("#join/K7QXO0"),
            Err(RouteError::BadCode { .. })
        ));
        assert!(matches!(
            Route::from_hash("#join/K7QX3M/x"),
            Err(RouteError::BadCode { .. })
        ));
        for unknown in ["#create/K7QX3M", "#quick/", "#Create", "#lobby", "#%20"] {
            assert!(
                matches!(Route::from_hash(unknown), Err(RouteError::Unknown(_))),
                "{unknown}"
            );
        }
        let message = Route::from_hash("#join/xyz")
            .map_err(|error| error.to_string())
            .err();
        assert_eq!(
            message.as_deref(),
            Some(
                "bad room code \"xyz\" in the link: invalid room code (six letters and digits, \
                 without 0 O 1 I L)"
            )
        );
    }

    #[test]
    fn the_socket_is_on_the_page_s_host_and_encrypted_with_it() {
        assert_eq!(
            relay_url("http:", "127.0.0.1:7880"),
            "ws://127.0.0.1:7880/ws"
        );
        assert_eq!(relay_url("https:", "xq.example"), "wss://xq.example/ws");
    }

    #[test]
    fn the_share_link_joins_the_room() {
        let link = share_link("https://xq.example/", code());
        assert_eq!(link, "https://xq.example/#join/K7QX3M");
        let hash = link
            .split_once('#')
            .map(|(_, hash)| hash)
            .unwrap_or_default();
        assert_eq!(
            Route::from_hash(hash),
            Ok(Route::Enter(Entry::Join(code())))
        );
        assert_eq!(Entry::Join(code()).code(), Some(code()));
        assert_eq!(Entry::Quick.code(), None);
    }
}
