//! A minimal libretro frontend for the tests: the callbacks record what the core hands over
//! (picture, sound, memory map) and answer what it asks (options, input), all through the
//! core's `extern "C"` exports.

#![allow(dead_code)]

use std::collections::HashMap;
use std::ffi::{CStr, CString, c_uint, c_void};
use std::path::PathBuf;
use std::sync::{Mutex, MutexGuard};

use backspin_libretro::ffi::{self, MemoryDescriptor};
use backspin_libretro::*;

/// What the frontend side holds.
#[derive(Default)]
pub struct Frontend {
    pub video: Vec<u32>,
    pub audio: Vec<i16>,
    pub buttons: u16,
    pub options: HashMap<String, CString>,
    pub options_changed: bool,
    pub descriptors: Vec<MemoryDescriptor>,
    /// Answer as a frontend without core options v2 does.
    pub v1_only: bool,
    /// The v1 variables the core offered (key, "Description; values").
    pub variables: Vec<(String, String)>,
    /// Whether the core offered options v2.
    pub got_v2: bool,
    /// Frames the core sent as "the last picture again" (null; we answer GET_CAN_DUPE).
    pub dupes: u64,
    /// Tell the core the coming frames are not shown (as run-ahead's hidden frames).
    pub video_off: bool,
}

// SAFETY: the descriptors' pointers are only dereferenced by the test thread that holds
// the game lock.
unsafe impl Send for Frontend {}

pub static FRONTEND: Mutex<Option<Frontend>> = Mutex::new(None);
/// One game at a time: every test holds this while it uses the core.
static GAME: Mutex<()> = Mutex::new(());

pub fn frontend<T>(f: impl FnOnce(&mut Frontend) -> T) -> T {
    let mut guard = FRONTEND.lock().unwrap_or_else(|e| e.into_inner());
    f(guard.get_or_insert_with(Frontend::default))
}

unsafe extern "C" fn environment(cmd: c_uint, data: *mut c_void) -> bool {
    use ffi::env::*;
    match cmd {
        GET_CORE_OPTIONS_VERSION => {
            if frontend(|f| f.v1_only) {
                return false;
            }
            unsafe { *data.cast::<c_uint>() = 2 };
            true
        }
        SET_CORE_OPTIONS_V2 => {
            frontend(|f| f.got_v2 = true);
            true
        }
        SET_VARIABLES => {
            let mut list = Vec::new();
            let mut at = data.cast::<ffi::Variable>();
            loop {
                let var = unsafe { &*at };
                if var.key.is_null() {
                    break;
                }
                let text = |p| unsafe { CStr::from_ptr(p) }.to_string_lossy().into_owned();
                list.push((text(var.key), text(var.value)));
                at = unsafe { at.add(1) };
            }
            frontend(|f| f.variables = list);
            true
        }
        GET_CAN_DUPE => {
            unsafe { *data.cast::<bool>() = true };
            true
        }
        GET_AUDIO_VIDEO_ENABLE => {
            let video = if frontend(|f| f.video_off) { 0 } else { 1 };
            unsafe { *data.cast::<std::ffi::c_int>() = video | 2 };
            true
        }
        SET_SUPPORT_NO_GAME
        | SET_SERIALIZATION_QUIRKS
        | SET_PIXEL_FORMAT
        | SET_INPUT_DESCRIPTORS
        | GET_INPUT_BITMASKS => true,
        GET_VARIABLE => {
            let var = unsafe { &mut *data.cast::<ffi::Variable>() };
            let key = unsafe { CStr::from_ptr(var.key) }
                .to_string_lossy()
                .into_owned();
            frontend(|f| match f.options.get(&key) {
                Some(value) => {
                    var.value = value.as_ptr();
                    true
                }
                None => false,
            })
        }
        GET_VARIABLE_UPDATE => {
            let changed = frontend(|f| std::mem::take(&mut f.options_changed));
            unsafe { *data.cast::<bool>() = changed };
            true
        }
        SET_MEMORY_MAPS => {
            let map = unsafe { &*data.cast::<ffi::MemoryMap>() };
            let list = unsafe {
                std::slice::from_raw_parts(map.descriptors, map.num_descriptors as usize)
            }
            .to_vec();
            frontend(|f| f.descriptors = list);
            true
        }
        _ => false,
    }
}

unsafe extern "C" fn video(data: *const c_void, width: c_uint, height: c_uint, pitch: usize) {
    assert_eq!((width, height, pitch), (160, 144, 640));
    if data.is_null() {
        // The last picture again, as a frontend that repeats frames shows it.
        frontend(|f| f.dupes += 1);
        return;
    }
    let pixels = unsafe { std::slice::from_raw_parts(data.cast::<u32>(), 160 * 144) };
    frontend(|f| {
        f.video.clear();
        f.video.extend_from_slice(pixels);
    });
}

unsafe extern "C" fn audio_batch(data: *const i16, frames: usize) -> usize {
    let samples = unsafe { std::slice::from_raw_parts(data, frames * 2) };
    frontend(|f| f.audio.extend_from_slice(samples));
    frames
}

unsafe extern "C" fn input_poll() {}

unsafe extern "C" fn input_state(port: c_uint, device: c_uint, _index: c_uint, id: c_uint) -> i16 {
    if port != 0 || device != ffi::DEVICE_JOYPAD {
        return 0;
    }
    let buttons = frontend(|f| f.buttons);
    if id == ffi::joypad::MASK {
        buttons as i16
    } else {
        i16::from(buttons & (1 << id) != 0)
    }
}

/// A session with the core: holds the one-game lock; unloads on drop.
pub struct Host {
    _game: MutexGuard<'static, ()>,
}

impl Host {
    /// Sets the callbacks and the options (`key=value` pairs); nothing loaded yet.
    pub fn new(options: &[(&str, &str)]) -> Host {
        Host::with_frontend(options, false)
    }

    /// As [`Host::new`], as a frontend without core options v2 when `v1_only`.
    pub fn with_frontend(options: &[(&str, &str)], v1_only: bool) -> Host {
        let game = GAME.lock().unwrap_or_else(|e| e.into_inner());
        frontend(|f| {
            *f = Frontend {
                v1_only,
                ..Frontend::default()
            };
            for (key, value) in options {
                f.options
                    .insert((*key).to_string(), CString::new(*value).unwrap());
            }
        });
        retro_set_environment(Some(environment));
        retro_set_video_refresh(Some(video));
        retro_set_audio_sample_batch(Some(audio_batch));
        retro_set_input_poll(Some(input_poll));
        retro_set_input_state(Some(input_state));
        retro_init();
        Host { _game: game }
    }

    /// Loads `rom` from memory (`None`: no content).
    pub fn load(&self, rom: Option<&[u8]>) -> bool {
        match rom {
            None => unsafe { retro_load_game(std::ptr::null()) },
            Some(bytes) => {
                let info = ffi::GameInfo {
                    path: std::ptr::null(),
                    data: bytes.as_ptr().cast(),
                    size: bytes.len(),
                    meta: std::ptr::null(),
                };
                unsafe { retro_load_game(&info) }
            }
        }
    }

    /// One frame with `buttons` (libretro joypad bits); returns its picture and sound.
    pub fn frame(&self, buttons: u16) -> (Vec<u32>, Vec<i16>) {
        frontend(|f| {
            f.buttons = buttons;
            f.audio.clear();
        });
        retro_run();
        frontend(|f| (f.video.clone(), std::mem::take(&mut f.audio)))
    }

    pub fn serialize(&self) -> Vec<u8> {
        let size = retro_serialize_size();
        assert!(size > 0);
        let mut bytes = vec![0; size];
        assert!(unsafe { retro_serialize(bytes.as_mut_ptr().cast(), size) });
        bytes
    }

    pub fn unserialize(&self, bytes: &[u8]) -> bool {
        unsafe { retro_unserialize(bytes.as_ptr().cast(), bytes.len()) }
    }

    /// A copy of one of the core's memories (`RETRO_MEMORY_*`).
    pub fn memory(&self, id: c_uint) -> Vec<u8> {
        let data = retro_get_memory_data(id);
        let size = retro_get_memory_size(id);
        if data.is_null() || size == 0 {
            return Vec::new();
        }
        unsafe { std::slice::from_raw_parts(data.cast::<u8>(), size) }.to_vec()
    }

    pub fn descriptors(&self) -> Vec<MemoryDescriptor> {
        frontend(|f| f.descriptors.clone())
    }
}

impl Drop for Host {
    fn drop(&mut self) {
        retro_unload_game();
        retro_deinit();
    }
}

/// A shared test ROM by path under the test-ROM folder, or `None` (skipped or failed).
pub fn shared_rom(relative: &str) -> Option<Vec<u8>> {
    let dir = backspin_test_support::or_skip(backspin_harness::locate_test_roms())?;
    backspin_test_support::or_skip(
        std::fs::read(dir.join(relative)).map_err(|e| format!("{relative}: {e}")),
    )
}

/// One of our own test ROMs (`roms-test/NAME.asm`), assembled.
pub fn own_rom(name: &str) -> Vec<u8> {
    let path = backspin_harness::workspace_root().join(format!("roms-test/{name}.asm"));
    backspin_asm::assemble_file(&path).expect("our test ROMs assemble")
}

/// The `backspin` binary of this build (beside the test executable's folder), built by a
/// workspace `cargo test`; `None` when it is not there (skipped or failed).
pub fn backspin_binary() -> Option<PathBuf> {
    let exe = std::env::current_exe().ok()?;
    let profile_dir = exe.parent()?.parent()?;
    let binary = profile_dir.join("backspin");
    if binary.is_file() {
        Some(binary)
    } else {
        backspin_test_support::skip_or_fail(format!(
            "{} not built (run `cargo build -p backspin` or a workspace `cargo test`)",
            binary.display()
        ));
        None
    }
}

/// libretro joypad bits from a seed: a few presses and holds, the same every run.
pub fn scripted_buttons(frame: u64) -> u16 {
    let mut rng = backspin_test_support::SplitMix64::new(frame / 7);
    let held = rng.next_u64() as u16;
    // B, Select, Start, Up, Down, Left, Right, A: bits 0, 2..=8.
    held & 0b1_1111_1101
}

pub fn fnv(data: &[u8]) -> u64 {
    data.iter().fold(0xcbf2_9ce4_8422_2325, |h, &b| {
        (h ^ u64::from(b)).wrapping_mul(0x0100_0000_01b3)
    })
}

pub fn fnv_pixels(pixels: &[u32]) -> u64 {
    fnv(&pixels
        .iter()
        .flat_map(|p| p.to_le_bytes())
        .collect::<Vec<_>>())
}

pub fn fnv_samples(samples: &[i16]) -> u64 {
    fnv(&samples
        .iter()
        .flat_map(|s| s.to_le_bytes())
        .collect::<Vec<_>>())
}

/// An XRGB8888 picture as 8-bit RGB, row-major (as our PNG screenshots hold it).
pub fn to_rgb(pixels: &[u32]) -> Vec<u8> {
    pixels
        .iter()
        .flat_map(|p| [(p >> 16) as u8, (p >> 8) as u8, *p as u8])
        .collect()
}

/// A PNG's pixels as 8-bit RGB, with its size.
pub fn read_png_rgb(path: &std::path::Path) -> (u32, u32, Vec<u8>) {
    let decoder = png::Decoder::new(std::io::BufReader::new(
        std::fs::File::open(path).unwrap_or_else(|e| panic!("{}: {e}", path.display())),
    ));
    let mut reader = decoder.read_info().expect("a PNG");
    let mut buf = vec![0; reader.output_buffer_size().expect("a sized PNG")];
    let info = reader.next_frame(&mut buf).expect("PNG pixels");
    let bytes = &buf[..info.buffer_size()];
    let rgb = match info.color_type {
        png::ColorType::Rgb => bytes.to_vec(),
        png::ColorType::Rgba => bytes
            .chunks_exact(4)
            .flat_map(|p| [p[0], p[1], p[2]])
            .collect(),
        png::ColorType::Grayscale => bytes.iter().flat_map(|&g| [g, g, g]).collect(),
        other => panic!("unexpected PNG colour type {other:?}"),
    };
    (info.width, info.height, rgb)
}
