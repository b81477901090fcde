//! What an engine says to its GUI.

use xq_rules::Move;

use crate::tokens::Tokens;
use crate::{Dialect, Info, OptionDecl, ParseError};

/// A line from the engine to the GUI.
///
/// # Examples
///
/// ```
/// use xq_rules::{Move, Square};
/// use xq_uci::{Dialect, EngineMessage};
///
/// let msg = EngineMessage::parse("bestmove h3e3 ponder h10g8", Dialect::OneBased)?;
/// assert_eq!(
///     msg,
///     EngineMessage::BestMove {
///         best: Some(Move::new(Square::H2, Square::E2)),
///         ponder: Some(Move::new(Square::H9, Square::G7)),
///     }
/// );
/// assert_eq!(msg.to_line(Dialect::Iccs), "bestmove h2e2 ponder h9g7");
/// # Ok::<_, xq_uci::ParseError>(())
/// ```
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum EngineMessage {
    /// `id name …` or `id author …`.
    Id {
        /// Which.
        field: IdField,
        /// The rest of the line.
        value: String,
    },
    /// `uciok`: the handshake's declarations are complete.
    UciOk,
    /// `readyok`: the answer to `isready`.
    ReadyOk,
    /// `bestmove <move> [ponder <move>]`: the search's result. `best` is `None` for
    /// `bestmove (none)` (or `0000`), which engines send when there is no legal move.
    BestMove {
        /// The move the engine plays.
        best: Option<Move>,
        /// The reply it expects.
        ponder: Option<Move>,
    },
    /// `info …`.
    Info(Box<Info>),
    /// `option …`, in the handshake.
    Option(OptionDecl),
    /// A line with no known keyword, kept whole (engines print banners and other text).
    Other(String),
}

/// The two things `id` names.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum IdField {
    /// `id name`.
    Name,
    /// `id author`.
    Author,
}

impl EngineMessage {
    /// Reads one line. As for [`crate::Command::parse`], tokens before the first keyword are
    /// skipped; a line with no keyword at all is [`EngineMessage::Other`].
    ///
    /// # Errors
    ///
    /// [`ParseError`] for a malformed message: an empty line, a bad move, number or option.
    pub fn parse(line: &str, dialect: Dialect) -> Result<Self, ParseError> {
        let mut tokens = Tokens::new(line);
        if tokens.peek().is_none() {
            return Err(ParseError::Empty);
        }
        while let Some(token) = tokens.next() {
            let msg = match token {
                "id" => {
                    let field = match tokens.next() {
                        Some("name") => IdField::Name,
                        Some("author") => IdField::Author,
                        Some(text) => {
                            return Err(ParseError::BadValue {
                                field: "id",
                                text: text.to_owned(),
                            });
                        }
                        None => return Err(ParseError::MissingValue("id")),
                    };
                    let value = tokens.rest().to_owned();
                    Self::Id { field, value }
                }
                "uciok" => Self::UciOk,
                "readyok" => Self::ReadyOk,
                "bestmove" => parse_bestmove(&mut tokens, dialect)?,
                "info" => Self::Info(Box::new(Info::parse(&mut tokens, dialect)?)),
                "option" => Self::Option(OptionDecl::parse(&mut tokens)?),
                _ => continue,
            };
            return Ok(msg);
        }
        Ok(Self::Other(line.trim_ascii().to_owned()))
    }

    /// Writes the message as one line, without its line ending.
    #[must_use]
    pub fn to_line(&self, dialect: Dialect) -> String {
        match self {
            Self::Id { field, value } => match field {
                IdField::Name => format!("id name {value}"),
                IdField::Author => format!("id author {value}"),
            },
            Self::UciOk => "uciok".into(),
            Self::ReadyOk => "readyok".into(),
            Self::BestMove { best, ponder } => {
                let mut out = "bestmove ".to_owned();
                match best {
                    Some(mv) => dialect.write_move(&mut out, *mv),
                    None => out.push_str(Dialect::NO_MOVE),
                }
                if let Some(mv) = ponder {
                    out.push_str(" ponder ");
                    dialect.write_move(&mut out, *mv);
                }
                out
            }
            Self::Info(info) => {
                let mut out = "info".to_owned();
                info.write(&mut out, dialect);
                out
            }
            Self::Option(decl) => {
                let mut out = "option".to_owned();
                decl.write(&mut out);
                out
            }
            Self::Other(text) => text.clone(),
        }
    }
}

fn parse_bestmove(tokens: &mut Tokens<'_>, dialect: Dialect) -> Result<EngineMessage, ParseError> {
    let text = tokens.next().ok_or(ParseError::MissingValue("bestmove"))?;
    let best = dialect
        .parse_move_or_none(text)
        .map_err(|_| ParseError::BadMove(text.to_owned()))?;
    let ponder = match (tokens.next(), tokens.next()) {
        (Some("ponder"), Some(text)) => dialect
            .parse_move_or_none(text)
            .map_err(|_| ParseError::BadMove(text.to_owned()))?,
        (Some("ponder"), None) => return Err(ParseError::MissingValue("ponder")),
        _ => None,
    };
    Ok(EngineMessage::BestMove { best, ponder })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn parse(line: &str) -> Result<EngineMessage, ParseError> {
        EngineMessage::parse(line, Dialect::Iccs)
    }

    #[test]
    fn handshake_lines() {
        assert_eq!(
            parse("id name Pikafish 2024  "),
            Ok(EngineMessage::Id {
                field: IdField::Name,
                value: "Pikafish 2024".into()
            })
        );
        assert_eq!(parse("uciok"), Ok(EngineMessage::UciOk));
        assert_eq!(parse("readyok\r"), Ok(EngineMessage::ReadyOk));
        assert_eq!(
            parse("Fairy-Stockfish 11.1 LB 64 by Fabian Fichter"),
            Ok(EngineMessage::Other(
                "Fairy-Stockfish 11.1 LB 64 by Fabian Fichter".into()
            ))
        );
    }

    #[test]
    fn bestmove_without_a_move() {
        assert_eq!(
            parse("bestmove (none)"),
            Ok(EngineMessage::BestMove {
                best: None,
                ponder: None
            })
        );
        assert_eq!(parse("bestmove"), Err(ParseError::MissingValue("bestmove")));
        assert_eq!(
            parse("bestmove z0z1"),
            Err(ParseError::BadMove("z0z1".into()))
        );
        assert_eq!(
            parse("bestmove a0a1 ponder"),
            Err(ParseError::MissingValue("ponder"))
        );
    }

    #[test]
    fn malformed_ids() {
        assert_eq!(parse("id"), Err(ParseError::MissingValue("id")));
        assert!(matches!(
            parse("id version 3"),
            Err(ParseError::BadValue { .. })
        ));
        assert_eq!(parse(""), Err(ParseError::Empty));
    }
}
