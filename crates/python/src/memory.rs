//! `gb.memory`: the CPU's view of memory (reads without side effects), by address, slice or
//! `(bank, address)`.

use crate::game_boy::GameBoy;
use pyo3::exceptions::{PyIndexError, PyNotImplementedError, PyTypeError, PyValueError};
use pyo3::prelude::*;
use pyo3::types::{PyBytes, PySlice, PySliceMethods, PyTuple};

/// The memory of one `GameBoy` (a view: it reads the machine as it is now).
#[pyclass(module = "backspin._backspin")]
pub struct Memory {
    game_boy: Py<GameBoy>,
}

impl Memory {
    pub(crate) fn new(game_boy: Py<GameBoy>) -> Memory {
        Memory { game_boy }
    }
}

fn address(value: isize) -> PyResult<u16> {
    u16::try_from(value)
        .map_err(|_| PyIndexError::new_err(format!("address {value} is outside 0..=0xFFFF")))
}

#[pymethods]
impl Memory {
    /// `memory[addr]` is an int, `memory[start:stop]` bytes (step 1), `memory[bank, addr]`
    /// the byte in that bank.
    fn __getitem__(&self, py: Python<'_>, key: &Bound<'_, PyAny>) -> PyResult<Py<PyAny>> {
        let mut game_boy = self.game_boy.bind(py).try_borrow_mut()?;
        if let Ok(slice) = key.cast::<PySlice>() {
            let range = slice.indices(0x10000)?;
            if range.step != 1 {
                return Err(PyValueError::new_err("memory slices take no step"));
            }
            let bytes: Vec<u8> = (range.start..range.stop.max(range.start))
                .map(|addr| game_boy.timeline.peek(addr as u16))
                .collect();
            return Ok(PyBytes::new(py, &bytes).into_any().unbind());
        }
        if let Ok(pair) = key.cast::<PyTuple>() {
            let (bank, addr): (isize, isize) = pair.extract().map_err(|_| {
                PyTypeError::new_err("a banked address is a pair of ints: memory[bank, addr]")
            })?;
            let bank = u16::try_from(bank)
                .map_err(|_| PyIndexError::new_err(format!("bank {bank} does not exist")))?;
            let byte = game_boy
                .timeline
                .core()
                .peek_banked(bank, address(addr)?)
                .map_err(|e| PyIndexError::new_err(e.to_string()))?;
            return Ok(byte.into_pyobject(py)?.into_any().unbind());
        }
        let addr: isize = key.extract().map_err(|_| {
            PyTypeError::new_err("memory is indexed by an int, a slice or (bank, addr)")
        })?;
        let byte = game_boy.timeline.peek(address(addr)?);
        Ok(byte.into_pyobject(py)?.into_any().unbind())
    }

    fn __setitem__(&self, _key: &Bound<'_, PyAny>, _value: &Bound<'_, PyAny>) -> PyResult<()> {
        Err(PyNotImplementedError::new_err(
            "memory writes are not supported yet (they must become inputs on the timeline)",
        ))
    }

    fn __len__(&self) -> usize {
        0x10000
    }
}
