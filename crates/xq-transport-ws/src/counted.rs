//! A socket that counts the bytes it moves: a connection's statistics, headers, TLS and the
//! HTTP upgrade included, and the sign of life a stalled HTTP connection lacks.

use std::io;
use std::pin::Pin;
use std::sync::Arc;
use std::sync::atomic::{AtomicU64, Ordering};
use std::task::{Context, Poll};

use tokio::io::{AsyncRead, AsyncWrite, ReadBuf};

/// Bytes moved through a [`Counted`] socket, shared with whoever reports them.
#[derive(Debug, Default)]
pub(crate) struct Counters {
    pub(crate) read: AtomicU64,
    pub(crate) written: AtomicU64,
}

impl Counters {
    /// Bytes moved either way: it changes while the connection makes progress.
    pub(crate) fn moved(&self) -> u64 {
        self.read.load(Ordering::Relaxed) + self.written.load(Ordering::Relaxed)
    }
}

/// `S`, counting into [`Counters`].
#[derive(Debug)]
pub(crate) struct Counted<S> {
    inner: S,
    counters: Arc<Counters>,
}

impl<S> Counted<S> {
    pub(crate) fn new(inner: S, counters: Arc<Counters>) -> Self {
        Self { inner, counters }
    }
}

impl<S: AsyncRead + Unpin> AsyncRead for Counted<S> {
    fn poll_read(
        mut self: Pin<&mut Self>,
        cx: &mut Context<'_>,
        buf: &mut ReadBuf<'_>,
    ) -> Poll<io::Result<()>> {
        let before = buf.filled().len();
        let polled = Pin::new(&mut self.inner).poll_read(cx, buf);
        let read = (buf.filled().len() - before) as u64;
        self.counters.read.fetch_add(read, Ordering::Relaxed);
        polled
    }
}

impl<S: AsyncWrite + Unpin> AsyncWrite for Counted<S> {
    fn poll_write(
        mut self: Pin<&mut Self>,
        cx: &mut Context<'_>,
        buf: &[u8],
    ) -> Poll<io::Result<usize>> {
        let polled = Pin::new(&mut self.inner).poll_write(cx, buf);
        if let Poll::Ready(Ok(written)) = polled {
            self.counters
                .written
                .fetch_add(written as u64, Ordering::Relaxed);
        }
        polled
    }

    fn poll_write_vectored(
        mut self: Pin<&mut Self>,
        cx: &mut Context<'_>,
        bufs: &[io::IoSlice<'_>],
    ) -> Poll<io::Result<usize>> {
        let polled = Pin::new(&mut self.inner).poll_write_vectored(cx, bufs);
        if let Poll::Ready(Ok(written)) = polled {
            self.counters
                .written
                .fetch_add(written as u64, Ordering::Relaxed);
        }
        polled
    }

    fn is_write_vectored(&self) -> bool {
        self.inner.is_write_vectored()
    }

    fn poll_flush(mut self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<io::Result<()>> {
        Pin::new(&mut self.inner).poll_flush(cx)
    }

    fn poll_shutdown(mut self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<io::Result<()>> {
        Pin::new(&mut self.inner).poll_shutdown(cx)
    }
}

#[cfg(test)]
mod tests {
    use tokio::io::{AsyncReadExt, AsyncWriteExt};

    use super::*;

    #[tokio::test]
    async fn counts_both_ways() {
        let (a, mut b) = tokio::io::duplex(64);
        let counters = Arc::new(Counters::default());
        let mut a = Counted::new(a, Arc::clone(&counters));
        a.write_all(b"hello")
            .await
            .unwrap_or_else(|e| panic!("{e}"));
        b.write_all(b"hi").await.unwrap_or_else(|e| panic!("{e}"));
        let mut buf = [0; 2];
        a.read_exact(&mut buf)
            .await
            .unwrap_or_else(|e| panic!("{e}"));
        assert_eq!(counters.written.load(Ordering::Relaxed), 5);
        assert_eq!(counters.read.load(Ordering::Relaxed), 2);
        assert_eq!(counters.moved(), 7);
    }
}
