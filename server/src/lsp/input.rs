//! The server's input stream, watched for its end: when the client closes stdin, the
//! transport would still wait for the requests in flight (a long analysis) before
//! returning, so the end of input is signalled separately and the server stops.

use std::pin::Pin;
use std::sync::Arc;
use std::task::{Context, Poll};
use tokio::io::{AsyncRead, ReadBuf};
use tokio::sync::Notify;

/// `inner`, notifying `ended` once a read finds the end of the stream.
pub struct Watched<R> {
    pub inner: R,
    pub ended: Arc<Notify>,
}

impl<R: AsyncRead + Unpin> AsyncRead for Watched<R> {
    fn poll_read(
        mut self: Pin<&mut Self>,
        cx: &mut Context<'_>,
        buf: &mut ReadBuf<'_>,
    ) -> Poll<std::io::Result<()>> {
        let before = buf.filled().len();
        let poll = Pin::new(&mut self.inner).poll_read(cx, buf);
        if let Poll::Ready(Ok(())) = poll
            && buf.filled().len() == before
            && buf.remaining() > 0
        {
            self.ended.notify_one();
        }
        poll
    }
}
