//! A match on the relay: two [`Player`]s over their [`Link`]s, driven from one task, so that
//! a move's latency is measured on one clock, from the mover's send to the opponent receiving
//! the event, and the task knows at once whose turn it is. On a relay cluster a client that
//! asked a node for a room another node owns is redirected there, and connects again.

use std::sync::Arc;
use std::time::{Duration, Instant};

use anyhow::{Context, Result, bail, ensure};

use crate::fleet::{Ply, Table};
use crate::link::{Dialer, Link};
use crate::player::{Entry, Heard, Player};
use crate::script::Script;

/// How long the clients get to close, once the time is up.
const WIND_DOWN: Duration = Duration::from_secs(5);

/// A player, its connection, and how that was dialled.
struct Client {
    player: Player,
    link: Link,
    dialer: Dialer,
    /// Redirects followed.
    redirects: usize,
}

impl Client {
    /// Connects and starts the conversation.
    async fn connect(dialer: Dialer, entry: Entry, script: Arc<Script>) -> Result<Self> {
        let mut client = Self {
            player: Player::new(entry, script),
            link: dialer.connect().await?,
            dialer,
            redirects: 0,
        };
        client.flush().await?;
        Ok(client)
    }

    /// Connects where a relay redirected the player (the old connection, which the relay
    /// closes, is dropped) and starts the conversation there.
    async fn follow(&mut self, urls: &[String]) -> Result<()> {
        let dialer = self.dialer.redirect(urls).await?;
        self.link = dialer.connect().await.context("following a redirect")?;
        self.dialer = dialer;
        self.redirects += 1;
        self.player.handle_connected();
        self.flush().await
    }

    /// Sends what the player has to send.
    async fn flush(&mut self) -> Result<()> {
        while let Some(frame) = self.player.poll_transmit() {
            self.link.send(frame).await.context("sending")?;
        }
        Ok(())
    }

    /// Reads and answers frames, and follows redirects, until the player hears something
    /// that matters. The callers bound the wait.
    async fn next(&mut self) -> Result<Heard> {
        loop {
            let frame = self.link.recv().await.context("receiving")?;
            match self.player.handle_frame(&frame)? {
                Heard::Nothing => self.flush().await?,
                Heard::Redirected { urls } => self.follow(&urls).await?,
                heard => {
                    self.flush().await?;
                    return Ok(heard);
                }
            }
        }
    }

    /// As [`next`](Self::next), which must be `wanted`.
    async fn until(&mut self, wanted: Heard) -> Result<()> {
        let heard = self.next().await?;
        ensure!(heard == wanted, "expected {wanted:?}, heard {heard:?}");
        Ok(())
    }
}

/// A match on the relay: two protocol clients replaying a scripted game.
pub(crate) struct RelayTable {
    /// The client that created the room, then the one that joined it.
    clients: [Client; 2],
}

impl RelayTable {
    /// Connects two clients, has the first create a room and the second join it.
    pub(crate) async fn seat(dialers: [Dialer; 2], script: Arc<Script>) -> Result<Self> {
        let [first, second] = dialers;
        let mut first = Client::connect(first, Entry::Create, Arc::clone(&script)).await?;
        first.until(Heard::Seated).await?;
        let code = first.player.room().context("seated without a room")?;
        let mut second = Client::connect(second, Entry::Join(code), script).await?;
        second.until(Heard::Ready).await?;
        // The creator is sent the room again once the match begins.
        first.until(Heard::Ready).await?;
        Ok(Self {
            clients: [first, second],
        })
    }
}

impl Table for RelayTable {
    fn redirects(&self) -> usize {
        self.clients.iter().map(|client| client.redirects).sum()
    }

    async fn step(&mut self) -> Result<Ply> {
        let [first, second] = &mut self.clients;
        let (mover, opponent) = if first.player.is_to_move() {
            (first, second)
        } else {
            (second, first)
        };
        let frame = mover.player.play()?.context("neither player is to move")?;
        let sent = Instant::now();
        mover.link.send(frame).await.context("sending")?;
        let heard = opponent.next().await?;
        let latency = sent.elapsed();
        let Heard::Moved { last: game_over } = heard else {
            bail!("expected the move, heard {heard:?}");
        };
        mover.until(heard).await?;
        if game_over {
            // Both ask for a rematch on hearing the end, which replays the script.
            for client in &mut self.clients {
                client.until(Heard::GameOver).await?;
            }
            for client in &mut self.clients {
                client.until(Heard::Ready).await?;
            }
        }
        Ok(Ply { latency, game_over })
    }

    async fn close(self) {
        let [first, second] = self.clients;
        let both = async { tokio::join!(first.link.close(), second.link.close()) };
        let _ = tokio::time::timeout(WIND_DOWN, both).await;
    }
}
