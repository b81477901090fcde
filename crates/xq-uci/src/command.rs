//! What a GUI (or this workspace's driver) says to an engine.

use xq_rules::fen::Fen;
use xq_rules::{Move, Position, PositionError};

use crate::tokens::Tokens;
use crate::{Dialect, Go, ParseError};

/// A line from the GUI to the engine, in the subset of UCI that Xiangqi engines speak.
///
/// # Examples
///
/// ```
/// use xq_rules::{Move, Square};
/// use xq_uci::{Command, Dialect, Start};
///
/// let cmd = Command::parse("position startpos moves h2e2 h9g7", Dialect::Iccs)?;
/// assert_eq!(
///     cmd,
///     Command::Position {
///         start: Start::Startpos,
///         moves: vec![Move::new(Square::H2, Square::E2), Move::new(Square::H9, Square::G7)],
///     }
/// );
/// // Fairy-Stockfish counts ranks from 1.
/// assert_eq!(cmd.to_line(Dialect::OneBased), "position startpos moves h3e3 h10g8");
/// # Ok::<_, xq_uci::ParseError>(())
/// ```
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Command {
    /// `uci`: the handshake; the engine answers `id`, `option`s and `uciok`.
    Uci,
    /// `debug on|off`.
    Debug(bool),
    /// `isready`: the engine answers `readyok` once it has done what it was told.
    IsReady,
    /// `setoption name <name> [value <value>]`; a button has no value.
    SetOption {
        /// The option's name, which may hold spaces.
        name: String,
        /// Its new value, the rest of the line.
        value: Option<String>,
    },
    /// `ucinewgame`: the next position is from another game.
    UciNewGame,
    /// `position startpos|fen <fen> [moves …]`. The moves are only read here, not checked:
    /// whether they are legal from `start` is for the receiver to find out.
    Position {
        /// Where the game started.
        start: Start,
        /// The moves played since.
        moves: Vec<Move>,
    },
    /// `go …`: search the current position.
    Go(Go),
    /// `stop`: answer `bestmove` now.
    Stop,
    /// `ponderhit`: the opponent played the ponder move; carry on in normal mode.
    PonderHit,
    /// `quit`.
    Quit,
}

/// Where the game of a [`Command::Position`] started.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Start {
    /// `startpos`: the standard starting position.
    Startpos,
    /// `fen …`: any setup. Its legality is for the receiver to check, as for the moves.
    Fen(Fen),
}

impl Start {
    /// The start of a game at `position`: [`Start::Startpos`] for the standard one.
    #[must_use]
    pub fn from_position(position: &Position) -> Self {
        if *position == Position::startpos() {
            Self::Startpos
        } else {
            Self::Fen(Fen::from_position(position))
        }
    }

    /// The position this names.
    ///
    /// # Errors
    ///
    /// A [`PositionError`] if the FEN's setup breaks a rule.
    pub fn to_position(&self) -> Result<Position, PositionError> {
        match self {
            Self::Startpos => Ok(Position::startpos()),
            Self::Fen(fen) => fen.clone().into_position(),
        }
    }
}

impl Command {
    /// Reads one line. Tokens before the first known command are skipped, and so are unknown
    /// tokens inside a command, as UCI asks ("joho debug on" turns debug on).
    ///
    /// # Errors
    ///
    /// [`ParseError`]: no command in the line, or a malformed one (a bad number, FEN or move).
    ///
    /// # Examples
    ///
    /// ```
    /// use xq_uci::{Command, Dialect, ParseError};
    ///
    /// assert_eq!(Command::parse("joho debug on", Dialect::Iccs), Ok(Command::Debug(true)));
    /// assert_eq!(
    ///     Command::parse("hello", Dialect::Iccs),
    ///     Err(ParseError::UnknownCommand("hello".into()))
    /// );
    /// ```
    pub fn parse(line: &str, dialect: Dialect) -> Result<Self, ParseError> {
        let mut tokens = Tokens::new(line);
        let first = tokens.peek().ok_or(ParseError::Empty)?;
        while let Some(token) = tokens.next() {
            let command = match token {
                "uci" => Self::Uci,
                "debug" => Self::Debug(match tokens.next() {
                    Some("on") => true,
                    Some("off") => false,
                    Some(text) => {
                        return Err(ParseError::BadValue {
                            field: "debug",
                            text: text.to_owned(),
                        });
                    }
                    None => return Err(ParseError::MissingValue("debug")),
                }),
                "isready" => Self::IsReady,
                "setoption" => parse_setoption(&mut tokens)?,
                "ucinewgame" => Self::UciNewGame,
                "position" => parse_position(&mut tokens, dialect)?,
                "go" => Self::Go(Go::parse(&mut tokens, dialect)?),
                "stop" => Self::Stop,
                "ponderhit" => Self::PonderHit,
                "quit" => Self::Quit,
                _ => continue,
            };
            return Ok(command);
        }
        Err(ParseError::UnknownCommand(first.to_owned()))
    }

    /// Writes the command as one line, without its line ending.
    #[must_use]
    pub fn to_line(&self, dialect: Dialect) -> String {
        match self {
            Self::Uci => "uci".into(),
            Self::Debug(on) => format!("debug {}", if *on { "on" } else { "off" }),
            Self::IsReady => "isready".into(),
            Self::SetOption { name, value } => match value {
                Some(value) => format!("setoption name {name} value {value}"),
                None => format!("setoption name {name}"),
            },
            Self::UciNewGame => "ucinewgame".into(),
            Self::Position { start, moves } => {
                let mut out = match start {
                    Start::Startpos => "position startpos".to_owned(),
                    Start::Fen(fen) => format!("position fen {fen}"),
                };
                if !moves.is_empty() {
                    out.push_str(" moves");
                    for &mv in moves {
                        out.push(' ');
                        dialect.write_move(&mut out, mv);
                    }
                }
                out
            }
            Self::Go(go) => {
                let mut out = "go".to_owned();
                go.write(&mut out, dialect);
                out
            }
            Self::Stop => "stop".into(),
            Self::PonderHit => "ponderhit".into(),
            Self::Quit => "quit".into(),
        }
    }
}

fn parse_setoption(tokens: &mut Tokens<'_>) -> Result<Command, ParseError> {
    // Anything before `name` is an unknown token.
    while tokens.next().is_some_and(|t| t != "name") {}
    let name = tokens.words_until(&["value"]);
    if name.is_empty() {
        return Err(ParseError::MissingValue("name"));
    }
    let value = tokens.next().map(|_value| tokens.rest().to_owned());
    Ok(Command::SetOption { name, value })
}

fn parse_position(tokens: &mut Tokens<'_>, dialect: Dialect) -> Result<Command, ParseError> {
    let start = loop {
        match tokens.next() {
            Some("startpos") => break Start::Startpos,
            Some("fen") => {
                let fen = tokens.words_until(&["moves"]);
                break Start::Fen(fen.parse()?);
            }
            Some(_) => {}
            None => return Err(ParseError::MissingStart),
        }
    };
    let mut moves = Vec::new();
    if tokens.by_ref().any(|t| t == "moves") {
        for text in tokens {
            moves.push(dialect.read_move(text)?);
        }
    }
    Ok(Command::Position { start, moves })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn parse(line: &str) -> Result<Command, ParseError> {
        Command::parse(line, Dialect::Iccs)
    }

    #[test]
    fn simple_commands() {
        for (line, cmd) in [
            ("uci", Command::Uci),
            ("isready", Command::IsReady),
            ("ucinewgame", Command::UciNewGame),
            ("stop", Command::Stop),
            ("ponderhit", Command::PonderHit),
            ("quit\r", Command::Quit),
            ("debug off", Command::Debug(false)),
        ] {
            assert_eq!(parse(line), Ok(cmd.clone()), "{line}");
            assert_eq!(parse(&cmd.to_line(Dialect::Iccs)), Ok(cmd));
        }
    }

    #[test]
    fn setoption_names_and_values_hold_spaces() {
        assert_eq!(
            parse("setoption name Clear Hash"),
            Ok(Command::SetOption {
                name: "Clear Hash".into(),
                value: None
            })
        );
        assert_eq!(
            parse("setoption name EvalFile value /opt/nn  big.nnue "),
            Ok(Command::SetOption {
                name: "EvalFile".into(),
                value: Some("/opt/nn  big.nnue".into())
            })
        );
        assert_eq!(parse("setoption"), Err(ParseError::MissingValue("name")));
    }

    #[test]
    fn position_from_a_fen() {
        let fen = "rnbakabnr/9/1c5c1/p1p1p1p1p/9/9/P1P1P1P1P/1C2C4/9/RNBAKABNR b - - 1 1";
        let cmd = parse(&format!("position fen {fen} moves h9g7"));
        let Ok(Command::Position {
            start: Start::Fen(parsed),
            moves,
        }) = cmd
        else {
            panic!("{cmd:?}")
        };
        assert_eq!(parsed.to_string(), fen);
        assert_eq!(moves.len(), 1);
        let start = Start::Fen(parsed);
        let pos = start.to_position().unwrap_or_else(|e| panic!("{e}"));
        assert_ne!(pos, Position::startpos());
        assert_eq!(Start::from_position(&pos), start);
        assert_eq!(Start::from_position(&Position::startpos()), Start::Startpos);
    }

    #[test]
    fn malformed_positions_are_typed_errors() {
        assert_eq!(parse("position"), Err(ParseError::MissingStart));
        assert!(matches!(
            parse("position fen 9/9 w"),
            Err(ParseError::BadFen(_))
        ));
        assert_eq!(
            parse("position startpos moves h2e2 h2e"),
            Err(ParseError::BadMove("h2e".into()))
        );
        assert_eq!(parse("  "), Err(ParseError::Empty));
        assert_eq!(
            parse("debug perhaps"),
            Err(ParseError::BadValue {
                field: "debug",
                text: "perhaps".into()
            })
        );
    }
}
