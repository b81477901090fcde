//! Restoring a failed connection: attempts with growing pauses until the reconnect period
//! runs out.

use std::sync::Arc;
use std::time::Duration;

use tokio::time::{Instant, sleep};
use xq_protocol::{ClientMsg, ResumeToken, RoomCode};
use xq_transport::Connection;

use crate::{ClientError, ClientOptions, ReconnectPolicy, link};

/// What a new connection says to get back into the room.
#[derive(Clone, Copy, Debug)]
pub(crate) enum Rejoin {
    /// Not in a room: the hello is enough.
    Nothing,
    /// A player: the hello carries the seat's resume token.
    Resume(ResumeToken),
    /// A spectator: watch the room again.
    Spectate(RoomCode),
}

/// Connects again and says what `rejoin` needs, attempting at once and then after each pause
/// of [`Backoff`], until `deadline`.
///
/// # Errors
///
/// The first error that reconnecting cannot fix (another protocol version, a refusal), or the
/// last one when the deadline comes.
pub(crate) async fn reconnect(
    url: &str,
    options: &ClientOptions,
    rejoin: Rejoin,
    deadline: Instant,
) -> Result<Arc<dyn Connection>, ClientError> {
    let mut pauses = Backoff::new(options.reconnect);
    loop {
        let attempt_deadline = deadline.min(Instant::now() + options.handshake_timeout);
        let error = match attempt(url, options, rejoin, attempt_deadline).await {
            Ok(conn) => return Ok(conn),
            Err(error) if !error.is_transient() => return Err(error),
            Err(error) => error,
        };
        let pause = pauses.next_pause();
        tracing::debug!(%error, ?pause, "reconnect attempt failed");
        if Instant::now() + pause >= deadline {
            return Err(error);
        }
        sleep(pause).await;
    }
}

async fn attempt(
    url: &str,
    options: &ClientOptions,
    rejoin: Rejoin,
    deadline: Instant,
) -> Result<Arc<dyn Connection>, ClientError> {
    let token = match rejoin {
        Rejoin::Resume(token) => Some(token),
        Rejoin::Nothing | Rejoin::Spectate(_) => None,
    };
    let conn = link::open(url, options, token, deadline).await?;
    if let Rejoin::Spectate(code) = rejoin {
        link::send(&*conn, &ClientMsg::Spectate { code }).await?;
    }
    Ok(conn)
}

/// The pauses between attempts: the policy's first delay, doubling up to its maximum.
#[derive(Clone, Debug)]
pub(crate) struct Backoff {
    next: Duration,
    max: Duration,
}

impl Backoff {
    pub(crate) fn new(policy: ReconnectPolicy) -> Self {
        Self {
            next: policy.first_delay.min(policy.max_delay),
            max: policy.max_delay,
        }
    }

    /// The pause before the next attempt.
    pub(crate) fn next_pause(&mut self) -> Duration {
        let pause = self.next;
        self.next = self.next.saturating_mul(2).min(self.max);
        pause
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn pauses_double_up_to_the_maximum() {
        let mut backoff = Backoff::new(ReconnectPolicy {
            period: Duration::from_secs(60),
            first_delay: Duration::from_millis(250),
            max_delay: Duration::from_secs(1),
        });
        let pauses: Vec<u128> = (0..5).map(|_| backoff.next_pause().as_millis()).collect();
        assert_eq!(pauses, [250, 500, 1_000, 1_000, 1_000]);
    }

    #[test]
    fn a_first_delay_above_the_maximum_is_capped() {
        let mut backoff = Backoff::new(ReconnectPolicy {
            period: Duration::from_secs(60),
            first_delay: Duration::from_secs(9),
            max_delay: Duration::from_secs(2),
        });
        assert_eq!(backoff.next_pause(), Duration::from_secs(2));
    }
}
