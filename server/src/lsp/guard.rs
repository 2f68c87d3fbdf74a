//! A layer around the language service: a handler that panics answers its request with
//! an internal error (and a log line on stderr) instead of taking the server down, and
//! a request cancelled while pending ([`InFlight`]) answers "cancelled" at once, or not
//! at all when the input answered it before the service took it.

use super::inflight::InFlight;
use futures::FutureExt;
use futures::future::{Abortable, BoxFuture};
use std::future::Future;
use std::panic::AssertUnwindSafe;
use std::sync::Arc;
use std::task::{Context, Poll};
use tower::Service;
use tower_lsp_server::jsonrpc::{Error, Request, Response};

pub struct Guarded<S> {
    pub inner: S,
    /// The requests pending, shared with the input.
    pub inflight: Arc<InFlight>,
}

impl<S> Service<Request> for Guarded<S>
where
    S: Service<Request, Response = Option<Response>>,
    S::Future: Send + 'static,
{
    type Response = Option<Response>;
    type Error = S::Error;
    type Future = BoxFuture<'static, Result<Option<Response>, S::Error>>;

    fn poll_ready(&mut self, cx: &mut Context<'_>) -> Poll<Result<(), S::Error>> {
        self.inner.poll_ready(cx)
    }

    fn call(&mut self, req: Request) -> Self::Future {
        let Some(id) = req.id().cloned() else {
            return Box::pin(self.call_caught(req));
        };
        let Some((registration, ticket)) = self.inflight.start(id.clone()) else {
            return Box::pin(async { Ok(None) });
        };
        let answer = self.call_caught(req);
        Box::pin(async move {
            let _ticket = ticket;
            Abortable::new(answer, registration)
                .await
                .unwrap_or_else(|_| Ok(Some(Response::from_error(id, Error::request_cancelled()))))
        })
    }
}

impl<S> Guarded<S>
where
    S: Service<Request, Response = Option<Response>>,
    S::Future: Send + 'static,
{
    /// Calls the inner service; a panic in the handler answers an internal error.
    fn call_caught(
        &mut self,
        req: Request,
    ) -> impl Future<Output = Result<Option<Response>, S::Error>> + Send + 'static {
        let id = req.id().cloned();
        let method = req.method().to_string();
        let fut = self.inner.call(req);
        async move {
            match AssertUnwindSafe(fut).catch_unwind().await {
                Ok(result) => result,
                Err(payload) => {
                    let why = super::panic_message(payload.as_ref());
                    eprintln!("costline: the {method} handler panicked: {why}");
                    let mut error = Error::internal_error();
                    error.message = format!("costline: {method} failed: {why}").into();
                    Ok(id.map(|id| Response::from_error(id, error)))
                }
            }
        }
    }
}
