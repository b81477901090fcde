//! A room: two seats, its spectators, and the match between the seats.

use std::time::Duration;

use xq_protocol::{
    ErrorCode, RequestId, ResumeToken, RoomCode, RoomOptions, SeatInfo, ServerMsg, Snapshot,
};
use xq_rules::{ByColor, Color};
use xq_session::{
    Action, Command, Event, GameResult, Journal, Match, MatchConfig, RebuildError, Seat, Standing,
    Status, Timestamp, WinReason,
};

use xq_store::{OpenRoom, Persist};

use crate::deadlines::Deadlines;
use crate::output::Outbox;
use crate::seat::{SEATS, SeatState, Seats};
use crate::{Config, ConnId};

/// One room. [`Seat::First`] is its creator (or the first quick-match player); the match is
/// `None` until the second seat is taken.
///
/// The room owns its match and is the only one to feed it; every event the match emits is
/// numbered here and sent to both players and every spectator.
#[derive(Debug)]
pub(crate) struct Room {
    code: RoomCode,
    options: RoomOptions,
    /// The seat playing Red in the current match (or the coming one).
    red: Seat,
    /// Each seat's resume token, drawn when the room opens and valid while the seat is held.
    tokens: Seats<ResumeToken>,
    seats: Seats<SeatState>,
    game: Option<Match>,
    spectators: Vec<ConnId>,
    /// The number of the next event of the current match.
    next_seq: u64,
    /// How many of the match's journal entries have gone out as [`Persist::Entry`].
    /// (A `u32`: a journal is far shorter, and the room stays within its size.)
    persisted: u32,
    /// Whether the match's end has gone out as [`Persist::MatchOver`].
    archived: bool,
    /// The seat that has asked for a rematch.
    rematch: Option<Seat>,
    /// When each seat last offered a draw and asked for an undo in the current match.
    asked: Seats<Asked>,
    /// The deadline this room has in [`Deadlines`].
    armed: Option<Timestamp>,
    /// When it opened (or was restored), for [`Config::waiting_room`].
    opened: Timestamp,
    /// The connections whose [`Config::max_rooms_per_connection`] it counts against while
    /// they and the room are open: whoever made it open, by creating it (the first seat) or
    /// by asking for a quick match (both seats). `None` for a joiner and in restored rooms.
    counted: Seats<Option<ConnId>>,
}

/// When a seat last offered a draw and last asked for an undo, each as one more than how many
/// moves the match had then (0: never). The seat may do each again only once the match has
/// reached that many moves (see [`xq_protocol::ErrorCode::AlreadyAsked`]), so that asking and
/// withdrawing in a loop cannot grow the match's record without end. (Bare `u16`s: the move
/// limit keeps games far shorter, and the room stays within its size.)
#[derive(Clone, Copy, Debug, Default)]
struct Asked {
    draw: u16,
    undo: u16,
}

impl Asked {
    /// The mark `action` is limited by, if it asks the opponent something.
    fn mark(&mut self, action: Action) -> Option<&mut u16> {
        match action {
            Action::OfferDraw => Some(&mut self.draw),
            Action::RequestUndo => Some(&mut self.undo),
            _ => None,
        }
    }
}

/// Who asked for an action, and by which request: the first event the action makes answers
/// that request in the copy this connection receives.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) struct Asker {
    /// The player's connection.
    pub(crate) conn: ConnId,
    /// The request that carried the action.
    pub(crate) id: RequestId,
}

/// What became of a seat whose player went ([`Room::vacate`]).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Vacated {
    /// The player was not in the seat (it resumed on another connection): nothing changed.
    NotSeated,
    /// Nobody else had sat down: the seat is lost and the room is to close.
    Closing,
    /// The seat waits for its player for the grace period, and the room was told.
    Away,
}

impl Room {
    pub(crate) fn new(
        code: RoomCode,
        options: RoomOptions,
        red: Seat,
        tokens: Seats<ResumeToken>,
        now: Timestamp,
    ) -> Self {
        Self {
            code,
            options,
            red,
            tokens,
            seats: Seats::default(),
            game: None,
            spectators: Vec::new(),
            next_seq: 0,
            persisted: 0,
            archived: false,
            asked: Seats::default(),
            rematch: None,
            armed: None,
            opened: now,
            counted: Seats::default(),
        }
    }

    /// The room `stored` describes, its match rebuilt from its journal and both seats away
    /// since `now` (nobody is connected after a restart), but for seats lost before it. Its
    /// events are numbered from 0 again: a resuming player's snapshot says so.
    ///
    /// # Errors
    ///
    /// Why the journal does not replay.
    pub(crate) fn restore(now: Timestamp, stored: OpenRoom) -> Result<Self, RebuildError> {
        let tokens = Seats {
            first: stored.first_token,
            second: stored.second_token,
        };
        let mut room = Self::new(stored.code, stored.options, stored.red, tokens, now);
        let journal = Journal {
            config: room.config(),
            red: stored.red,
            started: stored.started,
            entries: stored.entries,
        };
        let game = Match::from_journal(&journal)?;
        room.persisted = u32::try_from(journal.entries.len()).unwrap_or(u32::MAX);
        let game_status = game.status();
        // A finished match was archived in the commit that finished it.
        room.archived = !game_status.is_ongoing();
        room.game = Some(game);
        // The relay abandons a game only for a seat it lost: a store written before seat
        // losses were kept (version 1) has the abandonment alone.
        let abandoned = match game_status {
            Status::Finished(GameResult::Win {
                winner,
                reason: WinReason::Abandonment,
            }) => Some(room.seat_of(!winner)),
            _ => None,
        };
        for seat in SEATS {
            room.seats[seat] = if stored.lost.contains(&seat) || abandoned == Some(seat) {
                SeatState::Gone
            } else {
                SeatState::Away(now)
            };
        }
        Ok(room)
    }

    /// The room's match (the last one, once it is over); `None` until the second seat is taken.
    pub(crate) fn game(&self) -> Option<&Match> {
        self.game.as_ref()
    }

    /// Whether a second player has sat down, so that nobody else may join.
    pub(crate) fn is_full(&self) -> bool {
        self.seats.second.is_taken()
    }

    /// Seats `conn` at `seat` and gives back the seat's resume token, for the relay to find
    /// the seat by. The room tells the player ([`Room::announce`]) once that is stored.
    pub(crate) fn seat(&mut self, seat: Seat, conn: ConnId) -> ResumeToken {
        self.seats[seat] = SeatState::Connected(conn);
        self.tokens[seat]
    }

    /// Puts `conn` back in `seat` (its player resumed with the seat's token) and sends it the
    /// room's state. A connection still in the seat, whose failure the relay has not noticed
    /// yet, is replaced and given back; otherwise the room hears that the player is back.
    pub(crate) fn resume(
        &mut self,
        now: Timestamp,
        seat: Seat,
        conn: ConnId,
        outbox: &mut Outbox,
    ) -> Option<ConnId> {
        let replaced = self.seats[seat].conn();
        self.seats[seat] = SeatState::Connected(conn);
        // The hello that resumed was answered by the welcome before this.
        self.announce(seat, None, outbox);
        self.send_snapshot(now, outbox, conn);
        if replaced.is_none() {
            let back = ServerMsg::Presence {
                seat: self.color_of(seat),
                connected: true,
            };
            self.broadcast_except(outbox, conn, &back);
        }
        replaced
    }

    /// `conn` left `seat` or its connection failed. Its seat waits for it for the grace period
    /// and the room is told, unless nobody else has sat down yet: a room goes with its
    /// creator, rather than wait for a creator who may not come back and start a match
    /// without them.
    pub(crate) fn vacate(
        &mut self,
        now: Timestamp,
        seat: Seat,
        conn: ConnId,
        outbox: &mut Outbox,
    ) -> Vacated {
        if self.seats[seat].conn() != Some(conn) {
            return Vacated::NotSeated;
        }
        if self.game.is_none() {
            self.seats[seat] = SeatState::Gone;
            return Vacated::Closing;
        }
        self.seats[seat] = SeatState::Away(now);
        let gone = ServerMsg::Presence {
            seat: self.color_of(seat),
            connected: false,
        };
        self.broadcast(outbox, &gone);
        Vacated::Away
    }

    /// `conn` watches the room from now on.
    pub(crate) fn add_spectator(&mut self, conn: ConnId) {
        self.spectators.push(conn);
    }

    /// `conn` watches the room no more.
    pub(crate) fn remove_spectator(&mut self, conn: ConnId) {
        self.spectators.retain(|&spectator| spectator != conn);
    }

    /// The player at `seat` takes `action`: it is checked against what the seat has asked
    /// already, then handed to the match as the action of the seat's colour, and what the
    /// match emits goes out, its first event answering `asker`'s request if the match accepted
    /// the action. Whether the match accepted a move, for the metrics.
    ///
    /// # Errors
    ///
    /// Why the action is refused; a refusal changes nothing, but for time catching up (a
    /// flag that fell before the action arrived).
    pub(crate) fn act(
        &mut self,
        now: Timestamp,
        seat: Seat,
        action: Action,
        asker: Asker,
        outbox: &mut Outbox,
    ) -> Result<bool, ErrorCode> {
        let by = self.color_of(seat);
        let game = self.game.as_mut().ok_or(ErrorCode::NoOpponentYet)?;
        let moves = u16::try_from(game.moves().len()).unwrap_or(u16::MAX);
        if self.asked[seat]
            .mark(action)
            .is_some_and(|mark| moves < *mark)
        {
            return Err(ErrorCode::AlreadyAsked);
        }
        let result = game.handle(now, action.by(by));
        if result.is_ok()
            && let Some(mark) = self.asked[seat].mark(action)
        {
            *mark = moves.saturating_add(1);
        }
        // A refused action made no event (a flag that fell first made its own, which answer
        // nothing); the error the caller sends answers it.
        let answered = self.flush_answering(outbox, result.is_ok().then_some(asker));
        if result.is_ok() && !answered {
            // Every accepted action makes an event; should one ever not, it is still answered.
            outbox.send(asker.conn, &ServerMsg::Done { id: asker.id });
        }
        result
            .map(|()| matches!(action, Action::Play(_)))
            .map_err(ErrorCode::Rejected)
    }

    /// Restarts the match's clocks at `now`, after a restart: the time the relay was down is
    /// charged to nobody.
    pub(crate) fn resume_clocks(&mut self, now: Timestamp, outbox: &mut Outbox) {
        if let Some(game) = &mut self.game {
            // Untimed and finished matches have no clock to restart: they refuse and nothing
            // changes, which is all that is needed.
            let _ = game.handle(now, Command::ResumeClocks);
        }
        self.flush(outbox);
    }

    /// Pauses the match's clocks at `now` if they run, for a shutdown, and takes the room out
    /// of `deadlines`: nothing falls due while they are paused.
    pub(crate) fn pause_clocks(
        &mut self,
        now: Timestamp,
        deadlines: &mut Deadlines,
        outbox: &mut Outbox,
    ) {
        let Some(game) = self.game.as_mut().filter(|game| game.clocks_running()) else {
            return;
        };
        if let Err(err) = game.handle(now, Command::PauseClocks) {
            tracing::warn!(room = %self.code, %err, "cannot pause the clocks");
        }
        self.flush(outbox);
        self.disarm(deadlines);
    }

    /// The resume tokens of the seats still held, with their seats.
    pub(crate) fn held_tokens(&self) -> impl Iterator<Item = (ResumeToken, Seat)> + '_ {
        SEATS
            .into_iter()
            .filter(|&seat| self.seats[seat].is_held())
            .map(|seat| (self.tokens[seat], seat))
    }

    /// The resume tokens of the seats lost, void from now on.
    pub(crate) fn lost_tokens(&self) -> impl Iterator<Item = ResumeToken> + '_ {
        SEATS
            .into_iter()
            .filter(|&seat| self.seats[seat] == SeatState::Gone)
            .map(|seat| self.tokens[seat])
    }

    /// Both seats' resume tokens.
    pub(crate) fn tokens(&self) -> impl Iterator<Item = ResumeToken> + '_ {
        SEATS.into_iter().map(|seat| self.tokens[seat])
    }

    /// Counts the room against `conn`, which made it open and sits at `seat`, for as long as
    /// both are open.
    pub(crate) fn count_against(&mut self, seat: Seat, conn: ConnId) {
        self.counted[seat] = Some(conn);
    }

    /// The connections the room counts against.
    pub(crate) fn counted(&self) -> impl Iterator<Item = ConnId> + '_ {
        SEATS.iter().filter_map(|&seat| self.counted[seat])
    }

    /// Moves the room's entry in `deadlines` to what the room now waits for.
    pub(crate) fn rearm(&mut self, deadlines: &mut Deadlines, config: &Config) {
        let next = self.deadline(config);
        deadlines.rearm(self.code, &mut self.armed, next);
    }

    /// Takes the room's entry out of `deadlines`.
    pub(crate) fn disarm(&mut self, deadlines: &mut Deadlines) {
        deadlines.rearm(self.code, &mut self.armed, None);
    }

    /// Notes that `deadlines` gave up the room's entry, as it fell due: the next
    /// [`rearm`](Self::rearm) makes one afresh, even at the same deadline.
    pub(crate) fn fell_due(&mut self) {
        self.armed = None;
    }

    /// The colour `seat` plays in the current (or coming) match.
    pub(crate) fn color_of(&self, seat: Seat) -> Color {
        if seat == self.red {
            Color::Red
        } else {
            Color::Black
        }
    }

    /// The seat playing `color`.
    pub(crate) fn seat_of(&self, color: Color) -> Seat {
        color.fold(self.red, self.red.other())
    }

    /// The players connected now and every spectator.
    pub(crate) fn recipients(&self) -> impl Iterator<Item = ConnId> + '_ {
        recipients(&self.seats, &self.spectators)
    }

    /// Sends `msg` to everyone in the room.
    pub(crate) fn broadcast(&self, outbox: &mut Outbox, msg: &ServerMsg) {
        outbox.send_all(self.recipients(), msg);
    }

    /// Sends `msg` to everyone in the room but `except`.
    pub(crate) fn broadcast_except(&self, outbox: &mut Outbox, except: ConnId, msg: &ServerMsg) {
        outbox.send_all(self.recipients().filter(|&conn| conn != except), msg);
    }

    /// Sends `to` the whole state of the room.
    pub(crate) fn send_snapshot(&self, now: Timestamp, outbox: &mut Outbox, to: ConnId) {
        outbox.send(to, &ServerMsg::Snapshot(Box::new(self.snapshot(now))));
    }

    /// Starts the first match, now that both seats are taken, and tells the players just
    /// seated (`seated`) their seats, answering the request each names. The match's start is
    /// journaled before that: a token is only handed out once a restarted relay would know it.
    pub(crate) fn begin(
        &mut self,
        now: Timestamp,
        seated: &[(Seat, Option<RequestId>)],
        outbox: &mut Outbox,
    ) {
        let game = Match::with_seats(self.config(), self.red, now);
        self.install(now, game, outbox);
        for &(seat, id) in seated {
            self.announce(seat, id, outbox);
        }
        self.broadcast_snapshot(now, outbox);
    }

    /// Tells the player at `seat`, if connected, that it sits there, with its resume token;
    /// the message answers request `id`, if the player's request brought it there just now.
    pub(crate) fn announce(&self, seat: Seat, id: Option<RequestId>, outbox: &mut Outbox) {
        if let Some(conn) = self.seats[seat].conn() {
            let msg = ServerMsg::Joined {
                id,
                code: self.code,
                seat: Some(self.color_of(seat)),
                resume: Some(self.tokens[seat]),
            };
            outbox.send(conn, &msg);
        }
    }

    /// `seat` asks for a rematch: the first ask is announced, the opponent's starts the new
    /// match with the colours swapped. Asking twice changes nothing.
    pub(crate) fn ask_rematch(
        &mut self,
        now: Timestamp,
        seat: Seat,
        outbox: &mut Outbox,
    ) -> Result<(), ErrorCode> {
        let game = self
            .game
            .as_ref()
            .filter(|game| !game.status().is_ongoing())
            .ok_or(ErrorCode::GameNotOver)?;
        match self.rematch {
            None => {
                self.rematch = Some(seat);
                let by = self.color_of(seat);
                self.broadcast(outbox, &ServerMsg::RematchRequested { by });
            }
            Some(asked) if asked == seat => {}
            Some(_) => {
                let next = game.rematch(now).map_err(|_| ErrorCode::GameNotOver)?;
                self.install(now, next, outbox);
                for seat in SEATS {
                    // The rematch request is answered by the relay's `Done` after these.
                    self.announce(seat, None, outbox);
                }
                self.broadcast_snapshot(now, outbox);
            }
        }
        Ok(())
    }

    /// Records what the match accepted and sends out its events, numbered. Call after every
    /// input to the match.
    pub(crate) fn flush(&mut self, outbox: &mut Outbox) {
        self.flush_answering(outbox, None);
    }

    /// As [`flush`](Self::flush), the first event answering `asker`'s request in the copy its
    /// connection receives: that copy is encoded apart, every other copy and every later event
    /// as one frame shared by all. Whether an event answered the request.
    fn flush_answering(&mut self, outbox: &mut Outbox, mut asker: Option<Asker>) -> bool {
        let Some(game) = &mut self.game else {
            return false;
        };
        let answering = asker.is_some();
        let entries = game.entries();
        for (seq, &entry) in entries.iter().enumerate().skip(self.persisted as usize) {
            let code = self.code;
            let seq = seq as u64;
            outbox.persist(Persist::Entry { code, seq, entry });
        }
        self.persisted = u32::try_from(entries.len()).unwrap_or(u32::MAX);
        if !self.archived && !game.status().is_ongoing() {
            self.archived = true;
            let record = Box::new(game.record());
            outbox.persist(Persist::MatchOver {
                code: self.code,
                record,
            });
        }
        while let Some(event) = game.poll_event() {
            if let Event::GameOver(result) = event {
                tracing::info!(room = %self.code, ?result, "game over");
            }
            let seq = self.next_seq;
            self.next_seq += 1;
            let recipients = recipients(&self.seats, &self.spectators);
            let mut msg = ServerMsg::Event {
                seq,
                event,
                answers: None,
            };
            match asker.take() {
                None => outbox.send_all(recipients, &msg),
                Some(Asker { conn: actor, id }) => {
                    outbox.send_all(recipients.filter(|&conn| conn != actor), &msg);
                    // The actor's copy differs only in the request it answers: the same
                    // message encoded once more, not a clone of the event.
                    if let ServerMsg::Event { answers, .. } = &mut msg {
                        *answers = Some(id);
                    }
                    outbox.send(actor, &msg);
                }
            }
        }
        answering && asker.is_none()
    }

    /// Handles the passing of time: a flag, then seats whose grace period is over. A game
    /// still on is lost by the seat whose grace period ended first (called late, this still
    /// tells which), or drawn if both ended at the same moment (both left together, as after
    /// a restart that neither came back to).
    pub(crate) fn handle_timeout(&mut self, now: Timestamp, grace: Duration, outbox: &mut Outbox) {
        let grace_over = |seat| {
            self.seats[seat]
                .away_since()
                .map(|since| since + grace)
                .filter(|&end| end <= now)
        };
        let ended = Seats {
            first: grace_over(Seat::First),
            second: grace_over(Seat::Second),
        };
        let abandonment = match (ended.first, ended.second) {
            (None, None) => None,
            (Some(first), Some(second)) if first == second => Some((first, Command::AbandonBoth)),
            (Some(first), second) if second.is_none_or(|second| first < second) => {
                Some((first, self.abandon(Seat::First)))
            }
            (_, second) => second.map(|second| (second, self.abandon(Seat::Second))),
        };
        for seat in SEATS.into_iter().filter(|&seat| ended[seat].is_some()) {
            self.seats[seat] = SeatState::Gone;
            outbox.persist(Persist::SeatLost {
                code: self.code,
                seat,
            });
            if self.rematch == Some(seat) {
                self.rematch = None;
            }
            tracing::info!(room = %self.code, ?seat, "grace period over: seat lost");
        }
        if let Some((game, (at, abandonment))) = self.game.as_mut().zip(abandonment) {
            // At the moment the grace period ended, however late this is called: a flag that
            // fell before it ends the game first.
            game.handle_timeout(at);
            if game.status().is_ongoing()
                && let Err(err) = game.handle(at, abandonment)
            {
                // An ongoing game accepts an abandonment; should it ever refuse, the game
                // simply goes on with the seat lost.
                tracing::warn!(room = %self.code, %err, "abandonment refused");
            }
        }
        if let Some(game) = &mut self.game {
            game.handle_timeout(now);
        }
        self.flush(outbox);
    }

    /// The command by which `seat`'s player abandons the game.
    fn abandon(&self, seat: Seat) -> Command {
        Command::Abandon {
            by: self.color_of(seat),
        }
    }

    /// When this room next needs [`Room::handle_timeout`] (or closes as expired).
    fn deadline(&self, config: &Config) -> Option<Timestamp> {
        let flag = self.game.as_ref().and_then(Match::poll_timeout);
        let grace_over = SEATS
            .iter()
            .filter_map(|&seat| self.seats[seat].away_since())
            .map(|since| since + config.grace)
            .min();
        flag.into_iter()
            .chain(grace_over)
            .chain(self.expiry(config))
            .min()
    }

    /// Whether the room has outlived [`Config::idle_room`] or [`Config::waiting_room`] by
    /// `now`, so it is closed whoever still holds a seat.
    pub(crate) fn is_expired(&self, now: Timestamp, config: &Config) -> bool {
        self.expiry(config).is_some_and(|at| at <= now)
    }

    /// When the room expires, if nothing changes: a room waiting for its second player
    /// [`Config::waiting_room`] after it opened, a room with no player connected
    /// [`Config::idle_room`] after the last one went.
    fn expiry(&self, config: &Config) -> Option<Timestamp> {
        if self.game.is_none() && !self.seats.second.is_taken() {
            return Some(self.opened + config.waiting_room);
        }
        if SEATS.iter().any(|&seat| self.seats[seat].conn().is_some()) {
            return None;
        }
        SEATS
            .iter()
            .filter_map(|&seat| self.seats[seat].away_since())
            .max()
            .map(|since| since + config.idle_room)
    }

    /// Whether nobody holds a seat any more, so the room can go.
    pub(crate) fn is_deserted(&self) -> bool {
        !SEATS.iter().any(|&seat| self.seats[seat].is_held())
    }

    /// The whole state of the room at `now`.
    pub(crate) fn snapshot(&self, now: Timestamp) -> Snapshot {
        let seats = ByColor::new_with(|color| {
            let seat = self.seats[self.seat_of(color)];
            SeatInfo {
                taken: seat.is_taken(),
                connected: seat.conn().is_some(),
            }
        });
        let rematch_requested = self.rematch.map(|seat| self.color_of(seat));
        let standing = self.game.as_ref().map_or_else(
            || Standing::waiting(self.config()),
            |game| game.standing(now),
        );
        Snapshot::new(self.code, standing, seats, rematch_requested, self.next_seq)
    }

    /// The rules the room's matches are played under.
    fn config(&self) -> MatchConfig {
        self.options.match_config()
    }

    /// Makes `game` the room's match, numbering from 0 again, and records its start.
    fn install(&mut self, now: Timestamp, game: Match, outbox: &mut Outbox) {
        self.red = game.seat_of(Color::Red);
        self.game = Some(game);
        self.next_seq = 0;
        self.persisted = 0;
        self.archived = false;
        self.rematch = None;
        self.asked = Seats::default();
        outbox.persist(Persist::MatchStarted {
            code: self.code,
            options: self.options,
            red: self.red,
            started: now,
            first_token: self.tokens.first,
            second_token: self.tokens.second,
        });
        tracing::info!(room = %self.code, red = ?self.red, "match started");
    }

    fn broadcast_snapshot(&self, now: Timestamp, outbox: &mut Outbox) {
        let msg = ServerMsg::Snapshot(Box::new(self.snapshot(now)));
        self.broadcast(outbox, &msg);
    }
}

/// The players connected now, then the spectators (a free function so that it can borrow
/// these fields while the match is borrowed mutably).
fn recipients<'a>(
    seats: &'a Seats<SeatState>,
    spectators: &'a [ConnId],
) -> impl Iterator<Item = ConnId> + 'a {
    SEATS
        .iter()
        .filter_map(|&seat| seats[seat].conn())
        .chain(spectators.iter().copied())
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The relay keeps thousands of idle rooms; a room (its match inline) must stay a small
    /// part of the few kilobytes an idle match may cost.
    #[test]
    fn a_room_stays_small() {
        assert!(size_of::<Room>() <= 520, "{} bytes", size_of::<Room>());
    }
}
