//! `gb.rewind`: moving along the timeline's history from code.

use crate::game_boy::GameBoy;
use pyo3::prelude::*;

/// The rewind history of one `GameBoy`.
#[pyclass(module = "backspin._backspin")]
pub struct Rewind {
    game_boy: Py<GameBoy>,
}

impl Rewind {
    pub(crate) fn new(game_boy: Py<GameBoy>) -> Rewind {
        Rewind { game_boy }
    }

    fn seek_by(&self, py: Python<'_>, frames: i64) -> PyResult<()> {
        let mut game_boy = self.game_boy.bind(py).try_borrow_mut()?;
        let timeline = &game_boy.timeline;
        let span = timeline.span();
        let Some(target) = timeline.frame().checked_add_signed(frames) else {
            return Err(crate::errors::RewindError::new_err(format!(
                "{} frames back is before frame 0 (the history holds frames {}..={})",
                -frames, span.oldest, span.newest
            )));
        };
        game_boy.seek(py, target)
    }
}

#[pymethods]
impl Rewind {
    /// Goes `frames` frames back (state and screen exactly as they were). Playing on from
    /// there follows the kept future while the input matches it, and forks it otherwise.
    #[pyo3(signature = (frames = 1))]
    fn back(&self, py: Python<'_>, frames: u32) -> PyResult<()> {
        self.seek_by(py, -i64::from(frames))
    }

    /// Goes `frames` frames forward through the kept future (redo).
    #[pyo3(signature = (frames = 1))]
    fn forward(&self, py: Python<'_>, frames: u32) -> PyResult<()> {
        self.seek_by(py, i64::from(frames))
    }

    /// Jumps to frame `frame` (anywhere in `span`).
    fn seek(&self, py: Python<'_>, frame: u64) -> PyResult<()> {
        self.game_boy.bind(py).try_borrow_mut()?.seek(py, frame)
    }

    /// `(oldest, position, newest)`: the frames that can be reached and where we are.
    #[getter]
    fn span(&self, py: Python<'_>) -> (u64, u64, u64) {
        let span = self.game_boy.borrow(py).timeline.span();
        (span.oldest, span.position, span.newest)
    }
}
