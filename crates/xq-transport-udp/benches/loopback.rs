//! Loopback benchmark: round-trip latency of a small frame over `Endpoint`/`Connection`,
//! beside a raw UDP ping-pong measured in the same run, and one-way frames per second.
//!
//! Run with `cargo bench -p xq-transport-udp --bench loopback`. Traffic stays on 127.0.0.1,
//! and every loop is bounded in count and time.

use std::net::SocketAddr;
use std::time::{Duration, Instant};

use tokio::net::UdpSocket;
use xq_transport_udp::{Config, Endpoint, Error};

const WARM_UP: usize = 1_000;
const ROUND_TRIPS: usize = 20_000;
const ONE_WAY_FRAMES: u32 = 200_000;
const TIME_LIMIT: Duration = Duration::from_secs(20);
const PAYLOAD: [u8; 32] = [7; 32];

fn localhost() -> SocketAddr {
    SocketAddr::from(([127, 0, 0, 1], 0))
}

/// Sorted round-trip times.
struct Latencies(Vec<Duration>);

impl Latencies {
    fn new(mut samples: Vec<Duration>) -> Self {
        samples.sort();
        Self(samples)
    }

    fn percentile(&self, p: f64) -> Duration {
        let index = ((self.0.len() as f64 - 1.0) * p).round() as usize;
        self.0.get(index).copied().unwrap_or_default()
    }

    fn report(&self, name: &str) {
        println!(
            "{name:<12} rtt p50 {:>8.1} us   p99 {:>8.1} us   ({} round trips)",
            micros(self.percentile(0.5)),
            micros(self.percentile(0.99)),
            self.0.len()
        );
    }
}

fn micros(duration: Duration) -> f64 {
    duration.as_secs_f64() * 1e6
}

async fn raw_udp() -> std::io::Result<Latencies> {
    let echo = UdpSocket::bind(localhost()).await?;
    let client = UdpSocket::bind(localhost()).await?;
    client.connect(echo.local_addr()?).await?;
    let echo_task = tokio::spawn(async move {
        let mut buf = [0; 2048];
        for _ in 0..WARM_UP + ROUND_TRIPS {
            let (len, from) = echo.recv_from(&mut buf).await?;
            echo.send_to(&buf[..len], from).await?;
        }
        Ok::<_, std::io::Error>(())
    });
    let mut buf = [0; 2048];
    let mut samples = Vec::with_capacity(ROUND_TRIPS);
    let deadline = Instant::now() + TIME_LIMIT;
    for round in 0..WARM_UP + ROUND_TRIPS {
        let start = Instant::now();
        client.send(&PAYLOAD).await?;
        tokio::time::timeout_at(deadline.into(), client.recv(&mut buf)).await??;
        if round >= WARM_UP {
            samples.push(start.elapsed());
        }
    }
    echo_task.await??;
    Ok(Latencies::new(samples))
}

async fn reliable_udp() -> Result<(Latencies, f64), Error> {
    let server = Endpoint::bind(localhost(), Config::default()).await?;
    let client = Endpoint::bind(localhost(), Config::default()).await?;
    let (outgoing, incoming) = tokio::join!(client.connect(server.local_addr()), server.accept());
    let (outgoing, incoming) = (outgoing?, incoming?);

    let echo = incoming.clone();
    let echo_task = tokio::spawn(async move {
        for _ in 0..WARM_UP + ROUND_TRIPS {
            let frame = echo.recv().await?;
            echo.send(frame).await?;
        }
        Ok::<_, Error>(())
    });
    let mut samples = Vec::with_capacity(ROUND_TRIPS);
    let deadline = Instant::now() + TIME_LIMIT;
    for round in 0..WARM_UP + ROUND_TRIPS {
        let start = Instant::now();
        outgoing.send(PAYLOAD.to_vec()).await?;
        let reply = tokio::time::timeout_at(deadline.into(), outgoing.recv()).await;
        reply.map_err(|_| std::io::Error::from(std::io::ErrorKind::TimedOut))??;
        if round >= WARM_UP {
            samples.push(start.elapsed());
        }
    }
    echo_task.await.map_err(std::io::Error::other)??;

    let receiver = tokio::spawn(async move {
        let start = Instant::now();
        for _ in 0..ONE_WAY_FRAMES {
            incoming.recv().await?;
        }
        Ok::<_, Error>(start.elapsed())
    });
    let start = Instant::now();
    for index in 0..ONE_WAY_FRAMES {
        let mut frame = PAYLOAD.to_vec();
        frame[..4].copy_from_slice(&index.to_be_bytes());
        outgoing.send(frame).await?;
    }
    let received = tokio::time::timeout(TIME_LIMIT, receiver).await;
    received
        .map_err(|_| std::io::Error::from(std::io::ErrorKind::TimedOut))?
        .map_err(std::io::Error::other)??;
    let frames_per_second = f64::from(ONE_WAY_FRAMES) / start.elapsed().as_secs_f64();
    outgoing.close().await;
    Ok((Latencies::new(samples), frames_per_second))
}

fn main() -> Result<(), Box<dyn std::error::Error>> {
    let runtime = tokio::runtime::Builder::new_multi_thread()
        .worker_threads(2)
        .enable_all()
        .build()?;
    runtime.block_on(async {
        let raw = raw_udp().await?;
        let (ours, frames_per_second) = reliable_udp().await?;
        raw.report("raw udp");
        ours.report("xq udp");
        println!(
            "ratio        p50 {:.2}x   p99 {:.2}x   (target: p50 within 3x of raw)",
            micros(ours.percentile(0.5)) / micros(raw.percentile(0.5)),
            micros(ours.percentile(0.99)) / micros(raw.percentile(0.99)),
        );
        println!("xq udp       one way {frames_per_second:>10.0} frames/s ({ONE_WAY_FRAMES} frames of {} bytes)", PAYLOAD.len());
        Ok(())
    })
}
