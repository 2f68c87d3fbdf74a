//! The processes' MPI calls replayed together, each with its own clock: a receive
//! completes when its message arrives, a rendezvous send when its receiver takes it, a
//! collective when the last process arrives; so a token passed around a ring costs P
//! messages on the critical path, and a master that deals small messages to its
//! workers does not wait for them to arrive.
//!
//! A message of b bytes takes t(b) = α + β·b (the caller's pricing, as latency α and
//! serialization β·b). It moves once both sides have posted it — sent at t_s, its
//! receive posted at t_r, it starts at max(t_s, t_r), as SimGrid's SMPI moves it (an
//! eager MPI library may move it earlier, into an unexpected-message buffer) — and
//! each process's link carries one message's bytes at a time, out and in: a master
//! sending to P − 1 workers at once pays (P − 1)·β·b on its link. The receive
//! completes at the end; the send
//! - below [`EAGER_LIMIT_BYTES`] is eager (detached): the sender goes on at t_s;
//! - from it on is a rendezvous: the sender completes with the receiver.
//!
//! Messages between two processes are matched in order (MPI's non-overtaking rule;
//! tags are not told apart). A collective over all processes ends for every one of
//! them at the last arrival plus its algorithm's critical path. Computation takes no
//! time: the clocks measure communication and the waiting it causes.
//!
//! A process waiting for a partner that never comes (a branch taken on another
//! process with some probability, a peer the model could not name) does not stall the
//! replay: its transfer is priced as if the partner were waiting, and counted in
//! [`Replay::unmatched`].

use costline_syntax::ir::StmtId;
use std::cmp::Reverse;
use std::collections::{BinaryHeap, HashMap, VecDeque};

/// Messages from this size on are sent by rendezvous: SMPI's
/// `smpi/send-is-detached-thresh` and the eager limits of MPICH's and Open MPI's TCP
/// transports, 64 KiB.
pub const EAGER_LIMIT_BYTES: f64 = 65536.0;

/// One thing a process does.
#[derive(Clone, Debug, PartialEq)]
pub enum Event {
    /// Starts sending `bytes` to process `peer` (an ISEND; a blocking send is a start
    /// and a wait).
    Send { peer: usize, bytes: f64 },
    /// Starts receiving `bytes` from process `peer`.
    Recv { peer: usize, bytes: f64 },
    /// Waits for the last `last` transfers this process started, or (`None`) for all
    /// it has not waited for yet.
    Wait { last: Option<usize> },
    /// Waits for the transfers this process started as its `requests`-th (0-based, in
    /// the order of its Send and Recv events): an MPI_WAIT or MPI_WAITALL on them.
    WaitFor { requests: Vec<usize> },
    /// A collective over all processes, taking `path_s` after the last one arrives.
    Collective { path_s: f64 },
    /// A collective over the `size` processes of communicator `comm` (an identifier
    /// every member uses), taking `path_s` after the last member arrives.
    GroupCollective { comm: u64, size: usize, path_s: f64 },
    /// Time this process spends alone.
    Local { time_s: f64 },
}

/// An event and the statement it comes from.
#[derive(Clone, Debug, PartialEq)]
pub struct Step {
    pub stmt: StmtId,
    pub event: Event,
}

/// The result of a replay.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Replay {
    /// Each process's clock at its end.
    pub clocks: Vec<f64>,
    /// Time each process spent in each statement: `by_stmt[rank][stmt]`.
    pub by_stmt: Vec<HashMap<StmtId, f64>>,
    /// Transfers and collectives that found no partner and were priced alone.
    pub unmatched: usize,
}

/// A message's latency and serialization time (α, β·b) from process `from` to process
/// `to` (0-based; `to` past the last process: a peer that never came) for its size b
/// in bytes: [`super::cost::Network::price`].
pub type Price<'a> = &'a dyn Fn(usize, usize, f64) -> (f64, f64);

/// Replays `traces` (one per process, in program order) with messages priced by
/// `price`.
pub fn replay(traces: &[Vec<Step>], price: Price) -> Replay {
    let mut sim = Sim::new(traces, price);
    sim.run();
    Replay {
        clocks: sim.procs.iter().map(|p| p.clock).collect(),
        by_stmt: sim.procs.into_iter().map(|p| p.by_stmt).collect(),
        unmatched: sim.unmatched,
    }
}

/// A transfer one process started.
#[derive(Clone, Copy, Debug)]
struct Request {
    /// When it completes on this process, once known.
    done: Option<f64>,
    /// When it was started, its size and the peer (to price it alone if unmatched).
    posted: f64,
    bytes: f64,
    peer: usize,
}

/// A started transfer waiting for its partner: the process, its request and the time.
#[derive(Clone, Copy, Debug)]
struct Pending {
    rank: usize,
    request: usize,
    at: f64,
    bytes: f64,
}

#[derive(Default)]
struct Proc {
    pc: usize,
    clock: f64,
    requests: Vec<Request>,
    /// Started and not yet waited for, oldest first.
    outstanding: Vec<usize>,
    /// Collectives this process has left, by communicator.
    collectives: HashMap<u64, usize>,
    /// Whether it has arrived at the next one (and waits in it).
    arrived: bool,
    by_stmt: HashMap<StmtId, f64>,
}

struct Sim<'a> {
    traces: &'a [Vec<Step>],
    price: Price<'a>,
    procs: Vec<Proc>,
    /// When each process's link is free to carry bytes out, and in.
    out_free: Vec<f64>,
    in_free: Vec<f64>,
    /// Sends not yet received, by (sender, receiver).
    sends: HashMap<(usize, usize), VecDeque<Pending>>,
    /// Receives not yet matched, by (sender, receiver).
    recvs: HashMap<(usize, usize), VecDeque<Pending>>,
    /// Arrivals at the n-th collective of a communicator (time, path), and its end
    /// once all arrived.
    arrivals: HashMap<(u64, usize), Vec<(f64, f64)>>,
    ends: HashMap<(u64, usize), f64>,
    unmatched: usize,
}

impl<'a> Sim<'a> {
    fn new(traces: &'a [Vec<Step>], price: Price<'a>) -> Sim<'a> {
        Sim {
            traces,
            price,
            procs: traces.iter().map(|_| Proc::default()).collect(),
            out_free: vec![0.0; traces.len()],
            in_free: vec![0.0; traces.len()],
            sends: HashMap::new(),
            recvs: HashMap::new(),
            arrivals: HashMap::new(),
            ends: HashMap::new(),
            unmatched: 0,
        }
    }

    /// Steps the process with the earliest clock, one event at a time, so messages
    /// take the links in the order they start.
    fn run(&mut self) {
        let n = self.traces.len();
        let key = |clock: f64, r: usize| Reverse((clock.max(0.0).to_bits(), r));
        let mut ready: BinaryHeap<Reverse<(u64, usize)>> = (0..n).map(|r| key(0.0, r)).collect();
        let mut queued = vec![true; n];
        let mut woken = Vec::new();
        loop {
            while let Some(Reverse((_, r))) = ready.pop() {
                queued[r] = false;
                let moved = self.step(r, &mut woken);
                if moved && self.procs[r].pc < self.traces[r].len() {
                    woken.push(r);
                }
                for w in woken.drain(..) {
                    if !queued[w] {
                        queued[w] = true;
                        ready.push(key(self.procs[w].clock, w));
                    }
                }
            }
            // Everyone is at its end or waiting: free the earliest waiter, if any.
            let stuck = (0..n)
                .filter(|&r| self.procs[r].pc < self.traces[r].len())
                .min_by(|&a, &b| self.procs[a].clock.total_cmp(&self.procs[b].clock));
            let Some(r) = stuck else {
                return;
            };
            self.free(r);
            for (r, q) in queued.iter_mut().enumerate() {
                if self.procs[r].pc < self.traces[r].len() && !*q {
                    *q = true;
                    ready.push(key(self.procs[r].clock, r));
                }
            }
        }
    }

    /// Runs process `r`'s next event; whether it moved on (else it waits). The
    /// processes its event woke are added to `woken`.
    fn step(&mut self, r: usize, woken: &mut Vec<usize>) -> bool {
        let Some(step) = self.traces[r].get(self.procs[r].pc) else {
            return false;
        };
        let before = self.procs[r].clock;
        match &step.event {
            Event::Send { peer, bytes } => self.start(r, *peer, *bytes, true, woken),
            Event::Recv { peer, bytes } => self.start(r, *peer, *bytes, false, woken),
            Event::Wait { last } => {
                let p = &self.procs[r];
                let from = match last {
                    Some(k) => p.outstanding.len().saturating_sub(*k),
                    None => 0,
                };
                let waited = p.outstanding[from..].to_vec();
                if !self.wait(r, &waited) {
                    return false;
                }
            }
            Event::WaitFor { requests } => {
                if !self.wait(r, requests) {
                    return false;
                }
            }
            Event::Collective { path_s } => {
                let n = self.traces.len();
                if !self.collective(r, WORLD, n, *path_s, woken) {
                    return false;
                }
            }
            Event::GroupCollective { comm, size, path_s } => {
                if !self.collective(r, *comm, *size, *path_s, woken) {
                    return false;
                }
            }
            Event::Local { time_s } => self.procs[r].clock += time_s,
        }
        let p = &mut self.procs[r];
        *p.by_stmt.entry(step.stmt).or_default() += p.clock - before;
        p.pc += 1;
        true
    }

    /// Process `r` waits for its transfers `requests`: whether they are all done (its
    /// clock then moves to the last one's end and they are no longer outstanding).
    fn wait(&mut self, r: usize, requests: &[usize]) -> bool {
        let p = &mut self.procs[r];
        let mut end = p.clock;
        for &q in requests {
            match p.requests.get(q).map(|x| x.done) {
                Some(Some(t)) => end = end.max(t),
                Some(None) => return false,
                None => {}
            }
        }
        p.outstanding.retain(|q| !requests.contains(q));
        p.clock = end;
        true
    }

    /// Process `r` at its next collective on communicator `comm` of `size` members:
    /// whether the collective has ended (its clock then moves to the end).
    fn collective(
        &mut self,
        r: usize,
        comm: u64,
        size: usize,
        path_s: f64,
        woken: &mut Vec<usize>,
    ) -> bool {
        let p = &mut self.procs[r];
        let k = (comm, p.collectives.get(&comm).copied().unwrap_or(0));
        let mut end = self.ends.get(&k).copied();
        if !p.arrived {
            p.arrived = true;
            match end {
                // Freed without this process: it pays its own path.
                Some(e) => end = Some(e.max(p.clock + path_s)),
                None => {
                    let arrivals = self.arrivals.entry(k).or_default();
                    arrivals.push((p.clock, path_s));
                    if arrivals.len() >= size {
                        let e = close(arrivals);
                        end = Some(e);
                        self.ends.insert(k, e);
                        woken.extend(0..self.traces.len());
                    }
                }
            }
        }
        let Some(end) = end else {
            return false;
        };
        p.clock = p.clock.max(end);
        *p.collectives.entry(comm).or_default() += 1;
        p.arrived = false;
        true
    }

    /// Starts a transfer of process `r` with `peer` and matches it with the partner's
    /// if that was started already.
    fn start(&mut self, r: usize, peer: usize, bytes: f64, send: bool, woken: &mut Vec<usize>) {
        let p = &mut self.procs[r];
        let at = p.clock;
        let request = p.requests.len();
        p.requests.push(Request {
            done: None,
            posted: at,
            bytes,
            peer,
        });
        p.outstanding.push(request);
        if peer >= self.traces.len() {
            p.requests[request].done = Some(at + alone(self.price, r, peer, bytes));
            self.unmatched += 1;
            return;
        }
        if send && bytes < EAGER_LIMIT_BYTES {
            p.requests[request].done = Some(at);
        }
        let me = Pending {
            rank: r,
            request,
            at,
            bytes,
        };
        let key = if send { (r, peer) } else { (peer, r) };
        let (mine, theirs) = if send {
            (&mut self.sends, &mut self.recvs)
        } else {
            (&mut self.recvs, &mut self.sends)
        };
        match theirs.get_mut(&key).and_then(VecDeque::pop_front) {
            Some(other) if send => self.matched(me, other, woken),
            Some(other) => self.matched(other, me, woken),
            None => mine.entry(key).or_default().push_back(me),
        }
    }

    /// A send meets its receive.
    fn matched(&mut self, send: Pending, recv: Pending, woken: &mut Vec<usize>) {
        let (from, to) = (send.rank, recv.rank);
        let (latency, bytes) = (self.price)(from, to, send.bytes);
        let start = send
            .at
            .max(recv.at)
            .max(self.out_free[from])
            .max(self.in_free[to]);
        self.out_free[from] = start + bytes;
        self.in_free[to] = start + bytes;
        let end = start + latency + bytes;
        if send.bytes >= EAGER_LIMIT_BYTES {
            self.procs[from].requests[send.request].done = Some(end);
            woken.push(from);
        }
        self.procs[to].requests[recv.request].done = Some(end);
        woken.push(to);
    }

    /// Process `r` waits for a partner no process will be: its transfers are priced
    /// alone, or the collective it waits in ends with the processes that came.
    fn free(&mut self, r: usize) {
        self.unmatched += 1;
        let p = &mut self.procs[r];
        if p.arrived {
            let comm = match self.traces[r].get(p.pc).map(|s| &s.event) {
                Some(Event::GroupCollective { comm, .. }) => *comm,
                _ => WORLD,
            };
            let k = (comm, p.collectives.get(&comm).copied().unwrap_or(0));
            let end = close(self.arrivals.get(&k).map_or(&[][..], Vec::as_slice));
            self.ends.insert(k, end);
            return;
        }
        for &q in &p.outstanding {
            let req = &mut p.requests[q];
            if req.done.is_none() {
                req.done = Some(req.posted + alone(self.price, r, req.peer, req.bytes));
                for queue in self.sends.values_mut().chain(self.recvs.values_mut()) {
                    queue.retain(|x| !(x.rank == r && x.request == q));
                }
            }
        }
    }
}

/// The identifier of the collectives over all processes ([`Event::Collective`]).
const WORLD: u64 = u64::MAX;

/// A message's time when nothing else is in the way: α + β·b.
fn alone(price: Price, from: usize, to: usize, bytes: f64) -> f64 {
    let (latency, serialization) = price(from, to, bytes);
    latency + serialization
}

/// The end of a collective: the last arrival plus the longest critical path.
fn close(arrivals: &[(f64, f64)]) -> f64 {
    let last = arrivals.iter().map(|a| a.0).fold(0.0, f64::max);
    let path = arrivals.iter().map(|a| a.1).fold(0.0, f64::max);
    last + path
}

#[cfg(test)]
mod tests {
    use super::*;

    const S: StmtId = StmtId(0);

    fn step(event: Event) -> Step {
        Step { stmt: S, event }
    }

    fn send(peer: usize, bytes: f64) -> Vec<Step> {
        vec![
            step(Event::Send { peer, bytes }),
            step(Event::Wait { last: Some(1) }),
        ]
    }

    fn recv(peer: usize, bytes: f64) -> Vec<Step> {
        vec![
            step(Event::Recv { peer, bytes }),
            step(Event::Wait { last: Some(1) }),
        ]
    }

    /// α = 1 s, β = 1 s per byte.
    fn unit(_from: usize, _to: usize, b: f64) -> (f64, f64) {
        (1.0, b)
    }

    #[test]
    fn a_token_around_a_ring_costs_one_message_per_process() {
        let p = 5;
        let mut traces = vec![[send(1, 1.0), recv(p - 1, 1.0)].concat()];
        for r in 1..p {
            traces.push([recv(r - 1, 1.0), send((r + 1) % p, 1.0)].concat());
        }
        let out = replay(&traces, &unit);
        assert_eq!(out.clocks[0], 2.0 * p as f64);
        assert_eq!(out.clocks[p - 1], 2.0 * (p - 1) as f64);
        assert_eq!(out.unmatched, 0);
    }

    #[test]
    fn an_eager_sender_goes_on_and_a_rendezvous_sender_waits_for_its_receiver() {
        // The receiver is busy for 10 s before it posts its receive.
        let late = [vec![step(Event::Local { time_s: 10.0 })], recv(0, 1.0)].concat();
        let out = replay(&[send(1, 1.0), late.clone()], &unit);
        assert_eq!(out.clocks, vec![0.0, 12.0]);
        let big = EAGER_LIMIT_BYTES;
        let late = [vec![step(Event::Local { time_s: 10.0 })], recv(0, big)].concat();
        let out = replay(&[send(1, big), late], &unit);
        assert_eq!(out.clocks, vec![11.0 + big, 11.0 + big]);
    }

    #[test]
    fn a_master_takes_its_workers_results_one_receive_after_the_other() {
        let p = 4;
        let mut master = Vec::new();
        for w in 1..p {
            master.extend(send(w, 8.0));
        }
        for w in 1..p {
            master.extend(recv(w, 8.0));
        }
        let mut traces = vec![master];
        for _ in 1..p {
            traces.push([recv(0, 8.0), send(0, 8.0)].concat());
        }
        // α = 1 s, no time per byte: the tasks arrive at 1, the results one by one.
        let out = replay(&traces, &|_, _, _| (1.0, 0.0));
        assert_eq!(out.clocks[0], 1.0 + (p - 1) as f64);
        assert_eq!(out.clocks[1], 1.0);
    }

    #[test]
    fn a_link_carries_one_message_at_a_time() {
        let master = [send(1, 10.0), send(2, 10.0), send(3, 10.0)].concat();
        let traces = vec![master, recv(0, 10.0), recv(0, 10.0), recv(0, 10.0)];
        let out = replay(&traces, &unit);
        assert_eq!(out.clocks, vec![0.0, 11.0, 21.0, 31.0]);
    }

    #[test]
    fn nonblocking_transfers_overlap_until_their_wait() {
        let both = |peer| {
            vec![
                step(Event::Recv { peer, bytes: 4.0 }),
                step(Event::Send { peer, bytes: 4.0 }),
                step(Event::Wait { last: None }),
            ]
        };
        let out = replay(&[both(1), both(0)], &unit);
        assert_eq!(out.clocks, vec![5.0, 5.0]);
    }

    #[test]
    fn a_collective_ends_for_all_at_the_last_arrival_plus_its_path() {
        let c = step(Event::Collective { path_s: 3.0 });
        let traces = vec![
            vec![step(Event::Local { time_s: 2.0 }), c.clone()],
            vec![c.clone()],
        ];
        let out = replay(&traces, &unit);
        assert_eq!(out.clocks, vec![5.0, 5.0]);
        assert_eq!(out.by_stmt[1][&S], 5.0);
    }

    #[test]
    fn a_receive_without_a_sender_is_priced_alone_and_counted() {
        let c = step(Event::Collective { path_s: 1.0 });
        let traces = vec![[recv(1, 2.0), vec![c.clone()]].concat(), vec![c]];
        let out = replay(&traces, &unit);
        assert_eq!(out.clocks, vec![4.0, 4.0]);
        assert_eq!(out.unmatched, 1);
        // A process missing from a collective: the others end it without it.
        let lone = vec![vec![step(Event::Collective { path_s: 1.0 })], vec![]];
        let out = replay(&lone, &unit);
        assert_eq!(out.clocks, vec![1.0, 0.0]);
        assert_eq!(out.unmatched, 1);
    }
}
