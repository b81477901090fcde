//! Splitting a line into UCI tokens, keeping the rest of the line at hand for the fields that
//! run to its end (`info string`, `id name`, `setoption … value`).

use std::str::FromStr;
use std::time::Duration;

use crate::ParseError;

/// The tokens of one line, separated by ASCII whitespace. Splitting only at ASCII bytes keeps
/// every slice on a character boundary, whatever else the line holds.
#[derive(Clone, Debug)]
pub(crate) struct Tokens<'a> {
    line: &'a str,
    pos: usize,
}

impl<'a> Tokens<'a> {
    pub(crate) const fn new(line: &'a str) -> Self {
        Self { line, pos: 0 }
    }

    fn skip_space(&mut self) {
        let bytes = self.line.as_bytes();
        while self.pos < bytes.len() && bytes[self.pos].is_ascii_whitespace() {
            self.pos += 1;
        }
    }

    /// The next token, without taking it.
    pub(crate) fn peek(&self) -> Option<&'a str> {
        self.clone().next()
    }

    /// Everything after the current token, trimmed; takes it all.
    pub(crate) fn rest(&mut self) -> &'a str {
        let rest = self.line.get(self.pos..).unwrap_or_default().trim_ascii();
        self.pos = self.line.len();
        rest
    }

    /// The tokens up to (not including) the first of `stops`, joined by single spaces.
    pub(crate) fn words_until(&mut self, stops: &[&str]) -> String {
        let mut words = String::new();
        while let Some(word) = self.peek().filter(|w| !stops.contains(w)) {
            self.next();
            if !words.is_empty() {
                words.push(' ');
            }
            words.push_str(word);
        }
        words
    }

    /// The next token as a number of the type `field` holds.
    pub(crate) fn number<T: FromStr>(&mut self, field: &'static str) -> Result<T, ParseError> {
        let text = self.next().ok_or(ParseError::MissingValue(field))?;
        text.parse().map_err(|_| ParseError::BadNumber {
            field,
            text: text.to_owned(),
        })
    }

    /// The next token as milliseconds. Negative values (some GUIs send a flagged clock as
    /// `wtime -120`) read as zero.
    pub(crate) fn millis(&mut self, field: &'static str) -> Result<Duration, ParseError> {
        let ms: i64 = self.number(field)?;
        Ok(Duration::from_millis(ms.max(0).unsigned_abs()))
    }
}

impl<'a> Iterator for Tokens<'a> {
    type Item = &'a str;

    fn next(&mut self) -> Option<&'a str> {
        self.skip_space();
        let bytes = self.line.as_bytes();
        let start = self.pos;
        while self.pos < bytes.len() && !bytes[self.pos].is_ascii_whitespace() {
            self.pos += 1;
        }
        (self.pos > start).then(|| self.line.get(start..self.pos).unwrap_or_default())
    }
}

/// Writes a duration as whole milliseconds, as UCI counts time.
pub(crate) fn write_millis(out: &mut String, key: &str, value: Option<Duration>) {
    if let Some(value) = value {
        write_field(out, key, value.as_millis());
    }
}

/// Writes ` key value`.
pub(crate) fn write_field(out: &mut String, key: &str, value: impl std::fmt::Display) {
    use std::fmt::Write as _;
    // Writing to a String cannot fail.
    let _ = write!(out, " {key} {value}");
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn splits_on_any_ascii_whitespace() {
        let tokens: Vec<_> = Tokens::new(" go\tdepth  5\r\n").collect();
        assert_eq!(tokens, ["go", "depth", "5"]);
    }

    #[test]
    fn rest_and_words() {
        let mut t = Tokens::new("option name Clear  Hash type button");
        assert_eq!(t.next(), Some("option"));
        assert_eq!(t.next(), Some("name"));
        assert_eq!(t.words_until(&["type"]), "Clear Hash");
        assert_eq!(t.rest(), "type button");
        assert_eq!(t.next(), None);
    }

    #[test]
    fn numbers_are_typed() {
        let mut t = Tokens::new("12 x -5");
        assert_eq!(t.number::<u32>("depth"), Ok(12));
        assert_eq!(
            t.number::<u32>("depth"),
            Err(ParseError::BadNumber {
                field: "depth",
                text: "x".into()
            })
        );
        assert_eq!(t.millis("wtime"), Ok(Duration::ZERO));
        assert_eq!(t.millis("wtime"), Err(ParseError::MissingValue("wtime")));
    }
}
