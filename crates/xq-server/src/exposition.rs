//! The relay's counters in the Prometheus text format, and the HTTP listener that serves them.
//!
//! A scrape asks the running relay for a [`ServerMetrics`] snapshot and encodes it whole with
//! [`prometheus_client`], through a [`Collector`] over the snapshot: the counters are kept
//! where they are counted (the core and the driver), so nothing is copied into a second set
//! of metrics between scrapes, and one scrape's numbers are all from the same instant.

use std::collections::VecDeque;
use std::convert::Infallible;
use std::fmt;
use std::io;
use std::net::SocketAddr;
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::Duration;

use bytes::Bytes;
use http_body_util::Full;
use hyper::body::Incoming;
use hyper::header::{ALLOW, CONTENT_TYPE};
use hyper::server::conn::http1;
use hyper::service::service_fn;
use hyper::{Method, Request, Response, StatusCode};
use hyper_util::rt::{TokioIo, TokioTimer};
use prometheus_client::collector::Collector;
use prometheus_client::encoding::prometheus_text;
use prometheus_client::encoding::{DescriptorEncoder, EncodeMetric, NoLabelSet};
use prometheus_client::metrics::MetricType;
use prometheus_client::metrics::counter::ConstCounter;
use prometheus_client::metrics::gauge::ConstGauge;
use prometheus_client::registry::Registry;
use tokio::net::{TcpListener, TcpStream};
use tokio::task::AbortHandle;

use crate::metrics::{MetricsHandle, ServerMetrics};

/// The `Content-Type` of [`encode`]'s text (the Prometheus text format, version 0.0.4).
pub const CONTENT_TYPE_TEXT: &str = prometheus_text::CONTENT_TYPE;

/// The prefix of every metric's name.
const PREFIX: &str = "xq_relay";

/// Scrapes served at once; a connection beyond them closes the oldest. Scrapers are few (one
/// Prometheus, an operator's `curl`), so this only stops a misbehaving one from piling up
/// tasks.
const MAX_SCRAPES: usize = 16;

/// How long a connection may take to send a request's head before it is closed.
const HEADER_READ_TIMEOUT: Duration = Duration::from_secs(2);

/// Encodes a snapshot in the Prometheus text format: counters end in `_total`, live
/// connections and rooms are gauges, the storage's commit latency is a histogram in seconds,
/// and the per-kind counts carry a `transport` or `reason` label.
///
/// # Errors
///
/// Only if the encoder fails to write, which it does not into a `String`; the error is kept
/// rather than hidden behind an `expect`.
pub fn encode(metrics: &ServerMetrics) -> Result<String, fmt::Error> {
    let mut registry = Registry::with_prefix(PREFIX);
    registry.register_collector(Box::new(Snapshot(metrics.clone())));
    let mut text = String::new();
    prometheus_text::encode(&mut text, &registry)?;
    Ok(text)
}

/// One scrape's counters, as the registry encodes them.
#[derive(Debug)]
struct Snapshot(ServerMetrics);

impl Collector for Snapshot {
    fn encode(&self, mut encoder: DescriptorEncoder<'_>) -> fmt::Result {
        let relay = &self.0.relay;
        let connections = relay
            .connections
            .iter()
            .map(|(transport, &count)| (transport.as_str(), count));
        labelled(
            &mut encoder,
            ("connections", "Live connections.", MetricType::Gauge),
            "transport",
            connections,
        )?;
        gauge(&mut encoder, "rooms", "Open rooms.", relay.rooms)?;
        counter(
            &mut encoder,
            "moves_accepted",
            "Moves the matches accepted.",
            relay.moves_accepted,
        )?;
        let rejected = relay
            .rejected
            .iter()
            .map(|(&reason, &count)| (reason, count));
        labelled(
            &mut encoder,
            (
                "commands_rejected",
                "Requests refused, by reason.",
                MetricType::Counter,
            ),
            "reason",
            rejected,
        )?;
        counter(
            &mut encoder,
            "rate_limited",
            "Connections disconnected for sending too fast.",
            relay.rate_limited,
        )?;
        let handshakes = [
            ("version_mismatch", relay.version_mismatches),
            ("malformed_hello", relay.malformed_hellos),
        ];
        labelled(
            &mut encoder,
            (
                "handshake_failures",
                "Handshakes refused, by reason.",
                MetricType::Counter,
            ),
            "reason",
            handshakes,
        )?;
        counter(
            &mut encoder,
            "oversized_frames",
            "Connections disconnected for a frame over the size limit.",
            relay.oversized_frames,
        )?;
        counter(
            &mut encoder,
            "resumes",
            "Seats taken back with a resume token.",
            relay.resumes,
        )?;
        counter(
            &mut encoder,
            "rooms_expired",
            "Rooms closed for being idle or waiting too long.",
            relay.rooms_expired,
        )?;
        counter(
            &mut encoder,
            "connections_refused",
            "Connections turned away at accept for a connection cap.",
            self.0.refused_connections,
        )?;
        counter(
            &mut encoder,
            "slow_consumers",
            "Connections cut off because they did not read.",
            self.0.slow_consumers,
        )?;
        // A node of a cluster only: a relay alone has none of these.
        if let Some(cluster) = &self.0.cluster {
            let counters = [
                (
                    "redirects",
                    "Requests sent to the node that owns their room.",
                    relay.redirects,
                ),
                (
                    "takeovers",
                    "Rooms taken over from a node that no longer owned them.",
                    relay.takeovers,
                ),
                (
                    "evictions",
                    "Rooms given up to another node that owns them now.",
                    relay.evictions,
                ),
                (
                    "lease_renewals",
                    "Room ownerships renewed.",
                    cluster.lease_renewals,
                ),
                (
                    "lease_losses",
                    "Room ownerships lost.",
                    cluster.lease_losses,
                ),
                (
                    "claims_won",
                    "Room codes claimed for this node.",
                    cluster.claims_won,
                ),
                (
                    "claims_lost",
                    "Room codes found taken by another node.",
                    cluster.claims_lost,
                ),
                (
                    "refused_appends",
                    "Appends refused because another node wrote the room since.",
                    cluster.refused_appends,
                ),
            ];
            for (name, help, value) in counters {
                counter(&mut encoder, &format!("cluster_{name}"), help, value)?;
            }
        }
        let commits = &self.0.commits;
        let buckets: Vec<(f64, u64)> = commits
            .buckets()
            .map(|(bound, count)| (bound.as_secs_f64(), count))
            .collect();
        encoder
            .encode_descriptor(
                "storage_commit_seconds",
                "How long each storage commit took.",
                None,
                MetricType::Histogram,
            )?
            .encode_histogram::<NoLabelSet>(
                commits.sum().as_secs_f64(),
                commits.count(),
                &buckets,
                None,
            )
    }
}

/// Encodes one counter without labels.
fn counter(encoder: &mut DescriptorEncoder<'_>, name: &str, help: &str, value: u64) -> fmt::Result {
    let metric = ConstCounter::new(value);
    metric.encode(encoder.encode_descriptor(name, help, None, metric.metric_type())?)
}

/// Encodes one gauge without labels.
fn gauge(encoder: &mut DescriptorEncoder<'_>, name: &str, help: &str, value: u64) -> fmt::Result {
    let metric = ConstGauge::new(value);
    metric.encode(encoder.encode_descriptor(name, help, None, metric.metric_type())?)
}

/// Encodes a counter or gauge (`kind`: name, help and type) with one sample per value of
/// the label `key`.
fn labelled<'a>(
    encoder: &mut DescriptorEncoder<'_>,
    (name, help, kind): (&str, &str, MetricType),
    key: &str,
    samples: impl IntoIterator<Item = (&'a str, u64)>,
) -> fmt::Result {
    let mut family = encoder.encode_descriptor(name, help, None, kind)?;
    for (value, count) in samples {
        let labels = [(key, value)];
        let sample = family.encode_family(&labels)?;
        match kind {
            MetricType::Gauge => ConstGauge::new(count).encode(sample)?,
            _ => ConstCounter::new(count).encode(sample)?,
        }
    }
    Ok(())
}

/// An HTTP listener that serves the relay's counters at `GET /metrics` (and 404 elsewhere),
/// until the relay stops.
#[derive(Debug)]
pub struct MetricsEndpoint {
    listener: TcpListener,
    local: SocketAddr,
    metrics: MetricsHandle,
}

impl MetricsEndpoint {
    /// Opens the listener on `addr` (port 0 picks a free one) for the relay behind `metrics`.
    ///
    /// # Errors
    ///
    /// The socket's error if the address cannot be bound.
    pub async fn bind(addr: SocketAddr, metrics: MetricsHandle) -> io::Result<Self> {
        let listener = TcpListener::bind(addr).await?;
        let local = listener.local_addr()?;
        Ok(Self {
            listener,
            local,
            metrics,
        })
    }

    /// The address bound, with the real port when 0 was asked for.
    #[must_use]
    pub const fn local_addr(&self) -> SocketAddr {
        self.local
    }

    /// The URL to scrape from this machine: the address bound, or the loopback address when
    /// bound to every interface.
    #[must_use]
    pub fn url(&self) -> String {
        format!("http://{}/metrics", xq_transport::reachable(self.local))
    }

    /// Serves scrapes until the relay stops, then closes the listener and drops the scrapes
    /// still open: the endpoint never outlives what it reports on.
    ///
    /// At most 16 connections are served at once. When they are taken, a new one
    /// takes the place of the oldest that has not sent a request yet: clients that connect
    /// and say nothing would otherwise keep a scraper out, while a scraper that has spoken
    /// (Prometheus keeps its connection between scrapes) keeps its place. Only when every
    /// connection has spoken is the new one turned away.
    pub async fn serve(self) {
        let mut scrapes: VecDeque<Scrape> = VecDeque::new();
        loop {
            tokio::select! {
                () = self.metrics.stopped() => break,
                accepted = self.listener.accept() => match accepted {
                    Ok((stream, peer)) => {
                        scrapes.retain(|scrape| !scrape.task.is_finished());
                        if scrapes.len() >= MAX_SCRAPES {
                            let silent = scrapes
                                .iter()
                                .position(|scrape| !scrape.spoke.load(Ordering::Relaxed));
                            let Some(oldest) = silent.and_then(|index| scrapes.remove(index))
                            else {
                                tracing::debug!(%peer, "metrics: too many scrapes, connection closed");
                                continue;
                            };
                            tracing::debug!(%peer, "metrics: too many scrapes, a silent one closed");
                            oldest.task.abort();
                        }
                        let spoke = Arc::new(AtomicBool::new(false));
                        let served = serve_connection(stream, self.metrics.clone(), Arc::clone(&spoke));
                        let task = tokio::spawn(served).abort_handle();
                        scrapes.push_back(Scrape { task, spoke });
                    }
                    Err(err) => {
                        // Out of file descriptors, most likely: pause rather than spin.
                        tracing::warn!(%err, "metrics: accept failed");
                        tokio::time::sleep(Duration::from_millis(100)).await;
                    }
                },
            }
        }
        for scrape in scrapes {
            scrape.task.abort();
        }
    }
}

/// A connection being served.
struct Scrape {
    task: AbortHandle,
    /// Set once a request arrived on it.
    spoke: Arc<AtomicBool>,
}

/// Serves one HTTP/1 connection; its errors (a client that went away, a bad request) end
/// that connection alone.
async fn serve_connection(stream: TcpStream, metrics: MetricsHandle, spoke: Arc<AtomicBool>) {
    let service = service_fn(move |request| {
        spoke.store(true, Ordering::Relaxed);
        respond(request, metrics.clone())
    });
    let served = http1::Builder::new()
        // A scrape's request fits in one packet: a client that takes longer is gone.
        .timer(TokioTimer::new())
        .header_read_timeout(HEADER_READ_TIMEOUT)
        .serve_connection(TokioIo::new(stream), service)
        .await;
    if let Err(err) = served {
        tracing::debug!(%err, "metrics: connection failed");
    }
}

/// Answers one request.
async fn respond(
    request: Request<Incoming>,
    metrics: MetricsHandle,
) -> Result<Response<Full<Bytes>>, Infallible> {
    if request.uri().path() != "/metrics" {
        return Ok(plain(StatusCode::NOT_FOUND, "not found; try /metrics\n"));
    }
    if request.method() != Method::GET {
        let mut response = plain(StatusCode::METHOD_NOT_ALLOWED, "only GET\n");
        response
            .headers_mut()
            .insert(ALLOW, hyper::header::HeaderValue::from_static("GET"));
        return Ok(response);
    }
    let Some(snapshot) = metrics.snapshot().await else {
        return Ok(plain(
            StatusCode::SERVICE_UNAVAILABLE,
            "the relay stopped\n",
        ));
    };
    Ok(match encode(&snapshot) {
        Ok(text) => {
            let mut response = Response::new(Full::new(Bytes::from(text)));
            response.headers_mut().insert(
                CONTENT_TYPE,
                hyper::header::HeaderValue::from_static(CONTENT_TYPE_TEXT),
            );
            response
        }
        Err(err) => {
            tracing::error!(%err, "metrics: encoding failed");
            plain(StatusCode::INTERNAL_SERVER_ERROR, "encoding failed\n")
        }
    })
}

/// A short plain-text response.
fn plain(status: StatusCode, text: &'static str) -> Response<Full<Bytes>> {
    let mut response = Response::new(Full::new(Bytes::from_static(text.as_bytes())));
    *response.status_mut() = status;
    response
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::ClusterCounters;

    /// A snapshot with something in every counter.
    fn known() -> ServerMetrics {
        let mut metrics = ServerMetrics::default();
        let relay = &mut metrics.relay;
        relay.connections.insert("quic".into(), 1);
        relay.connections.insert("udp".into(), 3);
        relay.rooms = 2;
        relay.moves_accepted = 17;
        relay.rejected.insert("illegal_move", 4);
        relay.rejected.insert("not_your_turn", 1);
        relay.rate_limited = 5;
        relay.version_mismatches = 6;
        relay.malformed_hellos = 7;
        relay.oversized_frames = 8;
        relay.resumes = 9;
        relay.rooms_expired = 10;
        metrics.refused_connections = 11;
        metrics.slow_consumers = 12;
        metrics.commits.record(Duration::from_micros(200));
        metrics.commits.record(Duration::from_micros(800));
        metrics.commits.record(Duration::from_secs(2));
        metrics
    }

    #[test]
    fn a_snapshot_encodes_in_the_prometheus_text_format() {
        let text = encode(&known()).expect("a String takes any text");
        let expected = [
            "# HELP xq_relay_connections Live connections.",
            "# TYPE xq_relay_connections gauge",
            r#"xq_relay_connections{transport="quic"} 1"#,
            r#"xq_relay_connections{transport="udp"} 3"#,
            "# HELP xq_relay_rooms Open rooms.",
            "# TYPE xq_relay_rooms gauge",
            "xq_relay_rooms 2",
            "# HELP xq_relay_moves_accepted_total Moves the matches accepted.",
            "# TYPE xq_relay_moves_accepted_total counter",
            "xq_relay_moves_accepted_total 17",
            "# HELP xq_relay_commands_rejected_total Requests refused, by reason.",
            "# TYPE xq_relay_commands_rejected_total counter",
            r#"xq_relay_commands_rejected_total{reason="illegal_move"} 4"#,
            r#"xq_relay_commands_rejected_total{reason="not_your_turn"} 1"#,
            "# HELP xq_relay_rate_limited_total Connections disconnected for sending too fast.",
            "# TYPE xq_relay_rate_limited_total counter",
            "xq_relay_rate_limited_total 5",
            "# HELP xq_relay_handshake_failures_total Handshakes refused, by reason.",
            "# TYPE xq_relay_handshake_failures_total counter",
            r#"xq_relay_handshake_failures_total{reason="version_mismatch"} 6"#,
            r#"xq_relay_handshake_failures_total{reason="malformed_hello"} 7"#,
            "# HELP xq_relay_oversized_frames_total Connections disconnected for a frame over the size limit.",
            "# TYPE xq_relay_oversized_frames_total counter",
            "xq_relay_oversized_frames_total 8",
            "# HELP xq_relay_resumes_total Seats taken back with a resume token.",
            "# TYPE xq_relay_resumes_total counter",
            "xq_relay_resumes_total 9",
            "# HELP xq_relay_rooms_expired_total Rooms closed for being idle or waiting too long.",
            "# TYPE xq_relay_rooms_expired_total counter",
            "xq_relay_rooms_expired_total 10",
            "# HELP xq_relay_connections_refused_total Connections turned away at accept for a connection cap.",
            "# TYPE xq_relay_connections_refused_total counter",
            "xq_relay_connections_refused_total 11",
            "# HELP xq_relay_slow_consumers_total Connections cut off because they did not read.",
            "# TYPE xq_relay_slow_consumers_total counter",
            "xq_relay_slow_consumers_total 12",
            "# HELP xq_relay_storage_commit_seconds How long each storage commit took.",
            "# TYPE xq_relay_storage_commit_seconds histogram",
            r#"xq_relay_storage_commit_seconds_bucket{le="0.00025"} 1"#,
            r#"xq_relay_storage_commit_seconds_bucket{le="0.0005"} 1"#,
            r#"xq_relay_storage_commit_seconds_bucket{le="0.001"} 2"#,
            r#"xq_relay_storage_commit_seconds_bucket{le="0.0025"} 2"#,
            r#"xq_relay_storage_commit_seconds_bucket{le="0.005"} 2"#,
            r#"xq_relay_storage_commit_seconds_bucket{le="0.01"} 2"#,
            r#"xq_relay_storage_commit_seconds_bucket{le="0.025"} 2"#,
            r#"xq_relay_storage_commit_seconds_bucket{le="0.05"} 2"#,
            r#"xq_relay_storage_commit_seconds_bucket{le="0.1"} 2"#,
            r#"xq_relay_storage_commit_seconds_bucket{le="0.25"} 2"#,
            r#"xq_relay_storage_commit_seconds_bucket{le="1"} 2"#,
            r#"xq_relay_storage_commit_seconds_bucket{le="+Inf"} 3"#,
            "xq_relay_storage_commit_seconds_sum 2.001",
            "xq_relay_storage_commit_seconds_count 3",
        ];
        assert_eq!(text.lines().collect::<Vec<_>>(), expected);
    }

    #[test]
    fn a_cluster_node_has_the_cluster_counters_too() {
        let mut metrics = ServerMetrics::default();
        let alone = encode(&metrics).expect("a String takes any text");
        assert!(!alone.contains("xq_relay_cluster_"), "{alone}");
        metrics.relay.takeovers = 3;
        metrics.cluster = Some(ClusterCounters {
            lease_losses: 2,
            ..ClusterCounters::default()
        });
        let node = encode(&metrics).expect("a String takes any text");
        for line in [
            "xq_relay_cluster_takeovers_total 3",
            "xq_relay_cluster_lease_losses_total 2",
            "xq_relay_cluster_redirects_total 0",
            "# TYPE xq_relay_cluster_refused_appends_total counter",
        ] {
            assert!(
                node.lines().any(|l| l == line),
                "{line} missing from {node}"
            );
        }
    }

    #[test]
    fn an_empty_snapshot_still_names_every_metric() {
        let text = encode(&ServerMetrics::default()).expect("a String takes any text");
        assert!(
            text.contains("\nxq_relay_moves_accepted_total 0\n"),
            "{text}"
        );
        assert!(
            text.contains("\nxq_relay_storage_commit_seconds_count 0\n"),
            "{text}"
        );
        assert!(
            text.contains("# TYPE xq_relay_commands_rejected_total counter\n"),
            "{text}"
        );
    }
}
