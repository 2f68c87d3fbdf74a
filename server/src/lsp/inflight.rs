//! The requests read from the client and not answered yet, by id, so that
//! `$/cancelRequest` and `shutdown` act on them as soon as they are read. In
//! tower-lsp-server a cancellation runs as a handler of its own, queued behind every
//! request read before it: with hundreds of slow requests pending it would come after
//! them all, and so would the answer to `shutdown`.

use futures::future::{AbortHandle, AbortRegistration};
use std::collections::HashMap;
use std::sync::{Arc, Mutex, MutexGuard};
use tower_lsp_server::jsonrpc::Id;

/// Where a request is.
enum Slot {
    /// Read, not handed to the service yet.
    Queued,
    /// Cancelled before the service took it, and answered: it must not run.
    Answered,
    /// Handed to the service; aborting it answers "cancelled".
    Running(AbortHandle),
}

/// The requests between the input and their answer.
#[derive(Default)]
pub struct InFlight(Mutex<HashMap<Id, Slot>>);

/// A request the service took: its entry ends when the ticket is dropped.
pub struct Ticket {
    inflight: Arc<InFlight>,
    id: Id,
}

impl InFlight {
    /// Notes a request read from the client (a duplicate id keeps the first entry).
    pub fn read(&self, id: Id) {
        self.slots().entry(id).or_insert(Slot::Queued);
    }

    /// Cancels request `id`; true when the caller must answer it (the service had not
    /// taken it, and will not run it).
    pub fn cancel(&self, id: &Id) -> bool {
        match self.slots().get_mut(id) {
            Some(slot @ Slot::Queued) => {
                *slot = Slot::Answered;
                true
            }
            Some(Slot::Running(handle)) => {
                handle.abort();
                false
            }
            Some(Slot::Answered) | None => false,
        }
    }

    /// Cancels every request read so far; returns those the caller must answer.
    pub fn cancel_all(&self) -> Vec<Id> {
        let mut to_answer = Vec::new();
        for (id, slot) in self.slots().iter_mut() {
            match slot {
                Slot::Queued => {
                    *slot = Slot::Answered;
                    to_answer.push(id.clone());
                }
                Slot::Running(handle) => handle.abort(),
                Slot::Answered => {}
            }
        }
        to_answer
    }

    /// The service takes request `id`: what aborts it when it is cancelled, and its
    /// ticket; `None` when it was answered already.
    pub fn start(self: &Arc<Self>, id: Id) -> Option<(AbortRegistration, Ticket)> {
        let mut slots = self.slots();
        if let Some(Slot::Answered) = slots.get(&id) {
            slots.remove(&id);
            return None;
        }
        let (handle, registration) = AbortHandle::new_pair();
        slots.insert(id.clone(), Slot::Running(handle));
        let ticket = Ticket {
            inflight: self.clone(),
            id,
        };
        Some((registration, ticket))
    }

    /// The entries, locked.
    fn slots(&self) -> MutexGuard<'_, HashMap<Id, Slot>> {
        self.0.lock().unwrap_or_else(|e| e.into_inner())
    }
}

impl Drop for Ticket {
    fn drop(&mut self) {
        self.inflight.slots().remove(&self.id);
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use futures::FutureExt;
    use futures::future::{Abortable, pending};

    #[test]
    fn a_queued_request_is_answered_by_the_canceller_and_never_runs() {
        let f = Arc::new(InFlight::default());
        f.read(Id::Number(1));
        f.read(Id::Number(2));
        assert!(f.cancel(&Id::Number(1)));
        assert!(!f.cancel(&Id::Number(1)), "answered once");
        assert!(f.start(Id::Number(1)).is_none());
        assert_eq!(f.cancel_all(), vec![Id::Number(2)]);
        assert!(f.start(Id::Number(2)).is_none());
        assert!(f.slots().is_empty());
        assert!(!f.cancel(&Id::Number(3)), "unknown ids are ignored");
    }

    #[test]
    fn a_running_request_is_aborted_and_its_entry_ends_with_it() {
        let f = Arc::new(InFlight::default());
        f.read(Id::String("a".into()));
        let (registration, ticket) = f.start(Id::String("a".into())).expect("runs");
        let run = Abortable::new(pending::<()>(), registration);
        assert!(!f.cancel(&Id::String("a".into())), "the service answers it");
        assert!(matches!(run.now_or_never(), Some(Err(_))), "aborted");
        drop(ticket);
        assert!(f.slots().is_empty());
    }
}
