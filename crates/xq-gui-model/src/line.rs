//! Requests and answers as one line of text each: how they cross to a thinker that shares no
//! memory with the view (a Web Worker), and back.
//!
//! A request is `ID;FEN;MOVES;GOAL`: the moves in ICCS separated by spaces, the goal
//! `play LEVEL SEED` or `analyse NODES MILLIS DEPTH` (`-` for no bound). An answer is
//! `ID;ok;BEST;SCORE;DEPTH;NODES;PV` (the score as `cp N` or `mate N`, the principal
//! variation in ICCS), or `ID;gameover`, `ID;illegal;WHY` or `ID;failed;WHY`.

use std::fmt::Write as _;
use std::time::Duration;

use xq_engine::{Level, Limits, Score, Thought};
use xq_rules::Move;
use xq_rules::fen::Fen;
use xq_rules::iccs::Iccs;

use crate::{Answer, Goal, RequestId, ThinkError, ThinkRequest};

/// A line that is no request or answer.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
#[non_exhaustive]
pub enum ParseLineError {
    /// A field is missing, or there are too many.
    #[error("expected {expected} fields separated by ';'")]
    Fields {
        /// How many the line should have.
        expected: &'static str,
    },
    /// The id is no number.
    #[error("invalid request id {0:?}")]
    Id(String),
    /// The position is no legal FEN.
    #[error("invalid position {0:?}")]
    Position(String),
    /// A move is no ICCS move.
    #[error("invalid move {0:?}")]
    Move(String),
    /// The goal is neither `play` nor `analyse` with its numbers.
    #[error("invalid goal {0:?}")]
    Goal(String),
    /// The score, depth or node count is malformed.
    #[error("invalid result {0:?}")]
    Result(String),
}

impl ThinkRequest {
    /// The request as one line.
    ///
    /// # Examples
    ///
    /// ```
    /// use xq_gui_model::{Goal, RequestId, ThinkRequest};
    /// use xq_rules::{Move, Position, Square};
    ///
    /// let request = ThinkRequest {
    ///     id: RequestId(3),
    ///     start: Position::startpos(),
    ///     moves: vec![Move::new(Square::H2, Square::E2)],
    ///     goal: Goal::HINT,
    /// };
    /// assert_eq!(ThinkRequest::from_line(&request.to_line())?, request);
    /// # Ok::<_, xq_gui_model::ParseLineError>(())
    /// ```
    #[must_use]
    pub fn to_line(&self) -> String {
        let goal = match self.goal {
            Goal::Play { level, seed } => format!("play {level} {seed}"),
            Goal::Analyse(limits) => format!(
                "analyse {} {} {}",
                bound(limits.nodes),
                bound(limits.deadline.map(|d| d.as_millis())),
                bound(limits.depth)
            ),
        };
        format!(
            "{};{};{};{goal}",
            self.id.0,
            Fen::from_position(&self.start),
            moves_text(&self.moves)
        )
    }

    /// Reads a request from its line.
    ///
    /// # Errors
    ///
    /// [`ParseLineError`] says which field is wrong.
    pub fn from_line(line: &str) -> Result<Self, ParseLineError> {
        let fields: Vec<&str> = line.trim_end().split(';').collect();
        let [id, fen, moves, goal] = fields[..] else {
            return Err(ParseLineError::Fields { expected: "4" });
        };
        let start = fen
            .parse::<Fen>()
            .ok()
            .and_then(|fen| fen.into_position().ok())
            .ok_or_else(|| ParseLineError::Position(fen.to_owned()))?;
        Ok(Self {
            id: parse_id(id)?,
            start,
            moves: parse_moves(moves)?,
            goal: parse_goal(goal).ok_or_else(|| ParseLineError::Goal(goal.to_owned()))?,
        })
    }
}

impl Answer {
    /// The answer as one line.
    #[must_use]
    pub fn to_line(&self) -> String {
        let id = self.id.0;
        match &self.thought {
            Ok(thought) => format!(
                "{id};ok;{};{};{};{};{}",
                Iccs::from(thought.best),
                thought.score,
                thought.depth,
                thought.nodes,
                moves_text(&thought.pv)
            ),
            Err(ThinkError::GameOver) => format!("{id};gameover"),
            Err(ThinkError::Illegal(why)) => format!("{id};illegal;{}", one_field(why)),
            Err(ThinkError::Failed(why)) => format!("{id};failed;{}", one_field(why)),
        }
    }

    /// Reads an answer from its line.
    ///
    /// # Errors
    ///
    /// [`ParseLineError`] says which field is wrong.
    pub fn from_line(line: &str) -> Result<Self, ParseLineError> {
        let fields: Vec<&str> = line.trim_end().split(';').collect();
        let (id, rest) = fields
            .split_first()
            .ok_or(ParseLineError::Fields { expected: "2 to 7" })?;
        let thought = match rest {
            ["ok", best, score, depth, nodes, pv] => {
                let best = parse_move(best)?;
                let pv = parse_moves(pv)?;
                let number = |text: &str| {
                    text.parse::<u64>()
                        .map_err(|_| ParseLineError::Result(text.to_owned()))
                };
                let depth = u32::try_from(number(depth)?)
                    .map_err(|_| ParseLineError::Result((*depth).to_owned()))?;
                Ok(Thought {
                    best,
                    ponder: pv.get(1).copied(),
                    score: parse_score(score)
                        .ok_or_else(|| ParseLineError::Result((*score).to_owned()))?,
                    depth,
                    nodes: number(nodes)?,
                    pv,
                })
            }
            ["gameover"] => Err(ThinkError::GameOver),
            ["illegal", why] => Err(ThinkError::Illegal((*why).to_owned())),
            ["failed", why] => Err(ThinkError::Failed((*why).to_owned())),
            _ => return Err(ParseLineError::Fields { expected: "2 to 7" }),
        };
        Ok(Self {
            id: parse_id(id)?,
            thought,
        })
    }
}

/// A bound, or `-` for none.
fn bound(value: Option<impl ToString>) -> String {
    value.map_or_else(|| "-".to_owned(), |value| value.to_string())
}

fn moves_text(moves: &[Move]) -> String {
    let mut text = String::new();
    for (i, mv) in moves.iter().enumerate() {
        let gap = if i == 0 { "" } else { " " };
        // Writing to a String cannot fail.
        let _ = write!(text, "{gap}{}", Iccs::from(*mv));
    }
    text
}

/// `text` with the separators the line uses replaced, so that it stays one field.
fn one_field(text: &str) -> String {
    text.replace([';', '\n', '\r'], ",")
}

fn parse_id(text: &str) -> Result<RequestId, ParseLineError> {
    text.parse()
        .map(RequestId)
        .map_err(|_| ParseLineError::Id(text.to_owned()))
}

fn parse_move(text: &str) -> Result<Move, ParseLineError> {
    text.parse::<Iccs>()
        .map(|iccs| Move::new(iccs.from, iccs.to))
        .map_err(|_| ParseLineError::Move(text.to_owned()))
}

fn parse_moves(text: &str) -> Result<Vec<Move>, ParseLineError> {
    text.split_whitespace().map(parse_move).collect()
}

fn parse_goal(text: &str) -> Option<Goal> {
    let words: Vec<&str> = text.split_whitespace().collect();
    match words[..] {
        ["play", level, seed] => Some(Goal::Play {
            level: level.parse::<Level>().ok()?,
            seed: seed.parse().ok()?,
        }),
        ["analyse", nodes, millis, depth] => {
            fn opt<T: std::str::FromStr>(text: &str) -> Option<Option<T>> {
                if text == "-" {
                    Some(None)
                } else {
                    text.parse().ok().map(Some)
                }
            }
            Some(Goal::Analyse(Limits {
                depth: opt(depth)?,
                nodes: opt(nodes)?,
                deadline: opt::<u64>(millis)?.map(Duration::from_millis),
                soft_deadline: None,
            }))
        }
        _ => None,
    }
}

fn parse_score(text: &str) -> Option<Score> {
    let (kind, n) = text.split_once(' ')?;
    let n = n.parse().ok()?;
    match kind {
        "cp" => Some(Score::Centipawns(n)),
        "mate" => Some(Score::Mate(n)),
        _ => None,
    }
}

#[cfg(test)]
mod tests {
    use xq_rules::{Position, Square};

    use super::*;

    fn request(goal: Goal) -> ThinkRequest {
        ThinkRequest {
            id: RequestId(u64::MAX),
            start: Position::startpos(),
            moves: vec![
                Move::new(Square::H2, Square::E2),
                Move::new(Square::H9, Square::G7),
            ],
            goal,
        }
    }

    #[test]
    fn requests_and_answers_read_back_from_their_lines() {
        for goal in [
            Goal::HINT,
            Goal::Analyse(Limits::default()),
            Goal::Analyse(Limits::depth(4)),
            Goal::Play {
                level: Level::MAX,
                seed: 99,
            },
        ] {
            let request = request(goal);
            assert_eq!(ThinkRequest::from_line(&request.to_line()), Ok(request));
        }
        let thought = Thought {
            best: Move::new(Square::B0, Square::C2),
            ponder: Some(Move::new(Square::B9, Square::C7)),
            score: Score::Mate(-3),
            depth: 9,
            nodes: 123_456,
            pv: vec![
                Move::new(Square::B0, Square::C2),
                Move::new(Square::B9, Square::C7),
            ],
        };
        for thought in [
            Ok(thought),
            Err(ThinkError::GameOver),
            Err(ThinkError::Illegal("move 1; h2e2".to_owned())),
            Err(ThinkError::Failed("no worker".to_owned())),
        ] {
            let answer = Answer {
                id: RequestId(5),
                thought,
            };
            let back = Answer::from_line(&answer.to_line());
            // The separator in a reason is the only thing that does not survive.
            let expected = match answer.thought {
                Err(ThinkError::Illegal(_)) => Answer {
                    id: RequestId(5),
                    thought: Err(ThinkError::Illegal("move 1, h2e2".to_owned())),
                },
                _ => answer,
            };
            assert_eq!(back, Ok(expected));
        }
    }

    #[test]
    fn malformed_lines_are_errors_that_name_the_field() {
        let good = request(Goal::HINT).to_line();
        assert!(ThinkRequest::from_line(&good).is_ok());
        assert_eq!(
            ThinkRequest::from_line("1;x;;play 3 1"),
            Err(ParseLineError::Position("x".to_owned()))
        );
        let bad_move = good.replace("h2e2", "h2z2");
        assert!(matches!(
            ThinkRequest::from_line(&bad_move),
            Err(ParseLineError::Move(_))
        ));
        for goal in [
            "play 11 1",
            "play 3",
            "analyse 1 2",
            "think",
            "analyse x - -",
        ] {
            let line = format!("1;{};;{goal}", Fen::from_position(&Position::startpos()));
            assert!(
                matches!(ThinkRequest::from_line(&line), Err(ParseLineError::Goal(_))),
                "{goal}"
            );
        }
        assert!(ThinkRequest::from_line("").is_err());
        for answer in ["", "x;gameover", "1;ok;h2e2", "1;ok;h2e2;cp;1;1;", "1;what"] {
            assert!(Answer::from_line(answer).is_err(), "{answer:?}");
        }
    }
}
