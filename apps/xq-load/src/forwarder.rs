//! The baseline: a trivial forwarder of raw UDP datagrams, and the pairs of sockets that play
//! through it, with the sizes and the pattern of the protocol's moves (one move in, the event
//! out to both players) and nothing else. Figures of a relay are best read as ratios to it.

use std::net::{Ipv4Addr, SocketAddr, UdpSocket as StdUdpSocket};
use std::path::PathBuf;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex, PoisonError};
use std::time::{Duration, Instant};

use anyhow::{Context, Result, ensure};
use socket2::{Domain, Protocol, Socket, Type};
use tokio::net::UdpSocket;
use xq_protocol::{ClientMsg, Request, RequestId, ServerMsg, codec};
use xq_rules::Color;
use xq_session::{Action, Match, MatchConfig, Timestamp};

use crate::fleet::{Ply, Table};

/// A large send and receive buffer for the forwarder's socket, so that a burst from every
/// match at once is queued rather than dropped (the kernel caps it at `rmem_max`).
const FORWARDER_BUFFER: usize = 4 * 1024 * 1024;
/// The datagram header: a kind byte, the match (u32, little-endian) and the seat.
const RAW_HEADER: usize = 6;
/// A client announcing its address; the forwarder echoes it.
const RAW_HELLO: u8 = 0;
/// A move: the forwarder sends an event-sized datagram to both players.
const RAW_MOVE: u8 = 1;
/// The forwarder's datagram to the players.
const RAW_EVENT: u8 = 2;

/// The sizes of the frames a move costs: the mover's command and the event the relay sends
/// each player.
#[derive(Clone, Copy, Debug)]
pub(crate) struct FrameSizes {
    /// The mover's command.
    pub(crate) command: usize,
    /// The event each player receives.
    pub(crate) event: usize,
}

impl FrameSizes {
    /// Encodes the first move of a game as the protocol does.
    pub(crate) fn measure() -> Result<Self> {
        let mut game = Match::new(MatchConfig::default(), Timestamp::from_millis(0));
        let mv = *game
            .position()
            .legal_moves()
            .first()
            .context("the start position has moves")?;
        let play = Request {
            id: RequestId(1),
            msg: ClientMsg::Act(Action::Play(mv)),
        };
        let command = codec::to_frame(&play)?.len();
        game.handle(Timestamp::from_millis(0), Action::Play(mv).by(Color::Red))?;
        let event = game.poll_event().context("a move makes an event")?;
        let event = ServerMsg::Event {
            seq: 0,
            event,
            answers: None,
        };
        let event = codec::to_frame(&event)?.len();
        Ok(Self {
            // The header (kind, match, seat) must fit.
            command: command.max(RAW_HEADER),
            event: event.max(RAW_HEADER),
        })
    }
}

/// The baseline's "relay": one thread with one blocking UDP socket, forwarding each move to
/// both players of its match, as the relay does with the move's event, and nothing else.
pub(crate) struct Forwarder {
    /// Where the players send to.
    pub(crate) addr: SocketAddr,
    /// The `/proc` directory of the forwarder's thread, to read its CPU time.
    pub(crate) thread: PathBuf,
    stop: Arc<AtomicBool>,
}

impl Forwarder {
    /// Binds a loopback socket for `matches` matches and starts forwarding on a thread of its
    /// own, each move as a datagram of `event_len` bytes.
    pub(crate) fn start(matches: usize, event_len: usize) -> Result<Self> {
        let socket = Socket::new(Domain::IPV4, Type::DGRAM, Some(Protocol::UDP))?;
        socket.set_recv_buffer_size(FORWARDER_BUFFER)?;
        socket.set_send_buffer_size(FORWARDER_BUFFER)?;
        socket.bind(&SocketAddr::from((Ipv4Addr::LOCALHOST, 0)).into())?;
        let socket = StdUdpSocket::from(socket);
        // Wakes up now and then to notice the stop flag.
        socket.set_read_timeout(Some(Duration::from_millis(100)))?;
        let addr = socket.local_addr()?;
        let stop = Arc::new(AtomicBool::new(false));
        let thread = Arc::new(Mutex::new(None));
        let (flag, path) = (Arc::clone(&stop), Arc::clone(&thread));
        let (started_tx, started) = std::sync::mpsc::channel();
        std::thread::Builder::new()
            .name("xq-load-forwarder".into())
            .spawn(move || {
                let own = std::fs::read_link("/proc/thread-self")
                    .map(|link| PathBuf::from("/proc").join(link))
                    .ok();
                *path.lock().unwrap_or_else(PoisonError::into_inner) = own;
                let _ = started_tx.send(());
                forward(&socket, matches, event_len, &flag);
            })?;
        started
            .recv()
            .context("the forwarder thread did not start")?;
        let thread = thread
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
            .take()
            .unwrap_or_else(|| PathBuf::from("/proc/self"));
        Ok(Self { addr, thread, stop })
    }

    /// Tells the thread to stop; it notices within its read timeout.
    pub(crate) fn stop(&self) {
        self.stop.store(true, Ordering::Relaxed);
    }
}

/// The forwarder's loop: remembers each player's address from its hello, and sends every
/// move on to both players of the match as a datagram of `event_len` bytes.
fn forward(socket: &StdUdpSocket, matches: usize, event_len: usize, stop: &AtomicBool) {
    let mut players: Vec<[Option<SocketAddr>; 2]> = vec![[None; 2]; matches];
    let mut buf = vec![0; event_len.max(2048)];
    while !stop.load(Ordering::Relaxed) {
        let Ok((len, from)) = socket.recv_from(&mut buf) else {
            continue;
        };
        let Some((kind, table, seat)) = parse_raw(&buf[..len]) else {
            continue;
        };
        let Some(seats) = players.get_mut(table) else {
            continue;
        };
        match kind {
            RAW_HELLO => {
                if let Some(slot) = seats.get_mut(seat) {
                    *slot = Some(from);
                    let _ = socket.send_to(&buf[..len], from);
                }
            }
            RAW_MOVE => {
                buf[0] = RAW_EVENT;
                for to in seats.iter().flatten() {
                    let _ = socket.send_to(&buf[..event_len], to);
                }
            }
            _ => {}
        }
    }
}

/// Reads a datagram's header.
fn parse_raw(datagram: &[u8]) -> Option<(u8, usize, usize)> {
    let header = datagram.get(..RAW_HEADER)?;
    let table = u32::from_le_bytes([header[1], header[2], header[3], header[4]]);
    Some((
        header[0],
        usize::try_from(table).ok()?,
        usize::from(header[5]),
    ))
}

fn raw_header(kind: u8, table: u32, seat: u8) -> [u8; RAW_HEADER] {
    let [a, b, c, d] = table.to_le_bytes();
    [kind, a, b, c, d, seat]
}

/// A baseline match: two raw UDP sockets taking turns through the forwarder.
pub(crate) struct RawTable {
    players: [UdpSocket; 2],
    table: u32,
    /// The size of a move datagram.
    move_len: usize,
    /// The seat on move.
    turn: usize,
    buf: Vec<u8>,
}

impl RawTable {
    /// Binds both players' sockets and announces them to the forwarder as match `index`.
    pub(crate) async fn seat(forwarder: SocketAddr, index: usize, move_len: usize) -> Result<Self> {
        let table = u32::try_from(index)?;
        let mut players = Vec::with_capacity(2);
        for seat in 0..2u8 {
            let socket = UdpSocket::bind((Ipv4Addr::LOCALHOST, 0)).await?;
            socket.connect(forwarder).await?;
            let hello = raw_header(RAW_HELLO, table, seat);
            let mut buf = [0; 64];
            let mut answered = false;
            for _ in 0..3 {
                socket.send(&hello).await?;
                let wait = Duration::from_secs(1);
                if tokio::time::timeout(wait, socket.recv(&mut buf))
                    .await
                    .is_ok()
                {
                    answered = true;
                    break;
                }
            }
            ensure!(answered, "the forwarder did not answer");
            players.push(socket);
        }
        let players: [UdpSocket; 2] = players
            .try_into()
            .map_err(|_| anyhow::anyhow!("two sockets were bound"))?;
        Ok(Self {
            players,
            table,
            move_len: move_len.max(RAW_HEADER),
            turn: 0,
            buf: vec![0; 2048],
        })
    }

    async fn recv_event(socket: &UdpSocket, buf: &mut [u8]) -> Result<()> {
        let len = socket.recv(buf).await?;
        ensure!(
            buf.first() == Some(&RAW_EVENT) && len >= RAW_HEADER,
            "unexpected datagram"
        );
        Ok(())
    }
}

impl Table for RawTable {
    fn redirects(&self) -> usize {
        0
    }

    async fn step(&mut self) -> Result<Ply> {
        let mut datagram = vec![0; self.move_len];
        let seat = u8::try_from(self.turn)?;
        datagram[..RAW_HEADER].copy_from_slice(&raw_header(RAW_MOVE, self.table, seat));
        let (mover, opponent) = (self.turn, 1 - self.turn);
        let sent = Instant::now();
        self.players[mover].send(&datagram).await?;
        Self::recv_event(&self.players[opponent], &mut self.buf).await?;
        let latency = sent.elapsed();
        Self::recv_event(&self.players[mover], &mut self.buf).await?;
        self.turn = opponent;
        Ok(Ply {
            latency,
            game_over: false,
        })
    }

    async fn close(self) {}
}

#[cfg(test)]
mod tests {
    use super::*;

    const WAIT: Duration = Duration::from_secs(5);

    /// Two players announce themselves; a move from either reaches both as an event-sized
    /// datagram, and datagrams for no known match are dropped.
    #[test]
    fn forwards_each_move_to_both_players() -> Result<()> {
        let forwarder = Forwarder::start(2, 40)?;
        let players = [0u8, 1].map(|_| StdUdpSocket::bind((Ipv4Addr::LOCALHOST, 0)));
        let [red, black] = players;
        let (red, black) = (red?, black?);
        let mut buf = [0; 2048];
        for (seat, socket) in [(0, &red), (1, &black)] {
            socket.set_read_timeout(Some(WAIT))?;
            socket.connect(forwarder.addr)?;
            socket.send(&raw_header(RAW_HELLO, 1, seat))?;
            let len = socket.recv(&mut buf)?;
            assert_eq!(
                &buf[..len],
                raw_header(RAW_HELLO, 1, seat),
                "the hello's echo"
            );
        }
        red.send(&raw_header(RAW_MOVE, 7, 0))?;
        let mut mv = raw_header(RAW_MOVE, 1, 0).to_vec();
        mv.resize(12, 0);
        red.send(&mv)?;
        for socket in [&black, &red] {
            let len = socket.recv(&mut buf)?;
            assert_eq!(len, 40);
            assert_eq!(parse_raw(&buf[..len]), Some((RAW_EVENT, 1, 0)));
        }
        forwarder.stop();
        Ok(())
    }

    #[tokio::test]
    async fn raw_tables_take_turns_through_it() -> Result<()> {
        let sizes = FrameSizes::measure()?;
        assert!(sizes.command >= RAW_HEADER && sizes.event > sizes.command);
        let forwarder = Forwarder::start(1, sizes.event)?;
        let mut table = RawTable::seat(forwarder.addr, 0, sizes.command).await?;
        for turn in [0, 1, 0] {
            assert_eq!(table.turn, turn);
            let ply = tokio::time::timeout(WAIT, table.step()).await??;
            assert!(!ply.game_over);
        }
        forwarder.stop();
        Ok(())
    }
}
