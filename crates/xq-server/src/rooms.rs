//! The room table: every open room by its code, the resume tokens that lead to their seats,
//! and when each room next needs the time.

use std::collections::HashMap;

use rand::rngs::StdRng;
use rand::{Rng, SeedableRng};
use xq_protocol::{ErrorCode, ResumeToken, RoomCode, RoomOptions};
use xq_session::{Action, RebuildError, Seat, Timestamp};
use xq_store::OpenRoom;

use crate::deadlines::Deadlines;
use crate::output::Outbox;
use crate::room::{Asker, Room};
use crate::seat::Seats;
use crate::{Config, ConnId};

/// The open rooms. A token is in the index exactly while its seat is held, and a room is in
/// the deadlines exactly while it waits for time to pass; the table keeps both so, whatever
/// opens, seats or closes a room. Its randomness (room codes, resume tokens, colours) comes
/// from a seed.
#[derive(Debug)]
pub(crate) struct Rooms {
    /// Boxed: a room is several hundred bytes, and a hash table keeps up to twice the slots it
    /// fills, so inline rooms would double the memory of every idle match.
    table: HashMap<RoomCode, Box<Room>>,
    /// The token of every held seat, and where that seat is.
    tokens: HashMap<ResumeToken, (RoomCode, Seat)>,
    deadlines: Deadlines,
    rng: StdRng,
}

/// What a room whose deadline fell due is to become ([`Rooms::pop_due`]).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Fate {
    /// It stays open, waiting for its next deadline.
    Open,
    /// Nobody holds a seat any more: it closes.
    Deserted,
    /// It outlived [`Config::idle_room`] or [`Config::waiting_room`]: it closes.
    Expired,
}

impl Rooms {
    pub(crate) fn new(seed: [u8; 32]) -> Self {
        Self {
            table: HashMap::new(),
            tokens: HashMap::new(),
            deadlines: Deadlines::default(),
            rng: StdRng::from_seed(seed),
        }
    }

    /// How many rooms are open.
    pub(crate) fn len(&self) -> usize {
        self.table.len()
    }

    pub(crate) fn get(&self, code: RoomCode) -> Option<&Room> {
        self.table.get(&code).map(Box::as_ref)
    }

    pub(crate) fn get_mut(&mut self, code: RoomCode) -> Option<&mut Room> {
        self.table.get_mut(&code).map(Box::as_mut)
    }

    /// Brings back a room the storage kept, its clocks restarted at `now`, and makes the
    /// tokens of its held seats valid again. The caller closes it if it is deserted, and
    /// arms it otherwise.
    ///
    /// # Errors
    ///
    /// A [`RestoreError`] if the journal does not replay or the room is already open; nothing
    /// changes then.
    pub(crate) fn restore(
        &mut self,
        now: Timestamp,
        stored: OpenRoom,
        outbox: &mut Outbox,
    ) -> Result<&Room, RestoreError> {
        let code = stored.code;
        if self.table.contains_key(&code) {
            return Err(RestoreError::AlreadyOpen(code));
        }
        let mut room =
            Room::restore(now, stored).map_err(|source| RestoreError::Journal { code, source })?;
        room.resume_clocks(now, outbox);
        for (token, seat) in room.held_tokens() {
            self.tokens.insert(token, (code, seat));
        }
        tracing::info!(room = %code, "room restored");
        Ok(self.table.entry(code).or_insert_with(|| Box::new(room)))
    }

    /// A random code that no open room has.
    pub(crate) fn draw_code(&mut self) -> RoomCode {
        loop {
            let code = RoomCode::from_u64(self.rng.next_u64());
            if !self.table.contains_key(&code) {
                break code;
            }
        }
    }

    /// Opens a room with code `code` (free: see [`draw_code`](Self::draw_code)) and fresh
    /// tokens; nobody sits in it yet.
    pub(crate) fn open(
        &mut self,
        now: Timestamp,
        code: RoomCode,
        options: RoomOptions,
        red: Seat,
    ) -> RoomCode {
        let tokens = Seats {
            first: self.draw_token(),
            second: self.draw_token(),
        };
        self.table
            .insert(code, Box::new(Room::new(code, options, red, tokens, now)));
        tracing::info!(room = %code, "room opened");
        code
    }

    /// A seat drawn at random, for the colours of a room that leaves them to chance.
    pub(crate) fn draw_seat(&mut self) -> Seat {
        if self.rng.next_u64() & 1 == 0 {
            Seat::First
        } else {
            Seat::Second
        }
    }

    /// Seats `conn` at `seat` of room `code`, its token valid from now on; whether the room
    /// is open.
    pub(crate) fn seat(&mut self, code: RoomCode, seat: Seat, conn: ConnId) -> bool {
        let Some(room) = self.table.get_mut(&code) else {
            return false;
        };
        self.tokens.insert(room.seat(seat, conn), (code, seat));
        true
    }

    /// Whether `token` holds a seat, which [`resume`](Self::resume) would give back.
    pub(crate) fn holds(&self, token: ResumeToken) -> bool {
        self.tokens
            .get(&token)
            .is_some_and(|(code, _)| self.table.contains_key(code))
    }

    /// Puts `conn` back in the seat `token` holds ([`Room::resume`]): the seat's room, the
    /// seat, and the connection it replaced, if one was still there; `None` if no held seat
    /// has this token ([`holds`](Self::holds)).
    pub(crate) fn resume(
        &mut self,
        now: Timestamp,
        token: ResumeToken,
        conn: ConnId,
        config: &Config,
        outbox: &mut Outbox,
    ) -> Option<(RoomCode, Seat, Option<ConnId>)> {
        let &(code, seat) = self.tokens.get(&token)?;
        let room = self.table.get_mut(&code)?;
        let replaced = room.resume(now, seat, conn, outbox);
        room.rearm(&mut self.deadlines, config);
        Some((code, seat, replaced))
    }

    /// The player at `seat` of room `code` takes `action` for `asker` ([`Room::act`]):
    /// whether the match accepted a move.
    ///
    /// # Errors
    ///
    /// Why the action is refused; a refusal changes nothing.
    #[expect(
        clippy::too_many_arguments,
        reason = "the action's room, seat and asker"
    )]
    pub(crate) fn act(
        &mut self,
        now: Timestamp,
        code: RoomCode,
        seat: Seat,
        action: Action,
        asker: Asker,
        config: &Config,
        outbox: &mut Outbox,
    ) -> Result<bool, ErrorCode> {
        let room = self.table.get_mut(&code).ok_or(ErrorCode::NotInRoom)?;
        let played = room.act(now, seat, action, asker, outbox);
        room.rearm(&mut self.deadlines, config);
        played
    }

    /// Moves room `code`'s entry in the deadlines to what the room now waits for.
    pub(crate) fn rearm(&mut self, code: RoomCode, config: &Config) {
        if let Some(room) = self.table.get_mut(&code) {
            room.rearm(&mut self.deadlines, config);
        }
    }

    /// Handles the passing of time in the next room whose deadline fell due by `now`
    /// ([`Room::handle_timeout`]): its code, and whether it is to close. Seats lost meanwhile
    /// void their tokens; a room that stays open is armed again.
    pub(crate) fn pop_due(
        &mut self,
        now: Timestamp,
        config: &Config,
        outbox: &mut Outbox,
    ) -> Option<(RoomCode, Fate)> {
        while let Some(code) = self.deadlines.pop_due(now) {
            let Some(room) = self.table.get_mut(&code) else {
                continue;
            };
            room.fell_due();
            room.handle_timeout(now, config.grace, outbox);
            for token in room.lost_tokens() {
                self.tokens.remove(&token);
            }
            let fate = if room.is_deserted() {
                Fate::Deserted
            } else if room.is_expired(now, config) {
                Fate::Expired
            } else {
                room.rearm(&mut self.deadlines, config);
                Fate::Open
            };
            return Some((code, fate));
        }
        None
    }

    /// When [`pop_due`](Self::pop_due) has something to do next.
    pub(crate) fn next_deadline(&self) -> Option<Timestamp> {
        self.deadlines.next()
    }

    /// Pauses every running clock at `now`, for a shutdown ([`Room::pause_clocks`]).
    pub(crate) fn pause_clocks(&mut self, now: Timestamp, outbox: &mut Outbox) {
        for room in self.table.values_mut() {
            room.pause_clocks(now, &mut self.deadlines, outbox);
        }
    }

    /// Takes room `code` out of the table, its tokens void and its deadline gone, for the
    /// caller to send its occupants away.
    pub(crate) fn remove(&mut self, code: RoomCode) -> Option<Box<Room>> {
        let mut room = self.table.remove(&code)?;
        room.disarm(&mut self.deadlines);
        for token in room.tokens() {
            self.tokens.remove(&token);
        }
        Some(room)
    }

    /// A fresh secret token (128 random bits: a collision is not worth a check).
    fn draw_token(&mut self) -> ResumeToken {
        let mut token = [0; 16];
        self.rng.fill_bytes(&mut token);
        ResumeToken(token)
    }
}

/// Why [`crate::Relay::restore`] refused a room.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum RestoreError {
    /// The room's journal does not replay (it was edited, or written under other rules).
    #[error("room {code}: {source}")]
    Journal {
        /// The room.
        code: RoomCode,
        /// The first entry that does not replay.
        source: RebuildError,
    },
    /// A room with this code is open already.
    #[error("room {0} is open already")]
    AlreadyOpen(RoomCode),
}
