//! The archive of finished games on its stream, and read-only access to it.

use std::time::Duration;

use async_nats::jetstream::stream;
use xq_store::{GameId, GameSummary};

use crate::error::ClusterError;
use crate::journal::ArchivedGame;
use crate::names::GAMES_SUBJECTS;

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
