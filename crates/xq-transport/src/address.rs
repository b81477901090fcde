//! Transport URLs.

use std::net::{IpAddr, Ipv4Addr, Ipv6Addr, SocketAddr};
use std::path::PathBuf;
use std::str::FromStr;

use url::Url;

use crate::TransportError;

/// A parsed transport URL: which transport, where, and (for QUIC and `wss`) how to trust the
/// server.
#[derive(Clone, Debug, PartialEq, Eq)]
#[non_exhaustive]
pub enum Address {
    /// `mem://name`: an in-process listener.
    Mem {
        /// The listener's name.
        name: String,
    },
    /// `udp://host:port`.
    Udp {
        /// Host name or IP address.
        host: String,
        /// Port (0 asks a listener for a free one).
        port: u16,
    },
    /// `quic://host:port[?fp=<hex>|?ca=<file>|?insecure]`.
    Quic {
        /// Host name or IP address; also the TLS server name.
        host: String,
        /// Port (0 asks a listener for a free one).
        port: u16,
        /// How a client checks the server's certificate.
        verify: Verify,
    },
    /// `ws://host:port`: WebSocket, at the path `/ws` of that HTTP server.
    Ws {
        /// Host name or IP address.
        host: String,
        /// Port (0 asks a listener for a free one).
        port: u16,
    },
    /// `wss://host:port[?ca=<file>|?insecure]`: WebSocket over TLS.
    Wss {
        /// Host name or IP address; also the TLS server name.
        host: String,
        /// Port (0 asks a listener for a free one).
        port: u16,
        /// How a client checks the server's certificate ([`Verify::Fingerprint`] is QUIC's
        /// alone).
        verify: Verify,
    },
}

/// How a QUIC or `wss` client checks the relay's certificate.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Verify {
    /// No option was given: fine for a listener; a QUIC client refuses it, and a `wss`
    /// client trusts the web's certificate authorities.
    Unspecified,
    /// `fp=<hex>`: the SHA-256 fingerprint of the server certificate the relay printed.
    Fingerprint(String),
    /// `ca=<path>`: a PEM file with the certificate (or its CA) to trust.
    CaFile(PathBuf),
    /// `insecure`: skip verification; only for tests on a trusted network.
    Insecure,
}

/// The address a client on this machine reaches a listener bound to `bound` at: the loopback
/// address when bound to every interface (`0.0.0.0`, `::`), which no client can connect to.
/// Other machines need one of the host's own addresses instead.
///
/// ```
/// let bound = "0.0.0.0:7878".parse().unwrap();
/// assert_eq!(xq_transport::reachable(bound).to_string(), "127.0.0.1:7878");
/// ```
#[must_use]
pub fn reachable(bound: SocketAddr) -> SocketAddr {
    let ip = match bound.ip() {
        IpAddr::V4(ip) if ip.is_unspecified() => IpAddr::V4(Ipv4Addr::LOCALHOST),
        IpAddr::V6(ip) if ip.is_unspecified() => IpAddr::V6(Ipv6Addr::LOCALHOST),
        ip => ip,
    };
    SocketAddr::new(ip, bound.port())
}

fn invalid(url: &str, reason: impl Into<String>) -> TransportError {
    TransportError::InvalidUrl {
        url: url.to_string(),
        reason: reason.into(),
    }
}

impl FromStr for Address {
    type Err = TransportError;

    fn from_str(text: &str) -> Result<Self, TransportError> {
        let url = Url::parse(text).map_err(|e| invalid(text, e.to_string()))?;
        if !matches!(url.path(), "" | "/") || url.fragment().is_some() {
            return Err(invalid(text, "unexpected path or fragment"));
        }
        // No transport has accounts: credentials here are a mistake, which ignoring them hides.
        if !url.username().is_empty() || url.password().is_some() {
            return Err(invalid(text, "unexpected user name or password"));
        }
        let host = url
            .host_str()
            .filter(|h| !h.is_empty())
            .ok_or_else(|| invalid(text, "missing host"))?;
        // `Url` keeps IPv6 hosts in brackets; sockets want them bare.
        let host = host
            .trim_start_matches('[')
            .trim_end_matches(']')
            .to_string();
        // `url` leaves out a port that is the scheme's default (80 for ws, 443 for wss), and
        // knows no default for the others.
        let port = || {
            url.port_or_known_default()
                .ok_or_else(|| invalid(text, "missing port"))
        };
        let mut verify = Verify::Unspecified;
        for (key, value) in url.query_pairs() {
            let option = match (url.scheme(), key.as_ref()) {
                ("quic", "fp") => Verify::Fingerprint(value.into_owned()),
                ("quic" | "wss", "ca") => Verify::CaFile(PathBuf::from(value.as_ref())),
                ("quic" | "wss", "insecure") if matches!(value.as_ref(), "" | "1" | "true") => {
                    Verify::Insecure
                }
                _ => return Err(invalid(text, format!("unknown option '{key}'"))),
            };
            if verify != Verify::Unspecified {
                return Err(invalid(text, "give only one of fp, ca and insecure"));
            }
            verify = option;
        }
        match url.scheme() {
            "mem" if url.port().is_none() => Ok(Self::Mem { name: host }),
            "mem" => Err(invalid(text, "a mem address has no port")),
            "udp" => Ok(Self::Udp {
                host,
                port: port()?,
            }),
            "quic" => Ok(Self::Quic {
                host,
                port: port()?,
                verify,
            }),
            "ws" => Ok(Self::Ws {
                host,
                port: port()?,
            }),
            "wss" => Ok(Self::Wss {
                host,
                port: port()?,
                verify,
            }),
            other => Err(invalid(text, format!("unknown scheme '{other}'"))),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn parse(text: &str) -> Address {
        text.parse().unwrap_or_else(|e| panic!("{text}: {e}"))
    }

    #[test]
    fn every_interface_is_reached_through_loopback() {
        for (bound, reached) in [
            ("0.0.0.0:7878", "127.0.0.1:7878"),
            ("[::]:7879", "[::1]:7879"),
            ("192.0.2.1:1", "192.0.2.1:1"),
            ("[2001:db8::1]:2", "[2001:db8::1]:2"),
        ] {
            let bound = bound.parse().unwrap_or_else(|e| panic!("{bound}: {e}"));
            assert_eq!(reachable(bound).to_string(), reached);
        }
    }

    #[test]
    fn each_scheme_parses() {
        assert_eq!(
            parse("mem://relay"),
            Address::Mem {
                name: "relay".into()
            }
        );
        assert_eq!(
            parse("udp://127.0.0.1:7878"),
            Address::Udp {
                host: "127.0.0.1".into(),
                port: 7878
            }
        );
        assert_eq!(
            parse("udp://[::1]:0"),
            Address::Udp {
                host: "::1".into(),
                port: 0
            }
        );
        assert_eq!(
            parse("quic://localhost:7879?fp=ab12"),
            Address::Quic {
                host: "localhost".into(),
                port: 7879,
                verify: Verify::Fingerprint("ab12".into())
            }
        );
        assert!(matches!(
            parse("quic://h:1?ca=certs/relay.pem"),
            Address::Quic {
                verify: Verify::CaFile(_),
                ..
            }
        ));
        assert!(matches!(
            parse("quic://h:1?insecure"),
            Address::Quic {
                verify: Verify::Insecure,
                ..
            }
        ));
        assert_eq!(
            parse("ws://127.0.0.1:8080"),
            Address::Ws {
                host: "127.0.0.1".into(),
                port: 8080
            }
        );
        assert_eq!(
            parse("wss://relay.example:443?ca=certs/relay%20ca.pem"),
            Address::Wss {
                host: "relay.example".into(),
                port: 443,
                verify: Verify::CaFile("certs/relay ca.pem".into())
            }
        );
        assert!(matches!(
            parse("ws://relay.example"),
            Address::Ws { port: 80, .. }
        ));
        assert!(matches!(
            parse("wss://[::1]:1"),
            Address::Wss {
                verify: Verify::Unspecified,
                ..
            }
        ));
        assert!(matches!(
            parse("wss://h:1?insecure"),
            Address::Wss {
                verify: Verify::Insecure,
                ..
            }
        ));
    }

    #[test]
    fn bad_urls_are_refused_with_a_reason() {
        for bad in [
            "",
            "relay:7878",
            "tcp://127.0.0.1:1",
            "udp://127.0.0.1",
            "udp://:7878",
            "mem://a:1",
            "udp://h:1/path",
            "udp://h:1?fp=00",
            "quic://h:1?fp=00&insecure",
            "quic://h:1?insecure=no",
            "quic://h:99999",
            "udp://user:secret@127.0.0.1:1",
            "udp://:secret@h:1",
            "quic://user@h:1?insecure",
            "mem://user@relay",
            "ws://h:1/ws",
            "ws://h:1?insecure",
            "ws://h:1?ca=x.pem",
            "wss://h:1?fp=00",
            "wss://h:1?ca=x.pem&insecure",
        ] {
            match bad.parse::<Address>() {
                Err(TransportError::InvalidUrl { url, .. }) => assert_eq!(url, bad),
                other => panic!("{bad}: {other:?}"),
            }
        }
    }
}
