//! `Pool`: worker threads kept alive across `VectorGameBoy` steps. A step wakes them through
//! a shared generation counter (a worker spins on it briefly, then parks) and ends when a
//! shared countdown of its envs reaches 0, so its fixed cost is a few atomic operations
//! rather than channel messages and syscalls. The countdown is of envs, not threads: a
//! step never waits for a thread that has nothing left to do, such as a worker the host
//! woke so late that the others had already claimed all its envs (under load, the caller
//! then steps every env itself, at one thread's speed, rather than idle until it wakes).
//!
//! Two ways to run a step:
//! - `run` (`VectorGameBoy.step`): the calling thread takes part, as thread 0.
//! - `start` then `wait` (`step_async` / `step_wait`): the caller returns at once and a
//!   stand-in thread, spawned on first use and woken only for these steps, takes thread 0's
//!   share, so the caller's own work (a policy) overlaps the emulation. A caller that comes
//!   to `wait` before the step ends steps the envs no thread has claimed yet.
//!
//! Work split: thread t owns the contiguous chunk `t * n / threads .. (t + 1) * n / threads`
//! of the envs and starts them front to back, so an env runs on the same core step after
//! step and its state stays in that core's cache. It keeps two of them in hand and runs
//! one frame of each in turn, setting the other aside meanwhile. A thread with nothing of
//! its own left to start takes the others' untaken envs (from the back), then the envs
//! they have set aside, and runs their remaining frames: an env's frames are sequential,
//! but with two in hand per thread the threads end a step within about a frame of each
//! other instead of up to a whole env's part (frameskip frames) apart. A thread the host
//! deschedules mid-step holds up only the env it is in. A thread out of work lingers a
//! moment while a slower one runs, and that one hands it the env it runs alone at a
//! frame's end when the move pays (see `HANDOVER`).
//!
//! Measured (issue 16, demo ROM, frameskip 4, two-CPU virtual machine; timed traces of
//! 1,500 steps with the threads safe from preemption, `chrt -f 1`): at 2 envs on 2 threads
//! the caller's Python side between steps took 5 to 10 µs, the worker's wake-up and the
//! caller's notice of the end medians of 1 to 36 µs and 3 µs (99th percentiles about 80 and
//! 70 µs). What the step lost was its barrier on two CPUs running at different speeds: the
//! thread that finished first had run faster frames in 99.5 % of steps, and waited a mean
//! 120 to 230 µs of a 1.1 ms step for the other (99th percentile about 600 µs). With
//! handing over, 5 % of env parts moved and the wait fell to a mean of 70 µs (99th
//! percentile 334 µs); at 8 envs, from 390 µs (2.3 ms) when only envs no thread had started
//! could move, to 160 µs (395 µs). Stepping an env frame by frame, two at a time, costs
//! nothing measurable: one thread's CPU time per frame was 159, 166 and 165 µs at 1, 8 and
//! 64 envs in one interleaved run. On a machine busy with other sessions a second thread
//! gains nothing (the kernel's autogroups share the CPUs out per session, not per thread),
//! so scaling figures mean something only on a quiet machine.

use crate::vector::{Env, Observation, env_step};
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
/// returns, or `wait` reports it done); each env index is claimed by exactly one thread
/// (see `Shared::claim`), so no env or row is ever touched by two.
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

/// Who may step an env in the current step: the low two bits of its `EnvSlot::word`.
/// An env goes Untaken -> Busy, then between frames Busy -> Parked -> Busy (possibly on
/// another thread) as often as it is set aside, and Busy -> Done after its last frame.
mod hold {
    /// No thread has started it in this step.
    pub(super) const UNTAKEN: u64 = 0;
    /// A thread is running it (or holds it between two of its frames).
    pub(super) const BUSY: u64 = 1;
    /// Set aside between two frames while its thread runs another env: any thread may
    /// take it over.
    pub(super) const PARKED: u64 = 2;
    /// Its part of the step is over (observation written).
    pub(super) const DONE: u64 = 3;
    /// The step number sits above these bits.
    pub(super) const BITS: u32 = 2;
}

/// One env's progress in the current step.
struct EnvSlot {
    /// The step number above `hold::BITS`, its `hold` below. A thread takes an env by
    /// compare-and-swap of the whole word, so a thread holding a stale step (it woke after
    /// that step ended) can never take one: it never touches memory a finished step pointed
    /// into. 62 bits of step number never wrap.
    word: AtomicU64,
    /// Frames run so far in this step: read and written only by the thread holding the env
    /// (`BUSY`); the Release store that parks or finishes the env and the Acquire
    /// compare-and-swap that takes it hand it over.
    frames_done: UnsafeCell<u64>,
}

/// The current step: its number and its work, read together by a thread that joins it.
#[derive(Clone, Copy)]
struct Step {
    number: u64,
    job: Job,
}

impl Step {
    fn word(&self, hold: u64) -> u64 {
        self.number << hold::BITS | hold
    }
}

/// How many envs a thread keeps in hand at once, running one frame of each in turn (when
/// there is more than one thread). Each waits between its frames, set aside (`PARKED`) for
/// another thread to take over: when one thread runs out of envs to start, it takes those
/// the others have set aside, so the threads end a step within about a frame of each other
/// rather than an env's whole part (frameskip frames). Two keep both envs' memory in the
/// core's own cache.
const IN_HAND: usize = 2;

/// When a thread hands an env it runs alone over to a thread out of work, at a frame's end.
/// The two CPUs of a virtual machine often run at different speeds for a while (the host
/// shares them out): in a trace of 1,500 steps of 2 envs on 2 threads, the thread that
/// finished first ran its frames faster in 99.5 % of steps, by a median factor of 1.25 to
/// 1.7, and the step waited for the slow one. Handing its remaining frames to the fast one
/// (the cost is the env's memory moving between caches) would have shortened the mean step
/// by 5 to 9 % in a replay of that trace.
struct Handover {
    /// The taker's frames must be at least this much faster (numerator, denominator):
    /// small differences are noise.
    faster_by: (u64, u64),
    /// The gain (frames left times the frame time saved) must pass this: what the move
    /// costs, an estimate.
    cost_nanos: u64,
    /// How long a thread out of work lingers at most for a handover.
    linger_nanos: u64,
    /// How long a thread that handed an env over leaves it for the taker.
    grace: Duration,
}

const HANDOVER: Handover = Handover {
    faster_by: (4, 5),
    cost_nanos: 30_000,
    linger_nanos: 1_000_000,
    grace: Duration::from_micros(50),
};

/// A thread's recent frame time: an exponential moving average over its last few frames.
#[derive(Default)]
pub(crate) struct FrameClock {
    nanos: u64,
}

impl FrameClock {
    fn record(&mut self, frame: Duration) {
        let frame = u64::try_from(frame.as_nanos()).unwrap_or(u64::MAX);
        self.nanos = if self.nanos == 0 {
            frame
        } else {
            (self.nanos * 3 + frame) / 4
        };
    }

    fn nanos(&self) -> u64 {
        self.nanos
    }
}

/// State the caller and the threads share.
struct Shared {
    /// Per `Signal`: bumped to start a step for those threads (and once more to shut down).
    generations: [CachePadded<AtomicU64>; 2],
    /// Envs of the current step not yet done. The step ends when it reaches 0, whether or
    /// not every thread has woken up for it: a thread the host was slow to wake (or that
    /// found nothing left to take) holds nothing up.
    remaining: CachePadded<AtomicUsize>,
    /// One per env, each on cache lines of its own (threads take neighbouring envs).
    slots: Box<[CachePadded<EnvSlot>]>,
    /// Threads taking part in a step: each owns a contiguous chunk of the envs.
    chunks: usize,
    /// The current step, `None` before the first and at shutdown. A lock, because a thread
    /// that wakes late may read it while the next step is being published: it then gets a
    /// consistent (number, job) pair of one step or the other, and a stale one can take no
    /// env. Uncontended, it costs two atomic operations per thread and step.
    step: Mutex<Option<Step>>,
    /// The thread waiting for the step to end (any Python thread may wait): the thread that
    /// finishes the last env unparks it. A lock, because the waiter may register after the
    /// step began.
    waiter: Mutex<Option<Thread>>,
    shutdown: AtomicBool,
    panicked: AtomicBool,
    /// Per thread (by chunk): its recent frame time in nanoseconds while it lingers out of
    /// work at the end of a step (see `Shared::linger`), 0 otherwise.
    lingering: Box<[CachePadded<AtomicU64>]>,
    /// How many threads linger: a holder looks at `lingering` only when some do.
    lingerers: CachePadded<AtomicUsize>,
    /// Per thread (by chunk): its recent frame time in nanoseconds (0 before its first).
    frame_nanos: Box<[CachePadded<AtomicU64>]>,
}

// Safety: `frames_done` is touched only by the thread holding its env (see `EnvSlot`);
// everything else is atomics, locks and `Job`, whose rules are stated there.
unsafe impl Sync for Shared {}

impl Shared {
    /// The envs of chunk `chunk`: `start..end`.
    fn chunk(&self, chunk: usize) -> std::ops::Range<usize> {
        let len = self.slots.len();
        chunk * len / self.chunks..(chunk + 1) * len / self.chunks
    }

    /// The step to work on: a copy, so that the lock is held for a moment only.
    fn current(&self) -> Option<Step> {
        *self.step.lock().unwrap_or_else(|e| e.into_inner())
    }

    /// Takes env `i` if it is in state `from` in step `step`.
    fn take(&self, step: &Step, i: usize, from: u64) -> bool {
        self.slots[i]
            .word
            .compare_exchange(
                step.word(from),
                step.word(hold::BUSY),
                Ordering::AcqRel,
                Ordering::Relaxed,
            )
            .is_ok()
    }

    /// Whether env `i` is in state `hold` in step `step` (a hint: `take` decides).
    fn is(&self, step: &Step, i: usize, hold: u64) -> bool {
        self.slots[i].word.load(Ordering::Relaxed) == step.word(hold)
    }

    /// The next untaken env of chunk `own`, front to back (`cursor` is how far its thread
    /// has looked).
    fn take_own(&self, step: &Step, own: usize, cursor: &mut usize) -> Option<usize> {
        let end = self.chunk(own).end;
        while *cursor < end {
            let i = *cursor;
            *cursor += 1;
            if self.take(step, i, hold::UNTAKEN) {
                return Some(i);
            }
        }
        None
    }

    /// An env for a thread whose own chunk has nothing left to start: other chunks'
    /// untaken envs back to front (their owners start at the front), then envs other
    /// threads have set aside. `None` when there is nothing left to take now.
    fn take_other(
        &self,
        step: &Step,
        own: usize,
        handed_over: Option<(usize, Instant)>,
    ) -> Option<usize> {
        for k in 1..self.chunks {
            for i in self.chunk((own + k) % self.chunks).rev() {
                if self.is(step, i, hold::UNTAKEN) && self.take(step, i, hold::UNTAKEN) {
                    return Some(i);
                }
            }
        }
        // Not the env this thread has just handed over (`linger` takes it back if need be).
        (0..self.slots.len()).find(|&i| {
            handed_over.is_none_or(|(h, _)| h != i)
                && self.is(step, i, hold::PARKED)
                && self.take(step, i, hold::PARKED)
        })
    }

    /// Runs the next frame of env `i`, which this thread holds, and its finish after the
    /// last. True if the env has frames left.
    fn advance(&self, step: &Step, i: usize) -> bool {
        let job = step.job;
        let row_bytes = job.observation.row_bytes();
        // Safety: `i < len`; this thread holds env `i` (`BUSY`), so its env, button, row
        // and `frames_done` are this thread's alone, and the step cannot end (freeing what
        // the job points into) before the env is counted out.
        let (env, frames_done) =
            unsafe { (&mut *job.envs.add(i), &mut *self.slots[i].frames_done.get()) };
        let ran = catch_unwind(AssertUnwindSafe(|| {
            if *frames_done == 0 {
                // Safety: as above.
                env_step::begin(env, unsafe { *job.buttons.add(i) });
            }
            if *frames_done < job.frames {
                env_step::frame(env, *frames_done, job.frames, job.observation);
                *frames_done += 1;
            }
            if *frames_done < job.frames {
                return true;
            }
            // Safety: as above.
            let row =
                unsafe { std::slice::from_raw_parts_mut(job.rows.add(i * row_bytes), row_bytes) };
            env_step::finish(env, row, job.observation);
            false
        }));
        match ran {
            Ok(true) => true,
            Ok(false) => {
                self.finish(step, i);
                false
            }
            Err(_) => {
                self.panicked.store(true, Ordering::Relaxed);
                self.finish(step, i);
                false
            }
        }
    }

    /// Sets env `i`, which this thread holds, aside for any thread to take over.
    fn set_aside(&self, step: &Step, i: usize) {
        self.slots[i]
            .word
            .store(step.word(hold::PARKED), Ordering::Release);
    }

    /// Env `i` is done with this step; the last one wakes the waiter.
    fn finish(&self, step: &Step, i: usize) {
        self.slots[i]
            .word
            .store(step.word(hold::DONE), Ordering::Release);
        if self.remaining.fetch_sub(1, Ordering::AcqRel) == 1 {
            let waiter = self.waiter.lock().unwrap_or_else(|e| e.into_inner()).take();
            if let Some(waiter) = waiter {
                waiter.unpark();
            }
        }
    }

    /// A thread's part of a step: it keeps up to `IN_HAND` envs of its own chunk, runs one
    /// frame of each in turn (setting each aside while it runs the other), and takes more as
    /// they finish or are taken over; then one env at a time of the others' (see
    /// `take_other`), until nothing is left to take; then it lingers a moment for an env
    /// a slower thread hands over (see `linger`). `clock` times this thread's frames.
    fn work(&self, step: Step, own: usize, clock: &mut FrameClock) {
        let in_hand = if self.chunks > 1 { IN_HAND } else { 1 };
        let mut hand: [Option<usize>; IN_HAND] = [None; IN_HAND];
        // Whether the env in a place is `BUSY` for this thread (not set aside).
        let mut held = [false; IN_HAND];
        let mut cursor = self.chunk(own).start;
        // The env this thread last handed over, and when.
        let mut handed_over: Option<(usize, Instant)> = None;
        loop {
            for (place, held) in hand[..in_hand].iter_mut().zip(&mut held) {
                if place.is_none() {
                    *place = self.take_own(&step, own, &mut cursor);
                    *held = place.is_some();
                }
            }
            // With two in hand, each waits for its turn set aside, from the start.
            if hand.iter().filter(|place| place.is_some()).count() > 1 {
                for (place, held) in hand.iter().zip(&mut held) {
                    if let (Some(i), true) = (*place, *held) {
                        self.set_aside(&step, i);
                        *held = false;
                    }
                }
            }
            // Others' envs only when there is nothing of its own in hand: a thread that
            // takes them sooner races their owner, which may just be waking up.
            if hand.iter().all(Option::is_none) {
                hand[0] = self
                    .take_other(&step, own, handed_over)
                    .or_else(|| self.linger(&step, own, clock, handed_over));
                held[0] = hand[0].is_some();
                if hand[0].is_none() {
                    return;
                }
            }
            for k in 0..in_hand {
                let Some(i) = hand[k] else { continue };
                if !held[k] && !self.take(&step, i, hold::PARKED) {
                    // Another thread took it over.
                    hand[k] = None;
                    continue;
                }
                let start = Instant::now();
                let more = self.advance(&step, i);
                clock.record(start.elapsed());
                self.frame_nanos[own].store(clock.nanos(), Ordering::Relaxed);
                if !more {
                    hand[k] = None;
                    continue;
                }
                // Set aside while another env of the hand runs, or for a faster thread
                // that is out of work to take over. Otherwise an env alone in the hand
                // runs on: a thread with nothing else to do taking it over would pay to
                // move its memory for no gain (its frames are sequential).
                let others_in_hand = (0..in_hand).any(|j| j != k && hand[j].is_some());
                held[k] = false;
                if others_in_hand {
                    self.set_aside(&step, i);
                } else if self.faster_thread_lingers(own, clock, self.frames_left(&step, i)) {
                    self.set_aside(&step, i);
                    hand[k] = None;
                    handed_over = Some((i, Instant::now()));
                } else {
                    held[k] = true;
                }
            }
        }
    }

    /// Frames env `i`, which this thread holds, has left in this step.
    fn frames_left(&self, step: &Step, i: usize) -> u64 {
        // Safety: this thread holds env `i` (see `EnvSlot::frames_done`).
        step.job.frames - unsafe { *self.slots[i].frames_done.get() }
    }

    /// Whether a thread lingering out of work runs frames enough faster than this one for
    /// `frames_left` frames of an env to end sooner there, after the move (see `HANDOVER`).
    fn faster_thread_lingers(&self, own: usize, clock: &FrameClock, frames_left: u64) -> bool {
        if self.lingerers.load(Ordering::Relaxed) == 0 {
            return false;
        }
        let mine = clock.nanos();
        self.lingering.iter().enumerate().any(|(t, lingering)| {
            let theirs = lingering.load(Ordering::Relaxed);
            t != own
                && theirs != 0
                && theirs.saturating_mul(HANDOVER.faster_by.1)
                    < mine.saturating_mul(HANDOVER.faster_by.0)
                && frames_left.saturating_mul(mine - theirs) > HANDOVER.cost_nanos
        })
    }

    /// Waits a moment, out of work, for an env to take over: one a slower thread hands
    /// over at its next frame's end, or any other set aside. It lingers for about two of
    /// its own frames if a thread slower than it is running (else not at all: spinning
    /// would only burn CPU time, which on a busy machine is this process's share), and as
    /// long as any env is set aside, so that an env handed to it never waits for nobody.
    /// `handed_over`, its own last handover, it takes back only after `HANDOVER.grace`
    /// (the taker gave up meanwhile). `None` when the step has ended or nothing came.
    fn linger(
        &self,
        step: &Step,
        own: usize,
        clock: &FrameClock,
        handed_over: Option<(usize, Instant)>,
    ) -> Option<usize> {
        // A thread that has not run a frame yet has no speed to offer (and has handed
        // nothing over).
        if self.chunks == 1 || clock.nanos() == 0 {
            return None;
        }
        let start = Instant::now();
        // Only while a thread slower than this one runs: no other would hand over.
        let mine = clock.nanos();
        let slower_runs = self.frame_nanos.iter().enumerate().any(|(t, theirs)| {
            t != own
                && mine.saturating_mul(HANDOVER.faster_by.1)
                    < theirs
                        .load(Ordering::Relaxed)
                        .saturating_mul(HANDOVER.faster_by.0)
        });
        let budget = if slower_runs {
            mine.saturating_mul(2)
                .clamp(SPIN.as_nanos() as u64, HANDOVER.linger_nanos)
        } else {
            0
        };
        self.lingering[own].store(mine, Ordering::Relaxed);
        self.lingerers.fetch_add(1, Ordering::AcqRel);
        let mut spins = 0u32;
        let taken = loop {
            if self.remaining.load(Ordering::Acquire) == 0 {
                break None;
            }
            spins = spins.wrapping_add(1);
            if !spins.is_multiple_of(64) {
                std::hint::spin_loop();
                continue;
            }
            let now = Instant::now();
            let mut any_parked = false;
            let found = (0..self.slots.len()).find(|&i| {
                if !self.is(step, i, hold::PARKED) {
                    return false;
                }
                any_parked = true;
                let just_handed = matches!(handed_over,
                    Some((h, at)) if h == i && now - at < HANDOVER.grace);
                !just_handed && self.take(step, i, hold::PARKED)
            });
            if found.is_some() {
                break found;
            }
            if !any_parked && (now - start).as_nanos() as u64 >= budget {
                break None;
            }
        };
        self.lingering[own].store(0, Ordering::Relaxed);
        self.lingerers.fetch_sub(1, Ordering::AcqRel);
        taken
    }

    /// Waits until every env of the step is done or `deadline` passes; true if done.
    fn wait_for_step(&self, deadline: Option<Instant>) -> bool {
        // Registered before the first look at `remaining`: a thread that counts the last
        // env out after the look then finds this waiter under the lock (see `finish`).
        *self.waiter.lock().unwrap_or_else(|e| e.into_inner()) = Some(std::thread::current());
        wait_until(|| self.remaining.load(Ordering::Acquire) == 0, deadline)
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

/// A thread's life: wait for a new generation of its signal, then work on the current
/// step (nothing, if the thread woke so late that it has ended).
fn thread_main(shared: &Shared, own: usize, signal: Signal) {
    let generation = &shared.generations[signal as usize];
    let mut seen = 0;
    let mut clock = FrameClock::default();
    loop {
        wait_until(|| generation.load(Ordering::Acquire) != seen, None);
        seen = generation.load(Ordering::Acquire);
        if shared.shutdown.load(Ordering::Acquire) {
            return;
        }
        match shared.current() {
            Some(step) => shared.work(step, own, &mut clock),
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
    /// Steps published so far: the number of the latest.
    steps: u64,
    /// Times the frames of the thread that calls `run` or `wait`.
    caller_clock: FrameClock,
}

impl Pool {
    /// A pool of `threads` threads (the caller's included) for steps of `envs` envs.
    pub(crate) fn new(threads: usize, envs: usize) -> Pool {
        let threads = threads.max(1);
        let shared = Arc::new(Shared {
            generations: [
                CachePadded(AtomicU64::new(0)),
                CachePadded(AtomicU64::new(0)),
            ],
            remaining: CachePadded(AtomicUsize::new(0)),
            slots: (0..envs)
                .map(|_| {
                    CachePadded(EnvSlot {
                        word: AtomicU64::new(0),
                        frames_done: UnsafeCell::new(0),
                    })
                })
                .collect(),
            chunks: threads,
            step: Mutex::new(None),
            waiter: Mutex::new(None),
            shutdown: AtomicBool::new(false),
            panicked: AtomicBool::new(false),
            lingering: (0..threads)
                .map(|_| CachePadded(AtomicU64::new(0)))
                .collect(),
            lingerers: CachePadded(AtomicUsize::new(0)),
            frame_nanos: (0..threads)
                .map(|_| CachePadded(AtomicU64::new(0)))
                .collect(),
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
            steps: 0,
            caller_clock: FrameClock::default(),
        }
    }

    /// Whether a step started by `start` has not been waited for to its end.
    pub(crate) fn in_flight(&self) -> bool {
        self.in_flight
    }

    /// Publishes `job` as a new step and wakes the workers (and the stand-in if
    /// `with_stand_in`). The previous step has ended (every env counted out).
    fn publish(&mut self, job: Job, with_stand_in: bool) -> Step {
        debug_assert!(!self.in_flight, "one step at a time");
        assert!(
            job.len == self.shared.slots.len(),
            "a job for the pool's envs"
        );
        self.steps += 1;
        let step = Step {
            number: self.steps,
            job,
        };
        let shared = &*self.shared;
        shared.panicked.store(false, Ordering::Relaxed);
        shared.remaining.store(job.len, Ordering::Relaxed);
        // The env slots before the step itself: a thread that reads this step (under the
        // lock, which orders these stores before its loads) finds them ready, and a thread
        // still holding the previous step finds them refusing it.
        for slot in shared.slots.iter() {
            // Safety: no thread holds an env between steps.
            unsafe { *slot.frames_done.get() = 0 };
            slot.word.store(step.word(hold::UNTAKEN), Ordering::Release);
        }
        *shared.step.lock().unwrap_or_else(|e| e.into_inner()) = Some(step);
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

    /// Runs `job` to its end on the calling thread and the workers. False if any env's step
    /// panicked (a bug; the envs are then in an unknown state).
    pub(crate) fn run(&mut self, job: Job) -> bool {
        assert!(!self.in_flight, "a started step must be waited for first");
        let step = self.publish(job, false);
        let shared = &*self.shared;
        shared.work(step, 0, &mut self.caller_clock);
        // Every env must be done before the borrows the job points into end.
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
    /// once it has ended (`ok` false if any env's step panicked), `None` if it is still
    /// running. `Some(true)` when no step is in flight.
    pub(crate) fn wait(&mut self, timeout: Option<Duration>) -> Option<bool> {
        if !self.in_flight {
            return Some(true);
        }
        let shared = &*self.shared;
        if timeout.is_none()
            && let Some(step) = shared.current()
        {
            // The caller has nothing else to do: it steps envs no thread has claimed yet, so
            // a step whose threads fell behind (or were descheduled) ends sooner. Not with a
            // timeout, which one env's step could overrun.
            shared.work(step, 0, &mut self.caller_clock);
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
        *shared.step.lock().unwrap_or_else(|e| e.into_inner()) = None;
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
