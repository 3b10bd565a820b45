//! `Pool`: worker threads kept alive across `VectorGameBoy.step` calls, so a step costs one
//! wake-up per worker instead of a thread spawn and join (which, at a few frames per step,
//! is a tenth of the step).

use crate::vector::{Observation, run_chunk};
use backspin_rewind::Timeline;
use std::panic::{AssertUnwindSafe, catch_unwind};
use std::sync::Mutex;
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

/// One worker's share of a step: a chunk of envs, their buttons and observation rows.
/// Raw pointers because the workers outlive any borrow: `Pool::run` does not return before
/// every job it sent has been reported done, so the memory stays valid and unaliased while
/// a worker uses it.
struct Job {
    envs: *mut Timeline,
    len: usize,
    buttons: *const u8,
    rows: *mut u8,
    rows_len: usize,
    frames: u64,
    observation: Observation,
}

// Safety: see `Job`; each job's chunks are disjoint from every other job's.
unsafe impl Send for Job {}

impl Job {
    fn run(self) {
        // Safety: see `Job`.
        let (envs, buttons, rows) = unsafe {
            (
                std::slice::from_raw_parts_mut(self.envs, self.len),
                std::slice::from_raw_parts(self.buttons, self.len),
                std::slice::from_raw_parts_mut(self.rows, self.rows_len),
            )
        };
        run_chunk(envs, buttons, rows, self.frames, self.observation);
    }
}

/// `threads - 1` workers; the calling thread takes the first chunk itself.
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

    /// Steps every env (see `run_chunk`), split into contiguous chunks over the caller and
    /// the workers. False if any chunk panicked (a bug; the envs are then in an unknown state).
    pub(crate) fn run(
        &mut self,
        envs: &mut [Timeline],
        buttons: &[u8],
        rows: &mut [u8],
        frames: u64,
        observation: Observation,
    ) -> bool {
        let row_bytes = observation.row_bytes();
        let per_chunk = envs.len().div_ceil(self.jobs.len() + 1);
        let mut chunks = envs
            .chunks_mut(per_chunk)
            .zip(buttons.chunks(per_chunk))
            .zip(rows.chunks_mut(per_chunk * row_bytes));
        let first = chunks.next();
        let mut sent = 0;
        for (((envs, buttons), rows), worker) in chunks.zip(&self.jobs) {
            let job = Job {
                envs: envs.as_mut_ptr(),
                len: envs.len(),
                buttons: buttons.as_ptr(),
                rows: rows.as_mut_ptr(),
                rows_len: rows.len(),
                frames,
                observation,
            };
            if worker.send(job).is_ok() {
                sent += 1;
            } else {
                // The worker is gone (it only leaves when the pool drops): do its chunk here.
                run_chunk(envs, buttons, rows, frames, observation);
            }
        }
        let mut ok = match first {
            Some(((envs, buttons), rows)) => catch_unwind(AssertUnwindSafe(|| {
                run_chunk(envs, buttons, rows, frames, observation)
            }))
            .is_ok(),
            None => true,
        };
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
