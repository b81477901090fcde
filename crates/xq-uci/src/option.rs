//! The settings an engine declares in its handshake: `option` lines.

use crate::ParseError;
use crate::tokens::{Tokens, write_field};

/// An `option name <name> type <type> …` line: a setting the engine accepts with `setoption`.
///
/// # Examples
///
/// ```
/// use xq_uci::{Dialect, EngineMessage, OptionDecl, OptionKind};
///
/// let line = "option name Hash type spin default 16 min 1 max 33554432";
/// assert_eq!(
///     EngineMessage::parse(line, Dialect::Iccs)?,
///     EngineMessage::Option(OptionDecl {
///         name: "Hash".into(),
///         kind: OptionKind::Spin { default: 16, min: 1, max: 33554432 },
///     })
/// );
/// # Ok::<_, xq_uci::ParseError>(())
/// ```
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct OptionDecl {
    /// The option's name, which may hold spaces (`Clear Hash`).
    pub name: String,
    /// Its type and values.
    pub kind: OptionKind,
}

/// An option's type, with its default and range.
///
/// Names, defaults and combo values are read as words separated by single spaces, up to the
/// next keyword (`type`, `default`, `min`, `max`, `var`).
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum OptionKind {
    /// `check`: on or off.
    Check {
        /// The default.
        default: bool,
    },
    /// `spin`: an integer in a range.
    Spin {
        /// The default.
        default: i64,
        /// The least value.
        min: i64,
        /// The greatest value.
        max: i64,
    },
    /// `combo`: one of a list of words.
    Combo {
        /// The default.
        default: String,
        /// The values to choose from.
        vars: Vec<String>,
    },
    /// `button`: an action, set with no value.
    Button,
    /// `string`: any text (engines write an empty default as `<empty>` or as nothing).
    String {
        /// The default.
        default: String,
    },
}

const KEYWORDS: &[&str] = &["default", "min", "max", "var"];

impl OptionDecl {
    /// Reads the fields after `option`.
    pub(crate) fn parse(tokens: &mut Tokens<'_>) -> Result<Self, ParseError> {
        while tokens.next().is_some_and(|t| t != "name") {}
        let name = tokens.words_until(&["type"]);
        if name.is_empty() {
            return Err(ParseError::MissingValue("name"));
        }
        tokens.next();
        let kind = tokens.next().ok_or(ParseError::MissingValue("type"))?;
        let (mut default, mut min, mut max, mut vars) = (None, None, None, Vec::new());
        while let Some(key) = tokens.next() {
            let value = tokens.words_until(KEYWORDS);
            match key {
                "default" => default = Some(value),
                "min" => min = Some(value),
                "max" => max = Some(value),
                "var" => vars.push(value),
                _ => {}
            }
        }
        let kind = match kind {
            "check" => OptionKind::Check {
                default: match default.as_deref() {
                    Some("true") => true,
                    Some("false") => false,
                    Some(text) => {
                        return Err(ParseError::BadValue {
                            field: "default",
                            text: text.to_owned(),
                        });
                    }
                    None => return Err(ParseError::MissingValue("default")),
                },
            },
            "spin" => OptionKind::Spin {
                default: number(default, "default")?,
                min: number(min, "min")?,
                max: number(max, "max")?,
            },
            "combo" => OptionKind::Combo {
                default: default.ok_or(ParseError::MissingValue("default"))?,
                vars,
            },
            "button" => OptionKind::Button,
            "string" => OptionKind::String {
                default: default.unwrap_or_default(),
            },
            other => return Err(ParseError::UnknownOptionType(other.to_owned())),
        };
        Ok(Self { name, kind })
    }

    /// Writes the fields, each after a space.
    pub(crate) fn write(&self, out: &mut String) {
        write_field(out, "name", &self.name);
        match &self.kind {
            OptionKind::Check { default } => {
                out.push_str(" type check");
                write_field(out, "default", default);
            }
            OptionKind::Spin { default, min, max } => {
                out.push_str(" type spin");
                write_field(out, "default", default);
                write_field(out, "min", min);
                write_field(out, "max", max);
            }
            OptionKind::Combo { default, vars } => {
                out.push_str(" type combo");
                write_field(out, "default", default);
                for var in vars {
                    write_field(out, "var", var);
                }
            }
            OptionKind::Button => out.push_str(" type button"),
            OptionKind::String { default } => {
                out.push_str(" type string");
                write_field(out, "default", default);
            }
        }
    }

    /// Whether this is a combo offering `value` (Fairy-Stockfish's `UCI_Variant` offers
    /// `xiangqi`).
    #[must_use]
    pub fn offers(&self, value: &str) -> bool {
        matches!(&self.kind, OptionKind::Combo { vars, .. } if vars.iter().any(|v| v == value))
    }
}

fn number(text: Option<String>, field: &'static str) -> Result<i64, ParseError> {
    let text = text.ok_or(ParseError::MissingValue(field))?;
    text.parse()
        .map_err(|_| ParseError::BadNumber { field, text })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn parse(text: &str) -> Result<OptionDecl, ParseError> {
        OptionDecl::parse(&mut Tokens::new(text))
    }

    #[test]
    fn reads_fairy_stockfish_declarations() {
        let decl = parse("name UCI_Variant type combo default chess var chess var xiangqi")
            .unwrap_or_else(|e| panic!("{e}"));
        assert!(decl.offers("xiangqi"));
        assert!(!decl.offers("shogi"));
        assert_eq!(
            parse("name Debug Log File type string default "),
            Ok(OptionDecl {
                name: "Debug Log File".into(),
                kind: OptionKind::String {
                    default: String::new()
                }
            })
        );
        assert_eq!(
            parse("name Clear Hash type button").map(|d| d.kind),
            Ok(OptionKind::Button)
        );
        assert_eq!(
            parse("name Ponder type check default false").map(|d| d.kind),
            Ok(OptionKind::Check { default: false })
        );
    }

    #[test]
    fn malformed_declarations() {
        assert_eq!(
            parse("name X type dial"),
            Err(ParseError::UnknownOptionType("dial".into()))
        );
        assert_eq!(parse("type spin"), Err(ParseError::MissingValue("name")));
        assert_eq!(parse("name X"), Err(ParseError::MissingValue("type")));
        assert_eq!(
            parse("name X type spin default 1 min 0"),
            Err(ParseError::MissingValue("max"))
        );
        assert!(matches!(
            parse("name X type check default maybe"),
            Err(ParseError::BadValue { .. })
        ));
    }
}
