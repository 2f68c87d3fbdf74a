//! A layer around the language service: a handler that panics answers its request with
//! an internal error (and a log line on stderr) instead of taking the server down.

use futures::FutureExt;
use futures::future::BoxFuture;
use std::panic::AssertUnwindSafe;
use std::task::{Context, Poll};
use tower::Service;
use tower_lsp_server::jsonrpc::{Error, Request, Response};

pub struct Guarded<S> {
    pub inner: S,
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
        let id = req.id().cloned();
        let method = req.method().to_string();
        let fut = self.inner.call(req);
        Box::pin(async move {
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
        })
    }
}
