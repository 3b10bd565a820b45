//! The pool's contract, through its public API: every item's `begin`, pieces and `finish`
//! run exactly once per step, in order, one thread at a time; what items write lands in
//! their own rows; a panicking item fails the step without taking the pool down; a started
//! step is kept alive until waited for or the pool is dropped, which joins its threads.

use backspin_pool::{Pool, Work};
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};

#[derive(Debug, PartialEq, Clone, Copy)]
enum Event {
    Begin,
    Piece(u64, u64),
    Finish,
}

/// An item that logs what it was asked to do and writes its number into its output row.
struct Recorder<'a> {
    number: u64,
    log: &'a mut Vec<Event>,
    row: &'a mut [u64],
    /// Set while a call runs: a second thread in at once would find it set.
    busy: &'a AtomicBool,
    /// Whose `piece` panics at this index (`u64::MAX`: none).
    panic_at: u64,
}

impl Recorder<'_> {
    fn enter(&self) {
        assert!(
            !self.busy.swap(true, Ordering::AcqRel),
            "two threads in one item"
        );
    }

    fn leave(&self) {
        self.busy.store(false, Ordering::Release);
    }
}

impl Work for Recorder<'_> {
    fn begin(&mut self) {
        self.enter();
        self.log.push(Event::Begin);
        self.leave();
    }

    fn piece(&mut self, index: u64, pieces: u64) {
        self.enter();
        self.log.push(Event::Piece(index, pieces));
        self.leave();
        assert!(
            index != self.panic_at,
            "item {} panics as told",
            self.number
        );
    }

    fn finish(&mut self) {
        self.enter();
        self.log.push(Event::Finish);
        for (k, cell) in self.row.iter_mut().enumerate() {
            *cell = self.number * 1000 + k as u64;
        }
        self.leave();
    }
}

const ROW: usize = 3;

/// What a step of `n` items writes and logs.
struct Bench {
    logs: Vec<Vec<Event>>,
    rows: Vec<u64>,
    busy: Vec<AtomicBool>,
}

impl Bench {
    fn new(n: usize) -> Bench {
        Bench {
            logs: vec![Vec::new(); n],
            rows: vec![0; n * ROW],
            busy: (0..n).map(|_| AtomicBool::new(false)).collect(),
        }
    }

    /// One recorder per item, each holding its own row of the one output buffer.
    fn items(&mut self, panic_at: &[u64]) -> Vec<Recorder<'_>> {
        self.logs
            .iter_mut()
            .zip(self.rows.chunks_exact_mut(ROW))
            .zip(&self.busy)
            .enumerate()
            .map(|(i, ((log, row), busy))| Recorder {
                number: i as u64,
                log,
                row,
                busy,
                panic_at: panic_at.get(i).copied().unwrap_or(u64::MAX),
            })
            .collect()
    }

    /// Checks, then forgets, one step of `pieces` pieces per item (item `i` stopping after
    /// piece `panic_at[i]`, when given).
    fn check_and_clear(&mut self, pieces: u64, panic_at: &[u64]) {
        for (i, log) in self.logs.iter_mut().enumerate() {
            let stop = panic_at.get(i).copied().unwrap_or(u64::MAX);
            let mut expected = vec![Event::Begin];
            expected
                .extend((0..pieces.min(stop.saturating_add(1))).map(|k| Event::Piece(k, pieces)));
            if stop >= pieces {
                expected.push(Event::Finish);
            }
            assert_eq!(*log, expected, "item {i}");
            log.clear();
        }
        for (i, row) in self.rows.chunks_exact_mut(ROW).enumerate() {
            let stop = panic_at.get(i).copied().unwrap_or(u64::MAX);
            let expected: Vec<u64> = if stop >= pieces {
                (0..ROW as u64).map(|k| i as u64 * 1000 + k).collect()
            } else {
                vec![0; ROW]
            };
            assert_eq!(row, &expected[..], "row {i}");
            row.fill(0);
        }
    }
}

const THREADS: [usize; 4] = [1, 2, 3, 8];
const ITEMS: [usize; 5] = [0, 1, 2, 5, 37];
const PIECES: [u64; 3] = [0, 1, 4];

#[test]
fn run_runs_every_item_once_per_step_in_order() {
    for threads in THREADS {
        for n in ITEMS {
            let mut pool = Pool::new(threads, n);
            let mut bench = Bench::new(n);
            for _ in 0..3 {
                for pieces in PIECES {
                    assert!(pool.run(&mut bench.items(&[]), pieces));
                    bench.check_and_clear(pieces, &[]);
                }
            }
        }
    }
}

#[test]
fn start_then_wait_runs_every_item_once_per_step_in_order() {
    for threads in THREADS {
        for n in ITEMS {
            let mut pool = Pool::new(threads, n);
            let mut bench = Bench::new(n);
            for round in 0..3 {
                for pieces in PIECES {
                    assert!(!pool.in_flight());
                    // SAFETY: `bench` is touched again only after `wait` returns `Some`.
                    unsafe { pool.start(bench.items(&[]), pieces) };
                    assert!(pool.in_flight());
                    // Waiting with a timeout leaves the work to the pool's threads.
                    let ok = if round == 1 {
                        loop {
                            if let Some(ok) = pool.wait(Some(std::time::Duration::ZERO)) {
                                break ok;
                            }
                        }
                    } else {
                        pool.wait(None).expect("no deadline")
                    };
                    assert!(ok);
                    assert!(!pool.in_flight());
                    bench.check_and_clear(pieces, &[]);
                    // Both kinds of step follow each other.
                    assert!(pool.run(&mut bench.items(&[]), pieces));
                    bench.check_and_clear(pieces, &[]);
                }
            }
        }
    }
}

#[test]
fn wait_with_nothing_in_flight_is_done() {
    let mut pool = Pool::new(2, 3);
    assert_eq!(pool.wait(None), Some(true));
    assert_eq!(pool.wait(Some(std::time::Duration::ZERO)), Some(true));
}

#[test]
fn many_steps_on_more_items_than_threads() {
    let (threads, n, pieces) = (4, 16, 5);
    let mut pool = Pool::new(threads, n);
    let mut bench = Bench::new(n);
    for _ in 0..300 {
        assert!(pool.run(&mut bench.items(&[]), pieces));
        bench.check_and_clear(pieces, &[]);
    }
}

#[test]
fn a_panicking_item_fails_its_step_only() {
    for threads in [1, 2, 4] {
        let n = 6;
        let mut pool = Pool::new(threads, n);
        let mut bench = Bench::new(n);
        let panic_at = [u64::MAX, 0, u64::MAX, 2, u64::MAX, u64::MAX];
        assert!(!pool.run(&mut bench.items(&panic_at), 4));
        // The others ran to their end; the panicking ones stopped where they panicked.
        bench.check_and_clear(4, &panic_at);
        assert!(pool.run(&mut bench.items(&[]), 4));
        bench.check_and_clear(4, &[]);

        // SAFETY: `bench` is touched again only after `wait` returns `Some`.
        unsafe { pool.start(bench.items(&panic_at), 4) };
        assert_eq!(pool.wait(None), Some(false));
        bench.check_and_clear(4, &panic_at);
        unsafe { pool.start(bench.items(&[]), 4) };
        assert_eq!(pool.wait(None), Some(true));
        bench.check_and_clear(4, &[]);
    }
}

#[test]
#[should_panic(expected = "a step of 2 items for a pool of 3")]
fn a_step_of_the_wrong_size_is_refused() {
    let mut pool = Pool::new(2, 3);
    let mut bench = Bench::new(2);
    pool.run(&mut bench.items(&[]), 1);
}

#[test]
#[should_panic(expected = "a started step must be waited for first")]
fn a_step_while_one_is_in_flight_is_refused() {
    // Made before the pool, so dropped after it (it waits for the step as it drops).
    let mut first = Bench::new(1);
    let mut second = Bench::new(1);
    let mut pool = Pool::new(2, 1);
    // SAFETY: `first` outlives the pool and is not touched meanwhile.
    unsafe { pool.start(first.items(&[]), 1) };
    pool.run(&mut second.items(&[]), 1);
}

/// Counts the live threads that have run an item, from the item (a thread-local whose
/// destructor runs as its thread exits, before a join of it returns).
struct Alive(Arc<AtomicUsize>);

impl Drop for Alive {
    fn drop(&mut self) {
        self.0.fetch_sub(1, Ordering::AcqRel);
    }
}

thread_local! {
    static ALIVE: std::cell::OnceCell<Alive> = const { std::cell::OnceCell::new() };
}

/// An item whose first piece waits until `release` is set, and which marks the thread
/// that runs it alive (the caller's thread excepted).
struct Gate {
    release: Arc<AtomicBool>,
    started: Arc<AtomicUsize>,
    finished: Arc<AtomicUsize>,
    alive: Arc<AtomicUsize>,
    caller: std::thread::ThreadId,
}

impl Work for Gate {
    fn begin(&mut self) {
        if std::thread::current().id() != self.caller {
            ALIVE.with(|alive| {
                alive.get_or_init(|| {
                    self.alive.fetch_add(1, Ordering::AcqRel);
                    Alive(Arc::clone(&self.alive))
                });
            });
        }
        self.started.fetch_add(1, Ordering::AcqRel);
    }

    fn piece(&mut self, _: u64, _: u64) {
        while !self.release.load(Ordering::Acquire) {
            std::hint::spin_loop();
        }
    }

    fn finish(&mut self) {
        self.finished.fetch_add(1, Ordering::AcqRel);
    }
}

#[test]
fn drop_waits_for_a_started_step_and_joins_the_threads() {
    for threads in [1, 2, 4] {
        let n = 8;
        let release = Arc::new(AtomicBool::new(false));
        let started = Arc::new(AtomicUsize::new(0));
        let finished = Arc::new(AtomicUsize::new(0));
        let alive = Arc::new(AtomicUsize::new(0));
        let items = (0..n)
            .map(|_| Gate {
                release: Arc::clone(&release),
                started: Arc::clone(&started),
                finished: Arc::clone(&finished),
                alive: Arc::clone(&alive),
                caller: std::thread::current().id(),
            })
            .collect();
        let mut pool = Pool::new(threads, n);
        // SAFETY: the items own everything they use.
        unsafe { pool.start(items, 2) };
        // The pool's threads (not this one, which has not waited) have begun an item.
        while started.load(Ordering::Acquire) == 0 {
            std::hint::spin_loop();
        }
        assert!(alive.load(Ordering::Acquire) > 0);
        assert_eq!(finished.load(Ordering::Acquire), 0);
        release.store(true, Ordering::Release);
        drop(pool);
        assert_eq!(finished.load(Ordering::Acquire), n);
        assert_eq!(
            alive.load(Ordering::Acquire),
            0,
            "a thread outlived its pool"
        );
    }
}

/// An item whose pieces take a while, so that threads out of work take over the items
/// others have set aside: each piece bumps its own count, which only its holder touches.
struct Busy<'a> {
    pieces: &'a mut u64,
    busy: &'a AtomicBool,
}

impl Work for Busy<'_> {
    fn begin(&mut self) {}

    fn piece(&mut self, _: u64, _: u64) {
        assert!(
            !self.busy.swap(true, Ordering::AcqRel),
            "two threads in one item"
        );
        let before = *self.pieces;
        // Work enough for another thread to come by meanwhile.
        let mut x = before;
        for k in 0..20_000u64 {
            x = std::hint::black_box(x.wrapping_mul(31).wrapping_add(k));
        }
        std::hint::black_box(x);
        *self.pieces = before + 1;
        self.busy.store(false, Ordering::Release);
    }

    fn finish(&mut self) {}
}

#[test]
fn items_handed_between_threads_are_held_by_one_at_a_time() {
    let (threads, n, pieces, steps) = (4, 7, 6, 40);
    let mut pool = Pool::new(threads, n);
    let mut counts = vec![0u64; n];
    let busy: Vec<AtomicBool> = (0..n).map(|_| AtomicBool::new(false)).collect();
    for _ in 0..steps {
        let mut items: Vec<Busy> = counts
            .iter_mut()
            .zip(&busy)
            .map(|(pieces, busy)| Busy { pieces, busy })
            .collect();
        assert!(pool.run(&mut items, pieces));
    }
    assert!(counts.iter().all(|&c| c == pieces * steps), "{counts:?}");
}

/// How far item 2 of `Scripted` has got.
#[derive(Default)]
struct Progress {
    item_2_pieces: AtomicUsize,
    item_2_done: AtomicBool,
}

fn wait_for(condition: impl Fn() -> bool) {
    while !condition() {
        std::hint::spin_loop();
    }
}

/// Three items on two threads, scripted so that item 2 must move between threads mid-step:
/// thread 0 owns item 0 and thread 1 owns items 1 and 2. Item 0 waits until thread 1 has
/// run piece 0 of item 2; item 1's piece 1 waits until item 2 is done. So thread 1, stuck in
/// item 1, has item 2 set aside, and only thread 0, done with item 0, can run the rest of it.
struct Scripted<'a> {
    index: usize,
    log: &'a mut Vec<(Event, std::thread::ThreadId)>,
    progress: &'a Progress,
}

impl Scripted<'_> {
    fn log(&mut self, event: Event) {
        self.log.push((event, std::thread::current().id()));
    }
}

impl Work for Scripted<'_> {
    fn begin(&mut self) {
        self.log(Event::Begin);
    }

    fn piece(&mut self, index: u64, pieces: u64) {
        self.log(Event::Piece(index, pieces));
        let progress = self.progress;
        match (self.index, index) {
            (0, 0) => wait_for(|| progress.item_2_pieces.load(Ordering::Acquire) >= 1),
            (1, 1) => wait_for(|| progress.item_2_done.load(Ordering::Acquire)),
            (2, _) => {
                progress.item_2_pieces.fetch_add(1, Ordering::AcqRel);
            }
            _ => {}
        }
    }

    fn finish(&mut self) {
        self.log(Event::Finish);
        if self.index == 2 {
            self.progress.item_2_done.store(true, Ordering::Release);
        }
    }
}

#[test]
fn an_item_set_aside_moves_to_a_thread_out_of_work() {
    let pieces = 3;
    let mut pool = Pool::new(2, 3);
    for _ in 0..20 {
        let progress = Progress::default();
        let mut logs = vec![Vec::new(); 3];
        let mut items: Vec<Scripted> = logs
            .iter_mut()
            .enumerate()
            .map(|(index, log)| Scripted {
                index,
                log,
                progress: &progress,
            })
            .collect();
        assert!(pool.run(&mut items, pieces));
        let caller = std::thread::current().id();
        for log in &logs {
            let events: Vec<Event> = log.iter().map(|&(event, _)| event).collect();
            let mut expected = vec![Event::Begin];
            expected.extend((0..pieces).map(|k| Event::Piece(k, pieces)));
            expected.push(Event::Finish);
            assert_eq!(events, expected);
        }
        // Item 2: begun and its piece 0 run by the worker, the rest by the caller.
        let threads: Vec<bool> = logs[2].iter().map(|&(_, t)| t == caller).collect();
        assert_eq!(threads, [false, false, true, true, true]);
    }
}
