//! PGN writing and reading.

use std::sync::Arc;

use xq_rules::{Outcome, Square};

use super::*;
use crate::{Action, Match, MatchConfig, Timestamp};

const GOLDEN: &str = r#"[Game "Chinese Chess"]
[Event "Casual game"]
[Site "?"]
[Date "2024.05.01"]
[Red "Alice"]
[Black "Bob \"the Cannon\""]
[Result "1-0"]
[Termination "resignation"]

1. h2e2 h9g7 2. h0g2 i9h9 1-0
"#;

fn parsed(text: &str) -> Record {
    parse(text).unwrap_or_else(|e| panic!("{e}"))
}

fn error(text: &str) -> PgnError {
    match parse(text) {
        Ok(record) => panic!("parsed {record:?}"),
        Err(err) => err,
    }
}

/// Red mates with b0b9.
const RED_MATES: &str = "3k5/R8/9/9/9/9/9/9/9/1R2K4 w - - 0 1";
/// Black stalemates with e2e1.
const BLACK_STALEMATES: &str = "4k4/9/9/9/9/9/9/4p4/9/3K5 b - - 0 1";

/// Games whose final position decides them under the match's rules: a set-up start, the ICCS
/// moves, and the result the board gives.
const DECIDED: [(&str, &str, GameResult); 9] = [
    (RED_MATES, "b0b9", win(Color::Red, WinReason::Checkmate)),
    (
        "1r2k4/9/9/9/9/9/9/9/r8/3K5 b - - 0 1",
        "b9b0",
        win(Color::Black, WinReason::Checkmate),
    ),
    (
        "3k5/9/4P4/9/9/9/9/9/9/4K4 w - - 0 1",
        "e7e8",
        win(Color::Red, WinReason::Stalemate),
    ),
    (
        BLACK_STALEMATES,
        "e2e1",
        win(Color::Black, WinReason::Stalemate),
    ),
    // Red's chariot checks with every move.
    (
        "4k4/R8/9/9/9/9/9/9/9/3K5 w - - 0 1",
        "a8a9 e9e8 a9a8 e8e9 a8a9 e9e8 a9a8 e8e9",
        win(Color::Black, WinReason::PerpetualCheck),
    ),
    // Black's chariot checks with every move.
    (
        "3k5/9/9/9/9/9/9/9/r8/4K4 b - - 0 1",
        "a1a0 e0e1 a0a1 e1e0 a1a0 e0e1 a0a1 e1e0",
        win(Color::Red, WinReason::PerpetualCheck),
    ),
    // Red's chariot chases Black's unprotected cannon with every move.
    (
        "4k4/9/1c7/9/9/9/R8/9/9/3K5 w - - 0 1",
        "a3b3 b7c7 b3c3 c7b7 c3b3 b7c7 b3c3 c7b7 c3b3",
        win(Color::Black, WinReason::PerpetualChase),
    ),
    // The same, colours swapped.
    (
        "5k3/9/9/8r/9/9/9/7C1/9/4K4 b - - 0 1",
        "i6h6 h2g2 h6g6 g2h2 g6h6 h2g2 h6g6 g2h2 g6h6",
        win(Color::Red, WinReason::PerpetualChase),
    ),
    (
        "4k4/9/9/9/9/9/9/9/9/3K5 w - - 0 1",
        "d0d1 e9e8 d1d0 e8e9 d0d1 e9e8 d1d0 e8e9",
        GameResult::Draw {
            reason: DrawReason::Repetition,
        },
    ),
];

const fn win(winner: Color, reason: WinReason) -> GameResult {
    GameResult::Win { winner, reason }
}

fn position(fen: &str) -> Position {
    let fen: Fen = fen.parse().unwrap_or_else(|e| panic!("{e}"));
    fen.into_position().unwrap_or_else(|e| panic!("{e}"))
}

/// A match from `start` in which the side to move plays the ICCS `moves`.
fn played(start: Position, moves: &str) -> Match {
    played_under(RepetitionRule::Asian, start, moves)
}

/// [`played`], with repetitions judged by `rule`.
fn played_under(rule: RepetitionRule, start: Position, moves: &str) -> Match {
    let now = Timestamp::from_millis(0);
    let mut game = Match::new(
        MatchConfig {
            start: Arc::new(start),
            repetition: rule,
            ..MatchConfig::default()
        },
        now,
    );
    for text in moves.split_whitespace() {
        let iccs: Iccs = text.parse().unwrap_or_else(|e| panic!("{e}"));
        let by = game.turn();
        let mv = Move::new(iccs.from, iccs.to);
        game.handle(now, Action::Play(mv).by(by))
            .unwrap_or_else(|e| panic!("{e}"));
    }
    game
}

/// A PGN game from `fen` through `moves` to the result `token`, with `termination` as the
/// reason if it is not empty.
fn game_text(fen: &str, moves: &str, token: &str, termination: &str) -> String {
    let mut text = format!("[FEN \"{fen}\"]\n");
    if !termination.is_empty() {
        text.push_str(&format!("[Termination \"{termination}\"]\n"));
    }
    format!("{text}{moves} {token}")
}

fn short_game() -> Record {
    let mut game = played(Position::startpos(), "h2e2 h9g7 h0g2 i9h9");
    game.handle(Timestamp::from_millis(0), Action::Resign.by(Color::Black))
        .unwrap_or_else(|e| panic!("{e}"));
    let mut record = game.record();
    record.tags = Tags {
        event: Some("Casual game".into()),
        site: None,
        date: Some("2024.05.01".into()),
        red: Some("Alice".into()),
        black: Some("Bob \"the Cannon\"".into()),
        other: Vec::new(),
    };
    record
}

#[test]
fn writes_the_golden_record() {
    assert_eq!(write(&short_game(), MoveFormat::Iccs), GOLDEN);
}

#[test]
fn reads_back_what_it_writes() {
    let record = short_game();
    assert_eq!(parsed(GOLDEN), record);
}

#[test]
fn whatever_is_written_reads_back() {
    let mut record = short_game();
    record.tags.event = Some("Club night\nround 2".into());
    record.tags.red = Some("Tab\there\r".into());
    record.tags.other = [
        ("Round", "2\n3"),
        ("Bad name", "left out"),
        ("", "left out"),
        ("Result", "0-1"),
        ("FEN", "not a fen"),
        ("Termination", "agreement"),
    ]
    .map(|(name, value)| (name.to_owned(), value.to_owned()))
    .into();
    let read = parsed(&write(&record, MoveFormat::Iccs));
    assert_eq!(read.tags.event.as_deref(), Some("Club night round 2"));
    assert_eq!(read.tags.red.as_deref(), Some("Tab here "));
    assert_eq!(read.tags.other, [("Round".to_owned(), "2 3".to_owned())]);
    assert_eq!(read.result(), record.result());

    // Without a reason in the record, a Termination in `other` is written unless the reader
    // would refuse it: a reason of the other kind, or one the final position refutes.
    let decisive = "1. h2e2 1-0";
    let mated = format!("[FEN \"{RED_MATES}\"]\n1. b0b9 1-0");
    for (game, termination, kept) in [
        (decisive, "normal", true),
        (decisive, "move\nlimit", false),
        (decisive, "checkmate", false),
        (decisive, "resignation", true),
        (&mated, "checkmate", true),
        (&mated, "resignation", false),
        (&mated, "normal", true),
    ] {
        let mut record = parsed(game);
        record.tags.other = vec![("Termination".to_owned(), termination.to_owned())];
        let text = write(&record, MoveFormat::Iccs);
        assert_eq!(text.contains("[Termination"), kept, "{text}");
        assert_eq!(parsed(&text).outcome(), record.outcome());
    }
}

#[test]
fn writes_the_start_position_and_black_first_numbers() {
    let start = "4k4/9/9/9/9/9/9/9/9/3K5 b - - 0 7";
    let text = format!("[FEN \"{start}\"]\n\n7... e9e8 8. d0d1 *\n");
    let record = parsed(&text);
    assert_eq!(record.moves().len(), 2);
    assert_eq!(record.outcome(), None);
    let written = write(&record, MoveFormat::Iccs);
    assert!(
        written.contains(&format!("[FEN \"{start}\"]\n")),
        "{written}"
    );
    assert!(written.contains("[Result \"*\"]\n"), "{written}");
    assert!(written.ends_with("\n\n7... e9e8 8. d0d1 *\n"), "{written}");
    assert!(!write(&short_game(), MoveFormat::Iccs).contains("[FEN"));
}

#[test]
fn wraps_long_movetext() {
    // Horses out and back, twelve times.
    let moves: String = (0..12)
        .map(|i| format!("{}. h0g2 h9g7 {}. g2h0 g7h9 ", 2 * i + 1, 2 * i + 2))
        .chain(["*".to_owned()])
        .collect();
    let record = parsed(&moves);
    assert_eq!(record.moves().len(), 48);
    let written = write(&record, MoveFormat::Iccs);
    let movetext: Vec<&str> = written
        .lines()
        .skip_while(|l| !l.is_empty())
        .skip(1)
        .collect();
    assert!(movetext.len() > 3, "{written}");
    assert!(movetext.iter().all(|line| line.len() <= 79), "{written}");
    assert_eq!(parsed(&written), record);
}

#[test]
fn skips_comments_variations_numbers_and_annotations() {
    let text = "\
[Event \"Annotated\"]
[Round \"3\"]
% an escaped line
{A comment
over two lines} 1. H2-E2! {centre} h9g7 ; the usual reply
2.h0g2 $1 (2. h0i2 (2. b0c2) i9h9) 2... i9h9?! 1/2-1/2
";
    let record = parsed(text);
    assert_eq!(record.moves().len(), 4);
    assert_eq!(record.moves()[0], Move::new(Square::H2, Square::E2));
    assert_eq!(record.outcome(), Some(Outcome::Draw));
    assert_eq!(record.result(), None);
    assert_eq!(record.tags.event.as_deref(), Some("Annotated"));
    assert_eq!(record.tags.other, [("Round".to_owned(), "3".to_owned())]);
}

#[test]
fn a_variant_tag_survives_import_and_export() {
    let record = parsed("[Game \"Xiangqi\"]\n[Variant \"xiangqi\"]\n1. h2e2 *");
    let variant = [("Variant".to_owned(), "xiangqi".to_owned())];
    assert_eq!(record.tags.other, variant);
    let written = write(&record, MoveFormat::Iccs);
    assert!(
        written.starts_with("[Game \"Chinese Chess\"]\n"),
        "{written}"
    );
    assert!(written.contains("[Variant \"xiangqi\"]\n"), "{written}");
    assert_eq!(parsed(&written), record);
}

#[test]
fn a_byte_order_mark_is_skipped() {
    assert_eq!(parsed(&format!("\u{feff}{GOLDEN}")), parsed(GOLDEN));
    assert_eq!(parsed("\u{feff}1. h2e2 *").moves().len(), 1);
}

#[test]
fn errors_name_the_line_and_the_move() {
    assert_eq!(
        error("1. h2e2 h9g7\n2. h0g2 h9g7 *"),
        PgnError::IllegalMove {
            line: 2,
            number: MoveNumber {
                number: 2,
                by: Color::Black
            },
            text: "h9g7".into(),
            reason: MoveError::Iccs(IllegalMove::NoPiece(Square::H9)),
        }
    );
    let err = error("[Event \"x\"]\n\n1. h2e2 h9g7\n2. h0g2 zz99 *");
    assert_eq!(err.to_string(), "line 4: move 2... 'zz99' is not a move");
    assert_eq!(
        error("1. h2e2\n\n1-0 2. h0g2"),
        PgnError::TrailingText {
            line: 3,
            text: "2.".into()
        }
    );
    assert_eq!(error("1. h2e2 h9g7\n"), PgnError::MissingResult { line: 2 });
    assert_eq!(
        error("[Event \"x]\n1. h2e2 *"),
        PgnError::MalformedTag { line: 1 }
    );
    assert_eq!(
        error("1. h2e2\n[Event \"x\"]\n*"),
        PgnError::TagAmongMoves { line: 2 }
    );
    assert_eq!(
        error("1. h2e2 {oops\n\n*"),
        PgnError::Unclosed { line: 1, open: '{' }
    );
    assert_eq!(
        error("1. h2e2\n(1. b2e2 *"),
        PgnError::Unclosed { line: 2, open: '(' }
    );
    assert_eq!(error("1. h2e2 ) *"), PgnError::UnmatchedParen { line: 1 });
    assert!(matches!(
        error("[FEN \"not a fen\"]\n*"),
        PgnError::BadFen { line: 1, .. }
    ));
    assert!(matches!(
        error("[FEN \"9/9/9/9/9/9/9/9/9/4K4 w\"]\n*"),
        PgnError::ImpossibleFen { line: 1, .. }
    ));
}

#[test]
fn the_result_must_agree_with_its_tags() {
    assert_eq!(
        error("[Result \"1-0\"]\n1. h2e2 0-1"),
        PgnError::ResultMismatch {
            line: 2,
            token: "0-1".into(),
            tag: "1-0".into()
        }
    );
    assert_eq!(
        error("[Termination \"checkmate\"]\n1. h2e2 1/2-1/2"),
        PgnError::TerminationMismatch {
            line: 2,
            termination: "checkmate".into(),
            token: "1/2-1/2".into()
        }
    );
    let record = parsed(
        "[FEN \"4k4/R8/9/9/9/9/9/9/9/3K5 w - - 0 1\"]\n[Termination \"Perpetual Check\"]\n\
         1. a8a9 e9e8 2. a9a8 e8e9 3. a8a9 e9e8 4. a9a8 e8e9 0-1",
    );
    assert_eq!(
        record.result(),
        Some(win(Color::Black, WinReason::PerpetualCheck))
    );
    let record = parsed("[Termination \"normal\"]\n1. h2e2 0-1");
    assert_eq!(record.result(), None);
    assert_eq!(
        record.tags.other,
        [("Termination".to_owned(), "normal".to_owned())]
    );
}

/// A tab inside a tag value reads as the space it is written as, so that what is read writes
/// back to the same record (a case the PGN fuzz target found).
#[test]
fn a_tab_in_a_tag_value_reads_as_a_space() {
    // The value is a backslash (escaped) and a tab.
    let record = parsed("[Site \"Hall\\\\\tB\"]\n*");
    assert_eq!(record.tags.site.as_deref(), Some("Hall\\ B"));
    for format in [MoveFormat::Iccs, MoveFormat::Wxf, MoveFormat::Chinese] {
        assert_eq!(parsed(&write(&record, format)), record);
    }
}

/// Of several `Termination`s in `other`, the reader would keep the last: only that one is
/// written, so that what is written reads back the same.
#[test]
fn of_several_terminations_the_last_is_written() {
    let mut record = parsed("1. h2e2 *");
    record.tags.other = [("Termination", "first"), ("Termination", "last")]
        .map(|(name, value)| (name.to_owned(), value.to_owned()))
        .into();
    let text = write(&record, MoveFormat::Iccs);
    let read = parsed(&text);
    assert_eq!(
        read.tags.other,
        [("Termination".to_owned(), "last".to_owned())]
    );
    assert_eq!(write(&read, MoveFormat::Iccs), text);
}

#[test]
fn an_unfinished_games_termination_survives_import_and_export() {
    let record = parsed("[Termination \"adjourned\"]\n1. h2e2 *");
    assert_eq!(record.outcome(), None);
    let termination = [("Termination".to_owned(), "adjourned".to_owned())];
    assert_eq!(record.tags.other, termination);
    let written = write(&record, MoveFormat::Iccs);
    assert!(
        written.contains("[Termination \"adjourned\"]\n"),
        "{written}"
    );
    assert_eq!(parsed(&written), record);
}

#[test]
fn wxf_and_chinese_records_load_like_iccs_ones() {
    let iccs = parsed("1. h2e2 h9g7 2. h0g2 i9h9 3. g3g4 c6c5 *");
    let wxf = parsed("1. C2=5 H8+7 2. H2+3 R9=8 3. P3+1 P3+1 *");
    let chinese = parsed("1. 炮二平五 马８进７ 2. 马二进三 车９平８ 3. 兵三进一 卒３进１ *");
    assert_eq!(wxf, iccs);
    assert_eq!(chinese, iccs);
    // Fairy-Stockfish's dot spelling and a WXF soldier word that starts with digits.
    let dotted = parsed("1. C2.5 H8+7 *");
    assert_eq!(dotted.moves(), &iccs.moves()[..2]);
}

#[test]
fn wxf_export_reads_back() {
    let record = parsed("1. h2e2 h9g7 2. h0g2 i9h9 3. g3g4 c6c5 1-0");
    let text = write(&record, MoveFormat::Wxf);
    assert!(
        text.contains("\n1. C2=5 H8+7 2. H2+3 R9=8 3. P3+1 P3+1 1-0\n"),
        "{text}"
    );
    assert_eq!(parsed(&text), record);
}

/// The moves of a written record, one space apart whatever the line breaks.
fn movetext(text: &str) -> String {
    let body = text.lines().skip_while(|line| !line.is_empty());
    body.flat_map(str::split_whitespace)
        .collect::<Vec<_>>()
        .join(" ")
}

#[test]
fn chinese_export_reads_back() {
    let record = parsed("1. h2e2 h9g7 2. h0g2 i9h9 3. g3g4 c6c5 1-0");
    let text = write(&record, MoveFormat::Chinese);
    assert_eq!(
        movetext(&text),
        "1. 炮二平五 马８进７ 2. 马二进三 车９平８ 3. 兵三进一 卒３进１ 1-0"
    );
    // Lines are wrapped at 79 bytes, so no more than 79 columns even at two a character.
    assert!(text.lines().all(|line| line.len() <= 79), "{text}");
    assert_eq!(parsed(&text), record);

    // Two cannons on one file are told apart by their place on it, which the position gives.
    let tandem = parsed("[FEN \"3k5/9/9/9/9/1C7/9/1C7/9/4K4 w - - 0 1\"]\n1. b4e4 d9d8 2. b2b9 *");
    let text = write(&tandem, MoveFormat::Chinese);
    assert_eq!(movetext(&text), "1. 前炮平五 将４进１ 2. 炮八进七 *");
    assert_eq!(parsed(&text), tandem);
}

#[test]
fn descriptive_moves_that_fit_no_legal_move_are_named() {
    let err = error("1. C2=5 H8+7 2. R1+9 *");
    let PgnError::IllegalMove {
        line, text, reason, ..
    } = err
    else {
        panic!("{err:?}");
    };
    assert_eq!((line, text.as_str()), (1, "R1+9"));
    assert_eq!(reason, MoveError::Wxf(WxfError::Illegal));
}

/// Every result reads back with its reason, though some words (abandonment) name the reason
/// of a win and of a draw alike: the result token tells them apart.
#[test]
fn every_result_reads_back_with_its_reason() {
    let wins = WinReason::ALL.into_iter().flat_map(|reason| {
        [Color::Red, Color::Black].map(|winner| GameResult::Win { winner, reason })
    });
    let draws = DrawReason::ALL
        .into_iter()
        .map(|reason| GameResult::Draw { reason });
    for result in wins.chain(draws) {
        // A result the board settles needs a game that ends in it; the others can be given to
        // any position.
        let record = match DECIDED.iter().find(|&&(.., decided)| decided == result) {
            Some(&(fen, moves, _)) => played(position(fen), moves).record(),
            None => Record::from_checked_parts(
                Tags::default(),
                Position::startpos(),
                Vec::new(),
                Ending::Result(result),
                RepetitionRule::Asian,
            ),
        };
        assert_eq!(record.result(), Some(result));
        let read = parse(&write(&record, MoveFormat::Iccs)).map(|read| read.result());
        assert_eq!(read, Ok(Some(result)));
    }
}

#[test]
fn a_reason_the_board_settles_must_hold_in_the_final_position() {
    assert_eq!(
        error("[Result \"1-0\"]\n[Termination \"checkmate\"]\n1. h2e2 1-0"),
        PgnError::UnfoundedTermination {
            line: 3,
            claimed: win(Color::Red, WinReason::Checkmate),
        }
    );
    assert_eq!(
        error("[Termination \"stalemate\"]\n1. h2e2 h9g7 0-1").to_string(),
        "line 2: termination \"stalemate\" does not hold in the final position"
    );
    for (termination, token) in [("perpetual check", "0-1"), ("repetition", "1/2-1/2")] {
        let text = format!("[Termination \"{termination}\"]\n1. h2e2 {token}");
        assert!(
            matches!(error(&text), PgnError::UnfoundedTermination { .. }),
            "{text}"
        );
    }

    let repetition = GameResult::Draw {
        reason: DrawReason::Repetition,
    };
    let perpetual = |winner| win(winner, WinReason::PerpetualCheck);
    for (fen, moves, result) in DECIDED {
        // The board's own verdict reads.
        let token = result_token(Some(result.outcome()));
        let text = game_text(fen, moves, token, &result.to_string());
        assert_eq!(parsed(&text).result(), Some(result), "{text}");
        // Another reason the board settles, or the same reason for the other side, does not.
        for claimed in [repetition, perpetual(Color::Red), perpetual(Color::Black)] {
            if claimed == result {
                continue;
            }
            let token = result_token(Some(claimed.outcome()));
            let text = game_text(fen, moves, token, &claimed.to_string());
            let err = error(&text);
            assert!(
                matches!(
                    err,
                    PgnError::UnfoundedTermination { .. } | PgnError::PositionDecided { .. }
                ),
                "{text}: {err:?}"
            );
        }
    }
}

/// A side to move that is mated or stalemated has lost: a record that ends the game there
/// otherwise is refused, though an unfinished one, which claims nothing, reads.
#[test]
fn a_mated_side_to_move_has_lost() {
    let mated = |token, termination| game_text(RED_MATES, "b0b9", token, termination);
    assert_eq!(
        parsed(&mated("1-0", "")).outcome(),
        Some(Outcome::Decisive { winner: Color::Red })
    );
    assert_eq!(parsed(&mated("1-0", "normal")).result(), None);
    assert_eq!(parsed(&mated("*", "")).outcome(), None);
    assert_eq!(
        error(&mated("1-0", "resignation")),
        PgnError::PositionDecided {
            line: 3,
            winner: Color::Red,
            reason: WinReason::Checkmate,
            claimed: "1-0 resignation".into(),
        }
    );
    assert_eq!(
        error(&mated("1-0", "stalemate")).to_string(),
        "line 3: the final position is checkmate, a win for red, not 1-0 stalemate"
    );
    for (token, termination) in [
        ("0-1", ""),
        ("0-1", "normal"),
        ("0-1", "time forfeit"),
        ("1/2-1/2", ""),
        ("1/2-1/2", "agreement"),
    ] {
        let text = mated(token, termination);
        let err = error(&text);
        assert!(
            matches!(
                err,
                PgnError::PositionDecided {
                    winner: Color::Red,
                    ..
                }
            ),
            "{text}: {err:?}"
        );
    }

    // Stalemate too.
    let err = error(&game_text(BLACK_STALEMATES, "e2e1", "1/2-1/2", ""));
    assert_eq!(
        err.to_string(),
        "line 2: the final position is stalemate, a win for black, not 1/2-1/2"
    );
}

#[test]
fn a_records_repetition_rule_travels_in_its_own_tag() {
    let chase = position("4k4/9/1c7/9/9/9/R8/9/9/3K5 w - - 0 1");
    let moves = "a3b3 b7c7 b3c3 c7b7 c3b3 b7c7 b3c3 c7b7 c3b3";
    let game = played_under(RepetitionRule::ChecksOnly, chase.clone(), moves);
    let drawn = Some(GameResult::Draw {
        reason: DrawReason::Repetition,
    });
    assert_eq!(game.status().result(), drawn);
    let text = write(&game.record(), MoveFormat::Iccs);
    assert!(
        text.contains("[Termination \"repetition\"]\n[Repetition \"checks-only\"]\n"),
        "{text}"
    );
    let read = parse(&text).unwrap_or_else(|e| panic!("{e}"));
    assert_eq!(read.repetition(), RepetitionRule::ChecksOnly);
    assert_eq!(read.result(), drawn);
    assert_eq!(parse(&write(&read, MoveFormat::Iccs)), Ok(read));
    // Read by the Asian rules, the same draw is a chase the record does not own up to.
    let asian = text.replace("[Repetition \"checks-only\"]\n", "");
    assert!(matches!(
        parse(&asian),
        Err(PgnError::UnfoundedTermination { .. })
    ));
    // The Asian rules are the default, and need no tag.
    let record = played(chase, moves).record();
    assert_eq!(record.repetition(), RepetitionRule::Asian);
    assert!(!write(&record, MoveFormat::Iccs).contains("[Repetition"));
    assert_eq!(
        parse("[Repetition \"chinese\"]\n*"),
        Err(PgnError::UnknownRepetitionRule {
            line: 1,
            value: "chinese".to_owned()
        })
    );
}
