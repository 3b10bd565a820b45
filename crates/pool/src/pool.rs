//! `Pool`: the threads, and the two ways to run a step on them.

use crate::Work;
use crate::job::Job;
use crate::pace::PieceClock;
use crate::shared::{Shared, Signal, Step, thread_main};
use std::sync::atomic::Ordering;
use std::sync::{Arc, Mutex};
use std::thread::JoinHandle;
use std::time::{Duration, Instant};

/// `threads - 1` workers, plus a stand-in for the caller's share in steps the caller does
/// not take part in (spawned on first use). One step at a time: `run` and `start` take
/// `&mut self`, and neither is allowed while a started step is in flight.
pub struct Pool {
    shared: Arc<Shared>,
    workers: Vec<JoinHandle<()>>,
    stand_in: Option<JoinHandle<()>>,
    /// The items of a step started by `start` that `wait` has not seen end, kept alive for
    /// the threads. Behind a lock only so that `Pool` is `Sync` whatever the items are: it
    /// is never locked.
    in_flight: Option<Mutex<Box<dyn Send>>>,
    /// Steps published so far: the number of the latest.
    steps: u64,
    /// Times the pieces of the thread that calls `run` or `wait`.
    caller_clock: PieceClock,
}

/// Aborts the process if dropped while unwinding. A caller that takes part in a step must
/// not unwind out of it while the threads may still use items it borrowed; the pool's own
/// code panics only on a bug of its own (an item's panics are caught), and waiting for the
/// step could then hang on an item the unwinding thread holds.
struct AbortOnUnwind;

impl Drop for AbortOnUnwind {
    fn drop(&mut self) {
        if std::thread::panicking() {
            std::process::abort();
        }
    }
}

impl Pool {
    /// A pool of `threads` threads (the caller's included; at least 1) for steps of
    /// `items` items.
    pub fn new(threads: usize, items: usize) -> Pool {
        let threads = threads.max(1);
        let shared = Arc::new(Shared::new(threads, items));
        let workers = (1..threads)
            .map(|own| {
                let shared = Arc::clone(&shared);
                std::thread::spawn(move || thread_main(&shared, own, Signal::Workers))
            })
            .collect();
        Pool {
            shared,
            workers,
            stand_in: None,
            in_flight: None,
            steps: 0,
            caller_clock: PieceClock::default(),
        }
    }

    /// Whether a step started by `start` has not been waited for to its end.
    pub fn in_flight(&self) -> bool {
        self.in_flight.is_some()
    }

    /// Publishes `job` as a new step and wakes the workers (and the stand-in if
    /// `with_stand_in`). The previous step has ended (every item counted out).
    fn publish(&mut self, job: Job, with_stand_in: bool) -> Step {
        assert!(
            job.len() == self.shared.items(),
            "a step of {} items for a pool of {}",
            job.len(),
            self.shared.items()
        );
        self.steps += 1;
        let step = Step {
            number: self.steps,
            job,
        };
        let shared = &*self.shared;
        shared.publish(step);
        shared.generations[Signal::Workers as usize].fetch_add(1, Ordering::Release);
        if with_stand_in {
            shared.generations[Signal::StandIn as usize].fetch_add(1, Ordering::Release);
        }
        // An atomic swap when the thread is spinning, not a syscall.
        for worker in &self.workers {
            worker.thread().unpark();
        }
        if with_stand_in && let Some(stand_in) = &self.stand_in {
            stand_in.thread().unpark();
        }
        step
    }

    /// Runs every item of `items` (`begin`, `pieces` pieces, `finish`) on the calling thread
    /// and the workers, and returns when all are done. False if any item's work panicked
    /// (the others ran to their end).
    ///
    /// # Panics
    /// If `items` is not as long as the pool was made for, or a started step is in flight.
    pub fn run<T: Work>(&mut self, items: &mut [T], pieces: u64) -> bool {
        assert!(
            self.in_flight.is_none(),
            "a started step must be waited for first"
        );
        let step = self.publish(Job::new(items, pieces), false);
        let shared = &*self.shared;
        let guard = AbortOnUnwind;
        shared.work(step, 0, &mut self.caller_clock);
        // Every item must be done before the borrow of `items` ends.
        shared.wait_for_step(None);
        std::mem::forget(guard);
        !shared.panicked()
    }

    /// Starts running every item of `items` (as `run` does) on the workers and the stand-in,
    /// and returns at once. The pool keeps `items` until the step ends.
    ///
    /// # Safety
    /// What the items borrow must stay valid, and be touched by nothing else, until `wait`
    /// has returned `Some` (or the pool has been dropped, which waits): the borrow checker
    /// sees those borrows end when this returns.
    ///
    /// # Panics
    /// If `items` is not as long as the pool was made for, or a started step is in flight.
    pub unsafe fn start<T: Work>(&mut self, mut items: Vec<T>, pieces: u64) {
        assert!(
            self.in_flight.is_none(),
            "a started step must be waited for first"
        );
        if self.stand_in.is_none() {
            let shared = Arc::clone(&self.shared);
            self.stand_in = Some(std::thread::spawn(move || {
                thread_main(&shared, 0, Signal::StandIn)
            }));
        }
        // Moving the Vec into the box keeps its heap buffer, which the job points into.
        let job = Job::new(&mut items, pieces);
        let items: Box<dyn Send + '_> = Box::new(items);
        // SAFETY: only the lifetime changes. The box is dropped by `wait` once the step has
        // ended, or by `drop`, which waits first; until then what its items borrow stays
        // valid by this function's contract.
        let items = unsafe { std::mem::transmute::<Box<dyn Send + '_>, Box<dyn Send>>(items) };
        self.publish(job, true);
        self.in_flight = Some(Mutex::new(items));
    }

    /// Waits for the step `start` began, at most `timeout` (None: to its end). `Some(ok)`
    /// once it has ended (`ok` false if any item's work panicked), the items then dropped;
    /// `None` if it is still running. `Some(true)` when no step is in flight.
    pub fn wait(&mut self, timeout: Option<Duration>) -> Option<bool> {
        if self.in_flight.is_none() {
            return Some(true);
        }
        let shared = &*self.shared;
        if timeout.is_none()
            && let Some(step) = shared.current()
        {
            // The caller has nothing else to do: it runs items no thread has claimed yet, so
            // a step whose threads fell behind (or were descheduled) ends sooner. Not with a
            // timeout, which one item's piece could overrun.
            let guard = AbortOnUnwind;
            shared.work(step, 0, &mut self.caller_clock);
            std::mem::forget(guard);
        }
        let deadline = timeout.map(|t| Instant::now() + t);
        if !shared.wait_for_step(deadline) {
            return None;
        }
        self.in_flight = None;
        Some(!shared.panicked())
    }
}

impl Drop for Pool {
    fn drop(&mut self) {
        // A started step still uses items whose borrows end with the pool.
        self.wait(None);
        let shared = &*self.shared;
        shared.set_current(None);
        shared.shutdown.store(true, Ordering::Release);
        for generation in &shared.generations {
            generation.fetch_add(1, Ordering::Release);
        }
        for thread in self.workers.drain(..).chain(self.stand_in.take()) {
            thread.thread().unpark();
            let _ = thread.join();
        }
    }
}
