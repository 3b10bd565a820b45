//! `Pool`: worker threads kept alive across `VectorGameBoy.step` calls. A step wakes them
//! through one shared generation counter (a worker spins on it briefly, then parks) and
//! waits for them on one shared countdown, so its fixed cost is a few atomic operations
//! rather than channel messages and syscalls.
//!
//! Work split: thread t (the caller is thread 0) owns the contiguous chunk
//! `t * n / threads .. (t + 1) * n / threads` of the envs and steps it front to back, so an
//! env runs on the same core step after step and its state stays in that core's cache.
//! A thread that finishes its chunk takes the remaining envs of the other chunks from the
//! same per-chunk counters, so a core lost to another process for a while costs only what
//! the other threads cannot take over.
//!
//! Measured (issue 16, `benches/vector_speed.py`, two-CPU virtual machine): with its threads
//! safe from preemption (`chrt -f 1`) the pool scales 0.95 to 1.0 from one thread to two at
//! 2, 8 and 64 envs, as two separate processes do. What costs scaling on a shared machine
//! is the barrier: another process holding one thread's CPU mid-step leaves the other
//! waiting, which stealing can shorten only when there are envs left to take.

use crate::vector::{Env, Observation, step_env};
use std::cell::UnsafeCell;
use std::panic::{AssertUnwindSafe, catch_unwind};
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, AtomicU64, AtomicUsize, Ordering};
use std::thread::{JoinHandle, Thread};
use std::time::{Duration, Instant};

/// How long a thread spins for the next step (a worker) or for the workers to finish (the
/// caller) before it parks. Waking a parked thread costs tens of microseconds in a virtual
/// machine, against steps of about a millisecond at two envs and four frames; the gap
/// between two steps of a training loop is usually shorter than this, and an idle pool
/// stops spinning after it.
const SPIN: Duration = Duration::from_micros(300);

/// Keeps a value on cache lines of its own, so that two threads writing neighbouring
/// values do not contend for one line (128 bytes: adjacent-line prefetch pairs lines).
#[repr(align(128))]
pub(crate) struct CachePadded<T>(pub(crate) T);

impl<T> std::ops::Deref for CachePadded<T> {
    type Target = T;
    fn deref(&self) -> &T {
        &self.0
    }
}

impl<T> std::ops::DerefMut for CachePadded<T> {
    fn deref_mut(&mut self) -> &mut T {
        &mut self.0
    }
}

/// One step's work. Raw pointers because the workers outlive any borrow: `Pool::run` does
/// not return before every worker has reported the step done, so the memory stays valid
/// while a worker uses it, and each env index is claimed from its chunk's counter by
/// exactly one thread, so no env or row is ever touched by two.
#[derive(Clone, Copy)]
struct Job {
    envs: *mut Env,
    buttons: *const u8,
    rows: *mut u8,
    len: usize,
    frames: u64,
    observation: Observation,
}

/// State the caller and the workers share.
struct Shared {
    /// Bumped by the caller to start a step (and once more to shut down).
    generation: CachePadded<AtomicU64>,
    /// Workers still busy with the current step.
    running: CachePadded<AtomicUsize>,
    /// Per chunk: the next env index to claim.
    next: Box<[CachePadded<AtomicUsize>]>,
    /// The current step's work: written by the caller only while no worker is running a
    /// step, read by the workers after they see the generation change.
    job: UnsafeCell<Option<Job>>,
    /// The thread running the current step (any Python thread may call `step`): the last
    /// worker to finish unparks it. Written and read as `job` is.
    caller: UnsafeCell<Option<Thread>>,
    shutdown: AtomicBool,
    panicked: AtomicBool,
}

// Safety: `job` is written only between steps (no worker reads it then: each has counted
// itself out of `running`, which the caller observed with Acquire before writing) and read
// only after the Release bump of `generation` that published it. The raw pointers in `Job`
// follow the rules given there.
unsafe impl Sync for Shared {}
unsafe impl Send for Shared {}

impl Shared {
    /// The envs of chunk `chunk`: `start..end`.
    fn chunk(&self, chunk: usize, len: usize) -> (usize, usize) {
        let chunks = self.next.len();
        (chunk * len / chunks, (chunk + 1) * len / chunks)
    }

    /// Steps the envs of `own` chunk, then whatever the other chunks have left.
    fn work(&self, job: Job, own: usize) {
        let chunks = self.next.len();
        let row_bytes = job.observation.row_bytes();
        for k in 0..chunks {
            let chunk = (own + k) % chunks;
            let (_, end) = self.chunk(chunk, job.len);
            loop {
                let i = self.next[chunk].fetch_add(1, Ordering::Relaxed);
                if i >= end {
                    break;
                }
                // Safety: `i < len`, and index `i` is this thread's alone (see `Job`).
                let (env, pressed, row) = unsafe {
                    (
                        &mut *job.envs.add(i),
                        *job.buttons.add(i),
                        std::slice::from_raw_parts_mut(job.rows.add(i * row_bytes), row_bytes),
                    )
                };
                step_env(&mut env.0, pressed, row, job.frames, job.observation);
            }
        }
    }

    /// `work` with a panic caught and recorded.
    fn work_caught(&self, job: Job, own: usize) {
        if catch_unwind(AssertUnwindSafe(|| self.work(job, own))).is_err() {
            self.panicked.store(true, Ordering::Relaxed);
        }
    }
}

/// Spins for `SPIN` until `done()`, then parks until it (a spurious or stale wake-up
/// just checks again).
fn wait_until(done: impl Fn() -> bool) {
    let start = Instant::now();
    let mut spins = 0u32;
    while !done() {
        spins = spins.wrapping_add(1);
        // The clock is read every 64 turns only: in a virtual machine a read can cost as
        // much as the wait it measures.
        if !spins.is_multiple_of(64) || start.elapsed() < SPIN {
            std::hint::spin_loop();
        } else {
            std::thread::park();
        }
    }
}

/// A worker's life: wait for a new generation, do its chunk and what is left, count out.
fn worker(shared: &Shared, own: usize) {
    let mut seen = 0;
    loop {
        wait_until(|| shared.generation.load(Ordering::Acquire) != seen);
        seen = shared.generation.load(Ordering::Acquire);
        if shared.shutdown.load(Ordering::Acquire) {
            return;
        }
        // Safety: published by the generation bump just observed (see `Shared`); the
        // caller is read before counting out, after which the next step may replace it.
        let (job, caller) = unsafe { (*shared.job.get(), (*shared.caller.get()).clone()) };
        if let Some(job) = job {
            shared.work_caught(job, own);
        }
        if shared.running.fetch_sub(1, Ordering::AcqRel) == 1
            && let Some(caller) = caller
        {
            caller.unpark();
        }
    }
}

/// `threads - 1` workers; the calling thread takes part in every step too (one caller at a
/// time: `run` takes `&mut self`).
pub(crate) struct Pool {
    shared: Arc<Shared>,
    workers: Vec<JoinHandle<()>>,
}

impl Pool {
    pub(crate) fn new(threads: usize) -> Pool {
        let threads = threads.max(1);
        let shared = Arc::new(Shared {
            generation: CachePadded(AtomicU64::new(0)),
            running: CachePadded(AtomicUsize::new(0)),
            next: (0..threads)
                .map(|_| CachePadded(AtomicUsize::new(0)))
                .collect(),
            job: UnsafeCell::new(None),
            caller: UnsafeCell::new(None),
            shutdown: AtomicBool::new(false),
            panicked: AtomicBool::new(false),
        });
        let workers = (1..threads)
            .map(|own| {
                let shared = Arc::clone(&shared);
                std::thread::spawn(move || worker(&shared, own))
            })
            .collect();
        Pool { shared, workers }
    }

    /// Steps every env (`step_env` with its buttons and observation row) on the caller and
    /// the workers. False if any thread panicked (a bug; the envs are then in an unknown
    /// state).
    pub(crate) fn run(
        &mut self,
        envs: &mut [Env],
        buttons: &[u8],
        rows: &mut [u8],
        frames: u64,
        observation: Observation,
    ) -> bool {
        assert!(buttons.len() == envs.len() && rows.len() == envs.len() * observation.row_bytes());
        let shared = &*self.shared;
        let job = Job {
            envs: envs.as_mut_ptr(),
            buttons: buttons.as_ptr(),
            rows: rows.as_mut_ptr(),
            len: envs.len(),
            frames,
            observation,
        };
        for (chunk, next) in shared.next.iter().enumerate() {
            next.store(shared.chunk(chunk, job.len).0, Ordering::Relaxed);
        }
        shared.panicked.store(false, Ordering::Relaxed);
        // Safety: no worker is in a step (the last `run` waited for `running` to reach 0).
        unsafe {
            *shared.job.get() = Some(job);
            *shared.caller.get() = Some(std::thread::current());
        }
        shared.running.store(self.workers.len(), Ordering::Relaxed);
        shared.generation.fetch_add(1, Ordering::Release);
        for worker in &self.workers {
            worker.thread().unpark(); // an atomic swap when it is spinning, not a syscall
        }
        shared.work_caught(job, 0);
        // Every worker must be done before the borrows the job points into end.
        wait_until(|| shared.running.load(Ordering::Acquire) == 0);
        !shared.panicked.load(Ordering::Relaxed)
    }
}

impl Drop for Pool {
    fn drop(&mut self) {
        let shared = &*self.shared;
        // Safety: between steps, as in `run`.
        unsafe { *shared.job.get() = None };
        shared.shutdown.store(true, Ordering::Release);
        shared.generation.fetch_add(1, Ordering::Release);
        for worker in self.workers.drain(..) {
            worker.thread().unpark();
            let _ = worker.join();
        }
    }
}
