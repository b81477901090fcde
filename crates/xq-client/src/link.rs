//! The glue between protocol and transport: messages in and out of frames, and the hello.

use std::sync::Arc;

use tokio::time::{Instant, timeout_at};
use xq_protocol::{ClientMsg, DisconnectReason, PROTOCOL_VERSION, ResumeToken, ServerMsg, codec};
use xq_transport::Connection;

use crate::{ClientError, ClientOptions};

/// Sends one message.
pub(crate) async fn send(conn: &dyn Connection, msg: &ClientMsg) -> Result<(), ClientError> {
    conn.send(codec::to_frame(msg)?).await?;
    Ok(())
}

/// Receives the next message.
pub(crate) async fn recv(conn: &dyn Connection) -> Result<ServerMsg, ClientError> {
    let frame = conn.recv().await?;
    Ok(codec::decode(&frame)?)
}

/// Connects to `url` and says hello (with `resume`, to take a seat back), by `deadline`.
///
/// Returns once the relay has welcomed the client; what follows a resume (`Joined` and a
/// snapshot, or a refusal) is left for the caller to read.
pub(crate) async fn open(
    url: &str,
    options: &ClientOptions,
    resume: Option<ResumeToken>,
    deadline: Instant,
) -> Result<Arc<dyn Connection>, ClientError> {
    let hello = ClientMsg::Hello {
        version: PROTOCOL_VERSION,
        client: options.name.clone(),
        resume,
    };
    let handshake = async {
        let conn = xq_transport::connect(url, &options.transport).await?;
        send(&*conn, &hello).await?;
        match recv(&*conn).await? {
            ServerMsg::Welcome { version, .. } if version == PROTOCOL_VERSION => Ok(conn),
            ServerMsg::Welcome { version, .. } => Err(ClientError::VersionMismatch {
                relay: Some(version),
            }),
            ServerMsg::Disconnect {
                reason: DisconnectReason::VersionMismatch,
                ..
            } => Err(ClientError::VersionMismatch { relay: None }),
            ServerMsg::Disconnect { reason, message } => {
                Err(ClientError::ClosedByRelay { reason, message })
            }
            ServerMsg::Error { code, message } => Err(ClientError::Refused { code, message }),
            _ => Err(ClientError::Unexpected {
                expected: "welcome",
            }),
        }
    };
    timeout_at(deadline, handshake)
        .await
        .unwrap_or(Err(ClientError::Timeout))
}
