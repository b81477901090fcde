//! SHA-256 fingerprints of certificates, for pinning a server without a CA.

use std::fmt;
use std::str::FromStr;

use ring::digest;

/// The SHA-256 digest of a certificate's DER encoding.
///
/// A self-signed server has no CA to vouch for it, so clients pin this value instead. It displays
/// and parses as 64 lower-case hexadecimal digits (parsing also accepts upper case).
///
/// # Examples
///
/// ```
/// use xq_transport_quic::Fingerprint;
///
/// let hex = "00112233445566778899aabbccddeeff00112233445566778899aabbccddeeff";
/// let fp: Fingerprint = hex.parse()?;
/// assert_eq!(fp.to_string(), hex);
/// # Ok::<(), xq_transport_quic::ParseFingerprintError>(())
/// ```
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct Fingerprint([u8; 32]);

impl Fingerprint {
    /// Computes the fingerprint of a DER-encoded certificate.
    #[must_use]
    pub fn of_der(cert: &[u8]) -> Self {
        let mut bytes = [0; 32];
        bytes.copy_from_slice(digest::digest(&digest::SHA256, cert).as_ref());
        Self(bytes)
    }

    /// Wraps raw digest bytes.
    #[must_use]
    pub const fn from_bytes(bytes: [u8; 32]) -> Self {
        Self(bytes)
    }

    /// The raw digest bytes.
    #[must_use]
    pub const fn as_bytes(&self) -> &[u8; 32] {
        &self.0
    }
}

impl fmt::Display for Fingerprint {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        self.0.iter().try_for_each(|b| write!(f, "{b:02x}"))
    }
}

impl FromStr for Fingerprint {
    type Err = ParseFingerprintError;

    fn from_str(s: &str) -> Result<Self, Self::Err> {
        if s.len() != 64 {
            return Err(ParseFingerprintError::Length { len: s.len() });
        }
        let digit = |position: usize| {
            char::from(s.as_bytes()[position])
                .to_digit(16)
                .ok_or(ParseFingerprintError::Digit { position })
        };
        let mut bytes = [0; 32];
        for (i, byte) in bytes.iter_mut().enumerate() {
            // Both digits are below 16, so the byte cannot overflow.
            *byte = (digit(2 * i)? * 16 + digit(2 * i + 1)?) as u8;
        }
        Ok(Self(bytes))
    }
}

/// Why a string is not a [`Fingerprint`].
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[non_exhaustive]
pub enum ParseFingerprintError {
    /// The string is not exactly 64 characters long.
    #[error("fingerprint must be 64 hex digits, got {len} characters")]
    Length {
        /// The length of the string, in bytes.
        len: usize,
    },
    /// A character is not a hexadecimal digit.
    #[error("invalid hex digit in fingerprint at position {position}")]
    Digit {
        /// Byte offset of the offending character.
        position: usize,
    },
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn display_parse_round_trip() {
        let fp = Fingerprint::of_der(b"not really a certificate");
        assert_eq!(fp.to_string().parse::<Fingerprint>(), Ok(fp));
        assert_eq!(fp.to_string().to_uppercase().parse::<Fingerprint>(), Ok(fp));
    }

    #[test]
    fn matches_known_sha256() {
        assert_eq!(
            Fingerprint::of_der(b"abc").to_string(),
            "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad"
        );
    }

    #[test]
    fn rejects_bad_input() {
        assert_eq!(
            "abc".parse::<Fingerprint>(),
            Err(ParseFingerprintError::Length { len: 3 })
        );
        let bad = format!("{}zz", "0".repeat(62));
        assert_eq!(
            bad.parse::<Fingerprint>(),
            Err(ParseFingerprintError::Digit { position: 62 })
        );
        let signed = format!("+f{}", "0".repeat(62));
        assert_eq!(
            signed.parse::<Fingerprint>(),
            Err(ParseFingerprintError::Digit { position: 0 })
        );
    }
}
