//! `VectorGameBoy`: N Game Boys stepped together on Rust threads (a small pool kept between
//! steps) with the GIL released, their observations written into one `(N, 144, 160, 3)`
//! (or `(N, 8192)`) numpy array.
//!
//! Each env is a `Timeline` with rewind off rather than a bare `Core`: the timeline owns
//! what "one frame" means (including a CPU that locks up mid-frame), so an env here and a
//! `GameBoy(rewind_mib=0)` given the same inputs run the very same machine. With rewind off
//! the timeline adds no per-frame work beyond that loop.

use crate::errors::StateError;
use crate::game_boy::{Draw, parse_model, rom_bytes, run_frame_of, silent_core};
use crate::pool::{CachePadded, Job, Pool};
use crate::{SCREEN_HEIGHT, SCREEN_WIDTH};
use backspin_core::state_file::{self, Metadata};
use backspin_core::{Model, Options, Rom, State};
use backspin_rewind::Timeline;
use numpy::{PyArrayDyn, PyArrayMethods};
use pyo3::exceptions::{PyIndexError, PyRuntimeError, PyTimeoutError, PyValueError};
use pyo3::prelude::*;
use pyo3::types::PyBytes;
use std::time::Duration;

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
            Observation::Screen => backspin_core::screen::write_rgb(timeline.core(), row),
            Observation::Ram => timeline.peek_into(RAM_START, row),
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
    /// `threads - 1` workers kept between steps (and a stand-in for `step_async`).
    pool: Pool,
    /// The buttons of the step `step_async` started, read by the pool until it ends.
    pending_buttons: Vec<u8>,
    observation: Observation,
    /// `(N, 144, 160, 3)` or `(N, 8192)` uint8, updated in place by every call that changes
    /// an env.
    observations: Py<PyArrayDyn<u8>>,
}

fn power_on(rom: &Rom, model: Model) -> Env {
    let core = silent_core(
        rom.clone(),
        Options {
            model,
            boot_rom: None,
        },
    );
    CachePadded(Timeline::new(core, 0))
}

/// One env's part of a step, `frames` frames holding `pressed`, in pieces that any thread
/// may run (one thread at a time, in order): `begin`, then `frame` for each index from 0 to
/// `frames - 1`, then `finish`. Together they make what `GameBoy.run(frames, buttons)`
/// makes, plus the observation row. The pool interleaves and hands over envs between
/// frames (see `pool`).
pub(crate) mod env_step {
    use super::*;

    /// As `GameBoy.run` does: an input only when the buttons change.
    pub(crate) fn begin(timeline: &mut Timeline, pressed: u8) {
        if pressed != timeline.buttons() {
            timeline.set_buttons(pressed);
        }
    }

    /// Frame `index` of `frames`: only the last one's picture is observed (none with
    /// `observation="ram"`).
    pub(crate) fn frame(
        timeline: &mut Timeline,
        index: u64,
        frames: u64,
        observation: Observation,
    ) {
        let draw = match observation {
            Observation::Screen => Draw::Last,
            Observation::Ram => Draw::Never,
        };
        run_frame_of(timeline, index, frames, draw);
    }

    /// After the last frame: drawing back on, the observation into its row.
    pub(crate) fn finish(timeline: &mut Timeline, row: &mut [u8], observation: Observation) {
        timeline.set_drawing(true);
        observation.write(timeline, row);
    }
}

/// The outcome of a step as Python sees it: a thread that panicked is a bug of ours.
fn step_result(ok: bool) -> PyResult<()> {
    if ok {
        Ok(())
    } else {
        Err(PyRuntimeError::new_err(
            "an emulator thread panicked (a Backspin bug): the envs are in an unknown state",
        ))
    }
}

impl Drop for VectorGameBoy {
    fn drop(&mut self) {
        // A step started by `step_async` still uses the envs and buttons dropped next.
        self.pool.wait(None);
    }
}

impl VectorGameBoy {
    /// Err while a step started by `step_async` may still be using the envs.
    fn settled(&self) -> PyResult<()> {
        if self.pool.in_flight() {
            return Err(PyRuntimeError::new_err(
                "a step started by step_async() is still running: call step_wait() first",
            ));
        }
        Ok(())
    }

    /// `buttons` if it holds one mask per env.
    fn check_buttons(&self, buttons: Vec<u8>) -> PyResult<Vec<u8>> {
        let n = self.envs.len();
        if buttons.len() != n {
            return Err(PyValueError::new_err(format!(
                "buttons must hold one mask per env ({n}), not {}",
                buttons.len()
            )));
        }
        Ok(buttons)
    }

    /// The job of one step: every env `frames` frames holding `buttons`, observations into
    /// the array. The pointers it holds stay valid while `self` is neither moved out of
    /// nor resized (`envs` and the array never are) and `buttons` lives.
    fn job(&mut self, py: Python<'_>, buttons: &[u8], frames: u64) -> Job {
        let array = self.observations.bind(py);
        // Safety: as in `refresh_rows`; while a step runs the array may be read by Python
        // code, which is the documented contract of an in-place buffer.
        let rows = unsafe { array.as_slice_mut() }.expect("the observation array is contiguous");
        Job::new(&mut self.envs, buttons, rows, frames, self.observation)
    }

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
            pool: Pool::new(threads, num_envs),
            pending_buttons: Vec::new(),
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
    /// 1` pool workers), and a thread done with its chunk takes over what is left of others,
    /// down to an env's remaining frames (see `pool`).
    #[pyo3(signature = (buttons, frames = 1))]
    fn step(&mut self, py: Python<'_>, buttons: Vec<u8>, frames: u64) -> PyResult<()> {
        self.settled()?;
        let buttons = self.check_buttons(buttons)?;
        let job = self.job(py, &buttons, frames);
        let pool = &mut self.pool;
        let ok = py.detach(|| pool.run(job));
        step_result(ok)
    }

    /// Starts what `step(buttons, frames)` does and returns at once: the envs run on pool
    /// threads (a stand-in takes the caller's share) while the caller goes on, e.g. with its
    /// policy. `step_wait()` ends it; until then the envs refuse every other call, and
    /// `observations` is being written.
    #[pyo3(signature = (buttons, frames = 1))]
    fn step_async(&mut self, py: Python<'_>, buttons: Vec<u8>, frames: u64) -> PyResult<()> {
        self.settled()?;
        let buttons = self.check_buttons(buttons)?;
        let job = self.job(py, &buttons, frames);
        // Moving the Vec keeps its heap buffer, which the job points into.
        self.pending_buttons = buttons;
        // Safety: the job points into `envs`, the observation array and `pending_buttons`,
        // none of which is touched until the pool reports the step ended: every method
        // that would calls `settled` first, and dropping the pool waits.
        unsafe { self.pool.start(job) };
        Ok(())
    }

    /// Waits for the step `step_async` started (releasing the GIL); its observations are
    /// then in `observations`. `timeout` in seconds (None: no limit): `TimeoutError` if the
    /// step is still running then (call again to go on waiting). `RuntimeError` if no step
    /// was started.
    #[pyo3(signature = (timeout = None))]
    fn step_wait(&mut self, py: Python<'_>, timeout: Option<f64>) -> PyResult<()> {
        if !self.pool.in_flight() {
            return Err(PyRuntimeError::new_err(
                "step_wait() called without a step started by step_async()",
            ));
        }
        let timeout = match timeout {
            None => None,
            Some(t) if t.is_finite() && t >= 0.0 => Some(Duration::from_secs_f64(t.min(1e9))),
            Some(t) => {
                return Err(PyValueError::new_err(format!(
                    "timeout must be a number of seconds >= 0 or None, not {t}"
                )));
            }
        };
        let pool = &mut self.pool;
        match py.detach(|| pool.wait(timeout)) {
            Some(ok) => step_result(ok),
            None => Err(PyTimeoutError::new_err(
                "the step is still running: call step_wait() again",
            )),
        }
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
        self.settled()?;
        Ok(self.envs[self.check_index(index)?].frame())
    }

    /// One byte of env `index`'s memory as its CPU sees it.
    fn peek(&mut self, index: i64, addr: u16) -> PyResult<u8> {
        self.settled()?;
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
        self.settled()?;
        let i = self.check_index(index)?;
        if start > end || end > 0x1_0000 {
            return Err(PyIndexError::new_err(format!(
                "memory range {start:#x}..{end:#x} is not within 0x0..0x10000"
            )));
        }
        let mut bytes = vec![0; (end - start) as usize];
        // Within 0x0..0x10000 (checked above): no wrap.
        self.envs[i].peek_into(start as u16, &mut bytes);
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
        self.settled()?;
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
        self.settled()?;
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
    /// (bytes) for all of them ("swarming": every env continues from where one got). Each
    /// env is then exactly the saved machine, as with `GameBoy.load_state`. Everything is
    /// checked first: on any error no env changes and `StateError` says why.
    fn load_states(
        &mut self,
        py: Python<'_>,
        indices: Vec<i64>,
        states: &Bound<'_, PyAny>,
    ) -> PyResult<()> {
        self.settled()?;
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
        self.settled()?;
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
