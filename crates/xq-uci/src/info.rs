//! What an engine tells about its search: `info` lines.

use std::time::Duration;

use xq_rules::Move;

use crate::tokens::{Tokens, write_field, write_millis};
use crate::{Dialect, ParseError};

/// An `info` line. Every field is optional; fields this crate does not know (`refutation`,
/// `currline`, `sbhits` …) are skipped when read.
///
/// # Examples
///
/// ```
/// use xq_uci::{Bound, Dialect, EngineMessage, Info, InfoScore, Score};
///
/// let line = "info depth 5 seldepth 6 multipv 1 score cp 100 upperbound nodes 2007 pv h1g3 h8c8";
/// let EngineMessage::Info(info) = EngineMessage::parse(line, Dialect::OneBased)? else {
///     unreachable!()
/// };
/// assert_eq!(info.depth, Some(5));
/// assert_eq!(info.score, Some(InfoScore { value: Score::Cp(100), bound: Some(Bound::Upper) }));
/// assert_eq!(info.pv.len(), 2);
/// # Ok::<_, xq_uci::ParseError>(())
/// ```
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Info {
    /// Depth searched, in plies.
    pub depth: Option<u32>,
    /// Selective depth, in plies.
    pub seldepth: Option<u32>,
    /// Which line of a multi-PV search this is (from 1).
    pub multipv: Option<u32>,
    /// The evaluation, from the side to move's point of view.
    pub score: Option<InfoScore>,
    /// Nodes searched.
    pub nodes: Option<u64>,
    /// Nodes per second.
    pub nps: Option<u64>,
    /// Hash table use, in permille.
    pub hashfull: Option<u32>,
    /// Endgame table hits.
    pub tbhits: Option<u64>,
    /// CPU use, in permille.
    pub cpuload: Option<u32>,
    /// Time searched (whole milliseconds on the wire).
    pub time: Option<Duration>,
    /// The move being searched.
    pub currmove: Option<Move>,
    /// Its number in the move list (from 1).
    pub currmovenumber: Option<u32>,
    /// The principal variation.
    pub pv: Vec<Move>,
    /// Free text, the rest of the line after `string`.
    pub string: Option<String>,
}

/// The evaluation in an [`Info`].
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct InfoScore {
    /// Centipawns or moves to mate.
    pub value: Score,
    /// Whether it is only a bound (the search failed high or low).
    pub bound: Option<Bound>,
}

/// An evaluation's value.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Score {
    /// Centipawns, positive when the side to move is better.
    Cp(i32),
    /// Mate in this many moves (not plies); negative when the side to move is mated.
    Mate(i32),
}

/// Which side of the true value a bound score is on.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Bound {
    /// `lowerbound`: the value is at least this.
    Lower,
    /// `upperbound`: the value is at most this.
    Upper,
}

impl Info {
    /// Reads the fields after `info`.
    pub(crate) fn parse(tokens: &mut Tokens<'_>, dialect: Dialect) -> Result<Self, ParseError> {
        let mut info = Self::default();
        while let Some(token) = tokens.next() {
            match token {
                "depth" => info.depth = Some(tokens.number("depth")?),
                "seldepth" => info.seldepth = Some(tokens.number("seldepth")?),
                "multipv" => info.multipv = Some(tokens.number("multipv")?),
                "score" => info.score = Some(InfoScore::parse(tokens)?),
                "nodes" => info.nodes = Some(tokens.number("nodes")?),
                "nps" => info.nps = Some(tokens.number("nps")?),
                "hashfull" => info.hashfull = Some(tokens.number("hashfull")?),
                "tbhits" => info.tbhits = Some(tokens.number("tbhits")?),
                "cpuload" => info.cpuload = Some(tokens.number("cpuload")?),
                "time" => info.time = Some(tokens.millis("time")?),
                "currmove" => {
                    let text = tokens.next().ok_or(ParseError::MissingValue("currmove"))?;
                    info.currmove = Some(dialect.read_move(text)?);
                }
                "currmovenumber" => info.currmovenumber = Some(tokens.number("currmovenumber")?),
                "pv" => {
                    // The variation runs while the tokens read as moves: no keyword does.
                    while let Some(mv) = tokens.peek().and_then(|t| dialect.parse_move(t).ok()) {
                        tokens.next();
                        info.pv.push(mv);
                    }
                }
                "string" => info.string = Some(tokens.rest().to_owned()),
                _ => {}
            }
        }
        Ok(info)
    }

    /// Writes the fields, each after a space; `string` goes last since it ends the line.
    pub(crate) fn write(&self, out: &mut String, dialect: Dialect) {
        for (key, value) in [
            ("depth", self.depth),
            ("seldepth", self.seldepth),
            ("multipv", self.multipv),
        ] {
            if let Some(value) = value {
                write_field(out, key, value);
            }
        }
        if let Some(score) = self.score {
            score.write(out);
        }
        for (key, value) in [("nodes", self.nodes), ("nps", self.nps)] {
            if let Some(value) = value {
                write_field(out, key, value);
            }
        }
        if let Some(hashfull) = self.hashfull {
            write_field(out, "hashfull", hashfull);
        }
        if let Some(tbhits) = self.tbhits {
            write_field(out, "tbhits", tbhits);
        }
        if let Some(cpuload) = self.cpuload {
            write_field(out, "cpuload", cpuload);
        }
        write_millis(out, "time", self.time);
        if let Some(mv) = self.currmove {
            out.push_str(" currmove ");
            dialect.write_move(out, mv);
        }
        if let Some(number) = self.currmovenumber {
            write_field(out, "currmovenumber", number);
        }
        if !self.pv.is_empty() {
            out.push_str(" pv");
            for &mv in &self.pv {
                out.push(' ');
                dialect.write_move(out, mv);
            }
        }
        if let Some(string) = &self.string {
            out.push_str(" string ");
            out.push_str(string);
        }
    }
}

impl InfoScore {
    fn parse(tokens: &mut Tokens<'_>) -> Result<Self, ParseError> {
        let value = match tokens.next() {
            Some("cp") => Score::Cp(tokens.number("score cp")?),
            Some("mate") => Score::Mate(tokens.number("score mate")?),
            Some(text) => {
                return Err(ParseError::BadValue {
                    field: "score",
                    text: text.to_owned(),
                });
            }
            None => return Err(ParseError::MissingValue("score")),
        };
        let bound = match tokens.peek() {
            Some("lowerbound") => Some(Bound::Lower),
            Some("upperbound") => Some(Bound::Upper),
            _ => None,
        };
        if bound.is_some() {
            tokens.next();
        }
        Ok(Self { value, bound })
    }

    fn write(self, out: &mut String) {
        match self.value {
            Score::Cp(cp) => write_field(out, "score cp", cp),
            Score::Mate(moves) => write_field(out, "score mate", moves),
        }
        match self.bound {
            Some(Bound::Lower) => out.push_str(" lowerbound"),
            Some(Bound::Upper) => out.push_str(" upperbound"),
            None => {}
        }
    }
}

#[cfg(test)]
mod tests {
    use xq_rules::Square;

    use super::*;

    fn parse(text: &str) -> Result<Info, ParseError> {
        Info::parse(&mut Tokens::new(text), Dialect::Iccs)
    }

    #[test]
    fn reads_pikafish_lines() {
        let info = parse(
            "depth 12 seldepth 17 multipv 1 score mate -3 lowerbound nodes 81234 nps 812340 \
             hashfull 12 tbhits 0 time 100 pv h2e2 h9g7 wdl 500 400 100",
        )
        .unwrap_or_else(|e| panic!("{e}"));
        assert_eq!(
            info.score,
            Some(InfoScore {
                value: Score::Mate(-3),
                bound: Some(Bound::Lower)
            })
        );
        assert_eq!(info.time, Some(Duration::from_millis(100)));
        assert_eq!(
            info.pv,
            [
                Move::new(Square::H2, Square::E2),
                Move::new(Square::H9, Square::G7)
            ]
        );
    }

    #[test]
    fn string_takes_the_rest_of_the_line() {
        let info = parse("depth 1 string NNUE evaluation using  nn.nnue  ")
            .unwrap_or_else(|e| panic!("{e}"));
        assert_eq!(
            info.string.as_deref(),
            Some("NNUE evaluation using  nn.nnue")
        );
        assert_eq!(info.depth, Some(1));
    }

    #[test]
    fn malformed_fields() {
        assert!(matches!(
            parse("score"),
            Err(ParseError::MissingValue("score"))
        ));
        assert!(matches!(
            parse("score wdl 1"),
            Err(ParseError::BadValue { .. })
        ));
        assert!(matches!(
            parse("currmove z9z9"),
            Err(ParseError::BadMove(_))
        ));
        assert!(matches!(
            parse("nodes -1"),
            Err(ParseError::BadNumber { .. })
        ));
    }
}
