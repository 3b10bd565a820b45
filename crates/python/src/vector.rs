//! `VectorGameBoy`: N Game Boys stepped together on Rust threads (a small pool kept between
//! steps) with the GIL released, their observations written into one `(N, 144, 160, 3)`
//! (or `(N, 8192)`) numpy array.
//!
//! Each env is a `Timeline` with rewind off rather than a bare `Core`: the timeline owns
//! what "one frame" means (including a CPU that locks up mid-frame), so an env here and a
//! `GameBoy(rewind_mib=0)` given the same inputs run the very same machine. With rewind off
//! the timeline adds no per-frame work beyond that loop.

use crate::errors::StateError;
use crate::game_boy::{Draw, parse_model, rom_bytes, run_frames};
use crate::pool::{CachePadded, Pool};
use crate::{SCREEN_HEIGHT, SCREEN_WIDTH};
use backspin_core::state_file::{self, Metadata};
use backspin_core::{Core, Model, Options, Rom, State};
use backspin_rewind::Timeline;
use numpy::{PyArrayDyn, PyArrayMethods};
use pyo3::exceptions::{PyIndexError, PyRuntimeError, PyValueError};
use pyo3::prelude::*;
use pyo3::types::PyBytes;

/// Most envs one vector holds (each is about 100 KiB of state plus its frame buffers).
const MAX_ENVS: usize = 4096;
/// Most worker threads one vector uses.
const MAX_THREADS: usize = 256;
/// Work RAM C000-DFFF: the `observation="ram"` row.
const RAM_START: u16 = 0xC000;
const RAM_BYTES: usize = 0x2000;
const SCREEN_BYTES: usize = SCREEN_HEIGHT * SCREEN_WIDTH * 3;

/// What one env's row of the observation array holds.
#[derive(Clone, Copy, PartialEq, Eq)]
pub(crate) enum Observation {
    Screen,
    Ram,
}

impl Observation {
    fn parse(text: &str) -> PyResult<Observation> {
        match text {
            "screen" => Ok(Observation::Screen),
            "ram" => Ok(Observation::Ram),
            other => Err(PyValueError::new_err(format!(
                "observation must be \"screen\" or \"ram\", not {other:?}"
            ))),
        }
    }

    pub(crate) fn row_bytes(self) -> usize {
        match self {
            Observation::Screen => SCREEN_BYTES,
            Observation::Ram => RAM_BYTES,
        }
    }

    /// Writes `timeline`'s current observation into its row.
    fn write(self, timeline: &mut Timeline, row: &mut [u8]) {
        match self {
            Observation::Screen => backspin_harness::write_screen_rgb(timeline.core(), row),
            Observation::Ram => {
                for (offset, byte) in row.iter_mut().enumerate() {
                    // RAM_START + offset stays below 0xE000.
                    *byte = timeline.peek(RAM_START + offset as u16);
                }
            }
        }
    }
}

/// One env: a timeline on cache lines of its own, so that two threads stepping neighbouring
/// envs never write to one line (the timeline's own fields change every frame).
pub(crate) type Env = CachePadded<Timeline>;

/// Whether observation rows are refreshed after a state load.
#[derive(Clone, Copy, PartialEq, Eq)]
enum AfterLoad {
    Yes,
    No,
}

/// N Game Boys running the same cartridge, stepped together. See the package docstring.
#[pyclass(module = "backspin._backspin")]
pub struct VectorGameBoy {
    envs: Vec<Env>,
    rom: Rom,
    model: Model,
    threads: usize,
    /// `threads - 1` workers kept between steps.
    pool: Pool,
    observation: Observation,
    /// `(N, 144, 160, 3)` or `(N, 8192)` uint8, updated in place by every call that changes
    /// an env.
    observations: Py<PyArrayDyn<u8>>,
}

fn power_on(rom: &Rom, model: Model) -> Env {
    let core = Core::new(
        rom.clone(),
        Options {
            model,
            boot_rom: None,
        },
    );
    CachePadded(Timeline::new(core, 0))
}

/// Steps one env `frames` frames holding `pressed`, then writes its observation row.
pub(crate) fn step_env(
    timeline: &mut Timeline,
    pressed: u8,
    row: &mut [u8],
    frames: u64,
    observation: Observation,
) {
    // As `GameBoy.run` does: an input only when the buttons change.
    if pressed != timeline.buttons() {
        timeline.set_buttons(pressed);
    }
    // Only the last frame's picture is observed (none with `observation="ram"`).
    let draw = match observation {
        Observation::Screen => Draw::Last,
        Observation::Ram => Draw::Never,
    };
    run_frames(timeline, frames, draw);
    observation.write(timeline, row);
    // Nothing here plays sound: keep the core's sample buffer at its start, hot in cache,
    // rather than let it grow to ten seconds per env and stream through the cache.
    timeline.output().audio.clear();
}

impl VectorGameBoy {
    fn check_index(&self, index: i64) -> PyResult<usize> {
        usize::try_from(index)
            .ok()
            .filter(|&i| i < self.envs.len())
            .ok_or_else(|| {
                PyIndexError::new_err(format!(
                    "env index {index} is out of range for {} envs",
                    self.envs.len()
                ))
            })
    }

    /// Indices given (checked), or every env for None.
    fn indices(&self, indices: Option<Vec<i64>>) -> PyResult<Vec<usize>> {
        match indices {
            None => Ok((0..self.envs.len()).collect()),
            Some(list) => list.into_iter().map(|i| self.check_index(i)).collect(),
        }
    }

    /// Rewrites the observation rows of `indices` (after a load or reset). A state holds no
    /// picture: after a load a screen row is blank (white) until the next frame is drawn,
    /// as `GameBoy.screen` is.
    fn refresh_rows(&mut self, py: Python<'_>, indices: &[usize], after: AfterLoad) {
        let array = self.observations.bind(py);
        // Safety: the array was created C-contiguous by `new` and is written only with the
        // GIL held or by the worker threads of `step`, which hold no other borrow of it.
        let all = unsafe { array.as_slice_mut() }.expect("the observation array is contiguous");
        let row_bytes = self.observation.row_bytes();
        for &i in indices {
            let row = &mut all[i * row_bytes..(i + 1) * row_bytes];
            if after == AfterLoad::Yes && self.observation == Observation::Screen {
                row.fill(0xFF);
            } else {
                self.observation.write(&mut self.envs[i], row);
            }
        }
    }
}

#[pymethods]
impl VectorGameBoy {
    /// Powers on `num_envs` Game Boys with `rom` (bytes or a path). `threads` is the number
    /// of worker threads `step` uses (default: the machine's cores, at most `num_envs`);
    /// `observation` is "screen" (`(N, 144, 160, 3)` RGB) or "ram" (`(N, 8192)`, C000-DFFF).
    #[new]
    #[pyo3(signature = (rom, num_envs, model = "auto", threads = None, observation = "screen"))]
    fn new(
        py: Python<'_>,
        rom: &Bound<'_, PyAny>,
        num_envs: usize,
        model: &str,
        threads: Option<usize>,
        observation: &str,
    ) -> PyResult<VectorGameBoy> {
        if !(1..=MAX_ENVS).contains(&num_envs) {
            return Err(PyValueError::new_err(format!(
                "num_envs must be 1 to {MAX_ENVS}, not {num_envs}"
            )));
        }
        let threads = match threads {
            None => std::thread::available_parallelism().map_or(1, |n| n.get()),
            Some(t) if (1..=MAX_THREADS).contains(&t) => t,
            Some(t) => {
                return Err(PyValueError::new_err(format!(
                    "threads must be 1 to {MAX_THREADS}, not {t}"
                )));
            }
        }
        .min(num_envs);
        let observation = Observation::parse(observation)?;
        let rom = Rom::from_bytes(rom_bytes(py, rom, "ROM")?)
            .map_err(|e| crate::errors::RomError::new_err(format!("bad ROM: {e}")))?;
        let model = parse_model(model, &rom)?;
        let envs = py.detach(|| (0..num_envs).map(|_| power_on(&rom, model)).collect());
        let shape: Vec<usize> = match observation {
            Observation::Screen => vec![num_envs, SCREEN_HEIGHT, SCREEN_WIDTH, 3],
            Observation::Ram => vec![num_envs, RAM_BYTES],
        };
        let observations = PyArrayDyn::<u8>::zeros(py, shape, false).unbind();
        let mut vector = VectorGameBoy {
            envs,
            rom,
            model,
            threads,
            pool: Pool::new(threads),
            observation,
            observations,
        };
        let all: Vec<usize> = (0..num_envs).collect();
        vector.refresh_rows(py, &all, AfterLoad::No);
        Ok(vector)
    }

    /// Runs every env `frames` frames, env i holding `buttons[i]` (a sequence or array of
    /// N button masks), then writes every observation row. Releases the GIL; the envs are
    /// split into `threads` contiguous chunks, one per thread (the caller's and `threads -
    /// 1` pool workers), and a thread done with its chunk takes over what is left of others.
    #[pyo3(signature = (buttons, frames = 1))]
    fn step(&mut self, py: Python<'_>, buttons: Vec<u8>, frames: u64) -> PyResult<()> {
        let n = self.envs.len();
        if buttons.len() != n {
            return Err(PyValueError::new_err(format!(
                "buttons must hold one mask per env ({n}), not {}",
                buttons.len()
            )));
        }
        let array = self.observations.bind(py);
        // Safety: as in `refresh_rows`; while the GIL is released the array may be read by
        // other Python threads, which is the documented contract of an in-place buffer.
        let rows = unsafe { array.as_slice_mut() }.expect("the observation array is contiguous");
        let observation = self.observation;
        let (envs, pool) = (&mut self.envs, &mut self.pool);
        let ok = py.detach(|| pool.run(envs, &buttons, rows, frames, observation));
        if !ok {
            return Err(PyRuntimeError::new_err(
                "an emulator thread panicked (a Backspin bug): the envs are in an unknown state",
            ));
        }
        Ok(())
    }

    /// The observations of every env: one array, updated in place (copy it to keep it).
    #[getter]
    fn observations(&self, py: Python<'_>) -> Py<PyArrayDyn<u8>> {
        self.observations.clone_ref(py)
    }

    /// Number of envs.
    #[getter]
    fn num_envs(&self) -> usize {
        self.envs.len()
    }

    fn __len__(&self) -> usize {
        self.envs.len()
    }

    /// Worker threads `step` uses.
    #[getter]
    fn threads(&self) -> usize {
        self.threads
    }

    /// "dmg" or "cgb" (every env runs the same model).
    #[getter]
    fn model(&self) -> &'static str {
        match self.model {
            Model::Dmg => "dmg",
            Model::Cgb => "cgb",
        }
    }

    /// Frames along env `index`'s timeline (a state load keeps counting, as in `GameBoy`;
    /// `reset` powers it on afresh at 0).
    fn frame(&self, index: i64) -> PyResult<u64> {
        Ok(self.envs[self.check_index(index)?].frame())
    }

    /// One byte of env `index`'s memory as its CPU sees it.
    fn peek(&mut self, index: i64, addr: u16) -> PyResult<u8> {
        let i = self.check_index(index)?;
        Ok(self.envs[i].peek(addr))
    }

    /// Bytes `start..end` of env `index`'s memory as its CPU sees it.
    fn read_memory<'py>(
        &mut self,
        py: Python<'py>,
        index: i64,
        start: u32,
        end: u32,
    ) -> PyResult<Bound<'py, PyBytes>> {
        let i = self.check_index(index)?;
        if start > end || end > 0x1_0000 {
            return Err(PyIndexError::new_err(format!(
                "memory range {start:#x}..{end:#x} is not within 0x0..0x10000"
            )));
        }
        let timeline = &mut self.envs[i];
        let bytes: Vec<u8> = (start..end).map(|a| timeline.peek(a as u16)).collect();
        Ok(PyBytes::new(py, &bytes))
    }

    /// Writes `values` from `addr` on in each env of `indices` (bytes or a sequence of
    /// ints: the same bytes for every env), as `GameBoy.memory[addr:addr + len] = values`
    /// does: through the memory map, each byte an input on that env's timeline. Every
    /// argument is checked before any env changes.
    fn write_memory(
        &mut self,
        py: Python<'_>,
        indices: Vec<i64>,
        addr: u32,
        values: &Bound<'_, PyAny>,
    ) -> PyResult<()> {
        let indices = self.indices(Some(indices))?;
        let values = match values.extract::<i64>() {
            Ok(one) => vec![crate::memory::byte_of(one)?],
            Err(_) => crate::memory::bytes(values)?,
        };
        if addr as usize + values.len() > 0x1_0000 {
            return Err(PyIndexError::new_err(format!(
                "memory range {addr:#x}..{:#x} is not within 0x0..0x10000",
                addr as usize + values.len()
            )));
        }
        for &i in &indices {
            for (offset, &value) in values.iter().enumerate() {
                self.envs[i].poke((addr as usize + offset) as u16, value);
            }
        }
        self.refresh_rows(py, &indices, AfterLoad::No);
        Ok(())
    }

    /// Save states (bytes, the format of `GameBoy.save_state`) of the envs at `indices`
    /// (default: all), in that order.
    #[pyo3(signature = (indices = None))]
    fn save_states<'py>(
        &self,
        py: Python<'py>,
        indices: Option<Vec<i64>>,
    ) -> PyResult<Vec<Bound<'py, PyBytes>>> {
        let indices = self.indices(indices)?;
        let envs = &self.envs;
        let files: Vec<Vec<u8>> = py.detach(|| {
            indices
                .iter()
                .map(|&i| {
                    let metadata = Metadata {
                        frame: envs[i].frame(),
                        ..Metadata::default()
                    };
                    state_file::save(envs[i].core(), &metadata)
                })
                .collect()
        });
        Ok(files.iter().map(|f| PyBytes::new(py, f)).collect())
    }

    /// Loads `states` into the envs at `indices`: one state per index, or a single state
    /// (bytes) for all of them ("swarming": every env continues from where one got).
    /// Everything is checked first: on any error no env changes and `StateError` says why.
    fn load_states(
        &mut self,
        py: Python<'_>,
        indices: Vec<i64>,
        states: &Bound<'_, PyAny>,
    ) -> PyResult<()> {
        let indices = self.indices(Some(indices))?;
        let states: Vec<Vec<u8>> = if let Ok(one) = states.cast::<PyBytes>() {
            vec![one.as_bytes().to_vec(); indices.len()]
        } else {
            let list: Vec<Vec<u8>> = states.extract().map_err(|_| {
                pyo3::exceptions::PyTypeError::new_err(
                    "states must be bytes or a sequence of bytes",
                )
            })?;
            if list.len() != indices.len() {
                return Err(PyValueError::new_err(format!(
                    "{} states given for {} indices",
                    list.len(),
                    indices.len()
                )));
            }
            list
        };
        let envs = &self.envs;
        let decoded: Result<Vec<Box<State>>, String> = py.detach(|| {
            indices
                .iter()
                .zip(&states)
                .enumerate()
                .map(|(k, (&i, bytes))| {
                    state_file::decode_for(envs[i].core(), bytes)
                        .map(|(_, state)| state)
                        .map_err(|e| format!("state {k}: {e}"))
                })
                .collect()
        });
        let decoded = decoded.map_err(StateError::new_err)?;
        for (&i, state) in indices.iter().zip(decoded) {
            // As `GameBoy.load_state` does: an event on the env's timeline, buttons as saved.
            self.envs[i].restore_state(state);
        }
        self.refresh_rows(py, &indices, AfterLoad::Yes);
        Ok(())
    }

    /// Powers the envs at `indices` (default: all) on afresh.
    #[pyo3(signature = (indices = None))]
    fn reset(&mut self, py: Python<'_>, indices: Option<Vec<i64>>) -> PyResult<()> {
        let indices = self.indices(indices)?;
        for &i in &indices {
            self.envs[i] = power_on(&self.rom, self.model);
        }
        self.refresh_rows(py, &indices, AfterLoad::No);
        Ok(())
    }

    fn __repr__(&self) -> String {
        format!(
            "<backspin.VectorGameBoy {} x {:?} ({}) on {} threads>",
            self.envs.len(),
            self.rom.title(),
            self.model(),
            self.threads
        )
    }
}
