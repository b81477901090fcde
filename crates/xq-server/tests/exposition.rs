//! The metrics endpoint in process: what it answers, and that it stops with the relay.

use std::net::SocketAddr;
use std::time::Duration;

use tokio::io::{AsyncReadExt, AsyncWriteExt};
use tokio::net::TcpStream;
use tokio::task::JoinHandle;
use xq_server::{MetricsEndpoint, Server};

/// Generous bound for any one test; a hang fails instead of blocking CI.
const TEST_TIMEOUT: Duration = Duration::from_secs(15);

/// Sends `request` (a whole HTTP/1.1 request) and returns the response's head.
async fn head_of(addr: SocketAddr, request: &str) -> String {
    let mut stream = TcpStream::connect(addr).await.expect("connects");
    stream.write_all(request.as_bytes()).await.expect("sends");
    let mut response = String::new();
    stream.read_to_string(&mut response).await.expect("reads");
    let (head, _) = response.split_once("\r\n\r\n").expect("a head");
    head.to_string()
}

/// Checks that a scrape of `addr` (closing its connection) is answered with the counters.
async fn assert_scraped(addr: SocketAddr) {
    let scrape = "GET /metrics HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n";
    let head = head_of(addr, scrape).await;
    assert!(head.starts_with("HTTP/1.1 200 OK\r\n"), "{head}");
}

/// A relay on `mem://NAME` and its metrics endpoint on a free local port, serving.
async fn serve(name: &str) -> (Server, SocketAddr, JoinHandle<()>) {
    let (server, endpoint) = bound(name, "127.0.0.1:0").await;
    let addr = endpoint.local_addr();
    (server, addr, tokio::spawn(endpoint.serve()))
}

/// A relay on `mem://NAME` and its metrics endpoint bound to `addr`, not serving yet.
async fn bound(name: &str, addr: &str) -> (Server, MetricsEndpoint) {
    let server = Server::builder()
        .listen(format!("mem://{name}"))
        .start()
        .await
        .expect("the relay starts");
    let addr = addr.parse().expect("an address");
    let endpoint = MetricsEndpoint::bind(addr, server.metrics())
        .await
        .expect("binds");
    (server, endpoint)
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_endpoint_answers_only_get_metrics_and_stops_with_the_relay() {
    tokio::time::timeout(TEST_TIMEOUT, async {
        let (server, addr, serving) = serve("exposition-test").await;
        assert_ne!(addr.port(), 0);

        let close = "Connection: close\r\n\r\n";
        let ok = head_of(
            addr,
            &format!("GET /metrics HTTP/1.1\r\nHost: x\r\n{close}"),
        )
        .await;
        assert!(ok.starts_with("HTTP/1.1 200 OK\r\n"), "{ok}");
        let post = head_of(
            addr,
            &format!("POST /metrics HTTP/1.1\r\nHost: x\r\nContent-Length: 0\r\n{close}"),
        )
        .await;
        assert!(post.starts_with("HTTP/1.1 405 "), "{post}");
        let root = head_of(addr, &format!("GET / HTTP/1.1\r\nHost: x\r\n{close}")).await;
        assert!(root.starts_with("HTTP/1.1 404 "), "{root}");

        // An idle scrape connection is held open; the relay's stop ends it too.
        let _idle = TcpStream::connect(addr).await.expect("connects");
        server.shutdown().await;
        serving.await.expect("the endpoint stopped cleanly");
        assert!(TcpStream::connect(addr).await.is_err(), "still listening");
    })
    .await
    .expect("the test finished in time");
}

/// An endpoint on every interface gives a URL that a scraper on this machine can use.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn an_endpoint_on_every_interface_gives_a_loopback_url() {
    tokio::time::timeout(TEST_TIMEOUT, async {
        let (server, endpoint) = bound("exposition-wildcard", "0.0.0.0:0").await;
        let url = endpoint.url();
        let addr: SocketAddr = url
            .strip_prefix("http://")
            .and_then(|rest| rest.strip_suffix("/metrics"))
            .and_then(|addr| addr.parse().ok())
            .unwrap_or_else(|| panic!("unexpected URL {url}"));
        assert!(addr.ip().is_loopback(), "{url}");
        let serving = tokio::spawn(endpoint.serve());
        assert_scraped(addr).await;
        server.shutdown().await;
        serving.await.expect("the endpoint stopped cleanly");
    })
    .await
    .expect("the test finished in time");
}

/// Clients that connect and never speak cannot keep a scraper out.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn silent_connections_do_not_lock_a_scraper_out() {
    tokio::time::timeout(TEST_TIMEOUT, async {
        let (server, addr, serving) = serve("exposition-silent").await;
        let _silent = silent_connections(addr).await;
        assert_scraped(addr).await;
        server.shutdown().await;
        serving.await.expect("the endpoint stopped cleanly");
    })
    .await
    .expect("the test finished in time");
}

/// A scraper that keeps its connection (as Prometheus does) keeps its place however many
/// silent connections come after it.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_kept_scrape_connection_outlasts_silent_ones() {
    tokio::time::timeout(TEST_TIMEOUT, async {
        let (server, addr, serving) = serve("exposition-kept").await;
        let mut kept = TcpStream::connect(addr).await.expect("connects");
        let scrape = "GET /metrics HTTP/1.1\r\nHost: x\r\n\r\n";
        for round in 0..2 {
            kept.write_all(scrape.as_bytes()).await.expect("sends");
            let head = response_on(&mut kept).await;
            assert!(
                head.starts_with("HTTP/1.1 200 OK\r\n"),
                "round {round}: {head}"
            );
            let _silent = silent_connections(addr).await;
        }
        server.shutdown().await;
        serving.await.expect("the endpoint stopped cleanly");
    })
    .await
    .expect("the test finished in time");
}

/// Twice as many connections as the endpoint serves at once, none of which says a word.
async fn silent_connections(addr: SocketAddr) -> Vec<TcpStream> {
    let mut silent = Vec::new();
    for _ in 0..32 {
        silent.push(TcpStream::connect(addr).await.expect("connects"));
    }
    silent
}

/// Reads one response on a kept connection (its head, then a body of `Content-Length` bytes)
/// and returns its head.
async fn response_on(stream: &mut TcpStream) -> String {
    let mut received = Vec::new();
    let mut byte = [0; 1];
    while !received.ends_with(b"\r\n\r\n") {
        stream.read_exact(&mut byte).await.expect("a head");
        received.push(byte[0]);
    }
    let head = String::from_utf8(received).expect("a text head");
    let length: usize = head
        .lines()
        .find_map(|line| line.strip_prefix("content-length: "))
        .expect("a length")
        .parse()
        .expect("a number");
    let mut body = vec![0; length];
    stream.read_exact(&mut body).await.expect("a body");
    head
}
