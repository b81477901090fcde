//! The task that owns a game's [`Client`]: commands in, the relay's news out.

use std::sync::Arc;
use std::sync::mpsc as std_mpsc;

use tokio::sync::mpsc;
use xq_client::Client;
use xq_gui_model::RelayNews;
use xq_session::Action;

/// Wakes the GUI when news arrives, so it draws a frame and polls without a timer.
pub type Wake = Arc<dyn Fn() + Send + Sync>;

/// What the GUI asks the relay for.
#[derive(Clone, Copy, Debug)]
pub(super) enum Request {
    /// A match command.
    Act(Action),
    /// Ask for a rematch (or agree to the opponent's request).
    Rematch,
}

/// Runs until the GUI drops its end of `requests` (then leaves the room and closes the
/// connection) or the connection ends for good. Every report is followed by a wake-up.
pub(super) async fn run(
    mut client: Client,
    mut requests: mpsc::UnboundedReceiver<Request>,
    reports: std_mpsc::Sender<RelayNews>,
    wake: Wake,
) {
    loop {
        let report = tokio::select! {
            request = requests.recv() => {
                let Some(request) = request else {
                    client.close().await;
                    return;
                };
                let sent = match request {
                    Request::Act(action) => client.act(action).await,
                    Request::Rematch => client.rematch().await,
                };
                match sent {
                    Ok(()) => continue,
                    Err(error) => RelayNews::Failed(error),
                }
            }
            event = client.next_event() => {
                let Some(event) = event else { return };
                RelayNews::Event(event, client.mirror().map(Box::new))
            }
        };
        if reports.send(report).is_err() {
            // The game was dropped between two reports: nobody is listening any more.
            client.close().await;
            return;
        }
        wake();
    }
}
