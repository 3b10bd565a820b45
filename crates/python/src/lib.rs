//! `backspin._backspin`: the native half of the `backspin` Python package (the Python half
//! lives in `python/backspin/`). Every call that emulates releases the GIL; every error
//! raised is a Python exception with a one-line message, never a crash.

mod errors;
mod game_boy;
mod memory;
mod rewind;
mod symbols;
mod vector;

use pyo3::prelude::*;

#[pymodule]
fn _backspin(m: &Bound<'_, PyModule>) -> PyResult<()> {
    errors::register(m)?;
    m.add_class::<game_boy::GameBoy>()?;
    m.add_class::<memory::Memory>()?;
    m.add_class::<rewind::Rewind>()?;
    m.add_class::<vector::VectorGameBoy>()?;
    for (name, mask) in [
        ("RIGHT", backspin_core::Buttons::RIGHT),
        ("LEFT", backspin_core::Buttons::LEFT),
        ("UP", backspin_core::Buttons::UP),
        ("DOWN", backspin_core::Buttons::DOWN),
        ("A", backspin_core::Buttons::A),
        ("B", backspin_core::Buttons::B),
        ("SELECT", backspin_core::Buttons::SELECT),
        ("START", backspin_core::Buttons::START),
    ] {
        m.add(name, mask)?;
    }
    m.add("SCREEN_SHAPE", (SCREEN_HEIGHT, SCREEN_WIDTH, 3))?;
    m.add_function(wrap_pyfunction!(demo_rom, m)?)?;
    Ok(())
}

/// Backspin's own demo cartridge (a small DMG game built from `assets/demo`), for trying
/// the API and for tests.
#[pyfunction]
fn demo_rom(py: Python<'_>) -> Bound<'_, pyo3::types::PyBytes> {
    pyo3::types::PyBytes::new(py, include_bytes!(concat!(env!("OUT_DIR"), "/demo.gb")))
}

pub(crate) use backspin_core::{SCREEN_HEIGHT, SCREEN_WIDTH};
