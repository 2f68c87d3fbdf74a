//! The server's output: one task writes whole frames to stdout, from two sources that
//! must not interleave within a frame: tower-lsp-server, which writes into an
//! [`Outbox`] that cuts its bytes into frames, and the input's own answers
//! ([`ToClient`]: errors for what is not a message, requests cancelled before the
//! service took them).

use super::frames::{Split, Splitter};
use std::io;
use std::pin::Pin;
use std::task::{Context, Poll};
use tokio::io::{AsyncWrite, AsyncWriteExt};
use tokio::sync::mpsc::{UnboundedReceiver, UnboundedSender, unbounded_channel};
use tokio::task::JoinHandle;
use tower_lsp_server::jsonrpc::Response;

/// What the writer is given.
enum Out {
    Frame(Vec<u8>),
    /// tower-lsp-server is done: write what came before and stop.
    End,
}

/// Sends the input's own answers to the client.
#[derive(Clone)]
pub struct ToClient(UnboundedSender<Out>);

impl ToClient {
    /// Sends `response` (once the writer has ended, nothing is sent).
    pub fn send(&self, response: &Response) {
        let body = serde_json::to_vec(response).expect("a response serializes");
        let _ = self.0.send(Out::Frame(frame(&body)));
    }
}

/// What tower-lsp-server writes into: its bytes, cut into frames for the writer.
pub struct Outbox {
    splitter: Splitter,
    to: UnboundedSender<Out>,
}

impl AsyncWrite for Outbox {
    fn poll_write(
        self: Pin<&mut Self>,
        _: &mut Context<'_>,
        buf: &[u8],
    ) -> Poll<io::Result<usize>> {
        let this = self.get_mut();
        this.splitter.push(buf);
        while let Some(split) = this.splitter.next() {
            let frame = match split {
                Split::Body(body) => frame(&body),
                Split::Damaged(why) => {
                    eprintln!("costline: the transport wrote something that is not a frame: {why}");
                    continue;
                }
            };
            if this.to.send(Out::Frame(frame)).is_err() {
                return Poll::Ready(Err(io::ErrorKind::BrokenPipe.into()));
            }
        }
        Poll::Ready(Ok(buf.len()))
    }

    fn poll_flush(self: Pin<&mut Self>, _: &mut Context<'_>) -> Poll<io::Result<()>> {
        Poll::Ready(Ok(()))
    }

    fn poll_shutdown(self: Pin<&mut Self>, _: &mut Context<'_>) -> Poll<io::Result<()>> {
        Poll::Ready(Ok(()))
    }
}

impl Drop for Outbox {
    fn drop(&mut self) {
        let _ = self.to.send(Out::End);
    }
}

/// Starts the writer on `output`: returns the input's way to the client, the
/// transport's, and the writer task, which ends once the [`Outbox`] is dropped and
/// everything it was given is written.
pub fn start<W>(output: W) -> (ToClient, Outbox, JoinHandle<()>)
where
    W: AsyncWrite + Unpin + Send + 'static,
{
    let (to, frames) = unbounded_channel();
    let writer = tokio::spawn(write(output, frames));
    let outbox = Outbox {
        splitter: Splitter::default(),
        to: to.clone(),
    };
    (ToClient(to), outbox, writer)
}

/// Writes frames to `output` until [`Out::End`] (or an error: the client is gone),
/// flushing whenever none is waiting.
async fn write<W: AsyncWrite + Unpin>(mut output: W, mut frames: UnboundedReceiver<Out>) {
    while let Some(Out::Frame(frame)) = frames.recv().await {
        if output.write_all(&frame).await.is_err() {
            return;
        }
        if frames.is_empty() && output.flush().await.is_err() {
            return;
        }
    }
    let _ = output.flush().await;
}

/// `body` framed.
pub fn frame(body: &[u8]) -> Vec<u8> {
    let mut frame = format!("Content-Length: {}\r\n\r\n", body.len()).into_bytes();
    frame.extend_from_slice(body);
    frame
}
