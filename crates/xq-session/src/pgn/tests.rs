//! PGN writing and reading.

use xq_rules::{Outcome, Square};

use super::*;
use crate::{Command, Match, MatchConfig, Timestamp};

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

fn short_game() -> Record {
    let now = Timestamp::from_millis(0);
    let mut game = Match::new(MatchConfig::default(), now);
    for text in ["h2e2", "h9g7", "h0g2", "i9h9"] {
        let iccs: Iccs = text.parse().unwrap_or_else(|e| panic!("{e}"));
        let by = game.turn();
        let mv = Move::new(iccs.from, iccs.to);
        game.handle(now, Command::Play { by, mv })
            .unwrap_or_else(|e| panic!("{e}"));
    }
    game.handle(now, Command::Resign { by: Color::Black })
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
    // would refuse it.
    let mut decisive = parsed("1. h2e2 1-0");
    for (termination, kept) in [("normal", true), ("move\nlimit", false)] {
        decisive.tags.other = vec![("Termination".to_owned(), termination.to_owned())];
        let text = write(&decisive, MoveFormat::Iccs);
        assert_eq!(text.contains("[Termination"), kept, "{text}");
        assert_eq!(parsed(&text).outcome(), decisive.outcome());
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
    let record = parsed("[Termination \"Perpetual Check\"]\n1. h2e2 0-1");
    assert_eq!(
        record.result(),
        Some(GameResult::Win {
            winner: Color::Black,
            reason: WinReason::PerpetualCheck
        })
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
        let record = Record::from_checked_parts(
            Tags::default(),
            Position::startpos(),
            Vec::new(),
            Ending::Result(result),
        );
        let read = parse(&write(&record, MoveFormat::Iccs)).map(|read| read.result());
        assert_eq!(read, Ok(Some(result)));
    }
}
