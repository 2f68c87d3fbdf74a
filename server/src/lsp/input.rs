//! The server's input. A task reads stdin for as long as it is open, however many
//! requests are pending, splits it into frames ([`Splitter`]), checks each body
//! ([`message::check`]) and passes the messages on to tower-lsp-server through an
//! unbounded channel ([`Inbox`]); what is not a message is answered with an error
//! (id null), and reading goes on.
//!
//! The transport stops reading while its queue of requests is full, so everything
//! that must act at once is done here, where it is read: `$/cancelRequest` and
//! `shutdown` cancel pending requests ([`InFlight`]), and `exit` or the end of input
//! notifies `exit`, which ends the server (a handler still waiting on a long analysis
//! must not keep it).

use super::frames::{Split, Splitter};
use super::inflight::InFlight;
use super::message::{self, Body};
use super::output::{ToClient, frame};
use serde::Deserialize;
use std::io;
use std::pin::Pin;
use std::sync::Arc;
use std::task::{Context, Poll, ready};
use tokio::io::{AsyncRead, AsyncReadExt, ReadBuf};
use tokio::sync::Notify;
use tokio::sync::mpsc::{UnboundedReceiver, UnboundedSender, unbounded_channel};
use tower_lsp_server::jsonrpc::{Error, ErrorCode, Id, Request, Response};

/// How much is read from stdin at a time.
const CHUNK: usize = 64 << 10;

/// What the reader acts on besides passing messages on.
pub struct Input {
    /// The requests pending.
    pub inflight: Arc<InFlight>,
    /// Where its own answers go.
    pub to_client: ToClient,
    /// Notified on `exit` and at the end of input.
    pub exit: Arc<Notify>,
}

/// Starts reading `stdin`; returns what tower-lsp-server reads its messages from.
pub fn start<R>(stdin: R, input: Input) -> Inbox
where
    R: AsyncRead + Unpin + Send + 'static,
{
    let (messages, inbox) = unbounded_channel();
    tokio::spawn(input.read(stdin, messages));
    Inbox {
        frames: inbox,
        frame: Vec::new(),
        at: 0,
    }
}

impl Input {
    /// Reads `stdin` to its end (a read error counts as the end), passing messages
    /// on to `messages`.
    async fn read<R: AsyncRead + Unpin>(self, mut stdin: R, messages: UnboundedSender<Vec<u8>>) {
        let mut splitter = Splitter::default();
        let mut chunk = vec![0; CHUNK];
        while let Ok(n @ 1..) = stdin.read(&mut chunk).await {
            splitter.push(&chunk[..n]);
            while let Some(split) = splitter.next() {
                self.take(split, &messages);
            }
        }
        self.exit.notify_one();
    }

    /// Passes a frame's message on to `messages` (after acting on it), or answers
    /// what is not one.
    fn take(&self, split: Split, messages: &UnboundedSender<Vec<u8>>) {
        let body = match split {
            Split::Body(body) => message::check(body),
            Split::Damaged(why) => Body::Rejected(Error {
                code: ErrorCode::ParseError,
                message: format!("costline: not an LSP frame: {why}").into(),
                data: None,
            }),
        };
        match body {
            Body::Message(body, request) => {
                if let Some(request) = &request {
                    self.act(request);
                }
                let _ = messages.send(frame(&body));
                if request.is_some_and(|r| r.method() == "exit") {
                    self.exit.notify_one();
                }
            }
            Body::Rejected(error) => {
                eprintln!("{}", error.message);
                self.to_client.send(&Response::from_error(Id::Null, error));
            }
        }
    }

    /// Does at once what `request` asks of the requests pending, and notes it if it
    /// awaits an answer.
    fn act(&self, request: &Request) {
        match request.method() {
            "$/cancelRequest" => {
                let id = request
                    .params()
                    .and_then(|p| Id::deserialize(p.get("id")?).ok());
                if let Some(id) = id
                    && self.inflight.cancel(&id)
                {
                    self.cancelled(id);
                }
            }
            // The client is leaving: answers to what it asked before would only delay
            // the answer to `shutdown`.
            "shutdown" => self
                .inflight
                .cancel_all()
                .into_iter()
                .for_each(|id| self.cancelled(id)),
            _ => {}
        }
        if let Some(id) = request.id() {
            self.inflight.read(id.clone());
        }
    }

    /// Answers request `id` as cancelled.
    fn cancelled(&self, id: Id) {
        self.to_client
            .send(&Response::from_error(id, Error::request_cancelled()));
    }
}

/// The messages read, framed again, as the byte stream tower-lsp-server reads.
pub struct Inbox {
    frames: UnboundedReceiver<Vec<u8>>,
    /// The frame being read, and how much of it was.
    frame: Vec<u8>,
    at: usize,
}

impl AsyncRead for Inbox {
    fn poll_read(
        self: Pin<&mut Self>,
        cx: &mut Context<'_>,
        buf: &mut ReadBuf<'_>,
    ) -> Poll<io::Result<()>> {
        let this = self.get_mut();
        while this.at == this.frame.len() {
            match ready!(this.frames.poll_recv(cx)) {
                Some(frame) => {
                    this.frame = frame;
                    this.at = 0;
                }
                // The end of input.
                None => return Poll::Ready(Ok(())),
            }
        }
        let n = buf.remaining().min(this.frame.len() - this.at);
        buf.put_slice(&this.frame[this.at..this.at + n]);
        this.at += n;
        Poll::Ready(Ok(()))
    }
}
