//! Loopback latency and throughput of every transport through the common interface (`ws` and
//! `wss` with the `ws` feature, on by default), beside a raw UDP ping-pong measured in the same
//! run.
//!
//! `cargo bench -p xq-transport --bench transports` prints one line per transport:
//! round-trip p50/p99 of a 32-byte frame, one-way frames/s, and the p50 ratio to raw UDP.

use std::sync::Arc;
use std::time::{Duration, Instant};

use tokio::net::UdpSocket;
use xq_transport::{Connection, Options, connect, listen};

const PINGS: usize = 5_000;
const ONE_WAY_FRAMES: usize = 200_000;
const FRAME: usize = 32;

fn percentile(sorted: &[Duration], p: f64) -> Duration {
    let index = ((sorted.len() - 1) as f64 * p).round() as usize;
    sorted[index]
}

fn micros(d: Duration) -> f64 {
    d.as_secs_f64() * 1e6
}

async fn raw_udp_rtts() -> Vec<Duration> {
    let a = UdpSocket::bind("127.0.0.1:0").await.expect("bind");
    let b = UdpSocket::bind("127.0.0.1:0").await.expect("bind");
    a.connect(b.local_addr().expect("addr"))
        .await
        .expect("connect");
    b.connect(a.local_addr().expect("addr"))
        .await
        .expect("connect");
    let echo = tokio::spawn(async move {
        let mut buf = [0u8; 2048];
        for _ in 0..PINGS {
            let n = b.recv(&mut buf).await.expect("recv");
            b.send(&buf[..n]).await.expect("send");
        }
    });
    let mut rtts = Vec::with_capacity(PINGS);
    let mut buf = [0u8; 2048];
    let ping = [7u8; FRAME];
    for _ in 0..PINGS {
        let t = Instant::now();
        a.send(&ping).await.expect("send");
        a.recv(&mut buf).await.expect("recv");
        rtts.push(t.elapsed());
    }
    echo.await.expect("echo");
    rtts
}

async fn pair(
    url: &str,
    options: &Options,
) -> (
    Arc<dyn Connection>,
    Arc<dyn Connection>,
    Box<dyn xq_transport::Listener>,
) {
    let listener = listen(url, options).await.expect("listen");
    let target = listener.local_url();
    let (client, server) = tokio::join!(connect(&target, options), listener.accept());
    (client.expect("connect"), server.expect("accept"), listener)
}

async fn transport_rtts(
    client: &Arc<dyn Connection>,
    server: &Arc<dyn Connection>,
) -> Vec<Duration> {
    let echo_side = Arc::clone(server);
    let echo = tokio::spawn(async move {
        for _ in 0..PINGS {
            let frame = echo_side.recv().await.expect("recv");
            echo_side.send(frame).await.expect("send");
        }
    });
    let mut rtts = Vec::with_capacity(PINGS);
    for _ in 0..PINGS {
        let t = Instant::now();
        client.send(vec![7u8; FRAME]).await.expect("send");
        client.recv().await.expect("recv");
        rtts.push(t.elapsed());
    }
    echo.await.expect("echo");
    rtts
}

async fn one_way(client: &Arc<dyn Connection>, server: &Arc<dyn Connection>) -> f64 {
    let sender = Arc::clone(client);
    let t = Instant::now();
    let send = tokio::spawn(async move {
        for _ in 0..ONE_WAY_FRAMES {
            sender.send(vec![1u8; FRAME]).await.expect("send");
        }
    });
    for _ in 0..ONE_WAY_FRAMES {
        server.recv().await.expect("recv");
    }
    send.await.expect("sender");
    ONE_WAY_FRAMES as f64 / t.elapsed().as_secs_f64()
}

/// A self-signed certificate for the loopback address in `dir`: a `wss` listener's URL names
/// it, and the client trusts it from there.
#[cfg(feature = "ws")]
fn wss_certificate(dir: &std::path::Path) -> xq_transport::WsTls {
    let names = vec!["127.0.0.1".to_string()];
    let rcgen::CertifiedKey { cert, signing_key } =
        rcgen::generate_simple_self_signed(names).expect("certificate");
    std::fs::create_dir_all(dir).expect("directory");
    let files = xq_transport::WsTls {
        cert: dir.join("wss-cert.pem"),
        key: dir.join("wss-key.pem"),
    };
    std::fs::write(&files.cert, cert.pem()).expect("certificate file");
    std::fs::write(&files.key, signing_key.serialize_pem()).expect("key file");
    files
}

fn main() {
    let rt = tokio::runtime::Builder::new_multi_thread()
        .worker_threads(2)
        .enable_all()
        .build()
        .expect("runtime");
    rt.block_on(async {
        let dir = std::env::temp_dir().join(format!("xq-bench-identity-{}", std::process::id()));
        let options = Options {
            quic_identity_dir: Some(dir.clone()),
            #[cfg(feature = "ws")]
            ws: xq_transport::WsOptions {
                tls: Some(wss_certificate(&dir)),
                ..xq_transport::WsOptions::default()
            },
            ..Options::default()
        };
        let mut raw = raw_udp_rtts().await;
        raw.sort();
        let raw_p50 = percentile(&raw, 0.5);
        println!(
            "raw-udp  rtt_p50_us {:>7.1}  rtt_p99_us {:>7.1}",
            micros(raw_p50),
            micros(percentile(&raw, 0.99))
        );
        for url in [
            "mem://bench",
            "udp://127.0.0.1:0",
            "quic://127.0.0.1:0",
            #[cfg(feature = "ws")]
            "ws://127.0.0.1:0",
            #[cfg(feature = "ws")]
            "wss://127.0.0.1:0",
        ] {
            let (client, server, _listener) = pair(url, &options).await;
            let mut rtts = transport_rtts(&client, &server).await;
            rtts.sort();
            let p50 = percentile(&rtts, 0.5);
            let rate = one_way(&client, &server).await;
            println!(
                "{:<8} rtt_p50_us {:>7.1}  rtt_p99_us {:>7.1}  one_way_frames_per_s {:>9.0}  p50_vs_raw_udp {:.2}x",
                url.split(':').next().unwrap_or(url),
                micros(p50),
                micros(percentile(&rtts, 0.99)),
                rate,
                micros(p50) / micros(raw_p50)
            );
        }
        let _ = std::fs::remove_dir_all(dir);
    });
}
