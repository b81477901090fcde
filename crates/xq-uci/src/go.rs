//! The limits of a search: the arguments of `go`.

use std::time::Duration;

use xq_rules::Move;

use crate::tokens::{Tokens, write_field, write_millis};
use crate::{Dialect, ParseError};

/// What `go` asks of a search. Every field is optional, as in UCI; an empty `Go` is a bare
/// `go`, which engines treat as `go infinite` (or as a default limit of their own).
///
/// Times are whole milliseconds on the wire: finer parts are dropped when written. `wtime`
/// and `winc` are Red's (UCI's "white" moves first), `btime` and `binc` Black's.
///
/// # Examples
///
/// ```
/// use std::time::Duration;
/// use xq_uci::{Command, Dialect, Go};
///
/// let go = Go { movetime: Some(Duration::from_millis(500)), ..Go::default() };
/// assert_eq!(Command::Go(go.clone()).to_line(Dialect::Iccs), "go movetime 500");
/// assert_eq!(Command::parse("go movetime 500", Dialect::Iccs)?, Command::Go(go));
/// # Ok::<_, xq_uci::ParseError>(())
/// ```
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Go {
    /// Search only these moves (`searchmoves …`); empty for all.
    pub searchmoves: Vec<Move>,
    /// Search in ponder mode, on the opponent's time, until `ponderhit` or `stop`.
    pub ponder: bool,
    /// Red's remaining time.
    pub wtime: Option<Duration>,
    /// Black's remaining time.
    pub btime: Option<Duration>,
    /// Red's increment per move.
    pub winc: Option<Duration>,
    /// Black's increment per move.
    pub binc: Option<Duration>,
    /// Moves to the next time control.
    pub movestogo: Option<u32>,
    /// Search this many plies.
    pub depth: Option<u32>,
    /// Search this many nodes.
    pub nodes: Option<u64>,
    /// Search for a mate in this many moves.
    pub mate: Option<u32>,
    /// Search exactly this long.
    pub movetime: Option<Duration>,
    /// Search until `stop`.
    pub infinite: bool,
}

/// The keywords of `go`, which end a `searchmoves` list.
const KEYWORDS: &[&str] = &[
    "searchmoves",
    "ponder",
    "wtime",
    "btime",
    "winc",
    "binc",
    "movestogo",
    "depth",
    "nodes",
    "mate",
    "movetime",
    "infinite",
];

impl Go {
    /// Reads the arguments after `go`; unknown tokens are skipped, as UCI says.
    pub(crate) fn parse(tokens: &mut Tokens<'_>, dialect: Dialect) -> Result<Self, ParseError> {
        let mut go = Self::default();
        while let Some(token) = tokens.next() {
            match token {
                "searchmoves" => {
                    while let Some(text) = tokens.peek().filter(|t| !KEYWORDS.contains(t)) {
                        tokens.next();
                        go.searchmoves.push(dialect.read_move(text)?);
                    }
                }
                "ponder" => go.ponder = true,
                "wtime" => go.wtime = Some(tokens.millis("wtime")?),
                "btime" => go.btime = Some(tokens.millis("btime")?),
                "winc" => go.winc = Some(tokens.millis("winc")?),
                "binc" => go.binc = Some(tokens.millis("binc")?),
                "movestogo" => go.movestogo = Some(tokens.number("movestogo")?),
                "depth" => go.depth = Some(tokens.number("depth")?),
                "nodes" => go.nodes = Some(tokens.number("nodes")?),
                "mate" => go.mate = Some(tokens.number("mate")?),
                "movetime" => go.movetime = Some(tokens.millis("movetime")?),
                "infinite" => go.infinite = true,
                _ => {}
            }
        }
        Ok(go)
    }

    /// Writes the arguments, each after a space.
    pub(crate) fn write(&self, out: &mut String, dialect: Dialect) {
        if self.ponder {
            out.push_str(" ponder");
        }
        write_millis(out, "wtime", self.wtime);
        write_millis(out, "btime", self.btime);
        write_millis(out, "winc", self.winc);
        write_millis(out, "binc", self.binc);
        for (key, value) in [
            ("movestogo", self.movestogo),
            ("depth", self.depth),
            ("mate", self.mate),
        ] {
            if let Some(value) = value {
                write_field(out, key, value);
            }
        }
        if let Some(nodes) = self.nodes {
            write_field(out, "nodes", nodes);
        }
        write_millis(out, "movetime", self.movetime);
        if self.infinite {
            out.push_str(" infinite");
        }
        if !self.searchmoves.is_empty() {
            out.push_str(" searchmoves");
            for &mv in &self.searchmoves {
                out.push(' ');
                dialect.write_move(out, mv);
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use xq_rules::Square;

    use super::*;

    fn parse(text: &str) -> Result<Go, ParseError> {
        Go::parse(&mut Tokens::new(text), Dialect::Iccs)
    }

    #[test]
    fn reads_a_clock() {
        let go = parse("wtime 60000 btime -20 winc 1000 binc 1000 movestogo 30")
            .unwrap_or_else(|e| panic!("{e}"));
        assert_eq!(go.wtime, Some(Duration::from_secs(60)));
        assert_eq!(go.btime, Some(Duration::ZERO));
        assert_eq!(go.winc, Some(Duration::from_secs(1)));
        assert_eq!(go.movestogo, Some(30));
    }

    #[test]
    fn searchmoves_end_at_a_keyword() {
        let go = parse("searchmoves h2e2 b0c2 depth 3").unwrap_or_else(|e| panic!("{e}"));
        assert_eq!(
            go.searchmoves,
            [
                Move::new(Square::H2, Square::E2),
                Move::new(Square::B0, Square::C2)
            ]
        );
        assert_eq!(go.depth, Some(3));
        assert_eq!(
            parse("searchmoves h2e2 x9"),
            Err(ParseError::BadMove("x9".into()))
        );
    }

    #[test]
    fn skips_unknown_tokens_and_refuses_bad_numbers() {
        assert_eq!(parse("frobnicate infinite").map(|g| g.infinite), Ok(true));
        assert_eq!(parse("depth"), Err(ParseError::MissingValue("depth")));
        assert_eq!(
            parse("nodes many"),
            Err(ParseError::BadNumber {
                field: "nodes",
                text: "many".into()
            })
        );
    }
}
