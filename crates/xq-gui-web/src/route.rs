//! The page's links: what the location hash asks for, parsed strictly.

use std::fmt;
use std::str::FromStr;

use xq_protocol::{ParseRoomCodeError, RoomCode};

/// What the page was opened for: the web lobby, or a way into a room.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Route {
    /// No hash: the lobby panel, where the player chooses.
    Lobby,
    /// Straight into a room.
    Enter(Entry),
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
        text.parse().map(Self::Enter)
    }

    /// The hash that opens this route: `""` for the lobby, else `#` and the entry.
    #[must_use]
    pub fn to_hash(self) -> String {
        match self {
            Self::Lobby => String::new(),
            Self::Enter(entry) => format!("#{entry}"),
        }
    }
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
