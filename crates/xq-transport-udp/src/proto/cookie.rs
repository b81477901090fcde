//! Stateless handshake cookies: an HMAC over the client's address, its connection id and a
//! time bucket, so a server keeps no state for a client until it proves its address.

use std::net::SocketAddr;
use std::time::{Duration, Instant};

use ring::hmac;

use super::packet::ConnectionId;

/// Length of a cookie: a 4-byte time bucket followed by a SHA-256 HMAC tag.
pub(crate) const COOKIE_LEN: usize = 4 + 32;

/// The server's secret and clock reference for issuing and checking cookies.
pub(crate) struct CookieKey {
    key: hmac::Key,
    /// Derives server connection ids ([`CookieKey::server_cid`]), apart from the cookies.
    ids: hmac::Key,
    epoch: Instant,
    lifetime: Duration,
}

impl CookieKey {
    /// Creates a key from a random secret; buckets count `lifetime`s since `epoch`.
    pub(crate) fn new(secret: [u8; 32], epoch: Instant, lifetime: Duration) -> Self {
        let key = hmac::Key::new(hmac::HMAC_SHA256, &secret);
        // No cookie message is this short, so no cookie tag is ever this key.
        let ids = hmac::Key::new(
            hmac::HMAC_SHA256,
            hmac::sign(&key, b"xq connection ids").as_ref(),
        );
        Self {
            key,
            ids,
            epoch,
            lifetime,
        }
    }

    /// The server's connection id for the client at `addr` whose own id is `cid`. Every
    /// `Initial` the client repeats maps to the same id, so the server needs no table to
    /// recognise them, and without the secret the id cannot be guessed.
    pub(crate) fn server_cid(&self, addr: SocketAddr, cid: ConnectionId) -> ConnectionId {
        let tag = hmac::sign(&self.ids, &message(0, addr, cid));
        let mut raw = [0; 8];
        raw.copy_from_slice(&tag.as_ref()[..8]);
        ConnectionId::new(u64::from_be_bytes(raw))
    }

    /// A cookie for `addr` and `cid`, valid in the current bucket and the next.
    pub(crate) fn issue(
        &self,
        now: Instant,
        addr: SocketAddr,
        cid: ConnectionId,
    ) -> [u8; COOKIE_LEN] {
        let bucket = self.bucket(now);
        let tag = hmac::sign(&self.key, &message(bucket, addr, cid));
        let mut cookie = [0; COOKIE_LEN];
        cookie[..4].copy_from_slice(&bucket.to_be_bytes());
        cookie[4..].copy_from_slice(tag.as_ref());
        cookie
    }

    /// Whether `cookie` was issued by this key to `addr` and `cid` and has not expired.
    pub(crate) fn verify(
        &self,
        now: Instant,
        addr: SocketAddr,
        cid: ConnectionId,
        cookie: &[u8],
    ) -> bool {
        let Some((bucket, tag)) = cookie.split_first_chunk::<4>() else {
            return false;
        };
        let bucket = u32::from_be_bytes(*bucket);
        let current = self.bucket(now);
        let fresh = bucket == current || bucket.wrapping_add(1) == current;
        // `hmac::verify` compares in constant time.
        fresh && hmac::verify(&self.key, &message(bucket, addr, cid), tag).is_ok()
    }

    fn bucket(&self, now: Instant) -> u32 {
        let elapsed = now.saturating_duration_since(self.epoch).as_millis();
        let lifetime = self.lifetime.as_millis().max(1);
        // Wrapping after 2^32 lifetimes is harmless: only equality with recent buckets matters.
        (elapsed / lifetime) as u32
    }
}

/// The authenticated bytes: bucket, address family, IP, port and connection id.
fn message(bucket: u32, addr: SocketAddr, cid: ConnectionId) -> Vec<u8> {
    let mut message = Vec::with_capacity(4 + 1 + 16 + 2 + 8);
    message.extend_from_slice(&bucket.to_be_bytes());
    match addr {
        SocketAddr::V4(v4) => {
            message.push(4);
            message.extend_from_slice(&v4.ip().octets());
        }
        SocketAddr::V6(v6) => {
            message.push(6);
            message.extend_from_slice(&v6.ip().octets());
        }
    }
    message.extend_from_slice(&addr.port().to_be_bytes());
    message.extend_from_slice(&cid.to_u64().to_be_bytes());
    message
}

#[cfg(test)]
mod tests {
    use super::*;

    const LIFETIME: Duration = Duration::from_secs(10);

    fn addr(port: u16) -> SocketAddr {
        SocketAddr::from(([127, 0, 0, 1], port))
    }

    #[test]
    fn cookie_is_bound_to_address_id_key_and_time() {
        let epoch = Instant::now();
        let key = CookieKey::new([1; 32], epoch, LIFETIME);
        let cid = ConnectionId::new(42);
        let cookie = key.issue(epoch, addr(1000), cid);

        assert!(key.verify(epoch, addr(1000), cid, &cookie));
        assert!(
            key.verify(epoch + LIFETIME, addr(1000), cid, &cookie),
            "valid in the next bucket"
        );
        assert!(
            !key.verify(epoch + 2 * LIFETIME, addr(1000), cid, &cookie),
            "expired"
        );
        assert!(!key.verify(epoch, addr(1001), cid, &cookie), "other port");
        assert!(
            !key.verify(
                epoch,
                SocketAddr::from(([127, 0, 0, 2], 1000)),
                cid,
                &cookie
            ),
            "other ip"
        );
        assert!(
            !key.verify(epoch, addr(1000), ConnectionId::new(43), &cookie),
            "other id"
        );
        assert!(
            !CookieKey::new([2; 32], epoch, LIFETIME).verify(epoch, addr(1000), cid, &cookie),
            "other key"
        );
        assert!(
            !key.verify(epoch, addr(1000), cid, &cookie[..COOKIE_LEN - 1]),
            "truncated"
        );
        assert!(!key.verify(epoch, addr(1000), cid, b""), "empty");
    }

    #[test]
    fn server_cid_depends_on_address_id_and_key_only() {
        let epoch = Instant::now();
        let key = CookieKey::new([1; 32], epoch, LIFETIME);
        let cid = ConnectionId::new(42);
        let server = key.server_cid(addr(1000), cid);
        let later = CookieKey::new([1; 32], epoch + LIFETIME, LIFETIME);
        assert_eq!(later.server_cid(addr(1000), cid), server, "not the time");
        assert_ne!(key.server_cid(addr(1001), cid), server, "the address");
        assert_ne!(
            key.server_cid(addr(1000), ConnectionId::new(43)),
            server,
            "the client's id"
        );
        let other = CookieKey::new([2; 32], epoch, LIFETIME);
        assert_ne!(other.server_cid(addr(1000), cid), server, "the key");
    }
}
