//! `Shared`: the state the caller and the threads share, and a thread's part of a step.
//!
//! A step wakes the threads through a generation counter per kind of thread (a thread spins
//! on it briefly, then parks) and ends when a countdown of its items reaches 0, so its
//! fixed cost is a few atomic operations rather than channel messages and syscalls. The
//! countdown is of items, not threads: a step never waits for a thread that has nothing
//! left to do, such as a worker the host woke so late that the others had already claimed
//! all its items (under load, the caller then runs every item itself, at one thread's
//! speed, rather than idle until it wakes).
//!
//! Work split: thread t owns the contiguous chunk `t * n / threads .. (t + 1) * n / threads`
//! of the items and starts them front to back, so an item runs on the same core step after
//! step and its state stays in that core's cache. It keeps `IN_HAND` of them in hand and
//! runs one piece of each in turn, setting the others aside meanwhile. A thread with nothing
//! of its own left to start takes the others' untaken items (from the back), then the items
//! they have set aside, and runs their remaining pieces: with two in hand per thread the
//! threads end a step within about a piece of each other instead of up to a whole item's
//! part apart. A thread the host deschedules mid-step holds up only the item it is in. A
//! thread out of work lingers a moment while a slower one runs, and that one hands it the
//! item it runs alone at a piece's end when the move pays (see `HANDOVER`).

use crate::CachePadded;
use crate::job::Job;
use crate::pace::{HANDOVER, IN_HAND, PieceClock, SPIN, wait_until};
use std::panic::{AssertUnwindSafe, catch_unwind};
use std::sync::Mutex;
use std::sync::atomic::{AtomicBool, AtomicU64, AtomicUsize, Ordering};
use std::thread::Thread;
use std::time::Instant;

/// Which counter wakes a thread.
#[derive(Clone, Copy)]
pub(crate) enum Signal {
    /// The workers (threads 1 and up): every step.
    Workers = 0,
    /// The stand-in for thread 0: steps started by `Pool::start` only.
    StandIn = 1,
}

/// Who may run an item in the current step: the low two bits of its `ItemSlot::word`.
/// An item goes Untaken -> Busy, then between pieces Busy -> Parked -> Busy (possibly on
/// another thread) as often as it is set aside, and Busy -> Done after its finish.
mod hold {
    /// No thread has started it in this step.
    pub(super) const UNTAKEN: u64 = 0;
    /// A thread holds it (a `Claim`): runs it, or keeps it between two of its pieces.
    pub(super) const BUSY: u64 = 1;
    /// Set aside between two pieces while its thread runs another item: any thread may
    /// take it over.
    pub(super) const PARKED: u64 = 2;
    /// Its part of the step is over.
    pub(super) const DONE: u64 = 3;
    /// The step number sits above these bits.
    pub(super) const BITS: u32 = 2;
}

/// One item's progress in the current step.
struct ItemSlot {
    /// The step number above `hold::BITS`, its `hold` below. A thread takes an item by
    /// compare-and-swap of the whole word, so a thread holding a stale step (it woke after
    /// that step ended) can never take one: it never touches memory a finished step pointed
    /// into. 62 bits of step number never wrap.
    word: AtomicU64,
    /// Pieces run so far in this step: read and written only by the thread holding the item
    /// (Relaxed suffices: the Release store that parks or finishes the item and the Acquire
    /// compare-and-swap that takes it order the accesses of successive holders).
    pieces_done: AtomicU64,
}

/// The current step: its number and its work, read together by a thread that joins it.
#[derive(Clone, Copy)]
pub(crate) struct Step {
    pub(crate) number: u64,
    pub(crate) job: Job,
}

impl Step {
    fn word(&self, hold: u64) -> u64 {
        self.number << hold::BITS | hold
    }
}

/// The right to run item `index` of the step at hand: made only by `Shared::take`'s
/// successful compare-and-swap to `BUSY`, and given up (consumed) by `set_aside` or by the
/// item's end. Not `Clone`: at most one exists per item.
struct Claim {
    index: usize,
}

/// A place in a thread's hand.
enum Place {
    Empty,
    /// Held by this thread.
    Held(Claim),
    /// Set aside by this thread: taken back unless another thread took it over.
    Parked(usize),
}

/// State the caller and the threads share.
pub(crate) struct Shared {
    /// Per `Signal`: bumped to start a step for those threads (and once more to shut down).
    pub(crate) generations: [CachePadded<AtomicU64>; 2],
    /// Items of the current step not yet done. The step ends when it reaches 0, whether or
    /// not every thread has woken up for it: a thread the host was slow to wake (or that
    /// found nothing left to take) holds nothing up.
    remaining: CachePadded<AtomicUsize>,
    /// One per item, each on cache lines of its own (threads take neighbouring items).
    slots: Box<[CachePadded<ItemSlot>]>,
    /// Threads taking part in a step: each owns a contiguous chunk of the items.
    chunks: usize,
    /// The current step, `None` before the first and at shutdown. A lock, because a thread
    /// that wakes late may read it while the next step is being published: it then gets a
    /// consistent (number, job) pair of one step or the other, and a stale one can take no
    /// item. Uncontended, it costs two atomic operations per thread and step.
    step: Mutex<Option<Step>>,
    /// The thread waiting for the step to end: the thread that finishes the last item
    /// unparks it. A lock, because the waiter may register after the step began.
    waiter: Mutex<Option<Thread>>,
    pub(crate) shutdown: AtomicBool,
    panicked: AtomicBool,
    /// Per thread (by chunk): its recent piece time in nanoseconds while it lingers out of
    /// work at the end of a step (see `Shared::linger`), 0 otherwise.
    lingering: Box<[CachePadded<AtomicU64>]>,
    /// How many threads linger: a holder looks at `lingering` only when some do.
    lingerers: CachePadded<AtomicUsize>,
    /// Per thread (by chunk): its recent piece time in nanoseconds (0 before its first).
    piece_nanos: Box<[CachePadded<AtomicU64>]>,
}

fn padded_counters(n: usize) -> Box<[CachePadded<AtomicU64>]> {
    (0..n)
        .map(|_| CachePadded::new(AtomicU64::new(0)))
        .collect()
}

impl Shared {
    /// State for `threads` threads (at least 1) and steps of `items` items.
    pub(crate) fn new(threads: usize, items: usize) -> Shared {
        Shared {
            generations: [
                CachePadded::new(AtomicU64::new(0)),
                CachePadded::new(AtomicU64::new(0)),
            ],
            remaining: CachePadded::new(AtomicUsize::new(0)),
            slots: (0..items)
                .map(|_| {
                    CachePadded::new(ItemSlot {
                        word: AtomicU64::new(0),
                        pieces_done: AtomicU64::new(0),
                    })
                })
                .collect(),
            chunks: threads,
            step: Mutex::new(None),
            waiter: Mutex::new(None),
            shutdown: AtomicBool::new(false),
            panicked: AtomicBool::new(false),
            lingering: padded_counters(threads),
            lingerers: CachePadded::new(AtomicUsize::new(0)),
            piece_nanos: padded_counters(threads),
        }
    }

    /// Items per step.
    pub(crate) fn items(&self) -> usize {
        self.slots.len()
    }

    /// Whether any item's work panicked in the current (or last) step.
    pub(crate) fn panicked(&self) -> bool {
        self.panicked.load(Ordering::Relaxed)
    }

    /// Makes `step` the current one, every item untaken. The previous step has ended
    /// (every item counted out), so no thread holds an item.
    pub(crate) fn publish(&self, step: Step) {
        self.panicked.store(false, Ordering::Relaxed);
        self.remaining.store(step.job.len(), Ordering::Relaxed);
        // The item slots before the step itself: a thread that reads this step (under the
        // lock, which orders these stores before its loads) finds them ready, and a thread
        // still holding the previous step finds them refusing it.
        for slot in self.slots.iter() {
            slot.pieces_done.store(0, Ordering::Relaxed);
            slot.word.store(step.word(hold::UNTAKEN), Ordering::Release);
        }
        self.set_current(Some(step));
    }

    /// Replaces the current step (`None`: there is none, at shutdown).
    pub(crate) fn set_current(&self, step: Option<Step>) {
        *self.step.lock().unwrap_or_else(|e| e.into_inner()) = step;
    }

    /// The items of chunk `chunk`: `start..end`.
    fn chunk(&self, chunk: usize) -> std::ops::Range<usize> {
        let len = self.slots.len();
        chunk * len / self.chunks..(chunk + 1) * len / self.chunks
    }

    /// The step to work on: a copy, so that the lock is held for a moment only.
    pub(crate) fn current(&self) -> Option<Step> {
        *self.step.lock().unwrap_or_else(|e| e.into_inner())
    }

    /// Takes item `i` if it is in state `from` in step `step`.
    fn take(&self, step: &Step, i: usize, from: u64) -> Option<Claim> {
        self.slots[i]
            .word
            .compare_exchange(
                step.word(from),
                step.word(hold::BUSY),
                Ordering::AcqRel,
                Ordering::Relaxed,
            )
            .ok()
            .map(|_| Claim { index: i })
    }

    /// Whether item `i` is in state `hold` in step `step` (a hint: `take` decides).
    fn is(&self, step: &Step, i: usize, hold: u64) -> bool {
        self.slots[i].word.load(Ordering::Relaxed) == step.word(hold)
    }

    /// The next untaken item of chunk `own`, front to back (`cursor` is how far its thread
    /// has looked).
    fn take_own(&self, step: &Step, own: usize, cursor: &mut usize) -> Option<Claim> {
        let end = self.chunk(own).end;
        while *cursor < end {
            let i = *cursor;
            *cursor += 1;
            if let Some(claim) = self.take(step, i, hold::UNTAKEN) {
                return Some(claim);
            }
        }
        None
    }

    /// An item for a thread whose own chunk has nothing left to start: other chunks'
    /// untaken items back to front (their owners start at the front), then items other
    /// threads have set aside. `None` when there is nothing left to take now.
    fn take_other(
        &self,
        step: &Step,
        own: usize,
        handed_over: Option<(usize, Instant)>,
    ) -> Option<Claim> {
        for k in 1..self.chunks {
            for i in self.chunk((own + k) % self.chunks).rev() {
                if self.is(step, i, hold::UNTAKEN)
                    && let Some(claim) = self.take(step, i, hold::UNTAKEN)
                {
                    return Some(claim);
                }
            }
        }
        // Not the item this thread has just handed over (`linger` takes it back if need be).
        (0..self.slots.len()).find_map(|i| {
            if handed_over.is_some_and(|(h, _)| h == i) || !self.is(step, i, hold::PARKED) {
                return None;
            }
            self.take(step, i, hold::PARKED)
        })
    }

    /// Runs the next piece of the claimed item (its finish after the last). The claim back
    /// if the item has pieces left; `None` once it is done (counted out of the step).
    fn advance(&self, step: &Step, claim: Claim) -> Option<Claim> {
        let i = claim.index;
        let pieces_done = &self.slots[i].pieces_done;
        let mut done = pieces_done.load(Ordering::Relaxed);
        let ran = catch_unwind(AssertUnwindSafe(|| {
            // SAFETY: the claim, made by `take` against this step's number (so `step.job` is
            // the current job, not a stale copy), makes this thread item `i`'s only user
            // until it is given up; `i` indexes the job's items (`Pool` checks a job has a
            // slot per item). The step cannot end, and so `Pool` cannot give the items back
            // to their owner, before this item is counted out, which happens below.
            unsafe { step.job.advance(i, &mut done) }
        }));
        pieces_done.store(done, Ordering::Relaxed);
        match ran {
            Ok(true) => Some(claim),
            Ok(false) => {
                self.finish(step, claim);
                None
            }
            Err(_) => {
                self.panicked.store(true, Ordering::Relaxed);
                self.finish(step, claim);
                None
            }
        }
    }

    /// Sets the claimed item aside for any thread to take over; its index.
    fn set_aside(&self, step: &Step, claim: Claim) -> usize {
        self.slots[claim.index]
            .word
            .store(step.word(hold::PARKED), Ordering::Release);
        claim.index
    }

    /// The claimed item is done with this step; the last one wakes the waiter.
    fn finish(&self, step: &Step, claim: Claim) {
        self.slots[claim.index]
            .word
            .store(step.word(hold::DONE), Ordering::Release);
        if self.remaining.fetch_sub(1, Ordering::AcqRel) == 1 {
            let waiter = self.waiter.lock().unwrap_or_else(|e| e.into_inner()).take();
            if let Some(waiter) = waiter {
                waiter.unpark();
            }
        }
    }

    /// A thread's part of a step: it keeps up to `IN_HAND` items of its own chunk, runs one
    /// piece of each in turn (setting each aside while it runs the other), and takes more as
    /// they finish or are taken over; then one item at a time of the others' (see
    /// `take_other`), until nothing is left to take; then it lingers a moment for an item
    /// a slower thread hands over (see `linger`). `clock` times this thread's pieces.
    pub(crate) fn work(&self, step: Step, own: usize, clock: &mut PieceClock) {
        let in_hand = if self.chunks > 1 { IN_HAND } else { 1 };
        let mut hand: [Place; IN_HAND] = [const { Place::Empty }; IN_HAND];
        let mut cursor = self.chunk(own).start;
        // The item this thread last handed over, and when.
        let mut handed_over: Option<(usize, Instant)> = None;
        loop {
            for place in &mut hand[..in_hand] {
                if matches!(place, Place::Empty)
                    && let Some(claim) = self.take_own(&step, own, &mut cursor)
                {
                    *place = Place::Held(claim);
                }
            }
            // With two in hand, each waits for its turn set aside, from the start.
            if hand.iter().filter(|p| !matches!(p, Place::Empty)).count() > 1 {
                for place in &mut hand {
                    if let Place::Held(_) = place
                        && let Place::Held(claim) = std::mem::replace(place, Place::Empty)
                    {
                        *place = Place::Parked(self.set_aside(&step, claim));
                    }
                }
            }
            // Others' items only when there is nothing of its own in hand: a thread that
            // takes them sooner races their owner, which may just be waking up.
            if hand.iter().all(|p| matches!(p, Place::Empty)) {
                match self
                    .take_other(&step, own, handed_over)
                    .or_else(|| self.linger(&step, own, clock, handed_over))
                {
                    Some(claim) => hand[0] = Place::Held(claim),
                    None => return,
                }
            }
            for k in 0..in_hand {
                let claim = match std::mem::replace(&mut hand[k], Place::Empty) {
                    Place::Empty => continue,
                    Place::Held(claim) => claim,
                    Place::Parked(i) => match self.take(&step, i, hold::PARKED) {
                        Some(claim) => claim,
                        // Another thread took it over.
                        None => continue,
                    },
                };
                let start = Instant::now();
                let more = self.advance(&step, claim);
                clock.record(start.elapsed());
                self.piece_nanos[own].store(clock.nanos(), Ordering::Relaxed);
                let Some(claim) = more else { continue };
                // Set aside while another item of the hand runs, or for a faster thread
                // that is out of work to take over. Otherwise an item alone in the hand
                // runs on: a thread with nothing else to do taking it over would pay to
                // move its memory for no gain (its pieces are sequential).
                let others_in_hand =
                    (0..in_hand).any(|j| j != k && !matches!(hand[j], Place::Empty));
                if others_in_hand {
                    hand[k] = Place::Parked(self.set_aside(&step, claim));
                } else if self.faster_thread_lingers(own, clock, self.pieces_left(&step, &claim)) {
                    handed_over = Some((self.set_aside(&step, claim), Instant::now()));
                } else {
                    hand[k] = Place::Held(claim);
                }
            }
        }
    }

    /// Pieces the claimed item has left in this step.
    fn pieces_left(&self, step: &Step, claim: &Claim) -> u64 {
        step.job.pieces() - self.slots[claim.index].pieces_done.load(Ordering::Relaxed)
    }

    /// Whether a thread lingering out of work runs pieces enough faster than this one for
    /// `pieces_left` pieces of an item to end sooner there, after the move (see `HANDOVER`).
    fn faster_thread_lingers(&self, own: usize, clock: &PieceClock, pieces_left: u64) -> bool {
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
                && pieces_left.saturating_mul(mine - theirs) > HANDOVER.cost_nanos
        })
    }

    /// Waits a moment, out of work, for an item to take over: one a slower thread hands
    /// over at its next piece's end, or any other set aside. It lingers for about two of
    /// its own pieces if a thread slower than it is running (else not at all: spinning
    /// would only burn CPU time, which on a busy machine is this process's share), and as
    /// long as any item is set aside, so that an item handed to it never waits for nobody.
    /// `handed_over`, its own last handover, it takes back only after `HANDOVER.grace`
    /// (the taker gave up meanwhile). `None` when the step has ended or nothing came.
    fn linger(
        &self,
        step: &Step,
        own: usize,
        clock: &PieceClock,
        handed_over: Option<(usize, Instant)>,
    ) -> Option<Claim> {
        // A thread that has not run a piece yet has no speed to offer (and has handed
        // nothing over).
        if self.chunks == 1 || clock.nanos() == 0 {
            return None;
        }
        let start = Instant::now();
        // Only while a thread slower than this one runs: no other would hand over.
        let mine = clock.nanos();
        let slower_runs = self.piece_nanos.iter().enumerate().any(|(t, theirs)| {
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
            let found = (0..self.slots.len()).find_map(|i| {
                if !self.is(step, i, hold::PARKED) {
                    return None;
                }
                any_parked = true;
                let just_handed = matches!(handed_over,
                    Some((h, at)) if h == i && now - at < HANDOVER.grace);
                if just_handed {
                    return None;
                }
                self.take(step, i, hold::PARKED)
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

    /// Waits until every item of the step is done or `deadline` passes; true if done.
    pub(crate) fn wait_for_step(&self, deadline: Option<Instant>) -> bool {
        // Registered before the first look at `remaining`: a thread that counts the last
        // item out after the look then finds this waiter under the lock (see `finish`).
        *self.waiter.lock().unwrap_or_else(|e| e.into_inner()) = Some(std::thread::current());
        wait_until(|| self.remaining.load(Ordering::Acquire) == 0, deadline)
    }
}

/// A thread's life: wait for a new generation of its signal, then work on the current
/// step (nothing, if the thread woke so late that it has ended).
pub(crate) fn thread_main(shared: &Shared, own: usize, signal: Signal) {
    let generation = &shared.generations[signal as usize];
    let mut seen = 0;
    let mut clock = PieceClock::default();
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
