//! `costline serve`: the language server on stdio (tower-lsp-server on a tokio
//! runtime; analysis on the blocking pool and a dedicated analysis thread).

mod backend;
mod compiles;
mod convert;
mod documents;
mod frames;
mod guard;
mod inflight;
mod input;
mod memory;
mod message;
mod output;
mod worker;

use backend::Backend;
use guard::Guarded;
use inflight::InFlight;
use input::Input;
use std::any::Any;
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::Duration;
use tokio::sync::Notify;
use tower_lsp_server::{LspService, Server};

/// Handlers that may run at once (`$/cancelRequest` and `shutdown` do not wait for a
/// free one: the input acts on them as it reads them).
const CONCURRENCY: usize = 16;

/// Serves until the client sends `exit` (or closes stdin); the exit code is 0 only
/// after a `shutdown` request, as the protocol asks.
pub fn serve() -> i32 {
    let runtime = tokio::runtime::Builder::new_multi_thread()
        .enable_all()
        .thread_stack_size(costline_ide::ANALYSIS_STACK)
        .build()
        .expect("a tokio runtime");
    let code = runtime.block_on(async {
        let shut_down = Arc::new(AtomicBool::new(false));
        let flag = shut_down.clone();
        let (service, socket) = LspService::build(move |client| Backend::new(client, flag.clone()))
            .custom_method("costline/crashAnalysis", Backend::crash_analysis)
            .custom_method("costline/machines", Backend::list_machines)
            .finish();
        let exit = Arc::new(Notify::new());
        let inflight = Arc::new(InFlight::default());
        let (to_client, outbox, writer) = output::start(tokio::io::stdout());
        let input = Input {
            inflight: inflight.clone(),
            to_client,
            exit: exit.clone(),
        };
        let inbox = input::start(tokio::io::stdin(), input);
        let service = Guarded {
            inner: service,
            inflight,
        };
        let serve = async move {
            Server::new(inbox, outbox, socket)
                .concurrency_level(CONCURRENCY)
                .serve(service)
                .await;
            // What the transport wrote before it ended reaches the client.
            let _ = writer.await;
        };
        // After `exit` or the end of input, a handler still waiting on the client or on
        // a long analysis must not keep the process.
        let grace = async move {
            exit.notified().await;
            tokio::time::sleep(Duration::from_millis(500)).await;
        };
        futures::future::select(std::pin::pin!(serve), std::pin::pin!(grace)).await;
        if shut_down.load(Ordering::SeqCst) {
            0
        } else {
            1
        }
    });
    // Dropping the runtime would wait for analyses still running on the blocking pool
    // (pricing distribution alternatives can take long): the client is gone, so leave
    // them behind and let the process end.
    runtime.shutdown_background();
    code
}

/// The message of a panic's payload.
fn panic_message(payload: &(dyn Any + Send)) -> String {
    payload
        .downcast_ref::<&str>()
        .map(|s| s.to_string())
        .or_else(|| payload.downcast_ref::<String>().cloned())
        .unwrap_or_else(|| "unknown panic".into())
}
