//! Playing must not allocate once history is full (a frontend runs it every frame on the
//! emulation thread): a counting allocator watches every `Timeline::run_frame` call,
//! emulation, captures, keyframes, evictions and forks included.

use backspin_core::{Core, Options, Rom};
use backspin_rewind::{Captured, Config, Timeline};
use backspin_test_support::{InputScript, builtin_rom};
use std::alloc::{GlobalAlloc, Layout, System};
use std::cell::Cell;

struct Counting;

thread_local! {
    static WATCHING: Cell<bool> = const { Cell::new(false) };
    static ALLOCATIONS: Cell<u64> = const { Cell::new(0) };
}

fn note() {
    // `try_with`: thread-local storage may be gone while a thread exits.
    let _ = WATCHING.try_with(|w| {
        if w.get() {
            let _ = ALLOCATIONS.try_with(|a| a.set(a.get() + 1));
        }
    });
}

unsafe impl GlobalAlloc for Counting {
    unsafe fn alloc(&self, layout: Layout) -> *mut u8 {
        note();
        unsafe { System.alloc(layout) }
    }
    unsafe fn dealloc(&self, ptr: *mut u8, layout: Layout) {
        unsafe { System.dealloc(ptr, layout) }
    }
    unsafe fn realloc(&self, ptr: *mut u8, layout: Layout, new_size: usize) -> *mut u8 {
        note();
        unsafe { System.realloc(ptr, layout, new_size) }
    }
}

#[global_allocator]
static ALLOCATOR: Counting = Counting;

#[test]
fn capture_never_allocates() {
    ALLOCATIONS.with(|a| a.set(0));
    let rom = Rom::from_bytes(builtin_rom()).unwrap();
    let core = Core::new(rom, Options::default());
    // A small ring so that it wraps and evicts, and short keyframe groups.
    let mut config = Config::new(160 * 1024);
    config.keyframe_interval = 50;
    let every = config.capture_every as usize;
    let mut timeline = Timeline::with_config(core, config);
    let mut script = InputScript::new(3);
    let (mut stored, mut keyframes) = (0, 0);
    // Whole frames are watched, emulation included: the core's hot path must not allocate
    // either. The input log grows in chunks until history first wraps and recycles them;
    // from then on (a long session's steady state) nothing may allocate.
    for _ in 0..3000 * every {
        let buttons = script.next_frame();
        let steady = timeline.stats().ring_wraps > 0;
        WATCHING.with(|w| w.set(steady));
        timeline.set_buttons(buttons);
        timeline.run_frame();
        WATCHING.with(|w| w.set(false));
        if let Some(Captured::Stored { keyframe, .. }) = timeline.last_capture() {
            stored += 1;
            keyframes += usize::from(keyframe);
        }
    }
    // Rewind 100 frames and replay the same inputs (captures compare, write nothing), then
    // press something else (a fork, then appends).
    let back = timeline.span().newest - 100;
    timeline.seek(back).unwrap();
    let mut replayed = 0;
    for k in 0..150 {
        let frame = timeline.frame();
        let logged = timeline.buttons();
        let buttons = if k < 60 { logged } else { logged ^ 0x81 };
        WATCHING.with(|w| w.set(true));
        timeline.set_buttons(buttons);
        timeline.run_frame();
        WATCHING.with(|w| w.set(false));
        assert_eq!(timeline.frame(), frame + 1);
        replayed += usize::from(timeline.last_capture() == Some(Captured::Replayed));
    }
    assert!(replayed >= 55 / every, "{replayed} replayed captures");
    assert!(timeline.stats().forks >= 1);
    let stats = timeline.stats();
    assert!(stats.ring_wraps > 0, "the ring must wrap during the test");
    assert!(stored > 2900 && keyframes > 10);
    assert_eq!(ALLOCATIONS.with(Cell::get), 0, "allocations while playing");
}
