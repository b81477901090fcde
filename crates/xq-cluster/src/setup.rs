//! Connecting to NATS and binding (or creating) the streams and buckets; reading a subject.

use std::time::Duration;

use async_nats::jetstream::{self, kv, stream};
use async_nats::{ConnectOptions, ServerAddr};
use bytes::Bytes;

use crate::ClusterOptions;
use crate::error::ClusterError;
use crate::names::{
    GAMES_STREAM, GAMES_SUBJECTS, LEASES_BUCKET, ROOMS_STREAM, ROOMS_SUBJECTS, TOKENS_BUCKET,
};

/// The shortest lease TTL: renewals come every quarter of it, and must have time to land.
const MIN_LEASE_TTL: Duration = Duration::from_millis(300);

/// How long JetStream remembers a message id: retries of an append come within one lease
/// TTL, so this is plenty unless the TTL is longer (then twice the TTL).
const DUPLICATE_WINDOW: Duration = Duration::from_secs(120);

/// The replication factor on a clustered NATS server unless configured: a majority of
/// three survives losing any one server.
const CLUSTERED_REPLICAS: usize = 3;

/// How long creating a stream is retried while the NATS cluster has too few JetStream
/// servers: a cluster just formed may not yet have heard from all of them.
const PLACEMENT_GRACE: Duration = Duration::from_secs(3);

/// The connection and the streams and buckets, ready.
pub(crate) struct Ready {
    pub(crate) js: jetstream::Context,
    pub(crate) rooms: stream::Stream,
    pub(crate) games: stream::Stream,
    pub(crate) leases: kv::Store,
    pub(crate) tokens: kv::Store,
}

/// Connects to the servers and binds the archive stream only, within the connect timeout:
/// for reading the archive, with nothing created or changed.
pub(crate) async fn connect_archive(
    options: &ClusterOptions,
) -> Result<stream::Stream, ClusterError> {
    if options.servers.is_empty() {
        return Err(ClusterError::NoServers);
    }
    let servers = options.servers.join(",");
    let bind = async {
        let (_client, js) = dial(options).await?;
        js.get_stream(GAMES_STREAM)
            .await
            .map_err(|err| ClusterError::nats("find the archive stream", err))
    };
    tokio::time::timeout(options.connect_timeout, bind)
        .await
        .map_err(|_| ClusterError::ConnectTimeout {
            servers,
            timeout: options.connect_timeout,
        })?
}

/// Checks the options, connects and binds everything, within the connect timeout.
pub(crate) async fn connect(options: &ClusterOptions) -> Result<Ready, ClusterError> {
    check(options)?;
    let servers = options.servers.join(",");
    tokio::time::timeout(options.connect_timeout, connect_and_bind(options))
        .await
        .map_err(|_| ClusterError::ConnectTimeout {
            servers,
            timeout: options.connect_timeout,
        })?
}

/// The options' own errors, before any network.
fn check(options: &ClusterOptions) -> Result<(), ClusterError> {
    if options.servers.is_empty() {
        return Err(ClusterError::NoServers);
    }
    let valid = |c: char| c.is_ascii_alphanumeric() || c == '-' || c == '_';
    if options.node.is_empty() || !options.node.chars().all(valid) {
        return Err(ClusterError::InvalidNode(options.node.clone()));
    }
    if options.lease_ttl < MIN_LEASE_TTL {
        return Err(ClusterError::LeaseTtl(options.lease_ttl));
    }
    Ok(())
}

/// Connects to the servers and checks that JetStream answers.
async fn dial(
    options: &ClusterOptions,
) -> Result<(async_nats::Client, jetstream::Context), ClusterError> {
    let servers = options.servers.join(",");
    let addrs = options
        .servers
        .iter()
        .map(|url| {
            url.parse::<ServerAddr>()
                .map_err(|source| ClusterError::InvalidUrl {
                    url: url.clone(),
                    source,
                })
        })
        .collect::<Result<Vec<_>, _>>()?;
    let mut connect = ConnectOptions::new()
        .name(format!("xq-relay {}", options.node))
        .connection_timeout(options.connect_timeout);
    if let Some(path) = &options.credentials {
        connect = connect
            .credentials_file(path)
            .await
            .map_err(ClusterError::Credentials)?;
    }
    if let Some(tls) = &options.tls {
        if let Some(ca) = &tls.ca {
            connect = connect.add_root_certificates(ca.clone());
        }
        if let Some(client) = &tls.client {
            connect = connect.add_client_certificate(client.cert.clone(), client.key.clone());
        }
    }
    let client = connect
        .connect(addrs)
        .await
        .map_err(|source| ClusterError::Connect { servers, source })?;
    let js = jetstream::ContextBuilder::new()
        .timeout(options.connect_timeout)
        .build(client.clone());
    // Without a JetStream meta leader (a NATS node just lost, the cluster electing) the
    // request times out: asked again until the connect timeout. Any answer but a timeout
    // is final.
    loop {
        match js.query_account().await {
            Ok(_) => break,
            Err(err) if err.kind() == jetstream::context::AccountErrorKind::TimedOut => {
                tracing::debug!("no JetStream answer yet; asking again");
            }
            Err(err) => return Err(ClusterError::NoJetStream(err.into())),
        }
    }
    Ok((client, js))
}

/// Connects, checks JetStream and binds the streams and buckets.
async fn connect_and_bind(options: &ClusterOptions) -> Result<Ready, ClusterError> {
    let (client, js) = dial(options).await?;
    // A server that is part of a NATS cluster names it in its server info. (Its gossiped
    // client URLs are no count of servers: one server may list several addresses, and a
    // cluster still forming, or one with `no_advertise`, lists fewer.)
    let clustered = client.server_info().cluster.is_some();
    let replicas = options
        .replicas
        .unwrap_or(if clustered { CLUSTERED_REPLICAS } else { 1 });
    let wanted = Wanted {
        replicas,
        explicit: options.replicas.is_some(),
    };
    let rooms = bind_stream(
        &js,
        stream::Config {
            name: ROOMS_STREAM.into(),
            subjects: vec![ROOMS_SUBJECTS.into()],
            storage: stream::StorageType::File,
            num_replicas: replicas,
            duplicate_window: DUPLICATE_WINDOW.max(options.lease_ttl * 2),
            description: Some("xq relay: each room's journal, one subject per room".into()),
            ..Default::default()
        },
        wanted,
    )
    .await?;
    let games = bind_stream(
        &js,
        stream::Config {
            name: GAMES_STREAM.into(),
            subjects: vec![GAMES_SUBJECTS.into()],
            storage: stream::StorageType::File,
            num_replicas: replicas,
            description: Some("xq relay: the archive of finished games".into()),
            ..Default::default()
        },
        wanted,
    )
    .await?;
    let leases = bind_bucket(
        &js,
        kv::Config {
            bucket: LEASES_BUCKET.into(),
            description: "xq relay: which node owns each room".into(),
            history: 1,
            max_age: options.lease_ttl,
            storage: stream::StorageType::File,
            num_replicas: replicas,
            ..Default::default()
        },
        wanted,
    )
    .await?;
    let tokens = bind_bucket(
        &js,
        kv::Config {
            bucket: TOKENS_BUCKET.into(),
            description: "xq relay: the room of each resume token".into(),
            history: 1,
            storage: stream::StorageType::File,
            num_replicas: replicas,
            ..Default::default()
        },
        wanted,
    )
    .await?;
    Ok(Ready {
        js,
        rooms,
        games,
        leases,
        tokens,
    })
}

/// The replication this node wants, and whether its operator asked for it (then a stream
/// with another factor is an error; else it is used as it is).
#[derive(Clone, Copy)]
struct Wanted {
    replicas: usize,
    explicit: bool,
}

/// Binds the stream of `config`, creating it if it is missing.
async fn bind_stream(
    js: &jetstream::Context,
    config: stream::Config,
    wanted: Wanted,
) -> Result<stream::Stream, ClusterError> {
    let what = stream_what(&config.name);
    if let Ok(mut found) = js.get_stream(&config.name).await {
        let info = found
            .info()
            .await
            .map_err(|err| ClusterError::nats("read a stream's settings", err))?;
        compatible(what, &info.config, &config, wanted)?;
        return Ok(found);
    }
    match create_stream(js, &config).await {
        Ok(created) => Ok(created),
        Err(err) if too_few_servers(&err) => Err(ClusterError::TooFewServers {
            replicas: config.num_replicas,
            source: err.into(),
        }),
        Err(err) => {
            // Another node may have created it meanwhile, with settings of its own.
            let mut found = js
                .get_stream(&config.name)
                .await
                .map_err(|_| ClusterError::nats("create a stream", err))?;
            let info = found
                .info()
                .await
                .map_err(|err| ClusterError::nats("read a stream's settings", err))?;
            compatible(what, &info.config, &config, wanted)?;
            Ok(found)
        }
    }
}

/// Creates the stream of `config`, asking again for [`PLACEMENT_GRACE`] while there are
/// too few JetStream servers to place its replicas on.
async fn create_stream(
    js: &jetstream::Context,
    config: &stream::Config,
) -> Result<stream::Stream, jetstream::context::CreateStreamError> {
    let give_up = tokio::time::Instant::now() + PLACEMENT_GRACE;
    loop {
        match js.create_stream(config.clone()).await {
            // Too few servers *yet*, perhaps; a server outside any cluster never gets more.
            Err(err) if placement_failed(&err) && tokio::time::Instant::now() < give_up => {
                tracing::debug!(
                    "too few JetStream servers for {} replicas yet",
                    config.num_replicas
                );
                tokio::time::sleep(Duration::from_millis(200)).await;
            }
            done => return done,
        }
    }
}

/// Whether JetStream refused a stream for want of servers to keep its replicas on.
fn too_few_servers(err: &jetstream::context::CreateStreamError) -> bool {
    placement_failed(err)
        || refusal(err) == Some(jetstream::ErrorCode::STREAM_REPLICAS_NOT_SUPPORTED)
}

/// Whether a clustered JetStream found too few servers to place a stream's replicas on:
/// for now, perhaps (a cluster just formed), or for good.
fn placement_failed(err: &jetstream::context::CreateStreamError) -> bool {
    use jetstream::ErrorCode;
    matches!(
        refusal(err),
        Some(ErrorCode::CLUSTER_NO_PEERS | ErrorCode::INSUFFICIENT_RESOURCES)
    )
}

/// The code JetStream refused a stream with, if it answered.
fn refusal(err: &jetstream::context::CreateStreamError) -> Option<jetstream::ErrorCode> {
    match err.kind() {
        jetstream::context::CreateStreamErrorKind::JetStream(err) => Some(err.error_code()),
        _ => None,
    }
}

/// Binds the bucket of `config`, creating it if it is missing.
async fn bind_bucket(
    js: &jetstream::Context,
    config: kv::Config,
    wanted: Wanted,
) -> Result<kv::Store, ClusterError> {
    let stream_name = format!("KV_{}", config.bucket);
    let want = stream::Config {
        name: stream_name.clone(),
        max_age: config.max_age,
        num_replicas: config.num_replicas,
        ..Default::default()
    };
    let what = stream_what(&stream_name);
    let existing = match js.get_stream(&stream_name).await {
        Ok(mut found) => Some(
            found
                .info()
                .await
                .map_err(|err| ClusterError::nats("read a bucket's settings", err))?
                .config
                .clone(),
        ),
        Err(_) => None,
    };
    if existing.is_none()
        && let Ok(store) = js.create_key_value(config.clone()).await
    {
        return Ok(store);
    }
    // It exists (or another node created it meanwhile): bound if it suits.
    let mut found = js
        .get_stream(&stream_name)
        .await
        .map_err(|err| ClusterError::nats("create a bucket", err))?;
    let info = found
        .info()
        .await
        .map_err(|err| ClusterError::nats("read a bucket's settings", err))?;
    compatible(what, &info.config, &want, wanted)?;
    js.get_key_value(&config.bucket)
        .await
        .map_err(|err| ClusterError::nats("bind a bucket", err))
}

/// The name of a stream or bucket in errors.
fn stream_what(name: &str) -> &'static str {
    match name {
        ROOMS_STREAM => "stream XQ_ROOMS",
        GAMES_STREAM => "stream XQ_GAMES",
        "KV_XQ_LEASES" => "bucket XQ_LEASES",
        _ => "bucket XQ_TOKENS",
    }
}

/// Whether an existing stream's settings `found` serve as well as `want`.
fn compatible(
    what: &'static str,
    found: &stream::Config,
    want: &stream::Config,
    wanted: Wanted,
) -> Result<(), ClusterError> {
    let mismatch = |found: String, wanted: String| ClusterError::Mismatch {
        what,
        found,
        wanted,
    };
    if !want.subjects.is_empty() && found.subjects != want.subjects {
        return Err(mismatch(
            format!("subjects {:?}", found.subjects),
            format!("subjects {:?}", want.subjects),
        ));
    }
    if found.max_age != want.max_age {
        return Err(mismatch(
            format!("max age {:?} (another lease ttl)", found.max_age),
            format!("max age {:?}", want.max_age),
        ));
    }
    if wanted.explicit && found.num_replicas != wanted.replicas {
        return Err(mismatch(
            format!("{} replicas", found.num_replicas),
            format!("{} replicas", wanted.replicas),
        ));
    }
    if found.deny_purge {
        return Err(mismatch("purges denied".into(), "purges allowed".into()));
    }
    if want.duplicate_window > Duration::ZERO && found.duplicate_window < want.duplicate_window {
        return Err(mismatch(
            format!("duplicate window {:?}", found.duplicate_window),
            format!("duplicate window {:?} at least", want.duplicate_window),
        ));
    }
    Ok(())
}

/// Every message on `subject` of `stream`, oldest first, with its stream sequence.
///
/// Read one message at a time with "next by subject" requests, which the stream's leader
/// answers alone: no consumer is created, so a takeover needs no JetStream meta leader (the
/// one part of a NATS cluster that may take long to come back after a server is lost), and
/// leaves nothing behind. Journals are short (one message per commit of one room).
pub(crate) async fn read_all(
    stream: &stream::Stream,
    subject: &str,
) -> Result<Vec<(u64, Bytes)>, ClusterError> {
    let mut read = Vec::new();
    let mut next = 1;
    loop {
        let message = stream
            .raw_message_builder()
            .next_by_subject(subject)
            .sequence(next)
            .send()
            .await;
        match message {
            Ok(message) => {
                next = message.sequence + 1;
                read.push((message.sequence, message.payload));
            }
            Err(err) if err.kind() == stream::LastRawMessageErrorKind::NoMessageFound => {
                return Ok(read);
            }
            Err(err) => return Err(ClusterError::nats("read a stream", err)),
        }
    }
}
