//! Memory held while a run goes (issue 31 item 3): every queue of the model that nothing bounds
//! (an output port without `buffer_cells`, a source shaper, a credit fabric's inputs, the
//! frames and messages waiting in a host's CPU, in a UDP socket or a video sender, an ABR
//! virtual source's relay queue, a workload's records, a bundle monitor's cell times) takes
//! its memory from one budget per run as it grows; crossing it stops the run.
//!
//! The budget is the memory limit of the run ([`crate::scenario::memory_limit`]:
//! `run.max_memory_mb`, else `ATMSIM_MAX_MEMORY_MB`, else the memory available on the machine)
//! less the estimate made before the run ([`crate::scenario::estimate`], which covers what the
//! build allocates and what does not grow with the run's length). A queue is charged when it
//! reaches a new size it never had before (its *high-water mark*, counted in steps of
//! [`STEP`] items), or, for the queues outside the per-cell path, just before its storage
//! doubles. Nothing is given back when a queue shrinks: the budget counts the most each queue
//! ever held, which bounds what the process holds (a `VecDeque` keeps its room, a port's queue
//! gives back at most half of it at a time).
//!
//! Cost: nothing per cell where the size does not reach a new high (the port's and the
//! shaper's largest-queue statistics already test that); one comparison per push of the other
//! queues, which see one push per frame or message at most.
//!
//! While [`crate::Simulation::advance_bounded`] runs, what is left of the budget is a
//! thread-local value ([`Scope`]), so a queue deep inside an application or a transport charges
//! it without a reference to the simulation. A charge above what is left unwinds with an
//! [`OverBudget`] payload (`std::panic::resume_unwind`: no panic message, no hook), before the
//! queue grows; [`crate::Simulation::advance_checked`] catches it and turns it into an error
//! naming the component, and the simulation refuses to go on (its state is cut short).

use std::cell::Cell;
use std::collections::VecDeque;

/// Queues charged by high-water mark are charged every this many items.
pub const STEP: u32 = 1024;

/// What a cell waiting in an output port's queue can cost: 48 bytes in the queue's FIFO (or 56
/// on the link and 8 for its start time, at a port with computed departures), twice that for a
/// `VecDeque`'s room after it doubled.
pub const PORT_CELL_BYTES: u64 = 128;

/// A cell waiting in a source shaper or a credit fabric's input buffer, its room included.
pub const QUEUED_CELL_BYTES: u64 = 128;

thread_local! {
    /// Bytes the running simulation may still take; `u64::MAX` outside a run (no limit).
    static LEFT: Cell<u64> = const { Cell::new(u64::MAX) };
}

/// The payload a run unwinds with when a queue would take more than the budget has left.
#[derive(Clone, Debug)]
pub struct OverBudget {
    /// The component, in words ("the queue of output port h1->S").
    pub what: String,
    /// A key that limits the component, if it has one ("nodes[0].buffer_cells").
    pub key: Option<String>,
    /// What the component held when it crossed the limit, bytes.
    pub bytes: u64,
}

/// The budget of a run between two calls of `advance_bounded`: what is left of it, bytes.
#[derive(Clone, Debug)]
pub struct Budget {
    /// The memory limit, bytes, and where it comes from (`run.max_memory_mb`,
    /// `ATMSIM_MAX_MEMORY_MB`, the machine); `u64::MAX`: none.
    pub limit: u64,
    pub source: String,
    /// What the estimate made before the run counted, bytes.
    pub estimated: u64,
    /// What is left for the queues.
    pub left: u64,
    /// The error that stopped the run when a queue crossed the budget (the simulation goes
    /// no further then).
    pub stopped: Option<Stopped>,
}

/// Why a run stopped: a queue crossed the memory budget. `path` is the key to change
/// (`run.max_memory_mb`; empty when the limit is the environment variable's), `message` says
/// the rest (the front end turns it into a `ScenarioError`).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Stopped {
    pub path: String,
    pub message: String,
}

impl std::fmt::Display for Stopped {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        if self.path.is_empty() {
            write!(f, "{}", self.message)
        } else {
            write!(f, "{}: {}", self.path, self.message)
        }
    }
}

impl Budget {
    /// The run stops at `at_s` seconds because `over` crossed the budget: the error, kept for
    /// every later call.
    #[cold]
    pub fn stop(&mut self, over: &OverBudget, at_s: f64) -> Stopped {
        let mb = |bytes: u64| bytes.div_ceil(1 << 20);
        let (path, allowed, change) = match self.source.as_str() {
            "ATMSIM_MAX_MEMORY_MB" => (
                String::new(),
                format!("the {} MB allowed (ATMSIM_MAX_MEMORY_MB)", mb(self.limit)),
                "set ATMSIM_MAX_MEMORY_MB or run.max_memory_mb to allow more",
            ),
            "run.max_memory_mb" => (
                "run.max_memory_mb".to_string(),
                format!("the {} MB allowed (run.max_memory_mb)", mb(self.limit)),
                "set run.max_memory_mb to allow more",
            ),
            _ => (
                "run.max_memory_mb".to_string(),
                format!("the {} MB available on this machine", mb(self.limit)),
                "run shorter or slower sources, or on a machine with more memory",
            ),
        };
        let limit = match &over.key {
            Some(k) => format!(", or limit it with {k}"),
            None => String::new(),
        };
        // the time to the picosecond, without trailing zeros
        let t = format!("{at_s:.12}");
        let t = t.trim_end_matches('0').trim_end_matches('.');
        let e = Stopped {
            path,
            message: format!(
                "the run stopped at {t} s, holding more memory than {allowed}: {} held {} MB (besides the {} MB estimated before the run); {change}{limit}",
                over.what,
                mb(over.bytes),
                mb(self.estimated),
            ),
        };
        self.stopped = Some(e.clone());
        e
    }
}

impl Default for Budget {
    fn default() -> Self {
        Budget {
            limit: u64::MAX,
            source: String::new(),
            estimated: 0,
            left: u64::MAX,
            stopped: None,
        }
    }
}

/// The budget installed on this thread while a simulation runs; dropping it (at the end of
/// the run's slice, or when it unwinds) puts back "no limit".
pub struct Scope(());

impl Scope {
    pub fn enter(left: u64) -> Scope {
        LEFT.with(|l| l.set(left));
        Scope(())
    }

    /// What is left now.
    pub fn left(&self) -> u64 {
        LEFT.with(|l| l.get())
    }
}

impl Drop for Scope {
    fn drop(&mut self) {
        LEFT.with(|l| l.set(u64::MAX));
    }
}

/// Take `bytes` from the budget for a component that grows; `who` describes it (called only
/// when the budget is crossed): (what, key that limits it, bytes it holds). Unwinds with
/// [`OverBudget`] when `bytes` is more than is left.
#[cold]
#[inline(never)]
pub fn take(bytes: u64, who: impl FnOnce() -> (String, Option<String>, u64)) {
    LEFT.with(|l| {
        let left = l.get();
        if bytes <= left {
            if left != u64::MAX {
                l.set(left - bytes);
            }
            return;
        }
        l.set(0);
        let (what, key, held) = who();
        std::panic::resume_unwind(Box::new(OverBudget {
            what,
            key,
            bytes: held,
        }));
    })
}

/// `q` is about to take one more item: when that makes it double its room, the added room is
/// charged first (`what` names the queue; it has no key of its own).
#[inline(always)]
pub fn deque_push<T>(q: &VecDeque<T>, what: &'static str) {
    if q.len() == q.capacity() {
        grow(q.capacity(), std::mem::size_of::<T>(), what);
    }
}

/// [`deque_push`] for a `Vec`.
#[inline(always)]
pub fn vec_push<T>(v: &Vec<T>, what: &'static str) {
    if v.len() == v.capacity() {
        grow(v.capacity(), std::mem::size_of::<T>(), what);
    }
}

#[cold]
#[inline(never)]
fn grow(capacity: usize, item: usize, what: &'static str) {
    // a full collection at least doubles (from 4 items when empty)
    let added = (capacity.max(4) * item.max(1)) as u64;
    take(added, || (what.to_string(), None, (capacity * item) as u64 + added));
}

#[cfg(test)]
mod tests {
    use super::*;

    fn over(f: impl FnOnce()) -> Option<OverBudget> {
        std::panic::catch_unwind(std::panic::AssertUnwindSafe(f))
            .err()
            .map(|p| *p.downcast::<OverBudget>().expect("an OverBudget payload"))
    }

    #[test]
    fn without_a_scope_nothing_is_limited() {
        take(u64::MAX - 1, || unreachable!());
        let q: VecDeque<u64> = VecDeque::new();
        deque_push(&q, "q");
    }

    #[test]
    fn a_charge_above_what_is_left_unwinds_and_the_scope_is_put_back() {
        {
            let s = Scope::enter(1000);
            take(600, || unreachable!());
            assert_eq!(s.left(), 400);
            let e = over(|| take(500, || ("the queue".into(), Some("k".into()), 7))).unwrap();
            assert_eq!((e.what.as_str(), e.key.as_deref(), e.bytes), ("the queue", Some("k"), 7));
        }
        assert_eq!(LEFT.with(|l| l.get()), u64::MAX);
    }

    #[test]
    fn a_deque_is_charged_before_it_doubles() {
        let _s = Scope::enter(10_000);
        let mut q: VecDeque<u64> = VecDeque::new();
        let e = over(|| loop {
            deque_push(&q, "a test queue");
            q.push_back(1);
        })
        .unwrap();
        assert_eq!(e.what, "a test queue");
        // about 10,000 bytes of u64 were taken before the budget ran out
        assert!(q.len() * 8 <= 10_000 && q.len() * 8 > 2_000, "{}", q.len());
    }
}
