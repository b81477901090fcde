//! Properties of random matches driven by random, often invalid, command sequences.

use std::time::Duration;

use proptest::prelude::*;
use xq_rules::{Color, Move, Position, Square};
use xq_session::pgn::{self, MoveFormat};
use xq_session::{
    Action, Command, Event, Match, MatchConfig, MatchState, Replay, Tags, TimeControl, Timestamp,
    UndoPolicy,
};

/// One step of a random session. Seats are chosen relative to the side to move so that both
/// valid and invalid commands come up often.
#[derive(Clone, Debug)]
enum Step {
    /// The side to move plays its `n`-th legal move (modulo their number).
    Play(usize),
    /// Anyone plays between two arbitrary points, almost always illegal.
    Wild(bool, u8, u8),
    RequestUndo(bool),
    WithdrawUndo(bool),
    AnswerUndo(bool, bool),
    OfferDraw(bool),
    WithdrawDraw(bool),
    AnswerDraw(bool, bool),
    /// Resigns, but only when the gate is 0, so that most games run longer.
    Resign(bool, u8),
    /// Abandons, but only when the gate is 0.
    Abandon(bool, u8),
    /// Both abandon at once, but only when the gate is 0.
    AbandonBoth(u8),
    Pause,
    Resume,
    /// Time passes, then the timer fires if it is due.
    Wait(u16),
}

fn step() -> impl Strategy<Value = Step> {
    let seat = any::<bool>;
    prop_oneof![
        40 => any::<usize>().prop_map(Step::Play),
        2 => (seat(), 0..90u8, 0..90u8).prop_map(|(s, a, b)| Step::Wild(s, a, b)),
        6 => seat().prop_map(Step::RequestUndo),
        1 => seat().prop_map(Step::WithdrawUndo),
        8 => (seat(), prop::bool::weighted(0.75)).prop_map(|(s, a)| Step::AnswerUndo(s, a)),
        2 => seat().prop_map(Step::OfferDraw),
        1 => seat().prop_map(Step::WithdrawDraw),
        2 => (seat(), prop::bool::weighted(0.15)).prop_map(|(s, a)| Step::AnswerDraw(s, a)),
        1 => (seat(), 0..10u8).prop_map(|(s, gate)| Step::Resign(s, gate)),
        1 => (seat(), 0..10u8).prop_map(|(s, gate)| Step::Abandon(s, gate)),
        1 => (0..10u8).prop_map(Step::AbandonBoth),
        1 => Just(Step::Pause),
        1 => Just(Step::Resume),
        3 => (0..4_000u16).prop_map(Step::Wait),
    ]
}

fn config() -> impl Strategy<Value = MatchConfig> {
    let time_control = prop_oneof![
        Just(TimeControl::Untimed),
        (5..60u64, 0..5u64).prop_map(|(base, inc)| TimeControl::Increment {
            base: Duration::from_secs(base),
            increment: Duration::from_secs(inc),
        }),
    ];
    let undo = prop_oneof![
        Just(UndoPolicy::Unlimited),
        (0..3u32).prop_map(UndoPolicy::PerSeat),
        Just(UndoPolicy::Forbidden),
    ];
    (time_control, undo).prop_map(|(time_control, undo)| {
        let mut config = MatchConfig::default();
        config.time_control = time_control;
        config.undo = undo;
        config
    })
}

/// The seat `to_move` names: the side to move, or the other one.
fn seat(game: &Match, to_move: bool) -> Color {
    if to_move { game.turn() } else { !game.turn() }
}

fn command(game: &Match, action: &Step) -> Option<Command> {
    Some(match *action {
        Step::Play(n) => {
            let moves = game.position().legal_moves();
            let mv = *moves.get(n % moves.len().max(1))?;
            Action::Play(mv).by(game.turn())
        }
        Step::Wild(to_move, from, to) => {
            let mv = Move::new(Square::from_index(from)?, Square::from_index(to)?);
            Action::Play(mv).by(seat(game, to_move))
        }
        Step::RequestUndo(s) => Action::RequestUndo.by(seat(game, s)),
        Step::WithdrawUndo(s) => Action::WithdrawUndo.by(seat(game, s)),
        Step::AnswerUndo(s, accept) => Action::AnswerUndo { accept }.by(seat(game, s)),
        Step::OfferDraw(s) => Action::OfferDraw.by(seat(game, s)),
        Step::WithdrawDraw(s) => Action::WithdrawDraw.by(seat(game, s)),
        Step::AnswerDraw(s, accept) => Action::AnswerDraw { accept }.by(seat(game, s)),
        Step::Resign(s, 0) => Action::Resign.by(seat(game, s)),
        Step::Abandon(s, 0) => Command::Abandon { by: seat(game, s) },
        Step::AbandonBoth(0) => Command::AbandonBoth,
        Step::Resign(..) | Step::Abandon(..) | Step::AbandonBoth(_) => return None,
        Step::Pause => Command::PauseClocks,
        Step::Resume => Command::ResumeClocks,
        Step::Wait(_) => return None,
    })
}

/// A tag name: any text, a well-formed name, or one the writer or reader treats specially.
fn tag_name() -> impl Strategy<Value = String> {
    prop_oneof![
        any::<String>(),
        "[A-Za-z_][A-Za-z0-9_]{0,8}",
        prop::sample::select(vec![
            "Event",
            "Result",
            "FEN",
            "Termination",
            "Game",
            "Variant"
        ])
        .prop_map(str::to_owned),
    ]
}

/// A tag value: any text, or one that means something to the reader.
fn tag_value() -> impl Strategy<Value = String> {
    prop_oneof![
        any::<String>(),
        prop::sample::select(vec![
            "?",
            "",
            "????.??.??",
            "1-0",
            "checkmate",
            "agreement",
            "move\nlimit",
            "normal",
        ])
        .prop_map(str::to_owned),
    ]
}

fn tags() -> impl Strategy<Value = Tags> {
    let field = || prop::option::of(tag_value());
    let other = prop::collection::vec((tag_name(), tag_value()), 0..6);
    (field(), field(), field(), field(), field(), other).prop_map(
        |(event, site, date, red, black, other)| Tags {
            event,
            site,
            date,
            red,
            black,
            other,
        },
    )
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(128))]

    #[test]
    fn random_sessions_keep_their_invariants(
        config in config(),
        actions in prop::collection::vec(step(), 0..200),
    ) {
        let mut now = 0u64;
        let mut game = Match::new(config, Timestamp::from_millis(now));
        // The positions after each ply, kept from the events alone.
        let mut seen = vec![Position::startpos()];
        // A follower that joins at the start and is fed every event as it is sent.
        let start = Timestamp::from_millis(now);
        let mut follower = MatchState::follow(&game.standing(start), start)
            .map_err(|e| TestCaseError::fail(e.to_string()))?;

        for action in &actions {
            now += 250;
            let at = Timestamp::from_millis(now);
            if let Step::Wait(millis) = action {
                now += u64::from(*millis);
                game.handle_timeout(Timestamp::from_millis(now));
            } else if let Some(command) = command(&game, action) {
                game.handle_timeout(at);
                while let Some(event) = game.poll_event() {
                    follower.apply(at, &event).map_err(|e| TestCaseError::fail(e.to_string()))?;
                }
                let before = game.clone();
                let verdict = game.handle(at, command);
                if let Command::Act { by, action } = command {
                    // The follower refuses exactly what the match refuses.
                    prop_assert_eq!(follower.check(by, action), verdict, "{:?}", command);
                }
                if verdict.is_err() {
                    prop_assert_eq!(&game, &before, "refused {:?} changed the match", command);
                }
            }
            let at = Timestamp::from_millis(now);
            while let Some(event) = game.poll_event() {
                follower.apply(at, &event).map_err(|e| TestCaseError::fail(format!("{event:?}: {e}")))?;
                match event {
                    Event::MovePlayed { ply, .. } => {
                        seen.push(game.position().clone());
                        prop_assert_eq!(ply, seen.len() - 1);
                    }
                    Event::UndoApplied { plies, .. } => {
                        seen.truncate(seen.len() - plies);
                        prop_assert_eq!(seen.last(), Some(game.position()));
                    }
                    _ => {}
                }
            }
            if let Some(last) = seen.last() {
                prop_assert_eq!(last, game.position());
            }
            // Fed the events as they are sent, a follower holds what the match holds.
            prop_assert_eq!(&follower, game.state());
        }

        // The record round-trips through PGN.
        let record = game.record();
        let text = pgn::write(&record, MoveFormat::Iccs);
        let read = pgn::parse(&text).map_err(|e| TestCaseError::fail(format!("{e}\n{text}")))?;
        prop_assert_eq!(read.final_position(), game.position().clone());
        prop_assert_eq!(read.outcome(), game.status().result().map(|r| r.outcome()));
        prop_assert_eq!(read.result(), game.status().result());
        prop_assert_eq!(&read, &record);
        for format in [MoveFormat::Wxf, MoveFormat::Chinese] {
            let written = pgn::write(&record, format);
            let again = pgn::parse(&written).map_err(|e| TestCaseError::fail(format!("{e}\n{written}")))?;
            prop_assert_eq!(&again, &record);
        }

        // A replay walks the same positions forward and back.
        let mut replay = Replay::new(read);
        prop_assert!(replay.seek(replay.len()));
        prop_assert_eq!(replay.position(), game.position());
        while replay.back() {}
        prop_assert_eq!(replay.position(), &Position::startpos());

        // The journal rebuilds the same match.
        let rebuilt = Match::from_journal(&game.journal())
            .map_err(|e| TestCaseError::fail(e.to_string()))?;
        prop_assert_eq!(rebuilt, game);
    }

    /// Random play-outs run longer than random sessions and end on the board more often (mate,
    /// stalemate, repetition, the move limit); the writer's record of each reads back the same
    /// in every format.
    #[test]
    fn played_out_games_read_back_in_every_format(
        picks in prop::collection::vec(any::<usize>(), 0..400),
    ) {
        let now = Timestamp::from_millis(0);
        let mut game = Match::new(MatchConfig::default(), now);
        let mut picks = picks.into_iter();
        game.play_out(now, |moves| moves.get(picks.next()? % moves.len().max(1)).copied())
            .map_err(|e| TestCaseError::fail(e.to_string()))?;
        let record = game.record();
        for format in [MoveFormat::Iccs, MoveFormat::Wxf, MoveFormat::Chinese] {
            let written = pgn::write(&record, format);
            let read = pgn::parse(&written).map_err(|e| TestCaseError::fail(format!("{e}\n{written}")))?;
            prop_assert_eq!(&read, &record);
        }
    }

    #[test]
    fn written_tags_always_read_back(
        // Unfinished, an outcome without its reason, and a result with one.
        game in prop::sample::select(vec![
            "1. h2e2 *",
            "1. h2e2 1-0",
            "1. h2e2 1/2-1/2",
            "[Termination \"resignation\"]\n1. h2e2 0-1",
        ]),
        tags in tags(),
    ) {
        let mut record = pgn::parse(game).map_err(|e| TestCaseError::fail(e.to_string()))?;
        record.tags = tags;
        let text = pgn::write(&record, MoveFormat::Iccs);
        let read = pgn::parse(&text).map_err(|e| TestCaseError::fail(format!("{e}\n{text}")))?;
        prop_assert_eq!(read.moves(), record.moves());
        prop_assert_eq!(read.outcome(), record.outcome());
        // Once normalised, a record stays as it is.
        let again = pgn::write(&read, MoveFormat::Iccs);
        let reread = pgn::parse(&again).map_err(|e| TestCaseError::fail(format!("{e}\n{again}")))?;
        prop_assert_eq!(reread, read);
    }
}
