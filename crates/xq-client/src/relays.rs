//! The relays a client may connect to: one URL, or several nodes of a relay cluster.

use std::fmt;
use std::str::FromStr;

/// The relay URLs a client connects through, in order of preference: never empty, and no URL
/// is blank.
///
/// A relay cluster's nodes share their rooms, so a client given several can take its seat back
/// through any of them: [`crate::Client`] connects to the first that answers, and when the
/// relay it is on goes away, tries the next one (rotating through the list) and resumes its
/// seat there. Written, and parsed, as a comma-separated list; a single URL is a list of one.
///
/// # Examples
///
/// ```
/// use xq_client::Relays;
///
/// let relays: Relays = "udp://relay-a.example:7878, udp://relay-b.example:7878".parse()?;
/// assert_eq!(relays.len(), 2);
/// assert_eq!(relays.iter().next(), Some("udp://relay-a.example:7878"));
/// assert_eq!(relays.to_string(), "udp://relay-a.example:7878,udp://relay-b.example:7878");
/// assert!("udp://relay-a.example:7878,,udp://relay-b.example:7878".parse::<Relays>().is_err());
/// # Ok::<_, xq_client::ParseRelaysError>(())
/// ```
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Relays {
    /// At least one, none blank, none with a comma.
    urls: Vec<String>,
}

/// Why a list of relay URLs does not parse.
#[derive(Clone, Copy, Debug, PartialEq, Eq, thiserror::Error)]
#[non_exhaustive]
pub enum ParseRelaysError {
    /// The list has no URL at all.
    #[error("no relay URL given")]
    Empty,
    /// An item of the list is blank (two commas in a row, or one at either end).
    #[error("relay URL {position} of the list is empty")]
    EmptyItem {
        /// Its position in the list, from 1.
        position: usize,
    },
}

impl Relays {
    /// The number of URLs (at least one).
    #[must_use]
    pub const fn len(&self) -> usize {
        self.urls.len()
    }

    /// Always `false`: a list of relays has at least one URL. (Here for the `len` convention.)
    #[must_use]
    pub const fn is_empty(&self) -> bool {
        self.urls.is_empty()
    }

    /// The URLs, in order.
    pub fn iter(&self) -> impl ExactSizeIterator<Item = &str> {
        self.urls.iter().map(String::as_str)
    }
}

impl FromStr for Relays {
    type Err = ParseRelaysError;

    /// Parses a comma-separated list of URLs; spaces around each are dropped. The URLs
    /// themselves are checked when they are connected to.
    ///
    /// # Errors
    ///
    /// [`ParseRelaysError::Empty`] for nothing but spaces, [`ParseRelaysError::EmptyItem`]
    /// for a blank item.
    fn from_str(s: &str) -> Result<Self, Self::Err> {
        if s.trim().is_empty() {
            return Err(ParseRelaysError::Empty);
        }
        let urls = s
            .split(',')
            .map(str::trim)
            .enumerate()
            .map(|(index, url)| {
                if url.is_empty() {
                    Err(ParseRelaysError::EmptyItem {
                        position: index + 1,
                    })
                } else {
                    Ok(url.to_owned())
                }
            })
            .collect::<Result<_, _>>()?;
        Ok(Self { urls })
    }
}

impl fmt::Display for Relays {
    /// The comma-separated list, which parses back to the same relays.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.urls.join(","))
    }
}

/// Where a driver's next connection goes: the URLs a relay redirected the client to first, in
/// their order, then the next relay of the list after the one last tried, round the list; or
/// the URL last tried again, when its relay asked for time.
#[cfg(feature = "tokio")]
#[derive(Clone, Debug)]
pub(crate) struct Rotation {
    relays: Relays,
    /// The relay of the list last tried.
    current: usize,
    /// The redirect's URLs not tried yet.
    redirects: std::collections::VecDeque<String>,
    /// The URL last tried (from the list or a redirect).
    last: String,
}

#[cfg(feature = "tokio")]
impl Rotation {
    /// A rotation whose connection is (or was last tried) on the relay at `current`.
    pub(crate) fn new(relays: Relays, current: usize) -> Self {
        let current = current % relays.len();
        Self {
            last: relays.urls[current].clone(),
            current,
            relays,
            redirects: std::collections::VecDeque::new(),
        }
    }

    /// A relay sent the client to `urls`: the next attempts go there first.
    pub(crate) fn redirect(&mut self, urls: Vec<String>) {
        self.redirects = urls.into();
    }

    /// The relay last tried asked for time: the next attempt goes to it again.
    pub(crate) fn again(&mut self) {
        self.redirects.push_front(self.last.clone());
    }

    /// The URL to try next.
    pub(crate) fn next_url(&mut self) -> String {
        let url = self.redirects.pop_front().unwrap_or_else(|| {
            self.current = (self.current + 1) % self.relays.len();
            // In range: `current` is taken modulo the length, and the list is never empty.
            self.relays.urls[self.current].clone()
        });
        self.last.clone_from(&url);
        url
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn parse(s: &str) -> Result<Vec<String>, ParseRelaysError> {
        s.parse::<Relays>()
            .map(|relays| relays.iter().map(str::to_owned).collect())
    }

    #[test]
    fn a_single_url_is_a_list_of_one() {
        assert_eq!(
            parse("udp://127.0.0.1:7878"),
            Ok(vec!["udp://127.0.0.1:7878".into()])
        );
    }

    #[test]
    fn a_list_keeps_its_order_and_drops_spaces() {
        assert_eq!(
            parse(" mem://a ,mem://b,  quic://c:1?fp=00 "),
            Ok(vec![
                "mem://a".into(),
                "mem://b".into(),
                "quic://c:1?fp=00".into()
            ])
        );
    }

    #[test]
    fn empty_lists_and_items_are_refused() {
        assert_eq!(parse(""), Err(ParseRelaysError::Empty));
        assert_eq!(parse("  "), Err(ParseRelaysError::Empty));
        assert_eq!(parse(","), Err(ParseRelaysError::EmptyItem { position: 1 }));
        assert_eq!(
            parse("mem://a,,mem://b"),
            Err(ParseRelaysError::EmptyItem { position: 2 })
        );
        assert_eq!(
            parse("mem://a, "),
            Err(ParseRelaysError::EmptyItem { position: 2 })
        );
    }

    #[test]
    fn display_parses_back() {
        let relays: Relays = "mem://a , mem://b"
            .parse()
            .unwrap_or_else(|e| panic!("{e}"));
        assert_eq!(relays.to_string(), "mem://a,mem://b");
        assert_eq!(relays.to_string().parse(), Ok(relays));
    }

    #[cfg(feature = "tokio")]
    #[test]
    fn a_rotation_tries_redirects_first_then_goes_round_the_list() {
        let relays: Relays = "mem://a,mem://b,mem://c"
            .parse()
            .unwrap_or_else(|e| panic!("{e}"));
        let mut rotation = Rotation::new(relays, 1);
        assert_eq!(rotation.next_url(), "mem://c");
        assert_eq!(rotation.next_url(), "mem://a");
        rotation.redirect(vec!["mem://x".into(), "mem://y".into()]);
        let next: Vec<String> = (0..5).map(|_| rotation.next_url()).collect();
        assert_eq!(
            next,
            ["mem://x", "mem://y", "mem://b", "mem://c", "mem://a"]
        );
        // A relay that asked for time is tried again, then the list goes on.
        rotation.again();
        assert_eq!(rotation.next_url(), "mem://a");
        assert_eq!(rotation.next_url(), "mem://b");
        rotation.redirect(vec!["mem://x".into()]);
        assert_eq!(rotation.next_url(), "mem://x");
        rotation.again();
        assert_eq!(rotation.next_url(), "mem://x");
        assert_eq!(rotation.next_url(), "mem://c");
    }
}
