//! Bounded waiting: every wait in these tests has a deadline and, when it passes, says what it
//! was waiting for and what it saw last, so a failure reads as a diagnosis rather than a hang.

use std::time::Duration;

use tokio::time::{Instant, sleep, timeout};

/// How often a condition is looked at again.
const POLL: Duration = Duration::from_millis(100);

/// How long one look may take: a WebDriver call answers in milliseconds unless the page is
/// stuck.
const PROBE: Duration = Duration::from_secs(5);

/// Polls `probe` until it gives `Ok`, for at most `limit`, and returns what it gave. A probe
/// gives `Err` with a description of what it saw when the condition does not hold yet.
///
/// # Panics
///
/// When `limit` passes first: the message names `what` and the probe's last description. A
/// probe that itself hangs (a WebDriver call that never answers) is given up after [`PROBE`],
/// so the wait ends at most that much after `limit`.
pub(crate) async fn wait_for<T, F, Fut>(what: &str, limit: Duration, mut probe: F) -> T
where
    F: FnMut() -> Fut,
    Fut: Future<Output = Result<T, String>>,
{
    let deadline = Instant::now() + limit;
    let mut last = String::from("nothing yet");
    loop {
        match timeout(PROBE, probe()).await {
            Ok(Ok(value)) => return value,
            Ok(Err(seen)) => last = seen,
            Err(_) => last = format!("{last} (then a look did not answer in {PROBE:?})"),
        }
        if Instant::now() >= deadline {
            panic!("waited {limit:?} for {what}; last saw: {last}");
        }
        sleep(POLL.min(deadline.saturating_duration_since(Instant::now()))).await;
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[tokio::test]
    async fn returns_what_the_probe_gives_once_the_condition_holds() {
        let mut tries = 0;
        let got = wait_for("the third try", Duration::from_secs(5), || {
            tries += 1;
            let now = tries;
            async move {
                if now >= 3 {
                    Ok(now)
                } else {
                    Err(format!("try {now}"))
                }
            }
        })
        .await;
        assert_eq!(got, 3);
    }

    #[tokio::test]
    #[should_panic(expected = "waited 300ms for a miracle; last saw: still nothing")]
    async fn fails_with_what_it_last_saw() {
        wait_for("a miracle", Duration::from_millis(300), || async {
            Err::<(), _>("still nothing".to_string())
        })
        .await;
    }

    #[tokio::test(start_paused = true)]
    #[should_panic(expected = "then a look did not answer in 5s")]
    async fn gives_up_a_probe_that_hangs() {
        wait_for("an answer", Duration::from_millis(300), || {
            std::future::pending::<Result<(), String>>()
        })
        .await;
    }
}
