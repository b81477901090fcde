//! The archive of finished games on its stream, and read-only access to it.

use std::time::Duration;

use async_nats::jetstream::stream;
use xq_store::{GameId, GameSummary};

use crate::ClusterOptions;
use crate::error::ClusterError;
use crate::journal::ArchivedGame;
use crate::names::GAMES_SUBJECTS;

/// The archive of a cluster, opened only to read it (`xq-relay games list|export
/// --cluster URL`): it binds the archive stream and nothing else, creates nothing, holds no
/// lease, and needs no node name.
#[derive(Debug)]
pub struct ClusterArchive {
    games: stream::Stream,
    timeout: Duration,
}

impl ClusterArchive {
    /// Connects to the cluster's NATS servers (`servers`, `credentials`, `tls` and
    /// `connect_timeout` of `options`; the rest is unused).
    ///
    /// # Errors
    ///
    /// A [`ClusterError`] within the connect timeout if no server answers, or the cluster
    /// has no archive stream (no relay of it ever ran).
    pub async fn connect(options: &ClusterOptions) -> Result<Self, ClusterError> {
        Ok(Self {
            games: crate::setup::connect_archive(options).await?,
            timeout: options.connect_timeout,
        })
    }

    /// Every archived game, oldest first (as [`xq_store::Storage::games`]).
    ///
    /// # Errors
    ///
    /// [`ClusterError::Nats`] if the archive cannot be read, [`ClusterError::Corrupt`] if a
    /// game does not decode.
    pub async fn games(&self) -> Result<Vec<GameSummary>, ClusterError> {
        games(&self.games, self.timeout).await
    }

    /// The PGN record of archived game `id`, if there is one (as [`xq_store::Storage::pgn`]).
    ///
    /// # Errors
    ///
    /// As [`games`](Self::games).
    pub async fn pgn(&self, id: GameId) -> Result<Option<String>, ClusterError> {
        pgn(&self.games, id).await
    }
}

/// Every archived game, oldest first.
pub(crate) async fn games(
    games: &stream::Stream,
    timeout: Duration,
) -> Result<Vec<GameSummary>, ClusterError> {
    let read = crate::setup::read_all(games, GAMES_SUBJECTS);
    let raw = tokio::time::timeout(timeout, read)
        .await
        .map_err(|_| ClusterError::nats("read the archive", "timed out"))??;
    raw.into_iter()
        .map(|(seq, payload)| {
            let game = ArchivedGame::decode(&payload).map_err(|source| ClusterError::Corrupt {
                what: format!("archived game {seq}"),
                source,
            })?;
            Ok(game.summary(game_id(seq)))
        })
        .collect()
}

/// The PGN of archived game `id`, if there is one.
pub(crate) async fn pgn(
    games: &stream::Stream,
    id: GameId,
) -> Result<Option<String>, ClusterError> {
    let Ok(seq) = u64::try_from(id.0) else {
        return Ok(None);
    };
    if seq == 0 {
        return Ok(None);
    }
    match games.get_raw_message(seq).await {
        Ok(message) => {
            let game =
                ArchivedGame::decode(&message.payload).map_err(|source| ClusterError::Corrupt {
                    what: format!("archived game {seq}"),
                    source,
                })?;
            Ok(Some(game.pgn))
        }
        Err(err) if err.kind() == stream::RawMessageErrorKind::NoMessageFound => Ok(None),
        Err(err) => Err(ClusterError::nats("read an archived game", err)),
    }
}

/// The id of the game at stream sequence `seq`.
fn game_id(seq: u64) -> GameId {
    GameId(i64::try_from(seq).unwrap_or(i64::MAX))
}
