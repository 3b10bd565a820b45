//! `gb.memory`: the CPU's view of memory (reads without side effects), by address, slice or
//! `(bank, address)`; writes are inputs on the timeline (`Timeline::poke`), so rewind and
//! movies repeat them at their exact cycle.

use crate::game_boy::GameBoy;
use pyo3::exceptions::{PyIndexError, PyTypeError, PyValueError};
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

fn bank_of(value: isize) -> PyResult<u16> {
    u16::try_from(value).map_err(|_| PyIndexError::new_err(format!("bank {value} does not exist")))
}

/// A byte value from Python: an int in 0..=255.
pub(crate) fn byte(value: &Bound<'_, PyAny>) -> PyResult<u8> {
    let number: i64 = value
        .extract()
        .map_err(|_| PyTypeError::new_err("a memory value is an int in 0..=255"))?;
    byte_of(number)
}

pub(crate) fn byte_of(number: i64) -> PyResult<u8> {
    u8::try_from(number)
        .map_err(|_| PyValueError::new_err(format!("value {number} is not a byte (0..=255)")))
}

/// Byte values from Python: bytes, a bytearray or a sequence of ints in 0..=255.
pub(crate) fn bytes(value: &Bound<'_, PyAny>) -> PyResult<Vec<u8>> {
    let numbers: Vec<i64> = value
        .extract()
        .map_err(|_| PyTypeError::new_err("memory values are bytes or a sequence of ints"))?;
    numbers.into_iter().map(byte_of).collect()
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
            // `indices` keeps both within 0..=0x10000: no wrap.
            let mut bytes = vec![0; (range.stop - range.start).max(0) as usize];
            game_boy.timeline.peek_into(range.start as u16, &mut bytes);
            return Ok(PyBytes::new(py, &bytes).into_any().unbind());
        }
        if let Ok(pair) = key.cast::<PyTuple>() {
            let (bank, addr): (isize, isize) = pair.extract().map_err(|_| {
                PyTypeError::new_err("a banked address is a pair of ints: memory[bank, addr]")
            })?;
            let bank = bank_of(bank)?;
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

    /// `memory[addr] = v` writes through the memory map as the CPU's write would (an MBC
    /// register switches banks, an I/O register acts), never blocked by the PPU or DMA;
    /// `memory[start:stop] = data` writes each byte in order; `memory[bank, addr] = v`
    /// stores straight into that bank (VRAM, cartridge RAM, WRAM; not ROM). Each write is an
    /// input on the timeline at the current cycle: a rewind re-simulates it.
    fn __setitem__(
        &self,
        py: Python<'_>,
        key: &Bound<'_, PyAny>,
        value: &Bound<'_, PyAny>,
    ) -> PyResult<()> {
        let mut game_boy = self.game_boy.bind(py).try_borrow_mut()?;
        if let Ok(slice) = key.cast::<PySlice>() {
            let range = slice.indices(0x10000)?;
            if range.step != 1 {
                return Err(PyValueError::new_err("memory slices take no step"));
            }
            let values = bytes(value)?;
            let len = (range.stop - range.start).max(0) as usize;
            if values.len() != len {
                return Err(PyValueError::new_err(format!(
                    "{} values given for a slice of {len} addresses (memory cannot grow or shrink)",
                    values.len()
                )));
            }
            for (addr, value) in (range.start..).zip(values) {
                game_boy.timeline.poke(addr as u16, value);
            }
            return Ok(());
        }
        if let Ok(pair) = key.cast::<PyTuple>() {
            let (bank, addr): (isize, isize) = pair.extract().map_err(|_| {
                PyTypeError::new_err("a banked address is a pair of ints: memory[bank, addr]")
            })?;
            let (bank, addr, value) = (bank_of(bank)?, address(addr)?, byte(value)?);
            return game_boy
                .timeline
                .poke_banked(bank, addr, value)
                .map_err(|e| PyIndexError::new_err(e.to_string()));
        }
        let addr: isize = key.extract().map_err(|_| {
            PyTypeError::new_err("memory is indexed by an int, a slice or (bank, addr)")
        })?;
        let (addr, value) = (address(addr)?, byte(value)?);
        game_boy.timeline.poke(addr, value);
        Ok(())
    }

    fn __len__(&self) -> usize {
        0x10000
    }
}
