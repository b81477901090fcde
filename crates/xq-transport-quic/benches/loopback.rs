//! QUIC frames over loopback, beside raw UDP measured in the same run.
//!
//! Prints the round-trip latency (p50, p99) of small-frame ping-pong for raw UDP datagrams and
//! for our connection, and the one-way rate of small frames over our connection. Every phase is
//! bounded in count, and the whole run in time. Run with
//! `cargo bench -p xq-transport-quic --bench loopback`.

use std::error::Error as StdError;
use std::net::SocketAddr;
use std::time::{Duration, Instant};

use tokio::net::UdpSocket;
use xq_transport_quic::{
    ClientConfig, Connection, Identity, Listener, ServerConfig, Verify, connect,
};

type BenchResult<T> = Result<T, Box<dyn StdError + Send + Sync>>;

/// Round trips measured per ping-pong, after as many again to warm up.
const ROUND_TRIPS: usize = 10_000;
/// Frames sent in the one-way test.
const ONE_WAY_FRAMES: u32 = 200_000;
/// Payload of every ping and every one-way frame, about the size of a move message.
const PAYLOAD: usize = 32;
/// Upper bound on the whole run.
const RUN_LIMIT: Duration = Duration::from_secs(120);

fn main() -> BenchResult<()> {
    let runtime = tokio::runtime::Builder::new_multi_thread()
        .worker_threads(2)
        .enable_all()
        .build()?;
    runtime.block_on(async { tokio::time::timeout(RUN_LIMIT, run()).await? })
}

async fn run() -> BenchResult<()> {
    let udp = udp_ping_pong().await?;

    let dir = tempfile::tempdir()?;
    let identity = Identity::load_or_generate(dir.path(), &["localhost"])?;
    let listener = Listener::bind(
        SocketAddr::from(([127, 0, 0, 1], 0)),
        ServerConfig::new(identity),
    )
    .await?;
    let config = ClientConfig::new(
        Verify::Fingerprint(listener.fingerprint().parse()?),
        "localhost",
    );
    let (client, server) = tokio::join!(connect(listener.local_addr(), config), listener.accept());
    let (client, server) = (client?, server?);

    let quic = quic_ping_pong(&client, &server).await?;
    let (elapsed, rate) = quic_one_way(&client, &server).await?;
    let stats = client.stats();
    client.close().await;

    println!("loopback, {PAYLOAD}-byte payloads, {ROUND_TRIPS} round trips each");
    println!("round trip     p50         p99");
    println!("raw udp        {:>9.1?}   {:>9.1?}", udp.p50, udp.p99);
    println!("quic frames    {:>9.1?}   {:>9.1?}", quic.p50, quic.p99);
    println!(
        "quic / udp     {:>9.2}x  {:>9.2}x",
        ratio(quic.p50, udp.p50),
        ratio(quic.p99, udp.p99)
    );
    let udp_round_trips = 1.0 / udp.p50.as_secs_f64();
    println!(
        "one way: {ONE_WAY_FRAMES} quic frames in {elapsed:.2?} = {rate:.0} frames/s, \
         {:.2}x the raw udp ping-pong rate of {udp_round_trips:.0} round trips/s",
        rate / udp_round_trips
    );
    println!(
        "client stats: {} bytes sent, {} received, {} packets lost, rtt {:?}",
        stats.bytes_sent, stats.bytes_received, stats.retransmits, stats.rtt
    );
    Ok(())
}

/// The 50th and 99th percentiles of a set of round trips.
struct Latency {
    p50: Duration,
    p99: Duration,
}

impl Latency {
    fn from_samples(mut samples: Vec<Duration>) -> Self {
        samples.sort_unstable();
        let at = |q: usize| samples[(samples.len() * q / 100).min(samples.len() - 1)];
        Self {
            p50: at(50),
            p99: at(99),
        }
    }
}

fn ratio(a: Duration, b: Duration) -> f64 {
    a.as_secs_f64() / b.as_secs_f64()
}

/// Times `ROUND_TRIPS` calls of `round_trip`, after as many unmeasured ones.
async fn measure(mut round_trip: impl AsyncFnMut() -> BenchResult<()>) -> BenchResult<Latency> {
    for _ in 0..ROUND_TRIPS {
        round_trip().await?;
    }
    let mut samples = Vec::with_capacity(ROUND_TRIPS);
    for _ in 0..ROUND_TRIPS {
        let start = Instant::now();
        round_trip().await?;
        samples.push(start.elapsed());
    }
    Ok(Latency::from_samples(samples))
}

/// Raw datagrams echoed between two sockets: the floor for any protocol over loopback UDP.
async fn udp_ping_pong() -> BenchResult<Latency> {
    let echo = UdpSocket::bind("127.0.0.1:0").await?;
    let client = UdpSocket::bind("127.0.0.1:0").await?;
    client.connect(echo.local_addr()?).await?;
    let echoer = tokio::spawn(async move {
        let mut buf = [0; 1500];
        for _ in 0..2 * ROUND_TRIPS {
            let (len, from) = echo.recv_from(&mut buf).await?;
            echo.send_to(&buf[..len], from).await?;
        }
        Ok::<_, std::io::Error>(())
    });
    let ping = [7; PAYLOAD];
    let mut buf = [0; 1500];
    let latency = measure(async || {
        client.send(&ping).await?;
        let len = client.recv(&mut buf).await?;
        assert_eq!(len, PAYLOAD);
        Ok(())
    })
    .await?;
    echoer.await??;
    Ok(latency)
}

/// Frames echoed by the server, one in flight at a time.
async fn quic_ping_pong(client: &Connection, server: &Connection) -> BenchResult<Latency> {
    let server = server.clone();
    let echoer = tokio::spawn(async move {
        for _ in 0..2 * ROUND_TRIPS {
            let frame = server.recv().await?;
            server.send(frame).await?;
        }
        Ok::<_, xq_transport_quic::Error>(())
    });
    let latency = measure(async || {
        client.send(vec![7; PAYLOAD]).await?;
        let pong = client.recv().await?;
        assert_eq!(pong.len(), PAYLOAD);
        Ok(())
    })
    .await?;
    echoer.await??;
    Ok(latency)
}

/// Frames sent back to back; the clock stops when the server says it has them all.
async fn quic_one_way(client: &Connection, server: &Connection) -> BenchResult<(Duration, f64)> {
    let server = server.clone();
    let receiver = tokio::spawn(async move {
        for i in 0..ONE_WAY_FRAMES {
            let frame = server.recv().await?;
            assert_eq!(frame[..4], i.to_be_bytes());
        }
        server.send(b"done".to_vec()).await
    });
    let start = Instant::now();
    for i in 0..ONE_WAY_FRAMES {
        let mut frame = vec![0; PAYLOAD];
        frame[..4].copy_from_slice(&i.to_be_bytes());
        client.send(frame).await?;
    }
    assert_eq!(client.recv().await?, b"done");
    let elapsed = start.elapsed();
    receiver.await??;
    Ok((elapsed, f64::from(ONE_WAY_FRAMES) / elapsed.as_secs_f64()))
}
