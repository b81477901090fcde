//! The SQLite engine on a temporary file: what is committed survives a reopen, a failed
//! batch leaves nothing behind, finished games are archived, unknown files are refused.

use std::path::PathBuf;

use assert_matches::assert_matches;
use xq_protocol::{ResumeToken, RoomCode, RoomOptions};
use xq_rules::iccs::Iccs;
use xq_rules::{Color, Move};
use xq_session::{
    Action, Command, GameResult, Journal, Match, MatchConfig, RepetitionRule, Seat, Timestamp,
    WinReason, pgn,
};
use xq_store::{GameId, OpenRoom, Persist, SqliteArchive, SqliteStore, Storage, StoreError};

struct TempDb {
    _dir: tempfile::TempDir,
    path: PathBuf,
}

fn temp_db() -> TempDb {
    let dir = tempfile::tempdir().expect("temp dir");
    let path = dir.path().join("relay.sqlite3");
    TempDb { _dir: dir, path }
}

fn started(code: RoomCode, red: Seat, at: u64) -> Persist {
    Persist::MatchStarted {
        code,
        options: RoomOptions::default(),
        red,
        started: Timestamp::from_millis(at),
        first_token: ResumeToken([1; 16]),
        second_token: ResumeToken([2; 16]),
    }
}

fn mv(text: &str) -> Move {
    let iccs: Iccs = text.parse().expect("ICCS");
    Move::new(iccs.from, iccs.to)
}

/// A short game from `started` at 0: moves a second apart, then Black resigns.
fn game(moves: &[&str]) -> Match {
    let mut game = Match::new(MatchConfig::default(), Timestamp::from_millis(0));
    let mut at = 0;
    for (ply, text) in moves.iter().enumerate() {
        at += 1_000;
        let by = if ply % 2 == 0 {
            Color::Red
        } else {
            Color::Black
        };
        let play = Action::Play(mv(text)).by(by);
        game.handle(Timestamp::from_millis(at), play)
            .expect("legal");
    }
    game
}

/// How many journal rows the file holds, read by a connection of its own.
fn stored_entries(db: &TempDb) -> i64 {
    let conn = rusqlite::Connection::open(&db.path).expect("opens");
    conn.query_row("SELECT count(*) FROM entries", [], |row| row.get(0))
        .expect("counts")
}

fn entries(code: RoomCode, game: &Match) -> Vec<Persist> {
    game.journal()
        .entries
        .iter()
        .zip(0..)
        .map(|(&entry, seq)| Persist::Entry { code, seq, entry })
        .collect()
}

#[test]
fn journals_survive_a_reopen_and_rebuild_the_match() {
    let db = temp_db();
    let code = RoomCode::from_u64(1);
    let played = game(&["h2e2", "h9g7", "h0g2", "i9h9"]);
    {
        let mut store = SqliteStore::open(&db.path).expect("opens");
        store
            .commit(&[started(code, Seat::First, 0)])
            .expect("commit");
        // One commit per entry and one for several: the journal is the same.
        let changes = entries(code, &played);
        store.commit(&changes[..1]).expect("commit");
        store.commit(&changes[1..]).expect("commit");
    }
    let mut store = SqliteStore::open(&db.path).expect("reopens");
    let rooms = store.open_rooms().expect("reads");
    let [room] = &rooms[..] else {
        panic!("expected one room, got {rooms:?}")
    };
    assert_eq!(
        *room,
        OpenRoom {
            code,
            options: RoomOptions::default(),
            red: Seat::First,
            started: Timestamp::from_millis(0),
            first_token: ResumeToken([1; 16]),
            second_token: ResumeToken([2; 16]),
            lost: Vec::new(),
            entries: played.journal().entries.clone(),
        }
    );
    let journal = Journal {
        config: MatchConfig::default(),
        red: room.red,
        started: room.started,
        entries: room.entries.clone(),
    };
    let rebuilt = Match::from_journal(&journal).expect("the journal replays");
    assert!(rebuilt.journal() == played.journal() && rebuilt.position() == played.position());
}

#[test]
fn a_rematch_replaces_the_journal() {
    let db = temp_db();
    let mut store = SqliteStore::open(&db.path).expect("opens");
    let code = RoomCode::from_u64(2);
    let first = game(&["h2e2", "h9g7"]);
    store
        .commit(&[started(code, Seat::First, 0)])
        .expect("commit");
    store.commit(&entries(code, &first)).expect("commit");
    assert_eq!(stored_entries(&db), 2);
    store
        .commit(&[started(code, Seat::Second, 9_000)])
        .expect("commit");
    let rooms = store.open_rooms().expect("reads");
    assert_eq!(rooms.len(), 1);
    assert_eq!(rooms[0].red, Seat::Second);
    assert_eq!(rooms[0].started, Timestamp::from_millis(9_000));
    assert_eq!(rooms[0].entries, []);
    // The old match's few entries are swept by the commit that replaced it.
    assert_eq!(stored_entries(&db), 0);
}

#[test]
fn a_long_journal_is_swept_a_stretch_per_commit() {
    let db = temp_db();
    let mut store = SqliteStore::open(&db.path).expect("opens");
    let (gone, live, busy) = (
        RoomCode::from_u64(6),
        RoomCode::from_u64(7),
        RoomCode::from_u64(8),
    );
    store
        .commit(&[
            started(gone, Seat::First, 0),
            started(live, Seat::First, 0),
            started(busy, Seat::First, 0),
        ])
        .expect("commit");
    store.commit(&filler(gone, 5_000)).expect("commit");
    store
        .commit(&[Persist::RoomClosed { code: gone }])
        .expect("commit");

    // Each commit sweeps a share sized by what it appends, so none holds up the moves
    // waiting for it by deleting the whole journal at once.
    let played = game(&["h2e2", "h9g7", "h0g2", "i9h9"]);
    let moves = entries(live, &played);
    let mut left = vec![stored_entries(&db)];
    for change in &moves {
        store.commit(std::slice::from_ref(change)).expect("commit");
        left.push(stored_entries(&db));
    }
    assert!(left[0] >= 4_000, "the first stretch was short: {left:?}");
    assert!(
        left.windows(2).all(|pair| pair[1] < pair[0]),
        "every commit sweeps more than it appends: {left:?}"
    );
    // A large commit sweeps more than it appends, too.
    let before = stored_entries(&db);
    store.commit(&filler(busy, 200)).expect("commit");
    assert!(before - stored_entries(&db) >= 200);

    // Commits without entries (a room closed before its match began) finish the pass.
    let live_rows = i64::try_from(moves.len()).expect("few") + 200;
    finish_pass(&mut store, &db, live_rows);
    // The live matches' entries were all kept.
    let rooms = store.open_rooms().expect("reads");
    assert_eq!(rooms.len(), 2);
    assert_eq!(rooms[0].entries, played.journal().entries);
    assert_eq!(rooms[1].entries.len(), 200);
}

#[test]
fn a_match_ending_behind_the_sweep_is_swept_by_the_next_pass() {
    let db = temp_db();
    let mut store = SqliteStore::open(&db.path).expect("opens");
    let (early, gone) = (RoomCode::from_u64(9), RoomCode::from_u64(10));
    store
        .commit(&[
            started(early, Seat::First, 0),
            started(gone, Seat::First, 0),
        ])
        .expect("commit");
    store.commit(&filler(early, 100)).expect("commit");
    store.commit(&filler(gone, 5_000)).expect("commit");
    store
        .commit(&[Persist::RoomClosed { code: gone }])
        .expect("commit");
    // A few steps take the pass past `early`'s entries, which are live so far.
    for _ in 0..4 {
        store.commit(&[nothing()]).expect("commit");
    }
    assert!(stored_entries(&db) > 4_000);
    store
        .commit(&[Persist::RoomClosed { code: early }])
        .expect("commit");
    finish_pass(&mut store, &db, 0);
}

/// `count` entries of the match in room `code`, for the store, which does not replay them.
fn filler(code: RoomCode, count: u64) -> Vec<Persist> {
    let entry = game(&["h2e2"]).journal().entries[0];
    (0..count)
        .map(|seq| Persist::Entry { code, seq, entry })
        .collect()
}

/// A commit with no entry: a room closed before its match began.
fn nothing() -> Persist {
    Persist::RoomClosed {
        code: RoomCode::from_u64(999),
    }
}

/// Commits nothing but [`nothing`] until the journal holds `live` rows, which it must within
/// a bounded number of commits.
fn finish_pass(store: &mut SqliteStore, db: &TempDb, live: i64) {
    for _ in 0..1_000 {
        if stored_entries(db) == live {
            return;
        }
        store.commit(&[nothing()]).expect("commit");
    }
    assert_eq!(stored_entries(db), live, "the sweep stalled");
}

#[test]
fn finished_games_are_archived_with_their_pgn() {
    let db = temp_db();
    let mut store = SqliteStore::open(&db.path).expect("opens");
    let code = RoomCode::from_u64(3);
    let mut finished = game(&["h2e2", "h9g7", "h0g2"]);
    finished
        .handle(
            Timestamp::from_millis(5_000),
            Action::Resign.by(Color::Black),
        )
        .expect("resigns");
    let mut changes = vec![started(code, Seat::Second, 0)];
    changes.extend(entries(code, &finished));
    changes.push(Persist::MatchOver {
        code,
        record: Box::new(finished.record()),
    });
    store.commit(&changes).expect("commit");

    let games = store.games().expect("lists");
    let [summary] = &games[..] else {
        panic!("expected one game, got {games:?}")
    };
    assert_eq!(summary.room, code);
    assert_eq!(summary.red, format!("{code}/2"));
    assert_eq!(summary.black, format!("{code}/1"));
    assert_eq!(summary.result, "1-0");
    assert_eq!(summary.termination, "resignation");
    assert_eq!(summary.moves, 3);
    assert!(summary.started <= summary.ended);

    let text = store.pgn(summary.id).expect("reads").expect("archived");
    let record = pgn::parse(&text).expect("the archived PGN parses");
    assert_eq!(record.moves(), finished.record().moves());
    assert_eq!(
        record.result(),
        Some(GameResult::Win {
            winner: Color::Red,
            reason: WinReason::Resignation
        })
    );
    assert_eq!(record.tags.red.as_deref(), Some(summary.red.as_str()));
    assert_eq!(store.pgn(GameId(summary.id.0 + 1)).expect("reads"), None);

    // The room stays open until its players leave; the archive stays after that.
    assert_eq!(store.open_rooms().expect("reads").len(), 1);
    store
        .commit(&[Persist::RoomClosed { code }])
        .expect("commit");
    assert_eq!(store.open_rooms().expect("reads"), []);
    assert_eq!(store.games().expect("lists").len(), 1);
}

#[test]
fn a_failed_commit_changes_nothing() {
    let mut store = SqliteStore::open(":memory:").expect("opens");
    let (kept, stray) = (RoomCode::from_u64(4), RoomCode::from_u64(5));
    let entry = game(&["h2e2"]).journal().entries[0];
    let batch = [
        started(kept, Seat::First, 0),
        Persist::Entry {
            code: stray,
            seq: 0,
            entry,
        },
    ];
    assert_matches!(store.commit(&batch), Err(StoreError::UnknownRoom(code)) if code == stray);
    assert_eq!(store.open_rooms().expect("reads"), []);
    // The room the failed batch started is not there for later entries either.
    let late = Persist::Entry {
        code: kept,
        seq: 0,
        entry,
    };
    assert_matches!(store.commit(&[late]), Err(StoreError::UnknownRoom(code)) if code == kept);
    let over = Persist::MatchOver {
        code: stray,
        record: Box::new(game(&[]).record()),
    };
    assert_matches!(store.commit(&[over]), Err(StoreError::UnknownRoom(code)) if code == stray);
    // A room closed before its match began was never stored: closing it is harmless.
    store
        .commit(&[Persist::RoomClosed { code: stray }])
        .expect("commit");
}

#[test]
fn a_lost_seat_stays_lost_after_a_reopen() {
    let db = temp_db();
    let code = RoomCode::from_u64(3);
    {
        let mut store = SqliteStore::open(&db.path).expect("opens");
        let lost = Persist::SeatLost {
            code,
            seat: Seat::Second,
        };
        store
            .commit(&[started(code, Seat::First, 0), lost])
            .expect("commit");
        // A room never stored (still waiting for its second player) has no seat to mark.
        let stray = Persist::SeatLost {
            code: RoomCode::from_u64(4),
            seat: Seat::First,
        };
        store.commit(&[stray]).expect("commit");
    }
    let mut store = SqliteStore::open(&db.path).expect("reopens");
    let rooms = store.open_rooms().expect("reads");
    assert_eq!(rooms.len(), 1);
    assert_eq!(rooms[0].lost, [Seat::Second]);
}

/// Turns the file into one of version 3, whose journal wrote commands as one flat enum: a
/// player's action after its colour becomes the command's own index before the colour, and
/// the relay's commands move up by 7.
fn make_version_3(db: &TempDb) {
    let conn = rusqlite::Connection::open(&db.path).expect("opens");
    conn.execute_batch(
        "UPDATE entries SET input = unhex(CASE
             WHEN substr(hex(input), 1, 2) <> '00' THEN hex(input)
             WHEN substr(hex(input), 3, 2) = '00'
                 THEN '00' || substr(hex(input), 7, 2) || substr(hex(input), 5, 2)
                     || substr(hex(input), 9)
             ELSE '00' || printf('%02X', 7 + unicode(unhex(substr(hex(input), 3, 2))))
                 || substr(hex(input), 5)
         END);
         PRAGMA user_version = 3;",
    )
    .expect("makes a version 3 file");
}

/// Turns the file into one of version 2, whose room options had no repetition rule (the
/// last byte of their encoding now).
fn make_version_2(db: &TempDb) {
    make_version_3(db);
    let conn = rusqlite::Connection::open(&db.path).expect("opens");
    conn.execute_batch(
        "UPDATE rooms SET options = substr(options, 1, length(options) - 1);
         PRAGMA user_version = 2;",
    )
    .expect("makes a version 2 file");
}

/// Turns the file into one of version 1, which was version 2 without the lost seats.
fn make_version_1(db: &TempDb) {
    make_version_2(db);
    let conn = rusqlite::Connection::open(&db.path).expect("opens");
    conn.execute_batch(
        "ALTER TABLE rooms DROP COLUMN first_lost;
         ALTER TABLE rooms DROP COLUMN second_lost;
         PRAGMA user_version = 1;",
    )
    .expect("makes a version 1 file");
}

/// A file of the first version, which did not record lost seats, is migrated in place and
/// keeps its rooms, none of whose seats is lost.
#[test]
fn a_version_1_file_is_migrated() {
    let db = temp_db();
    let code = RoomCode::from_u64(5);
    {
        let mut store = SqliteStore::open(&db.path).expect("opens");
        store
            .commit(&[started(code, Seat::First, 0)])
            .expect("commit");
    }
    make_version_1(&db);
    let mut store = SqliteStore::open(&db.path).expect("migrates");
    let rooms = store.open_rooms().expect("reads");
    assert_eq!(rooms.len(), 1);
    assert!(rooms[0].lost.is_empty());
    assert_eq!(rooms[0].options.repetition, RepetitionRule::ChecksOnly);
    let lost = Persist::SeatLost {
        code,
        seat: Seat::First,
    };
    store.commit(&[lost]).expect("commit");
    assert_eq!(store.open_rooms().expect("reads")[0].lost, [Seat::First]);
    let conn = rusqlite::Connection::open(&db.path).expect("opens");
    let version: i64 = conn
        .pragma_query_value(None, "user_version", |row| row.get(0))
        .expect("reads");
    assert_eq!(version, 4);
}

/// A file of version 2 was written by relays that judged repetitions by perpetual check
/// alone: its rooms keep that rule, and the rooms opened after the migration have their own.
#[test]
fn a_version_2_file_is_migrated_and_its_rooms_keep_their_repetition_rule() {
    let db = temp_db();
    let old = RoomCode::from_u64(8);
    {
        let mut store = SqliteStore::open(&db.path).expect("opens");
        store
            .commit(&[started(old, Seat::First, 0)])
            .expect("commit");
    }
    make_version_2(&db);
    let mut store = SqliteStore::open(&db.path).expect("migrates");
    assert_eq!(pragma(&db, "user_version"), "4");
    let new = RoomCode::from_u64(9);
    store
        .commit(&[started(new, Seat::First, 0)])
        .expect("commit");
    drop(store);
    let mut store = SqliteStore::open(&db.path).expect("reopens");
    let mut rooms = store.open_rooms().expect("reads");
    rooms.sort_by_key(|room| room.code);
    let rules: Vec<_> = rooms
        .iter()
        .map(|room| (room.code, room.options.repetition))
        .collect();
    assert_eq!(
        rules,
        [
            (old, RepetitionRule::ChecksOnly),
            (new, RepetitionRule::Asian)
        ]
    );
    assert_eq!(
        rooms[0].options.match_config().repetition,
        RepetitionRule::ChecksOnly
    );
}

/// A file of version 3 wrote commands in their old, flat encoding: its journals are re-encoded
/// in place and rebuild the same matches, every kind of command among them.
#[test]
fn a_version_3_file_is_migrated_and_its_journals_rebuild() {
    let db = temp_db();
    let code = RoomCode::from_u64(11);
    let mut config = MatchConfig::default();
    config.time_control = xq_session::TimeControl::Increment {
        base: std::time::Duration::from_secs(60),
        increment: std::time::Duration::ZERO,
    };
    let mut game = Match::new(config, Timestamp::from_millis(0));
    let commands = [
        Action::Play(mv("h2e2")).by(Color::Red),
        Action::RequestUndo.by(Color::Red),
        Action::WithdrawUndo.by(Color::Red),
        Action::RequestUndo.by(Color::Red),
        Action::AnswerUndo { accept: true }.by(Color::Black),
        Action::Play(mv("b2e2")).by(Color::Red),
        Action::OfferDraw.by(Color::Black),
        Action::WithdrawDraw.by(Color::Black),
        Action::OfferDraw.by(Color::Red),
        Action::AnswerDraw { accept: false }.by(Color::Black),
        Command::PauseClocks,
        Command::ResumeClocks,
        Action::Play(mv("h9g7")).by(Color::Black),
        Action::Resign.by(Color::Red),
    ];
    for (at, command) in (1..).zip(commands) {
        game.handle(Timestamp::from_millis(at * 100), command)
            .unwrap_or_else(|e| panic!("{command:?}: {e}"));
    }
    let mut abandoned = Match::new(MatchConfig::default(), Timestamp::from_millis(0));
    abandoned
        .handle(
            Timestamp::from_millis(5),
            Command::Abandon { by: Color::Black },
        )
        .expect("abandons");
    let mut both = Match::new(MatchConfig::default(), Timestamp::from_millis(0));
    both.handle(Timestamp::from_millis(5), Command::AbandonBoth)
        .expect("abandons");
    let games = [
        (code, &game),
        (RoomCode::from_u64(12), &abandoned),
        (RoomCode::from_u64(13), &both),
    ];
    {
        let mut store = SqliteStore::open(&db.path).expect("opens");
        for (code, game) in games {
            let mut batch = vec![started(code, Seat::First, 0)];
            batch.extend(entries(code, game));
            store.commit(&batch).expect("commit");
        }
    }
    make_version_3(&db);
    let mut store = SqliteStore::open(&db.path).expect("migrates");
    assert_eq!(pragma(&db, "user_version"), "4");
    let mut rooms = store.open_rooms().expect("reads");
    rooms.sort_by_key(|room| room.code);
    assert_eq!(rooms.len(), games.len());
    for (room, (code, game)) in rooms.iter().zip(games) {
        assert_eq!(room.code, code);
        assert_eq!(room.entries, game.journal().entries, "{code}");
    }
}

/// A pragma's value as another process would read it.
fn pragma(db: &TempDb, name: &str) -> String {
    let conn = rusqlite::Connection::open(&db.path).expect("opens");
    conn.pragma_query_value(None, name, |row| row.get::<_, rusqlite::types::Value>(0))
        .map(|value| match value {
            rusqlite::types::Value::Integer(n) => n.to_string(),
            rusqlite::types::Value::Text(text) => text,
            other => format!("{other:?}"),
        })
        .expect("reads")
}

/// Reading the archive writes nothing: a file of an older version is read as it is (an older
/// relay can still use it), and a file that is not a relay's is refused, not made one.
#[test]
fn the_archive_is_read_without_writing() {
    // A name that means more in a URI, as SQLite takes some paths.
    let dir = tempfile::tempdir().expect("temp dir");
    let db = TempDb {
        path: dir.path().join("odd ?#%.sqlite3"),
        _dir: dir,
    };
    let code = RoomCode::from_u64(6);
    {
        let mut store = SqliteStore::open(&db.path).expect("opens");
        let mut changes = vec![started(code, Seat::First, 0)];
        changes.extend(entries(code, &game(&["h2e2"])));
        changes.push(Persist::MatchOver {
            code,
            record: Box::new(game(&["h2e2"]).record()),
        });
        store.commit(&changes).expect("commit");
    }
    make_version_1(&db);
    let archive = SqliteArchive::open(&db.path).expect("opens for reading");
    let games = archive.games().expect("lists");
    assert_eq!(games.len(), 1);
    assert!(archive.pgn(games[0].id).expect("reads").is_some());
    drop(archive);
    // No lock files are left beside a file no relay has open.
    let beside: Vec<_> = std::fs::read_dir(db.path.parent().expect("a directory"))
        .expect("lists")
        .map(|entry| entry.expect("an entry").file_name())
        .collect();
    assert_eq!(beside, ["odd ?#%.sqlite3"]);
    assert_eq!(pragma(&db, "user_version"), "1");

    // One a relay has open is read through its log.
    let mut store = SqliteStore::open(&db.path).expect("opens");
    store
        .commit(&[started(RoomCode::from_u64(7), Seat::First, 0)])
        .expect("commit");
    let archive = SqliteArchive::open(&db.path).expect("opens for reading");
    assert_eq!(archive.games().expect("lists").len(), 1);

    let empty = temp_db();
    drop(rusqlite::Connection::open(&empty.path).expect("creates"));
    assert_matches!(SqliteArchive::open(&empty.path), Err(StoreError::NotOurs));
    assert_eq!(pragma(&empty, "user_version"), "0");
}

#[test]
fn unknown_versions_and_foreign_files_are_refused_untouched() {
    let newer = temp_db();
    {
        let conn = rusqlite::Connection::open(&newer.path).expect("opens");
        conn.pragma_update(None, "user_version", 7).expect("sets");
    }
    assert_matches!(
        SqliteStore::open(&newer.path),
        Err(StoreError::UnknownVersion {
            found: 7,
            supported: 4
        })
    );
    assert_matches!(
        SqliteArchive::open(&newer.path),
        Err(StoreError::UnknownVersion { found: 7, .. })
    );
    assert_eq!(pragma(&newer, "user_version"), "7");
    assert_eq!(pragma(&newer, "journal_mode"), "delete");

    let foreign = temp_db();
    {
        let conn = rusqlite::Connection::open(&foreign.path).expect("opens");
        conn.execute_batch("CREATE TABLE notes (text TEXT)")
            .expect("creates");
    }
    assert_matches!(SqliteStore::open(&foreign.path), Err(StoreError::NotOurs));
    assert_matches!(SqliteArchive::open(&foreign.path), Err(StoreError::NotOurs));
    assert_eq!(pragma(&foreign, "journal_mode"), "delete");

    // A database of this version opens again as it is.
    let ours = temp_db();
    drop(SqliteStore::open(&ours.path).expect("creates"));
    SqliteStore::open(&ours.path).expect("reopens");
}
