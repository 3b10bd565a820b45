//! `Pool`: worker threads kept alive across `VectorGameBoy.step` calls, so a step costs one
//! wake-up per worker instead of a thread spawn and join (which, at a few frames per step,
//! is a tenth of the step). The caller and the workers take envs one at a time from a
//! shared counter rather than fixed chunks: when another process holds a core for a while,
//! or some games cost more per frame than others, the other threads take up the slack.

use crate::vector::{Observation, step_env};
use backspin_rewind::Timeline;
use std::panic::{AssertUnwindSafe, catch_unwind};
use std::sync::Mutex;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::mpsc::{Receiver, Sender, TryRecvError, channel};
use std::thread::JoinHandle;
use std::time::{Duration, Instant};

/// How long a thread polls for its next message before it sleeps. A sleeping thread takes
/// tens of microseconds to wake, which with two envs and a few frames per step cost about
/// 7% of the step; the gap between two steps of a busy loop is shorter than this, and an
/// idle pool stops polling after it.
const SPIN: Duration = Duration::from_micros(200);

/// The next message on `channel`: polled for `SPIN`, then waited for. Err when it closed.
fn receive<T>(channel: &Receiver<T>) -> Result<T, ()> {
    let start = Instant::now();
    while start.elapsed() < SPIN {
        match channel.try_recv() {
            Ok(message) => return Ok(message),
            Err(TryRecvError::Disconnected) => return Err(()),
            Err(TryRecvError::Empty) => std::hint::spin_loop(),
        }
    }
    channel.recv().map_err(|_| ())
}

/// One step's work, shared by every thread taking part. Raw pointers because the workers
/// outlive any borrow: `Pool::run` does not return before every job it sent has been
/// reported done, so the memory stays valid while a worker uses it, and each env index is
/// taken from `next` by exactly one thread, so no env or row is ever touched by two.
#[derive(Clone, Copy)]
struct Job {
    envs: *mut Timeline,
    buttons: *const u8,
    rows: *mut u8,
    len: usize,
    next: *const AtomicUsize,
    frames: u64,
    observation: Observation,
}

// Safety: see `Job`.
unsafe impl Send for Job {}

impl Job {
    /// Steps envs taken one by one from the shared counter until none is left.
    fn run(self) {
        let row_bytes = self.observation.row_bytes();
        loop {
            // Safety: `next` outlives the step (see `Job`).
            let i = unsafe { &*self.next }.fetch_add(1, Ordering::Relaxed);
            if i >= self.len {
                return;
            }
            // Safety: `i < len` and index `i` is this thread's alone (see `Job`).
            let (timeline, pressed, row) = unsafe {
                (
                    &mut *self.envs.add(i),
                    *self.buttons.add(i),
                    std::slice::from_raw_parts_mut(self.rows.add(i * row_bytes), row_bytes),
                )
            };
            step_env(timeline, pressed, row, self.frames, self.observation);
        }
    }
}

/// `threads - 1` workers; the calling thread takes part in every step too.
pub(crate) struct Pool {
    jobs: Vec<Sender<Job>>,
    /// One message per finished job: false when it panicked.
    done: Mutex<Receiver<bool>>,
    workers: Vec<JoinHandle<()>>,
}

impl Pool {
    pub(crate) fn new(threads: usize) -> Pool {
        let (done_tx, done_rx) = channel();
        let mut jobs = Vec::new();
        let mut workers = Vec::new();
        for _ in 1..threads {
            let (job_tx, job_rx) = channel::<Job>();
            let done_tx = done_tx.clone();
            workers.push(std::thread::spawn(move || {
                while let Ok(job) = receive(&job_rx) {
                    let ok = catch_unwind(AssertUnwindSafe(|| job.run())).is_ok();
                    if done_tx.send(ok).is_err() {
                        break;
                    }
                }
            }));
            jobs.push(job_tx);
        }
        Pool {
            jobs,
            done: Mutex::new(done_rx),
            workers,
        }
    }

    /// Steps every env (`step_env` with its buttons and observation row) on the caller and
    /// the workers. False if any thread panicked (a bug; the envs are then in an unknown
    /// state).
    pub(crate) fn run(
        &mut self,
        envs: &mut [Timeline],
        buttons: &[u8],
        rows: &mut [u8],
        frames: u64,
        observation: Observation,
    ) -> bool {
        assert!(buttons.len() == envs.len() && rows.len() == envs.len() * observation.row_bytes());
        let next = AtomicUsize::new(0);
        let job = Job {
            envs: envs.as_mut_ptr(),
            buttons: buttons.as_ptr(),
            rows: rows.as_mut_ptr(),
            len: envs.len(),
            next: &next,
            frames,
            observation,
        };
        // No more workers than envs beyond the caller's.
        let helpers = self.jobs.len().min(envs.len().saturating_sub(1));
        let sent = self.jobs[..helpers]
            .iter()
            .filter(|worker| worker.send(job).is_ok())
            .count();
        let mut ok = catch_unwind(AssertUnwindSafe(|| job.run())).is_ok();
        // Every job sent must be done before the borrows it points into end.
        let done = self.done.get_mut().unwrap_or_else(|e| e.into_inner());
        for _ in 0..sent {
            ok &= receive(done).unwrap_or(false);
        }
        ok
    }
}

impl Drop for Pool {
    fn drop(&mut self) {
        // Closing the job channels ends the workers' loops.
        self.jobs.clear();
        for worker in self.workers.drain(..) {
            let _ = worker.join();
        }
    }
}
