//! A pool of worker threads kept alive between steps, for stepping many independent items
//! (the Python `VectorGameBoy`'s envs) together with a small fixed cost per step.
//!
//! A step hands the pool a slice of items, each implementing [`Work`]: the pool runs every
//! item's `begin`, its `pieces` pieces in order and its `finish`, each exactly once, spread
//! over its threads. An item's pieces are sequential (one thread at a time runs them, in
//! order), but may move between threads between two pieces, so that the threads end a step
//! close together even when they run at different speeds.
//!
//! Two ways to run a step:
//! - [`Pool::run`]: the calling thread takes part and the call returns when the step ends.
//!   The items are borrowed for the call, so this is safe.
//! - [`Pool::start`] then [`Pool::wait`]: the caller returns at once while a stand-in thread
//!   takes its share. Unsafe, because the items may borrow memory whose owner must leave it
//!   alone until the step ends, which the borrow checker cannot follow across the calls.
//!
//! Each item is handed to at most one thread at a time by a compare-and-swap on its slot,
//! and a thread holds an item only through a claim that this swap alone creates, so each
//! item's `&mut` is used by one thread at a time. What the items write into (for instance
//! the rows of one output buffer) they hold as `&mut`, split apart before the step (see
//! `chunks_exact_mut`): disjointness is the borrow checker's to enforce, not the pool's.

mod job;
mod pace;
mod pool;
mod shared;

pub use crate::pool::Pool;
/// Keeps a value on cache lines of its own, so that threads writing neighbouring values do
/// not contend for one line: for items that threads step side by side.
pub use crossbeam_utils::CachePadded;

/// One item's part of a step: `begin`, then `piece` for each index from 0 to `pieces - 1`,
/// then `finish`, each called once, in that order, on whichever pool thread holds the item
/// at the time (never two at once). With 0 pieces, `begin` then `finish`.
///
/// A panic in any of them is caught: the item counts as done, the step goes on with the
/// others, and [`Pool::run`] or [`Pool::wait`] reports the step failed.
pub trait Work: Send {
    /// Before the first piece.
    fn begin(&mut self);
    /// Piece `index` of `pieces`.
    fn piece(&mut self, index: u64, pieces: u64);
    /// After the last piece.
    fn finish(&mut self);
}
