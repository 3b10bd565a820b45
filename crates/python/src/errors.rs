//! The package's exceptions: one base class, one subclass per kind of bad input.

use pyo3::create_exception;
use pyo3::exceptions::PyException;
use pyo3::prelude::*;

create_exception!(
    _backspin,
    BackspinError,
    PyException,
    "Base class of every error Backspin raises for bad input."
);
create_exception!(
    _backspin,
    RomError,
    BackspinError,
    "The ROM (or boot ROM) cannot be read or is not a Game Boy cartridge."
);
create_exception!(
    _backspin,
    StateError,
    BackspinError,
    "A save state is corrupt, truncated, from a newer version, or for another ROM or model."
);
create_exception!(
    _backspin,
    RewindError,
    BackspinError,
    "The frame asked for is not in the rewind history (or rewind is off)."
);

create_exception!(
    _backspin,
    SymbolError,
    BackspinError,
    "A symbol file has a malformed line, or a symbol name is unknown."
);

pub(crate) fn register(m: &Bound<'_, PyModule>) -> PyResult<()> {
    let py = m.py();
    m.add("BackspinError", py.get_type::<BackspinError>())?;
    m.add("RomError", py.get_type::<RomError>())?;
    m.add("StateError", py.get_type::<StateError>())?;
    m.add("RewindError", py.get_type::<RewindError>())?;
    m.add("SymbolError", py.get_type::<SymbolError>())?;
    Ok(())
}
