//! Resume tokens kept in the browser's `localStorage`: under which key, and as what text.

use std::fmt::Write as _;

use xq_protocol::{ResumeToken, RoomCode};

/// The `localStorage` key of the resume token for the seat in room `code`: `xq.token.CODE`.
/// One key per room, so a browser seated in two rooms (two tabs) keeps both seats.
///
/// # Examples
///
/// ```
/// let code = "K7QX3M".parse()?;
/// assert_eq!(xq_gui_web::token_key(code), "xq.token.K7QX3M");
/// # Ok::<_, xq_protocol::ParseRoomCodeError>(())
/// ```
#[must_use]
pub fn token_key(code: RoomCode) -> String {
    format!("xq.token.{code}")
}

/// A stored value that is not a resume token (written by something else, or cut short).
#[derive(Clone, Copy, Debug, PartialEq, Eq, thiserror::Error)]
#[error("not a resume token (32 hexadecimal digits)")]
pub struct ParseTokenError;

/// The token as storage keeps it: 32 lower-case hexadecimal digits.
#[must_use]
pub fn token_text(token: ResumeToken) -> String {
    token
        .0
        .iter()
        .fold(String::with_capacity(32), |mut text, byte| {
            // Writing to a String cannot fail.
            let _ = write!(text, "{byte:02x}");
            text
        })
}

/// The token stored as `text` by [`token_text`] (either case of digits).
///
/// # Examples
///
/// ```
/// use xq_gui_web::{parse_token, token_text};
/// use xq_protocol::ResumeToken;
///
/// let token = ResumeToken([0xa5; 16]);
/// assert_eq!(parse_token(&token_text(token))?, token);
/// assert!(parse_token("a5a5").is_err());
/// # Ok::<_, xq_gui_web::ParseTokenError>(())
/// ```
///
/// # Errors
///
/// [`ParseTokenError`] unless `text` is exactly 32 hexadecimal digits.
pub fn parse_token(text: &str) -> Result<ResumeToken, ParseTokenError> {
    let digits = text.as_bytes();
    if digits.len() != 32 {
        return Err(ParseTokenError);
    }
    let mut token = [0; 16];
    for (byte, pair) in token.iter_mut().zip(digits.chunks_exact(2)) {
        let pair = std::str::from_utf8(pair).map_err(|_| ParseTokenError)?;
        // `from_str_radix` accepts a sign; a token has none.
        if pair.starts_with(['+', '-']) {
            return Err(ParseTokenError);
        }
        *byte = u8::from_str_radix(pair, 16).map_err(|_| ParseTokenError)?;
    }
    Ok(ResumeToken(token))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_token_reads_back_from_its_text() {
        let token = ResumeToken(std::array::from_fn(|i| u8::try_from(i * 17).unwrap_or(0)));
        let text = token_text(token);
        assert_eq!(text, "00112233445566778899aabbccddeeff");
        assert_eq!(parse_token(&text), Ok(token));
        assert_eq!(parse_token(&text.to_uppercase()), Ok(token));
    }

    #[test]
    fn anything_else_is_no_token() {
        for text in [
            "",
            "00112233445566778899aabbccddeef",
            "00112233445566778899aabbccddeeff0",
            "00112233445566778899aabbccddeefg",
            "+0112233445566778899aabbccddeeff",
            "0011223344556677889９aabbccddeeff",
        ] {
            assert_eq!(parse_token(text), Err(ParseTokenError), "{text}");
        }
    }

    #[test]
    fn each_room_has_its_key() {
        let a = "K7QX3M".parse().unwrap_or_else(|e| panic!("{e}"));
        let b = "K7QX3N".parse().unwrap_or_else(|e| panic!("{e}"));
        assert_ne!(token_key(a), token_key(b));
        assert_eq!(token_key(a), "xq.token.K7QX3M");
    }
}
