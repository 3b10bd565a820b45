//! `Pool`: worker threads kept alive across `VectorGameBoy` steps. A step wakes them through
//! a shared generation counter (a worker spins on it briefly, then parks) and waits for them
//! on one shared countdown, so its fixed cost is a few atomic operations rather than channel
//! messages and syscalls.
//!
//! Two ways to run a step:
//! - `run` (`VectorGameBoy.step`): the calling thread takes part, as thread 0.
//! - `start` then `wait` (`step_async` / `step_wait`): the caller returns at once and a
//!   stand-in thread, spawned on first use and woken only for these steps, takes thread 0's
//!   share, so the caller's own work (a policy) overlaps the emulation. A caller that comes
//!   to `wait` before the step ends steps the envs no thread has claimed yet.
//!
//! Work split: thread t owns the contiguous chunk `t * n / threads .. (t + 1) * n / threads`
//! of the envs and steps it front to back, so an env runs on the same core step after step
//! and its state stays in that core's cache. A thread that finishes its chunk takes the
//! remaining envs of the other chunks, one at a time, from the same per-chunk counters: a
//! thread that the host deschedules mid-step holds up only the env it is in, and the others
//! take over the rest of its chunk.
//!
//! Measured (issue 16, `benches/vector_speed.py`, two-CPU virtual machine): with its threads
//! safe from preemption (`chrt -f 1`) the pool scales 0.95 to 1.0 from one thread to two at
//! 2, 8 and 64 envs, as two separate processes do. What costs scaling on a shared machine
//! is the barrier: another process holding one thread's CPU mid-step leaves the other
//! waiting, which stealing can shorten only when there are envs left to take. At 2 envs
//! (one per thread) a timed trace of 3,000 steps of about 1.1 ms (threads safe from
//! preemption) put the pool's own part, the worker's wake-up and the caller's notice of the
//! end, at medians under 1 µs and 99th percentiles of 65 and 60 µs; the long steps were
//! shares whose own run grew by milliseconds.

use crate::vector::{Env, Observation, step_env};
use std::cell::UnsafeCell;
use std::panic::{AssertUnwindSafe, catch_unwind};
use std::sync::atomic::{AtomicBool, AtomicU64, AtomicUsize, Ordering};
use std::sync::{Arc, Mutex};
use std::thread::{JoinHandle, Thread};
use std::time::{Duration, Instant};

/// How long a thread spins for the next step (a worker) or for the others to finish (the
/// waiter) before it parks. Spinning saves the wake-up of a parked thread (tens of
/// microseconds in a virtual machine) when two threads' equal shares end close together,
/// which is the usual case. It is short because a spinning thread holds its CPU, and on a
/// busy machine that CPU is what a descheduled thread of ours is waiting for.
///
/// Measured (issue 16, demo ROM, 2 envs on 2 threads, frameskip 4, steps of 1 to 2 ms,
/// two-CPU virtual machine shared with compilers): the 1 -> 2 thread scaling was 0.33 to 0.36
/// with 300 µs, 0.17 to 0.21 with 2 ms, and 0.43 to 0.52 with anything from 0 to 100 µs.
/// With the threads safe from preemption (`chrt -f 1`), 100 µs kept the 99th percentile of
/// the wake-up (step start to the worker starting) at 65 µs and of the notice (last thread
/// done to the caller going on) at 60 µs, as 300 µs did; 50 µs let both pass 130 µs.
const SPIN: Duration = Duration::from_micros(100);

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

/// One step's work. Raw pointers because the workers outlive any borrow: the memory must
/// stay valid, and untouched by anything but the pool, until the step has ended (`run`
/// returns, or `wait` reports it done); each env index is claimed from its chunk's counter
/// by exactly one thread, so no env or row is ever touched by two.
#[derive(Clone, Copy)]
pub(crate) struct Job {
    envs: *mut Env,
    buttons: *const u8,
    rows: *mut u8,
    len: usize,
    frames: u64,
    observation: Observation,
}

// Safety: a job only carries its pointers to the pool's threads; what they may do with
// them is stated on `Job`.
unsafe impl Send for Job {}
unsafe impl Sync for Job {}

impl Job {
    /// Env i steps `frames` frames holding `buttons[i]`, then writes its observation into
    /// row i of `rows`.
    pub(crate) fn new(
        envs: &mut [Env],
        buttons: &[u8],
        rows: &mut [u8],
        frames: u64,
        observation: Observation,
    ) -> Job {
        assert!(buttons.len() == envs.len() && rows.len() == envs.len() * observation.row_bytes());
        Job {
            envs: envs.as_mut_ptr(),
            buttons: buttons.as_ptr(),
            rows: rows.as_mut_ptr(),
            len: envs.len(),
            frames,
            observation,
        }
    }
}

/// Which counter wakes a thread.
#[derive(Clone, Copy)]
enum Signal {
    /// The workers (threads 1 and up): every step.
    Workers = 0,
    /// The stand-in for thread 0: steps started by `start` only.
    StandIn = 1,
}

/// State the caller and the threads share.
struct Shared {
    /// Per `Signal`: bumped to start a step for those threads (and once more to shut down).
    generations: [CachePadded<AtomicU64>; 2],
    /// Threads still busy with the current step.
    running: CachePadded<AtomicUsize>,
    /// Per chunk: the next env index to claim.
    next: Box<[CachePadded<AtomicUsize>]>,
    /// The current step's work: written by the caller only while no thread is in a step,
    /// read by the threads after they see their generation change.
    job: UnsafeCell<Option<Job>>,
    /// The thread waiting for the step to end (any Python thread may wait): the last thread
    /// to finish unparks it. A lock, because the waiter may register after the step began.
    waiter: Mutex<Option<Thread>>,
    shutdown: AtomicBool,
    panicked: AtomicBool,
}

// Safety: `job` is written only between steps (no thread reads it then: each has counted
// itself out of `running`, which the caller observed with Acquire before writing) and read
// only after the Release bump of a generation that published it. The raw pointers in `Job`
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

    /// `work` with a panic caught and recorded, then counted out of `running`.
    fn work_and_count_out(&self, job: Job, own: usize) {
        if catch_unwind(AssertUnwindSafe(|| self.work(job, own))).is_err() {
            self.panicked.store(true, Ordering::Relaxed);
        }
        if self.running.fetch_sub(1, Ordering::AcqRel) == 1 {
            let waiter = self.waiter.lock().unwrap_or_else(|e| e.into_inner()).take();
            if let Some(waiter) = waiter {
                waiter.unpark();
            }
        }
    }

    /// Waits until `running` is 0 or `deadline` passes; true if it reached 0.
    fn wait_for_step(&self, deadline: Option<Instant>) -> bool {
        // Registered before the first look at `running`: a thread that counts out after
        // the look then finds this waiter under the lock (see `work_and_count_out`).
        *self.waiter.lock().unwrap_or_else(|e| e.into_inner()) = Some(std::thread::current());
        wait_until(|| self.running.load(Ordering::Acquire) == 0, deadline)
    }
}

/// Spins for `SPIN` until `done()`, then parks until it (a spurious or stale wake-up just
/// checks again), giving up at `deadline`. True if `done()`.
fn wait_until(done: impl Fn() -> bool, deadline: Option<Instant>) -> bool {
    let start = Instant::now();
    let mut spins = 0u32;
    while !done() {
        spins = spins.wrapping_add(1);
        // The clock is read every 64 turns only: in a virtual machine a read can cost as
        // much as the wait it measures.
        if !spins.is_multiple_of(64) {
            std::hint::spin_loop();
            continue;
        }
        let now = Instant::now();
        match deadline {
            Some(deadline) if now >= deadline => return done(),
            Some(deadline) if now - start >= SPIN => std::thread::park_timeout(deadline - now),
            None if now - start >= SPIN => std::thread::park(),
            _ => std::hint::spin_loop(),
        }
    }
    true
}

/// A thread's life: wait for a new generation of its signal, do its chunk and what is
/// left, count out.
fn thread_main(shared: &Shared, own: usize, signal: Signal) {
    let generation = &shared.generations[signal as usize];
    let mut seen = 0;
    loop {
        wait_until(|| generation.load(Ordering::Acquire) != seen, None);
        seen = generation.load(Ordering::Acquire);
        if shared.shutdown.load(Ordering::Acquire) {
            return;
        }
        // Safety: published by the generation bump just observed (see `Shared`).
        match unsafe { *shared.job.get() } {
            Some(job) => shared.work_and_count_out(job, own),
            None => return,
        }
    }
}

/// `threads - 1` workers, plus a stand-in for thread 0 in steps the caller does not take
/// part in. One step at a time: `run` and `start` take `&mut self`, and `start` refuses
/// while a step is in flight.
pub(crate) struct Pool {
    shared: Arc<Shared>,
    workers: Vec<JoinHandle<()>>,
    stand_in: Option<JoinHandle<()>>,
    /// A step started by `start` that `wait` has not seen end.
    in_flight: bool,
}

impl Pool {
    pub(crate) fn new(threads: usize) -> Pool {
        let threads = threads.max(1);
        let shared = Arc::new(Shared {
            generations: [
                CachePadded(AtomicU64::new(0)),
                CachePadded(AtomicU64::new(0)),
            ],
            running: CachePadded(AtomicUsize::new(0)),
            next: (0..threads)
                .map(|_| CachePadded(AtomicUsize::new(0)))
                .collect(),
            job: UnsafeCell::new(None),
            waiter: Mutex::new(None),
            shutdown: AtomicBool::new(false),
            panicked: AtomicBool::new(false),
        });
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
            in_flight: false,
        }
    }

    /// Whether a step started by `start` has not been waited for to its end.
    pub(crate) fn in_flight(&self) -> bool {
        self.in_flight
    }

    /// Publishes `job` and wakes the workers (and the stand-in if `with_stand_in`).
    fn publish(&mut self, job: Job, with_stand_in: bool) {
        debug_assert!(!self.in_flight, "one step at a time");
        let shared = &*self.shared;
        for (chunk, next) in shared.next.iter().enumerate() {
            next.store(shared.chunk(chunk, job.len).0, Ordering::Relaxed);
        }
        shared.panicked.store(false, Ordering::Relaxed);
        // Safety: no thread is in a step (the last one was waited for to its end).
        unsafe { *shared.job.get() = Some(job) };
        let threads = self.workers.len() + usize::from(with_stand_in);
        shared.running.store(threads, Ordering::Relaxed);
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
    }

    /// Runs `job` to its end on the calling thread and the workers. False if any thread
    /// panicked (a bug; the envs are then in an unknown state).
    pub(crate) fn run(&mut self, job: Job) -> bool {
        assert!(!self.in_flight, "a started step must be waited for first");
        self.publish(job, false);
        let shared = &*self.shared;
        if catch_unwind(AssertUnwindSafe(|| shared.work(job, 0))).is_err() {
            shared.panicked.store(true, Ordering::Relaxed);
        }
        // Every worker must be done before the borrows the job points into end.
        shared.wait_for_step(None);
        !shared.panicked.load(Ordering::Relaxed)
    }

    /// Starts `job` on the workers and the stand-in and returns at once.
    ///
    /// # Safety
    /// What `job` points into must stay valid, and be touched by nothing else, until
    /// `wait` has returned `Some` (or the pool is dropped, which waits).
    pub(crate) unsafe fn start(&mut self, job: Job) {
        assert!(!self.in_flight, "a started step must be waited for first");
        if self.stand_in.is_none() {
            let shared = Arc::clone(&self.shared);
            self.stand_in = Some(std::thread::spawn(move || {
                thread_main(&shared, 0, Signal::StandIn)
            }));
        }
        self.publish(job, true);
        self.in_flight = true;
    }

    /// Waits for the step `start` began, at most `timeout` (None: to its end). `Some(ok)`
    /// once it has ended (`ok` false if any thread panicked), `None` if it is still running.
    /// `Some(true)` when no step is in flight.
    pub(crate) fn wait(&mut self, timeout: Option<Duration>) -> Option<bool> {
        if !self.in_flight {
            return Some(true);
        }
        let shared = &*self.shared;
        if timeout.is_none() {
            // The caller has nothing else to do: it steps envs no thread has claimed yet, so
            // a step whose threads fell behind (or were descheduled) ends sooner. Not with a
            // timeout, which one env's step could overrun.
            // Safety: published by `start`, and written again only after this step.
            if let Some(job) = unsafe { *shared.job.get() }
                && catch_unwind(AssertUnwindSafe(|| shared.work(job, 0))).is_err()
            {
                shared.panicked.store(true, Ordering::Relaxed);
            }
        }
        let deadline = timeout.map(|t| Instant::now() + t);
        if !shared.wait_for_step(deadline) {
            return None;
        }
        self.in_flight = false;
        Some(!shared.panicked.load(Ordering::Relaxed))
    }
}

impl Drop for Pool {
    fn drop(&mut self) {
        // A started step still uses memory its owner is about to free.
        self.wait(None);
        let shared = &*self.shared;
        // Safety: between steps, as in `publish`.
        unsafe { *shared.job.get() = None };
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
