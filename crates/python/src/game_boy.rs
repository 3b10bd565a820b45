//! `GameBoy`: one emulated Game Boy on Backspin's timeline (so rewind and branching work
//! from code), with its screen as a numpy array.

use crate::errors::{RewindError, RomError, StateError, SymbolError};
use crate::memory::Memory;
use crate::rewind::Rewind;
use crate::symbols::Symbols;
use crate::{SCREEN_HEIGHT, SCREEN_WIDTH};
use backspin_core::state_file::{self, Metadata};
use backspin_core::{BootRom, Core, Model, Options, Rom};
use backspin_rewind::{RunUntil, Timeline};
use numpy::{PyArray3, PyArrayMethods};
use pyo3::exceptions::{PyOSError, PyTypeError, PyValueError};
use pyo3::prelude::*;
use pyo3::types::{PyBytes, PyDict};

/// Largest cartridge image accepted (MBC5's 8 MiB), plus room for a copier header.
const MAX_ROM_BYTES: u64 = 8 * 1024 * 1024 + 512;
/// Rewind history kept by default; `rewind_mib=0` turns rewind off.
const DEFAULT_REWIND_MIB: u32 = 64;
/// Upper bound for `rewind_mib` (the window's `--rewind-mib` has the same).
const MAX_REWIND_MIB: u32 = 4096;

/// One Game Boy. See the package docstring for the tour.
#[pyclass(module = "backspin._backspin")]
pub struct GameBoy {
    pub(crate) timeline: Timeline,
    /// `(144, 160, 3)` uint8: the last frame drawn with `draw="last"`.
    screen: Py<PyArray3<u8>>,
    /// Names from a `.sym` file (`sym=` or `load_symbols`), for `run_until(pc="name")`.
    symbols: Symbols,
}

/// Which frames of a `run` the PPU draws (the others run with its pixel output off, which
/// changes no byte of the state) and whether `screen` shows the last one.
#[derive(Clone, Copy, PartialEq, Eq)]
pub(crate) enum Draw {
    /// Only the last frame, shown in `screen`.
    Last,
    /// Every frame; the last is shown in `screen`.
    All,
    /// None; `screen` keeps its picture.
    Never,
}

impl Draw {
    fn parse(text: &str) -> PyResult<Draw> {
        match text {
            "last" => Ok(Draw::Last),
            "all" => Ok(Draw::All),
            "none" => Ok(Draw::Never),
            other => Err(PyValueError::new_err(format!(
                "draw must be \"last\", \"all\" or \"none\", not {other:?}"
            ))),
        }
    }

    /// Whether frame `index` (from 0) of a run of `frames` is drawn.
    fn draws(self, index: u64, frames: u64) -> bool {
        match self {
            Draw::Last => index + 1 == frames,
            Draw::All => true,
            Draw::Never => false,
        }
    }
}

/// Runs `frames` whole frames, drawing those `draw` asks for (the others run with the
/// PPU's pixel output off, which changes no byte of the state), then switches drawing back
/// on: everything else (`run_until`, rewind, loads) shows the frame it ends on.
pub(crate) fn run_frames(timeline: &mut Timeline, frames: u64, draw: Draw) {
    for index in 0..frames {
        run_frame_of(timeline, index, frames, draw);
    }
    timeline.set_drawing(true);
}

/// A powered-on core for Python, which plays no sound: it synthesizes none (emulation is the
/// same either way, and synthesis is a tenth of the time on music-heavy games).
pub(crate) fn silent_core(rom: Rom, options: Options) -> Core {
    let mut core = Core::new(rom, options);
    core.output().audio.set_synthesis(false);
    core
}

/// Frame `index` (from 0) of a run of `frames` that `run_frames` would make, for a caller
/// that runs them one at a time (then switches drawing back on itself, as `run_frames` does).
pub(crate) fn run_frame_of(timeline: &mut Timeline, index: u64, frames: u64, draw: Draw) {
    timeline.set_drawing(draw.draws(index, frames));
    timeline.run_frame();
}

/// A ROM given as bytes, or a path (`str` or `os.PathLike`) to read.
pub(crate) fn rom_bytes(py: Python<'_>, rom: &Bound<'_, PyAny>, what: &str) -> PyResult<Vec<u8>> {
    if let Ok(bytes) = rom.cast::<PyBytes>() {
        return Ok(bytes.as_bytes().to_vec());
    }
    let path: std::path::PathBuf = rom.extract().map_err(|_| {
        PyTypeError::new_err(format!(
            "{what} must be bytes or a path, not {}",
            rom.get_type().name().map_or("?".into(), |n| n.to_string())
        ))
    })?;
    py.detach(|| {
        let size = std::fs::metadata(&path).map(|m| m.len());
        match size {
            Ok(size) if size > MAX_ROM_BYTES => Err(format!(
                "{what} {}: {size} bytes is larger than any cartridge",
                path.display()
            )),
            _ => std::fs::read(&path).map_err(|e| format!("{what} {}: {e}", path.display())),
        }
    })
    .map_err(RomError::new_err)
}

/// A `model=` argument: "auto" (CGB for cartridges flagged for it, DMG otherwise), "dmg"
/// or "cgb".
pub(crate) fn parse_model(model: &str, rom: &Rom) -> PyResult<Model> {
    match model {
        "auto" => Ok(Model::auto_for(rom)),
        "dmg" => Ok(Model::Dmg),
        "cgb" => Ok(Model::Cgb),
        other => Err(PyValueError::new_err(format!(
            "model must be \"auto\", \"dmg\" or \"cgb\", not {other:?}"
        ))),
    }
}

impl GameBoy {
    /// Hands `write` the screen array's pixels, the one place that writes them.
    fn write_screen(&self, py: Python<'_>, write: impl FnOnce(&mut [u8])) {
        let screen = self.screen.bind(py);
        // Safety: the array was created C-contiguous by `new` and is only ever written here,
        // with the GIL held and no Rust borrow of it alive.
        write(unsafe { screen.as_slice_mut() }.expect("the screen array is contiguous"));
    }

    /// Shows the core's last frame.
    fn refresh_screen(&self, py: Python<'_>) {
        self.write_screen(py, |pixels| {
            backspin_core::screen::write_rgb(self.timeline.core(), pixels)
        });
    }

    /// Puts the machine at the end of `frame` (see `Timeline::seek`) and shows its picture.
    pub(crate) fn seek(&mut self, py: Python<'_>, frame: u64) -> PyResult<()> {
        let timeline = &mut self.timeline;
        py.detach(|| timeline.seek(frame)).map_err(rewind_error)?;
        self.refresh_screen(py);
        Ok(())
    }
}

#[pymethods]
impl GameBoy {
    /// Powers on a Game Boy with `rom` (bytes or a path) inserted.
    ///
    /// `model` is "auto" (CGB for cartridges flagged for it, DMG otherwise), "dmg" or "cgb";
    /// `boot_rom` (bytes or a path) runs a real boot ROM first; `rewind_mib` bounds the
    /// rewind history (0: off); `sym` is a symbol file to load (see `load_symbols`).
    #[new]
    #[pyo3(signature = (rom, model = "auto", boot_rom = None, rewind_mib = DEFAULT_REWIND_MIB, sym = None))]
    fn new(
        py: Python<'_>,
        rom: &Bound<'_, PyAny>,
        model: &str,
        boot_rom: Option<&Bound<'_, PyAny>>,
        rewind_mib: u32,
        sym: Option<std::path::PathBuf>,
    ) -> PyResult<GameBoy> {
        let symbols = match sym {
            Some(path) => read_symbols(&path)?,
            None => Symbols::default(),
        };
        if rewind_mib > MAX_REWIND_MIB {
            return Err(PyValueError::new_err(format!(
                "rewind_mib must be 0 to {MAX_REWIND_MIB}, not {rewind_mib}"
            )));
        }
        let rom = Rom::from_bytes(rom_bytes(py, rom, "ROM")?)
            .map_err(|e| RomError::new_err(format!("bad ROM: {e}")))?;
        let model = parse_model(model, &rom)?;
        let boot_rom = match boot_rom {
            None => None,
            Some(b) => Some(
                BootRom::from_bytes(&rom_bytes(py, b, "boot ROM")?)
                    .map_err(|e| RomError::new_err(e.to_string()))?,
            ),
        };
        if let Some(boot) = &boot_rom
            && boot.model() != model
        {
            return Err(RomError::new_err(format!(
                "the boot ROM is a {:?} one but the model is {model:?}",
                boot.model()
            )));
        }
        let core = silent_core(rom, Options { model, boot_rom });
        let budget = usize::try_from(rewind_mib).unwrap_or(0) * 1024 * 1024;
        let timeline = Timeline::new(core, budget);
        let screen = PyArray3::<u8>::zeros(py, [SCREEN_HEIGHT, SCREEN_WIDTH, 3], false).unbind();
        let game_boy = GameBoy {
            timeline,
            screen,
            symbols,
        };
        game_boy.refresh_screen(py);
        Ok(game_boy)
    }

    /// Emulates `frames` whole frames holding `buttons` (an int of A | B | ... flags; None
    /// keeps what is held). `draw="last"` draws only the last frame and shows it in
    /// `screen`; `"all"` draws every frame and shows the last; `"none"` draws nothing and
    /// leaves `screen`. Frames not drawn skip the pixel output only: the emulation, and so
    /// every later frame, is the same whichever is chosen. Releases the GIL while emulating.
    #[pyo3(signature = (frames = 1, buttons = None, draw = "last"))]
    fn run(
        &mut self,
        py: Python<'_>,
        frames: u64,
        buttons: Option<u8>,
        draw: &str,
    ) -> PyResult<()> {
        let draw = Draw::parse(draw)?;
        if let Some(buttons) = buttons
            && buttons != self.timeline.core().buttons().0
        {
            self.timeline.set_buttons(buttons);
        }
        let timeline = &mut self.timeline;
        py.detach(|| {
            run_frames(timeline, frames, draw);
        });
        if draw != Draw::Never && frames > 0 {
            self.refresh_screen(py);
        }
        Ok(())
    }

    /// Runs until the CPU is about to execute the instruction at `pc` (an address, or a
    /// name from the loaded symbols), or `max_frames` frames have ended. True when `pc` was
    /// reached. No ROM patching: the check is made before every instruction. A name in ROM
    /// (address below 0x8000) is reached only while its bank is mapped there; for other
    /// names only the address counts.
    #[pyo3(signature = (pc, max_frames = 10))]
    fn run_until(
        &mut self,
        py: Python<'_>,
        pc: &Bound<'_, PyAny>,
        max_frames: u64,
    ) -> PyResult<bool> {
        let (rom_bank, pc) = if let Ok(name) = pc.extract::<String>() {
            let (bank, addr) = self.symbol(&name)?;
            (Some(bank), addr)
        } else {
            let number: i128 = pc.extract().map_err(|_| {
                PyTypeError::new_err("pc is an address (an int in 0..=0xFFFF) or a symbol name")
            })?;
            let addr = u16::try_from(number)
                .map_err(|_| PyValueError::new_err(format!("pc {number} is outside 0..=0xFFFF")))?;
            (None, addr)
        };
        let timeline = &mut self.timeline;
        let (why, _) = py.detach(|| timeline.run_until_pc_in_bank(pc, rom_bank, max_frames));
        self.refresh_screen(py);
        Ok(why == RunUntil::Reached)
    }

    /// Reads a symbol file (`.sym`, as RGBDS's `rgblink -n` and no$gmb write it: one
    /// `BANK:ADDRESS name` a line in hex, `;` comments) and adds its names to `symbols`
    /// (a name already known takes the new place). Raises `SymbolError` naming the first
    /// malformed line; nothing is added then.
    fn load_symbols(&mut self, path: std::path::PathBuf) -> PyResult<()> {
        let loaded = read_symbols(&path)?;
        self.symbols.by_name.extend(loaded.by_name);
        Ok(())
    }

    /// The loaded symbols: a dict of name to `(bank, address)`.
    #[getter]
    fn symbols(&self) -> std::collections::HashMap<String, (u16, u16)> {
        self.symbols
            .by_name
            .iter()
            .map(|(name, place)| (name.clone(), (place.bank, place.addr)))
            .collect()
    }

    /// The `(bank, address)` of symbol `name`; `SymbolError` if it is unknown.
    fn symbol(&self, name: &str) -> PyResult<(u16, u16)> {
        match self.symbols.by_name.get(name) {
            Some(place) => Ok((place.bank, place.addr)),
            None if self.symbols.by_name.is_empty() => Err(SymbolError::new_err(format!(
                "no symbol named {name:?}: no symbols are loaded (pass sym= or call load_symbols)"
            ))),
            None => Err(SymbolError::new_err(format!(
                "no symbol named {name:?} among the {} loaded",
                self.symbols.by_name.len()
            ))),
        }
    }

    /// The last frame drawn, as a `(144, 160, 3)` uint8 numpy array. Always the same array,
    /// updated in place by `run(draw="last")`, a rewind or a state load: copy it to keep it.
    #[getter]
    fn screen(&self, py: Python<'_>) -> Py<PyArray3<u8>> {
        self.screen.clone_ref(py)
    }

    /// The CPU registers: pc, sp, a, f, b, c, d, e, h, l, ime.
    #[getter]
    fn registers<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyDict>> {
        let cpu = self.timeline.core().state().cpu;
        let dict = PyDict::new(py);
        dict.set_item("pc", cpu.pc)?;
        dict.set_item("sp", cpu.sp)?;
        for (name, value) in [
            ("a", cpu.a),
            ("f", cpu.f),
            ("b", cpu.b),
            ("c", cpu.c),
            ("d", cpu.d),
            ("e", cpu.e),
            ("h", cpu.h),
            ("l", cpu.l),
        ] {
            dict.set_item(name, value)?;
        }
        dict.set_item("ime", cpu.ime == 1)?;
        Ok(dict)
    }

    /// Frames emulated along this timeline (it keeps counting across resets; a rewind
    /// moves it back).
    #[getter]
    fn frame(&self) -> u64 {
        self.timeline.frame()
    }

    /// M-cycles along this timeline (monotonic like `frame`).
    #[getter]
    fn cycles(&self) -> u64 {
        self.timeline.cycle()
    }

    /// "dmg" or "cgb".
    #[getter]
    fn model(&self) -> &'static str {
        match self.timeline.core().model() {
            Model::Dmg => "dmg",
            Model::Cgb => "cgb",
        }
    }

    /// The cartridge title from its header.
    #[getter]
    fn title(&self) -> String {
        self.timeline.core().rom().title()
    }

    /// The buttons held (an int of flags); setting it logs an input at the current cycle.
    #[getter]
    fn get_buttons(&self) -> u8 {
        self.timeline.buttons()
    }

    #[setter]
    fn set_buttons(&mut self, buttons: u8) {
        self.timeline.set_buttons(buttons);
    }

    /// Memory as the CPU sees it: `gb.memory[0xC000]`, `gb.memory[0xC000:0xC100]`, and
    /// `gb.memory[bank, 0x4000]` for a bank that is not mapped.
    #[getter]
    fn memory(slf: Py<GameBoy>) -> Memory {
        Memory::new(slf)
    }

    /// The rewind history: `gb.rewind.back(600)`, `.forward(60)`, `.span`.
    #[getter]
    fn rewind(slf: Py<GameBoy>) -> Rewind {
        Rewind::new(slf)
    }

    /// Power-cycles the machine (cartridge RAM kept), as an input on the timeline.
    fn reset(&mut self, py: Python<'_>) {
        self.timeline.reset();
        self.refresh_screen(py);
    }

    /// The machine as a save-state file (Backspin's portable format; `backspin state info`
    /// reads it, and `load_state` takes it back).
    fn save_state<'py>(&self, py: Python<'py>) -> Bound<'py, PyBytes> {
        let metadata = Metadata {
            frame: self.timeline.frame(),
            ..Metadata::default()
        };
        let bytes = py.detach(|| state_file::save(self.timeline.core(), &metadata));
        PyBytes::new(py, &bytes)
    }

    /// Loads a state written by `save_state` (or `backspin run --save-state`) for this ROM
    /// and model, as an event on the timeline: `frame` keeps counting, and `rewind.back`
    /// can go to before the load. The machine is then exactly the saved one, buttons
    /// included: memory writes made since the last frame are undone with the rest. The
    /// screen is blank until the next frame is drawn (a state holds no picture). On any
    /// error the machine is untouched and `StateError` says why.
    fn load_state(&mut self, py: Python<'_>, state: &[u8]) -> PyResult<()> {
        let core = self.timeline.core();
        let (_, loaded) = py
            .detach(|| state_file::decode_for(core, state))
            .map_err(|e| StateError::new_err(e.to_string()))?;
        // An event on the timeline (frames keep counting, a rewind can cross it), with the
        // buttons as saved.
        self.timeline.restore_state(loaded);
        // A state holds no picture: until the next frame is drawn the screen is blank
        // (white), the same after every load of the same state.
        self.write_screen(py, |pixels| pixels.fill(0xFF));
        Ok(())
    }

    fn __repr__(&self) -> String {
        format!(
            "<backspin.GameBoy {:?} ({}) frame {}>",
            self.title(),
            self.model(),
            self.timeline.frame()
        )
    }
}

/// Reads and parses the symbol file at `path`: `OSError` if it cannot be read,
/// `SymbolError` with the line number if a line is malformed.
fn read_symbols(path: &std::path::Path) -> PyResult<Symbols> {
    let text = std::fs::read(path)
        .map_err(|e| PyOSError::new_err(format!("cannot read {}: {e}", path.display())))?;
    Symbols::parse(&String::from_utf8_lossy(&text))
        .map_err(|e| SymbolError::new_err(format!("{}, {e}", path.display())))
}

pub(crate) fn rewind_error(error: backspin_rewind::RewindError) -> PyErr {
    RewindError::new_err(error.to_string())
}
