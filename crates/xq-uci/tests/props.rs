//! Properties of the messages: `parse(to_line(x)) == x` in both dialects, and parsing is
//! total on any text.

use std::time::Duration;

use proptest::prelude::*;
use xq_rules::fen::Fen;
use xq_rules::{Move, Position, Square};
use xq_uci::{
    Bound, Command, Dialect, EngineMessage, Go, IdField, Info, InfoScore, OptionDecl, OptionKind,
    Score, Start,
};

fn dialect() -> impl Strategy<Value = Dialect> {
    prop_oneof![Just(Dialect::Iccs), Just(Dialect::OneBased)]
}

fn square() -> impl Strategy<Value = Square> {
    (0u8..90).prop_map(|i| Square::from_index(i).unwrap_or(Square::A0))
}

fn mv() -> impl Strategy<Value = Move> {
    (square(), square()).prop_map(|(from, to)| Move::new(from, to))
}

fn moves() -> impl Strategy<Value = Vec<Move>> {
    prop::collection::vec(mv(), 0..6)
}

/// A position reached by a random play-out from the start, as FEN.
fn fen() -> impl Strategy<Value = Fen> {
    prop::collection::vec(any::<prop::sample::Index>(), 0..40).prop_map(|picks| {
        let mut pos = Position::startpos();
        for pick in picks {
            let legal = pos.legal_moves();
            if legal.is_empty() {
                break;
            }
            pos.play_unchecked(legal[pick.index(legal.len())]);
        }
        Fen::from_position(&pos)
    })
}

/// Words that are no keyword of any message (keywords are lower case).
fn words(min: usize) -> impl Strategy<Value = String> {
    prop::collection::vec("[A-Z][a-z0-9_.-]{0,6}", min..4).prop_map(|w| w.join(" "))
}

/// Free text to the end of a line: anything printable, without ASCII whitespace at its ends.
fn rest_of_line() -> impl Strategy<Value = String> {
    "\\PC{0,24}".prop_map(|s| s.trim_ascii().to_owned())
}

fn millis() -> impl Strategy<Value = Option<Duration>> {
    proptest::option::of((0u64..10_000_000).prop_map(Duration::from_millis))
}

fn go() -> impl Strategy<Value = Go> {
    (
        (
            moves(),
            any::<bool>(),
            millis(),
            millis(),
            millis(),
            millis(),
        ),
        (
            proptest::option::of(any::<u32>()),
            proptest::option::of(any::<u32>()),
            proptest::option::of(any::<u64>()),
            proptest::option::of(any::<u32>()),
            millis(),
            any::<bool>(),
        ),
    )
        .prop_map(
            |(
                (searchmoves, ponder, wtime, btime, winc, binc),
                (movestogo, depth, nodes, mate, movetime, infinite),
            )| Go {
                searchmoves,
                ponder,
                wtime,
                btime,
                winc,
                binc,
                movestogo,
                depth,
                nodes,
                mate,
                movetime,
                infinite,
            },
        )
}

fn command() -> impl Strategy<Value = Command> {
    prop_oneof![
        Just(Command::Uci),
        any::<bool>().prop_map(Command::Debug),
        Just(Command::IsReady),
        (words(1), proptest::option::of(rest_of_line()))
            .prop_map(|(name, value)| Command::SetOption { name, value }),
        Just(Command::UciNewGame),
        (
            prop_oneof![Just(Start::Startpos), fen().prop_map(Start::Fen)],
            moves()
        )
            .prop_map(|(start, moves)| Command::Position { start, moves }),
        go().prop_map(Command::Go),
        Just(Command::Stop),
        Just(Command::PonderHit),
        Just(Command::Quit),
    ]
}

fn score() -> impl Strategy<Value = InfoScore> {
    (
        prop_oneof![
            any::<i32>().prop_map(Score::Cp),
            any::<i32>().prop_map(Score::Mate)
        ],
        proptest::option::of(prop_oneof![Just(Bound::Lower), Just(Bound::Upper)]),
    )
        .prop_map(|(value, bound)| InfoScore { value, bound })
}

fn info() -> impl Strategy<Value = Info> {
    let small = || proptest::option::of(any::<u32>());
    let big = || proptest::option::of(any::<u64>());
    (
        (small(), small(), small(), proptest::option::of(score())),
        (big(), big(), small(), big(), small(), millis()),
        (
            proptest::option::of(mv()),
            small(),
            moves(),
            proptest::option::of(rest_of_line()),
        ),
    )
        .prop_map(
            |(
                (depth, seldepth, multipv, score),
                (nodes, nps, hashfull, tbhits, cpuload, time),
                (currmove, currmovenumber, pv, string),
            )| Info {
                depth,
                seldepth,
                multipv,
                score,
                nodes,
                nps,
                hashfull,
                tbhits,
                cpuload,
                time,
                currmove,
                currmovenumber,
                pv,
                string,
            },
        )
}

fn option_kind() -> impl Strategy<Value = OptionKind> {
    prop_oneof![
        any::<bool>().prop_map(|default| OptionKind::Check { default }),
        (any::<i64>(), any::<i64>(), any::<i64>())
            .prop_map(|(default, min, max)| OptionKind::Spin { default, min, max }),
        (words(1), prop::collection::vec(words(1), 0..4))
            .prop_map(|(default, vars)| OptionKind::Combo { default, vars }),
        Just(OptionKind::Button),
        words(0).prop_map(|default| OptionKind::String { default }),
    ]
}

fn message() -> impl Strategy<Value = EngineMessage> {
    prop_oneof![
        (
            prop_oneof![Just(IdField::Name), Just(IdField::Author)],
            rest_of_line()
        )
            .prop_map(|(field, value)| EngineMessage::Id { field, value }),
        Just(EngineMessage::UciOk),
        Just(EngineMessage::ReadyOk),
        (proptest::option::of(mv()), proptest::option::of(mv()))
            .prop_map(|(best, ponder)| EngineMessage::BestMove { best, ponder }),
        info().prop_map(|info| EngineMessage::Info(Box::new(info))),
        (words(1), option_kind())
            .prop_map(|(name, kind)| EngineMessage::Option(OptionDecl { name, kind })),
        words(1).prop_map(EngineMessage::Other),
    ]
}

/// Lines made of the protocol's own keywords, numbers and moves, which reach deeper into the
/// parsers than random text does.
fn token_soup() -> impl Strategy<Value = String> {
    let token = prop_oneof![
        prop::sample::select(vec![
            "uci",
            "debug",
            "on",
            "isready",
            "setoption",
            "name",
            "value",
            "position",
            "startpos",
            "fen",
            "moves",
            "go",
            "depth",
            "nodes",
            "wtime",
            "searchmoves",
            "infinite",
            "stop",
            "id",
            "author",
            "uciok",
            "readyok",
            "bestmove",
            "ponder",
            "(none)",
            "info",
            "score",
            "cp",
            "mate",
            "lowerbound",
            "pv",
            "string",
            "currmove",
            "option",
            "type",
            "spin",
            "check",
            "combo",
            "button",
            "default",
            "min",
            "max",
            "var",
            "-",
            "w",
            "b",
        ])
        .prop_map(str::to_owned),
        "-?[0-9]{1,21}",
        "[a-j](10|[0-9])[a-j](10|[0-9])",
        "[rnbakcpRNBAKCP1-9/]{1,20}",
        "\\PC{1,4}",
    ];
    prop::collection::vec(token, 0..14).prop_map(|t| t.join(" "))
}

proptest! {
    #[test]
    fn commands_round_trip(cmd in command(), dialect in dialect()) {
        let line = cmd.to_line(dialect);
        prop_assert_eq!(Command::parse(&line, dialect), Ok(cmd), "{}", line);
    }

    #[test]
    fn engine_messages_round_trip(msg in message(), dialect in dialect()) {
        let line = msg.to_line(dialect);
        prop_assert_eq!(EngineMessage::parse(&line, dialect), Ok(msg), "{}", line);
    }

    #[test]
    fn parsing_any_text_is_total(line in "\\PC*|.*", dialect in dialect()) {
        let _ = Command::parse(&line, dialect);
        let _ = EngineMessage::parse(&line, dialect);
    }

    #[test]
    fn parsing_keyword_soup_is_total(line in token_soup(), dialect in dialect()) {
        let _ = Command::parse(&line, dialect);
        let _ = EngineMessage::parse(&line, dialect);
    }
}
