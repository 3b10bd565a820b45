//! `Job`: one step's items with their type erased, so that threads that outlive any one
//! step (and know no item type) can run them.

use crate::Work;
use std::ptr::NonNull;

/// One step's items, `len` `T: Work` at `items`, each to run `pieces` pieces. Only a
/// pointer: the pool keeps the items alive and hands each to one thread at a time (see
/// `advance`).
#[derive(Clone, Copy)]
pub(crate) struct Job {
    items: NonNull<()>,
    len: usize,
    pieces: u64,
    /// `advance_item::<T>`.
    advance: unsafe fn(NonNull<()>, usize, &mut u64, u64) -> bool,
}

// SAFETY: a job carries a pointer to `T: Work` items, which are `Send`, to the pool's
// threads; each item is then used through `&mut` by one thread at a time (see `advance`),
// which is what `Send` allows. No thread ever reaches an item through a shared reference.
unsafe impl Send for Job {}

impl Job {
    /// The job of running every item of `items` for `pieces` pieces.
    pub(crate) fn new<T: Work>(items: &mut [T], pieces: u64) -> Job {
        let len = items.len();
        Job {
            items: NonNull::from(items).cast(),
            len,
            pieces,
            advance: advance_item::<T>,
        }
    }

    pub(crate) fn len(&self) -> usize {
        self.len
    }

    pub(crate) fn pieces(&self) -> u64 {
        self.pieces
    }

    /// Runs the next piece of item `i`, of which `done` pieces have run in this step
    /// (`begin` first if none has, `finish` after the last); counts it in `done`. True if
    /// the item has pieces left; false once it has finished.
    ///
    /// # Safety
    /// `i < len`, the items are alive and not otherwise borrowed (the step they belong to has
    /// not ended), and the calling thread is the only one using item `i` until this returns.
    pub(crate) unsafe fn advance(&self, i: usize, done: &mut u64) -> bool {
        debug_assert!(i < self.len);
        // SAFETY: `advance` is `advance_item::<T>` for the `T` `items` points to; the rest
        // is this function's contract.
        unsafe { (self.advance)(self.items, i, done, self.pieces) }
    }
}

/// `Job::advance` for items of type `T`.
///
/// # Safety
/// `items` points to at least `i + 1` `T`s, and what `Job::advance` requires holds.
unsafe fn advance_item<T: Work>(items: NonNull<()>, i: usize, done: &mut u64, pieces: u64) -> bool {
    // SAFETY: `items` came from a `&mut [T]` whose borrow lasts until the step ends
    // (`Pool::run` holds it, `Pool::start`'s caller promises it), and `i` is in it; this
    // thread alone uses item `i` meanwhile, so a `&mut` to it aliases nothing.
    let item = unsafe { &mut *items.cast::<T>().as_ptr().add(i) };
    if *done == 0 {
        item.begin();
    }
    if *done < pieces {
        item.piece(*done, pieces);
        *done += 1;
    }
    if *done < pieces {
        return true;
    }
    item.finish();
    false
}
