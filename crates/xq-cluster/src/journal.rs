//! A room's journal on its subject: what each message holds, its versioned encoding, and how
//! the messages rebuild the room.

use serde::{Deserialize, Serialize};
use xq_protocol::{ResumeToken, RoomCode, RoomOptions};
use xq_session::{Entry, Seat, Timestamp};
use xq_store::{OpenRoom, UnixTime};

use crate::error::WireError;
use crate::wire;

/// One message of a room's journal as read back: who wrote it, under which lease, and the
/// room's changes of one commit.
///
/// A checker proves a room's history sound from these alone: `counter` runs 1, 2, 3… with
/// no gap or repeat (a retry was not doubled and nothing was lost), and every message
/// after a [`Change::TakenOver`] until the next one has that message's writer and lease
/// revision (one writer at a time, each the lease holder when it wrote: the takeover is
/// appended fenced on the journal's last sequence, so a former owner's late append is
/// refused from then on).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Append {
    /// The message's sequence in the rooms' stream (unique across every room, never reused).
    pub seq: u64,
    /// The node process that wrote it.
    pub writer: Writer,
    /// The revision of the writer's lease on the room when it wrote (the KV revision it
    /// created or last renewed).
    pub lease_revision: u64,
    /// The message's number in the room's journal, from 1.
    pub counter: u64,
    /// The room's changes, in the order the relay committed them.
    pub changes: Vec<Change>,
}

/// A node process: its name and the random number it drew at start, so that a node
/// restarted under its name is told apart from its former self.
#[derive(Clone, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub struct Writer {
    /// The node's name.
    pub node: String,
    /// The process's random incarnation number.
    pub incarnation: u64,
}

/// A change to a room as its journal keeps it: [`xq_store::Persist`] without the room code
/// (the subject names it), plus what another node needs to carry on (wall-clock times, the
/// archived form of a finished game) and the takeover marker.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[non_exhaustive]
pub enum Change {
    /// The writer took the room over from an owner that had left it: the first message of
    /// each owner after the room's first (whose first message starts its match).
    TakenOver,
    /// A match began ([`xq_store::Persist::MatchStarted`]).
    MatchStarted {
        /// How the room plays.
        options: RoomOptions,
        /// The seat playing Red.
        red: Seat,
        /// When the match started on the writer's relay clock.
        started: Timestamp,
        /// The token of [`Seat::First`].
        first_token: ResumeToken,
        /// The token of [`Seat::Second`].
        second_token: ResumeToken,
        /// When it was committed, in Unix seconds: the archived game's start.
        opened_at: i64,
    },
    /// The match accepted an input ([`xq_store::Persist::Entry`]).
    Entry {
        /// The entry's number in the match's journal, from 0.
        seq: u64,
        /// The input and its time.
        entry: Entry,
    },
    /// The match ended ([`xq_store::Persist::MatchOver`]): the game as the archive keeps
    /// it, so that whoever reads the journal can archive it if its writer could not.
    MatchOver {
        /// The archived form of the game.
        game: ArchivedGame,
    },
    /// A seat was lost to the grace period ([`xq_store::Persist::SeatLost`]).
    SeatLost {
        /// The seat.
        seat: Seat,
    },
    /// The room closed ([`xq_store::Persist::RoomClosed`]); its subject is purged next.
    RoomClosed,
}

/// A finished game as the archive stream keeps it (one message each) and as the room's
/// journal records it: the summary columns and the PGN.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct ArchivedGame {
    /// The room it was played in.
    pub room: RoomCode,
    /// When the match started, Unix seconds.
    pub started: i64,
    /// When it ended, Unix seconds.
    pub ended: i64,
    /// Who played Red ([`xq_store::player_name`]).
    pub red: String,
    /// Who played Black.
    pub black: String,
    /// The PGN result token.
    pub result: String,
    /// Why it ended, in the words of PGN's `Termination` tag.
    pub termination: String,
    /// How many plies it has.
    pub moves: u64,
    /// The PGN record.
    pub pgn: String,
}

/// The part of an [`Append`] its payload carries (the sequence is the stream's).
#[derive(Serialize, Deserialize)]
struct Body {
    writer: Writer,
    lease_revision: u64,
    counter: u64,
    changes: Vec<Change>,
}

impl Append {
    /// Decodes the payload of the journal message with stream sequence `seq`.
    ///
    /// # Errors
    ///
    /// A [`WireError`] if the bytes are not a journal message of a format version this
    /// release knows. Arbitrary bytes give an error, never a panic, and never an
    /// allocation beyond the message's own size bound.
    pub fn decode(seq: u64, bytes: &[u8]) -> Result<Self, WireError> {
        let body: Body = wire::decode(bytes)?;
        Ok(Self {
            seq,
            writer: body.writer,
            lease_revision: body.lease_revision,
            counter: body.counter,
            changes: body.changes,
        })
    }

    /// The payload of a message with these contents.
    pub(crate) fn encode(
        writer: &Writer,
        lease_revision: u64,
        counter: u64,
        changes: &[Change],
    ) -> Result<Vec<u8>, bincode::error::EncodeError> {
        // Serialized by reference: the same bytes as `Body`.
        wire::encode(&(writer, lease_revision, counter, changes))
    }
}

impl ArchivedGame {
    /// The archive's summary of this game, numbered `id`.
    #[must_use]
    pub fn summary(&self, id: xq_store::GameId) -> xq_store::GameSummary {
        xq_store::GameSummary {
            id,
            room: self.room,
            started: UnixTime(self.started),
            ended: UnixTime(self.ended),
            red: self.red.clone(),
            black: self.black.clone(),
            result: self.result.clone(),
            termination: self.termination.clone(),
            moves: usize::try_from(self.moves).unwrap_or(usize::MAX),
        }
    }

    /// Decodes an archive message.
    ///
    /// # Errors
    ///
    /// A [`WireError`] if the bytes are not an archived game of a known format version.
    pub fn decode(bytes: &[u8]) -> Result<Self, WireError> {
        wire::decode(bytes)
    }

    /// The archive message of this game.
    pub(crate) fn encode(&self) -> Result<Vec<u8>, bincode::error::EncodeError> {
        wire::encode(self)
    }
}

/// The match a room is playing, as far as the storage needs it: what archiving it takes.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) struct CurrentMatch {
    /// The seat playing Red.
    pub(crate) red: Seat,
    /// When it was committed: the archived game's start.
    pub(crate) opened_at: UnixTime,
    /// The stream sequence of the message that started it: it names the game in the archive
    /// (`xq.game.<CODE>.<seq>`), so that two archivings of one game collide.
    pub(crate) start_seq: u64,
}

/// What a room's journal, read back, says of it.
#[derive(Debug)]
pub(crate) struct Replayed {
    /// The stream sequence of its last message (0 if none): the next append's fence.
    pub(crate) last_seq: u64,
    /// The counter of its last message (0 if none).
    pub(crate) counter: u64,
    /// Every resume token it ever gave out, to delete when it closes.
    pub(crate) tokens: Vec<ResumeToken>,
    /// Where its matches stand.
    pub(crate) state: RoomState,
}

/// Where a room's matches stand at the end of its journal.
#[derive(Debug)]
pub(crate) enum RoomState {
    /// No match ever started (a claimed code, or no journal at all).
    Empty,
    /// A match is on.
    Open {
        /// The room to restore.
        room: Box<OpenRoom>,
        /// What archiving its match will take.
        current: CurrentMatch,
    },
    /// The last match is over and no rematch began.
    Over {
        /// The finished game.
        game: Box<ArchivedGame>,
        /// The sequence naming it in the archive.
        start_seq: u64,
    },
    /// The room closed.
    Closed,
}

/// Why a room's journal does not replay.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum ReplayError {
    /// An entry or a change to a match came with no match started.
    #[error("a change at sequence {0} comes before any match")]
    NoMatch(u64),
    /// An entry's number is not the next one.
    #[error("entry {found} at sequence {seq} where entry {expected} was due")]
    EntryGap {
        /// The stream sequence.
        seq: u64,
        /// The entry number due.
        expected: u64,
        /// The entry number found.
        found: u64,
    },
    /// The append counter skips or repeats.
    #[error("append counter {found} at sequence {seq} where {expected} was due")]
    CounterGap {
        /// The stream sequence.
        seq: u64,
        /// The counter due.
        expected: u64,
        /// The counter found.
        found: u64,
    },
}

/// Rebuilds room `code` from its journal, oldest message first.
pub(crate) fn replay(code: RoomCode, journal: &[Append]) -> Result<Replayed, ReplayError> {
    let mut replayed = Replayed {
        last_seq: 0,
        counter: 0,
        tokens: Vec::new(),
        state: RoomState::Empty,
    };
    for append in journal {
        if append.counter != replayed.counter + 1 {
            return Err(ReplayError::CounterGap {
                seq: append.seq,
                expected: replayed.counter + 1,
                found: append.counter,
            });
        }
        replayed.counter = append.counter;
        replayed.last_seq = append.seq;
        for change in &append.changes {
            apply(code, append.seq, change, &mut replayed)?;
        }
    }
    Ok(replayed)
}

/// Applies one change of the message at stream sequence `seq`.
fn apply(
    code: RoomCode,
    seq: u64,
    change: &Change,
    replayed: &mut Replayed,
) -> Result<(), ReplayError> {
    match change {
        Change::TakenOver => {}
        Change::MatchStarted {
            options,
            red,
            started,
            first_token,
            second_token,
            opened_at,
        } => {
            replayed.tokens.extend([*first_token, *second_token]);
            replayed.state = RoomState::Open {
                room: Box::new(OpenRoom {
                    code,
                    options: *options,
                    red: *red,
                    started: *started,
                    first_token: *first_token,
                    second_token: *second_token,
                    lost: Vec::new(),
                    entries: Vec::new(),
                }),
                current: CurrentMatch {
                    red: *red,
                    opened_at: UnixTime(*opened_at),
                    start_seq: seq,
                },
            };
        }
        Change::Entry { seq: number, entry } => {
            let RoomState::Open { room, .. } = &mut replayed.state else {
                return Err(ReplayError::NoMatch(seq));
            };
            let expected = room.entries.len() as u64;
            if *number != expected {
                return Err(ReplayError::EntryGap {
                    seq,
                    expected,
                    found: *number,
                });
            }
            room.entries.push(*entry);
        }
        Change::MatchOver { game } => {
            let RoomState::Open { current, .. } = &replayed.state else {
                return Err(ReplayError::NoMatch(seq));
            };
            replayed.state = RoomState::Over {
                game: Box::new(game.clone()),
                start_seq: current.start_seq,
            };
        }
        Change::SeatLost { seat } => match &mut replayed.state {
            RoomState::Open { room, .. } => {
                if !room.lost.contains(seat) {
                    room.lost.push(*seat);
                }
            }
            // A seat lost after the match ended changes nothing to restore.
            RoomState::Over { .. } => {}
            RoomState::Empty | RoomState::Closed => return Err(ReplayError::NoMatch(seq)),
        },
        Change::RoomClosed => replayed.state = RoomState::Closed,
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use xq_rules::{Color, Move, Square};
    use xq_session::{Action, Input};

    use super::*;

    fn writer() -> Writer {
        Writer {
            node: "a".into(),
            incarnation: 7,
        }
    }

    fn started() -> Change {
        Change::MatchStarted {
            options: RoomOptions::default(),
            red: Seat::First,
            started: Timestamp::from_millis(5),
            first_token: ResumeToken([1; 16]),
            second_token: ResumeToken([2; 16]),
            opened_at: 1_700_000_000,
        }
    }

    fn entry(seq: u64) -> Change {
        let play = Action::Play(Move::new(Square::H2, Square::E2)).by(Color::Red);
        Change::Entry {
            seq,
            entry: Entry {
                at: Timestamp::from_millis(1_000 * (seq + 1)),
                input: Input::Command(play),
            },
        }
    }

    fn append(seq: u64, counter: u64, changes: Vec<Change>) -> Append {
        let bytes = Append::encode(&writer(), 3, counter, &changes).expect("encodes");
        Append::decode(seq, &bytes).expect("decodes")
    }

    #[test]
    fn a_message_decodes_to_what_was_encoded() {
        let changes = vec![started(), entry(0), Change::SeatLost { seat: Seat::Second }];
        let decoded = append(9, 1, changes.clone());
        assert_eq!(
            decoded,
            Append {
                seq: 9,
                writer: writer(),
                lease_revision: 3,
                counter: 1,
                changes,
            }
        );
        let bytes = Append::encode(&writer(), 3, 1, &[]).expect("encodes");
        assert!(matches!(
            Append::decode(1, &bytes[..bytes.len() - 1]),
            Err(WireError::Decode(_))
        ));
        let mut longer = bytes.clone();
        longer.push(0);
        assert!(matches!(
            Append::decode(1, &longer),
            Err(WireError::Trailing(1))
        ));
        let mut newer = bytes;
        newer[0] = 2;
        assert!(matches!(
            Append::decode(1, &newer),
            Err(WireError::UnknownVersion(2))
        ));
        assert!(matches!(Append::decode(1, &[]), Err(WireError::Empty)));
    }

    #[test]
    fn a_journal_replays_to_its_open_match() {
        let code = RoomCode::from_u64(1);
        let journal = [
            append(4, 1, vec![started(), entry(0)]),
            append(6, 2, vec![Change::TakenOver]),
            append(9, 3, vec![entry(1), Change::SeatLost { seat: Seat::First }]),
        ];
        let replayed = replay(code, &journal).expect("replays");
        assert_eq!((replayed.last_seq, replayed.counter), (9, 3));
        let RoomState::Open { room, current } = replayed.state else {
            panic!("an open match expected");
        };
        assert_eq!(room.entries.len(), 2);
        assert_eq!(room.lost, [Seat::First]);
        assert_eq!(current.start_seq, 4);
        assert_eq!(current.opened_at, UnixTime(1_700_000_000));
    }

    #[test]
    fn a_journal_with_a_gap_does_not_replay() {
        let code = RoomCode::from_u64(1);
        let skipped = [append(4, 1, vec![started()]), append(6, 3, vec![entry(0)])];
        assert!(matches!(
            replay(code, &skipped),
            Err(ReplayError::CounterGap {
                expected: 2,
                found: 3,
                ..
            })
        ));
        let doubled = [
            append(4, 1, vec![started(), entry(0)]),
            append(6, 2, vec![entry(0)]),
        ];
        assert!(matches!(
            replay(code, &doubled),
            Err(ReplayError::EntryGap {
                expected: 1,
                found: 0,
                ..
            })
        ));
        let orphan = [append(4, 1, vec![entry(0)])];
        assert!(matches!(
            replay(code, &orphan),
            Err(ReplayError::NoMatch(4))
        ));
    }

    #[test]
    fn a_closed_or_finished_room_replays_as_such() {
        let code = RoomCode::from_u64(1);
        let game = ArchivedGame {
            room: code,
            started: 1,
            ended: 2,
            red: "AAAAAB/1".into(),
            black: "AAAAAB/2".into(),
            result: "1-0".into(),
            termination: "resignation".into(),
            moves: 1,
            pgn: "1. h2e2 1-0".into(),
        };
        let over = [append(
            4,
            1,
            vec![started(), entry(0), Change::MatchOver { game }],
        )];
        assert!(matches!(
            replay(code, &over).expect("replays").state,
            RoomState::Over { start_seq: 4, .. }
        ));
        let closed = [
            append(4, 1, vec![started()]),
            append(5, 2, vec![Change::RoomClosed]),
        ];
        let replayed = replay(code, &closed).expect("replays");
        assert!(matches!(replayed.state, RoomState::Closed));
        assert_eq!(replayed.tokens.len(), 2);
        assert!(matches!(
            replay(code, &[]).expect("replays").state,
            RoomState::Empty
        ));
    }
}
