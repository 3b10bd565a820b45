//! Backspin as a libretro core (API version 1): the exports RetroArch and other libretro
//! frontends call, over our own declarations of `libretro.h` ([`ffi`]).
//!
//! Every export catches panics (a panic is logged and the call returns its failure value),
//! so none crosses the FFI boundary. One game at a time: the loaded [`session::Session`]
//! lives in a global behind a lock, as libretro's single-instance API implies.
//!
//! - Content from memory (`need_fullpath = false`), `.gb .gbc .dmg .cgb`; no content runs
//!   the frontend's embedded demo.
//! - Video XRGB8888 160x144 at 59.7275 fps; audio 48 kHz through the batch callback, every
//!   sample the core synthesized for the frame (the synthesizer counts emulated time, so
//!   nothing drifts).
//! - States are Backspin's portable state files (fixed metadata, BESS footer).
//! - Cheats: see [`cheats`]. Memory maps: see [`memory_map`].

pub mod cheats;
pub mod ffi;
mod host;
pub mod memory_map;
pub mod options;
mod picture;
pub mod session;

use std::ffi::{CStr, c_char, c_uint, c_void};
use std::panic::{AssertUnwindSafe, catch_unwind};
use std::sync::Mutex;

use backspin_core::{Buttons, SCREEN_HEIGHT, SCREEN_WIDTH};

use crate::ffi::{joypad, log_level, memory};
use crate::options::Settings;
use crate::session::Session;

static SESSION: Mutex<Option<Session>> = Mutex::new(None);

/// Runs `body` with panics caught and logged; `fallback` is returned after a panic.
fn guard<T>(name: &str, fallback: T, body: impl FnOnce() -> T) -> T {
    match catch_unwind(AssertUnwindSafe(body)) {
        Ok(value) => value,
        Err(panic) => {
            let what = panic
                .downcast_ref::<&str>()
                .map(|s| (*s).to_string())
                .or_else(|| panic.downcast_ref::<String>().cloned())
                .unwrap_or_default();
            host::log(
                log_level::ERROR,
                &format!("internal error in {name}: {what}"),
            );
            fallback
        }
    }
}

/// Runs `body` on the loaded session, if any.
fn with_session<T>(name: &str, fallback: T, body: impl FnOnce(&mut Session) -> T) -> T {
    guard(name, None, || {
        let mut slot = SESSION.lock().unwrap_or_else(|e| e.into_inner());
        slot.as_mut().map(body)
    })
    .unwrap_or(fallback)
}

/// Runs `f` on the loaded game's core: for the test host, which checks what the exports
/// show (memory maps, save RAM) against the core's own reads. Not part of the libretro API.
#[doc(hidden)]
pub fn with_loaded_core<T>(f: impl FnOnce(&mut backspin_core::Core) -> T) -> Option<T> {
    let mut slot = SESSION.lock().unwrap_or_else(|e| e.into_inner());
    slot.as_mut().map(|session| f(&mut session.core))
}

/// The libretro API version this core implements.
#[unsafe(no_mangle)]
pub extern "C" fn retro_api_version() -> c_uint {
    ffi::API_VERSION
}

/// Fills in the core's name, version and content rules.
///
/// # Safety
/// `info` is null or points at a writable `retro_system_info`.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn retro_get_system_info(info: *mut ffi::SystemInfo) {
    guard("retro_get_system_info", (), || {
        if info.is_null() {
            return;
        }
        static VERSION: &CStr =
            match CStr::from_bytes_with_nul(concat!(env!("CARGO_PKG_VERSION"), "\0").as_bytes()) {
                Ok(v) => v,
                Err(_) => c"0",
            };
        // SAFETY: non-null, writable by the caller's contract.
        unsafe {
            info.write(ffi::SystemInfo {
                library_name: c"Backspin".as_ptr(),
                library_version: VERSION.as_ptr(),
                valid_extensions: c"gb|gbc|dmg|cgb".as_ptr(),
                need_fullpath: false,
                block_extract: false,
            });
        }
    });
}

/// Fills in the picture size and the exact frame and sample rates.
///
/// # Safety
/// `info` is null or points at a writable `retro_system_av_info`.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn retro_get_system_av_info(info: *mut ffi::SystemAvInfo) {
    guard("retro_get_system_av_info", (), || {
        if info.is_null() {
            return;
        }
        // SAFETY: non-null, writable by the caller's contract.
        unsafe {
            info.write(ffi::SystemAvInfo {
                geometry: ffi::GameGeometry {
                    base_width: SCREEN_WIDTH as c_uint,
                    base_height: SCREEN_HEIGHT as c_uint,
                    max_width: SCREEN_WIDTH as c_uint,
                    max_height: SCREEN_HEIGHT as c_uint,
                    aspect_ratio: SCREEN_WIDTH as f32 / SCREEN_HEIGHT as f32,
                },
                timing: ffi::SystemTiming {
                    fps: session::FPS,
                    sample_rate: f64::from(backspin_core::SAMPLE_RATE),
                },
            });
        }
    });
}

/// Takes the environment callback and announces what the core supports.
#[unsafe(no_mangle)]
pub extern "C" fn retro_set_environment(callback: Option<ffi::EnvironmentFn>) {
    guard("retro_set_environment", (), || {
        host::update(|c| c.environment = callback);
        if callback.is_none() {
            return;
        }
        host::fetch_log_interface();
        let mut no_game = true;
        let tables = options::tables();
        let mut version: c_uint = 0;
        // SAFETY: each call passes the data type libretro.h names for the command; the
        // tables are 'static.
        unsafe {
            host::environment(
                ffi::env::SET_SUPPORT_NO_GAME,
                std::ptr::from_mut(&mut no_game).cast(),
            );
            let has_v2 = host::environment(
                ffi::env::GET_CORE_OPTIONS_VERSION,
                std::ptr::from_mut(&mut version).cast(),
            ) && version >= 2;
            let sent_v2 = has_v2
                && host::environment(
                    ffi::env::SET_CORE_OPTIONS_V2,
                    std::ptr::from_ref(&tables.options).cast_mut().cast(),
                );
            if !sent_v2 {
                host::environment(
                    ffi::env::SET_VARIABLES,
                    tables.variables.as_ptr().cast_mut().cast(),
                );
            }
            // The state format is portable (little-endian, fixed layout) and its size fixed
            // per game and model: no quirk applies.
            let mut quirks: u64 = 0;
            host::environment(
                ffi::env::SET_SERIALIZATION_QUIRKS,
                std::ptr::from_mut(&mut quirks).cast(),
            );
        }
    });
}

/// Takes the video callback.
#[unsafe(no_mangle)]
pub extern "C" fn retro_set_video_refresh(callback: Option<ffi::VideoRefreshFn>) {
    host::update(|c| c.video = callback);
}

/// Takes the single-sample audio callback (unused: the core sends batches).
#[unsafe(no_mangle)]
pub extern "C" fn retro_set_audio_sample(_callback: Option<ffi::AudioSampleFn>) {}

/// Takes the audio batch callback.
#[unsafe(no_mangle)]
pub extern "C" fn retro_set_audio_sample_batch(callback: Option<ffi::AudioSampleBatchFn>) {
    host::update(|c| c.audio_batch = callback);
}

/// Takes the input poll callback.
#[unsafe(no_mangle)]
pub extern "C" fn retro_set_input_poll(callback: Option<ffi::InputPollFn>) {
    host::update(|c| c.input_poll = callback);
}

/// Takes the input state callback.
#[unsafe(no_mangle)]
pub extern "C" fn retro_set_input_state(callback: Option<ffi::InputStateFn>) {
    host::update(|c| c.input_state = callback);
}

/// Nothing to do before a game loads.
#[unsafe(no_mangle)]
pub extern "C" fn retro_init() {}

/// Unloads whatever is loaded.
#[unsafe(no_mangle)]
pub extern "C" fn retro_deinit() {
    retro_unload_game();
}

/// The joypad is the only device.
#[unsafe(no_mangle)]
pub extern "C" fn retro_set_controller_port_device(_port: c_uint, _device: c_uint) {}

/// Power-cycles the game (cartridge RAM and clock survive).
#[unsafe(no_mangle)]
pub extern "C" fn retro_reset() {
    with_session("retro_reset", (), |s| s.core.reset());
}

/// Reads the joypad through the frontend's callbacks.
fn read_buttons(callbacks: &host::Callbacks, bitmasks: bool) -> u8 {
    let Some(state) = callbacks.input_state else {
        return 0;
    };
    const MAP: [(c_uint, u8); 8] = [
        (joypad::RIGHT, Buttons::RIGHT),
        (joypad::LEFT, Buttons::LEFT),
        (joypad::UP, Buttons::UP),
        (joypad::DOWN, Buttons::DOWN),
        (joypad::A, Buttons::A),
        (joypad::B, Buttons::B),
        (joypad::SELECT, Buttons::SELECT),
        (joypad::START, Buttons::START),
    ];
    // SAFETY: the frontend's input callback, called as libretro.h specifies.
    let mask = if bitmasks {
        unsafe { state(0, ffi::DEVICE_JOYPAD, 0, joypad::MASK) as u16 }
    } else {
        MAP.iter().fold(0u16, |mask, &(id, _)| {
            let down = unsafe { state(0, ffi::DEVICE_JOYPAD, 0, id) } != 0;
            mask | (u16::from(down) << id)
        })
    };
    MAP.iter()
        .filter(|(id, _)| mask & (1 << id) != 0)
        .fold(0, |held, (_, button)| held | button)
}

/// Emulates one frame and hands over its picture and sound.
#[unsafe(no_mangle)]
pub extern "C" fn retro_run() {
    guard("retro_run", (), || {
        let callbacks = host::callbacks();
        let mut updated = false;
        // SAFETY: GET_VARIABLE_UPDATE fills a bool.
        unsafe {
            host::environment(
                ffi::env::GET_VARIABLE_UPDATE,
                std::ptr::from_mut(&mut updated).cast(),
            );
        }
        let settings = updated.then(|| Settings::read(host::variable));
        if let Some(poll) = callbacks.input_poll {
            // SAFETY: the frontend's callback.
            unsafe { poll() };
        }
        let mut bitmasks = false;
        // SAFETY: GET_INPUT_BITMASKS takes no data (a null pointer) and answers by its result.
        if callbacks.input_state.is_some() {
            bitmasks =
                unsafe { host::environment(ffi::env::GET_INPUT_BITMASKS, std::ptr::null_mut()) };
        }
        let buttons = read_buttons(&callbacks, bitmasks);
        let mut slot = SESSION.lock().unwrap_or_else(|e| e.into_inner());
        let Some(session) = slot.as_mut() else {
            return;
        };
        if let Some(settings) = settings {
            session.apply_settings(settings);
        }
        session.run_frame(buttons, host::video_shown());
        if let Some(video) = callbacks.video {
            // An unchanged picture is sent as null where the frontend repeats its last one:
            // it then neither converts nor copies it again. A frame the frontend does not
            // show is never converted, so "unchanged" means "as last shown".
            let pixels = if session.picture_changed || !callbacks.can_dupe {
                session.picture.pixels().as_ptr().cast()
            } else {
                std::ptr::null()
            };
            // SAFETY: null, or 160 x 144 XRGB8888 pixels, 640 bytes per row.
            unsafe {
                video(
                    pixels,
                    SCREEN_WIDTH as c_uint,
                    SCREEN_HEIGHT as c_uint,
                    SCREEN_WIDTH * 4,
                );
            }
        }
        if let Some(batch) = callbacks.audio_batch {
            let mut rest: &[i16] = &session.audio;
            // A frontend may take fewer frames than offered: offer the rest again, and stop
            // if it takes none.
            while rest.len() >= 2 {
                // SAFETY: `rest` holds `rest.len() / 2` interleaved stereo frames.
                let taken = unsafe { batch(rest.as_ptr(), rest.len() / 2) };
                if taken == 0 {
                    break;
                }
                rest = &rest[(taken * 2).min(rest.len())..];
            }
        }
    });
}

/// Loads a game from memory (or the demo, with no game).
///
/// # Safety
/// `game` is null or points at a `retro_game_info` whose `data` holds `size` bytes.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn retro_load_game(game: *const ffi::GameInfo) -> bool {
    guard("retro_load_game", false, || {
        let content: Option<&[u8]> = if game.is_null() {
            None
        } else {
            // SAFETY: non-null, readable by the caller's contract.
            let info = unsafe { &*game };
            if info.data.is_null() {
                if info.path.is_null() {
                    None
                } else {
                    host::log(
                        log_level::ERROR,
                        "content was given by path only; this core loads content from memory",
                    );
                    return false;
                }
            } else {
                // SAFETY: `data` holds `size` bytes by the caller's contract.
                Some(unsafe { std::slice::from_raw_parts(info.data.cast::<u8>(), info.size) })
            }
        };
        let mut format: c_uint = ffi::PIXEL_FORMAT_XRGB8888;
        // SAFETY: SET_PIXEL_FORMAT takes a `enum retro_pixel_format *`.
        if !unsafe {
            host::environment(
                ffi::env::SET_PIXEL_FORMAT,
                std::ptr::from_mut(&mut format).cast(),
            )
        } && host::callbacks().environment.is_some()
        {
            host::log(
                log_level::ERROR,
                "the frontend cannot show XRGB8888 pictures",
            );
            return false;
        }
        set_input_descriptors();
        host::fetch_can_dupe();
        let settings = Settings::read(host::variable);
        let system = host::system_directory();
        let boot_rom = |name: &str| {
            system
                .as_ref()
                .and_then(|dir| std::fs::read(dir.join(name)).ok())
        };
        let mut warn = |text: &str| host::log(log_level::WARN, text);
        let session = match Session::load(content, settings, boot_rom, &mut warn) {
            Ok(session) => session,
            Err(e) => {
                host::log(log_level::ERROR, &e);
                return false;
            }
        };
        let mut slot = SESSION.lock().unwrap_or_else(|e| e.into_inner());
        *slot = Some(session);
        if let Some(session) = slot.as_mut() {
            send_memory_map(session);
            host::log(
                log_level::INFO,
                &format!(
                    "loaded {:?} as {:?}",
                    session.core.rom().title(),
                    session.core.model()
                ),
            );
        }
        true
    })
}

/// Tells the frontend the joypad's buttons.
fn set_input_descriptors() {
    let describe = |id, text: &'static CStr| ffi::InputDescriptor {
        port: 0,
        device: ffi::DEVICE_JOYPAD,
        index: 0,
        id,
        description: text.as_ptr(),
    };
    let mut list = [
        describe(joypad::LEFT, c"D-Pad Left"),
        describe(joypad::UP, c"D-Pad Up"),
        describe(joypad::DOWN, c"D-Pad Down"),
        describe(joypad::RIGHT, c"D-Pad Right"),
        describe(joypad::B, c"B"),
        describe(joypad::A, c"A"),
        describe(joypad::SELECT, c"Select"),
        describe(joypad::START, c"Start"),
        ffi::InputDescriptor {
            port: 0,
            device: 0,
            index: 0,
            id: 0,
            description: std::ptr::null(),
        },
    ];
    // SAFETY: a terminated array of `retro_input_descriptor`.
    unsafe {
        host::environment(ffi::env::SET_INPUT_DESCRIPTORS, list.as_mut_ptr().cast());
    }
}

/// Sends the memory descriptors (rcheevos' layout, see [`memory_map`]).
fn send_memory_map(session: &mut Session) {
    let descriptors = memory_map::descriptors(&mut session.core);
    let map = ffi::MemoryMap {
        descriptors: descriptors.as_ptr(),
        num_descriptors: descriptors.len() as c_uint,
    };
    // SAFETY: a `retro_memory_map`; frontends copy the descriptors during the call.
    unsafe {
        host::environment(
            ffi::env::SET_MEMORY_MAPS,
            std::ptr::from_ref(&map).cast_mut().cast(),
        );
    }
}

/// No special content types.
#[unsafe(no_mangle)]
pub extern "C" fn retro_load_game_special(
    _game_type: c_uint,
    _info: *const ffi::GameInfo,
    _num_info: usize,
) -> bool {
    false
}

/// Drops the loaded game.
#[unsafe(no_mangle)]
pub extern "C" fn retro_unload_game() {
    guard("retro_unload_game", (), || {
        *SESSION.lock().unwrap_or_else(|e| e.into_inner()) = None;
    });
}

/// NTSC-like: 59.73 frames per second.
#[unsafe(no_mangle)]
pub extern "C" fn retro_get_region() -> c_uint {
    ffi::REGION_NTSC
}

/// Bytes of a state: fixed for the game and model.
#[unsafe(no_mangle)]
pub extern "C" fn retro_serialize_size() -> usize {
    with_session("retro_serialize_size", 0, |s| s.state_size)
}

/// Writes the running game as a state file into `data` (`size` bytes).
///
/// # Safety
/// `data` is null or writable for `size` bytes.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn retro_serialize(data: *mut c_void, size: usize) -> bool {
    with_session("retro_serialize", false, |s| {
        let bytes = s.serialize_vec();
        if data.is_null() || size < bytes.len() {
            host::log(
                log_level::ERROR,
                &format!(
                    "serialize: buffer of {size} bytes, the state needs {}",
                    bytes.len()
                ),
            );
            return false;
        }
        // SAFETY: `data` is writable for `size >= bytes.len()` bytes.
        unsafe { std::ptr::copy_nonoverlapping(bytes.as_ptr(), data.cast::<u8>(), bytes.len()) };
        true
    })
}

/// Loads a state file; on any error the running game is left as it was.
///
/// # Safety
/// `data` is null or readable for `size` bytes.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn retro_unserialize(data: *const c_void, size: usize) -> bool {
    with_session("retro_unserialize", false, |s| {
        if data.is_null() {
            host::log(log_level::ERROR, "unserialize: no data");
            return false;
        }
        // SAFETY: readable for `size` bytes by the caller's contract.
        let bytes = unsafe { std::slice::from_raw_parts(data.cast::<u8>(), size) };
        match s.unserialize(bytes) {
            Ok(()) => true,
            Err(e) => {
                host::log(log_level::ERROR, &format!("state not loaded: {e}"));
                false
            }
        }
    })
}

/// Drops every cheat.
#[unsafe(no_mangle)]
pub extern "C" fn retro_cheat_reset() {
    with_session("retro_cheat_reset", (), |s| {
        s.cheats.clear();
        s.apply_rom_patches();
    });
}

/// Sets cheat `index`: GameShark (`01VVLLHH`) or Game Genie (`ABC-DEF[-GHI]`) codes,
/// several joined by `+`.
///
/// # Safety
/// `code` is null or a NUL-terminated string.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn retro_cheat_set(index: c_uint, enabled: bool, code: *const c_char) {
    with_session("retro_cheat_set", (), |s| {
        let text = if code.is_null() {
            String::new()
        } else {
            // SAFETY: NUL-terminated by the caller's contract.
            unsafe { CStr::from_ptr(code) }
                .to_string_lossy()
                .into_owned()
        };
        let codes = match cheats::parse(&text) {
            Ok(codes) => codes,
            Err(e) => {
                host::log(log_level::WARN, &format!("cheat {index} ignored: {e}"));
                Vec::new()
            }
        };
        if s.cheats.set(index as usize, enabled, codes) {
            s.apply_rom_patches();
        }
    });
}

/// The memory RetroArch saves (`.srm`, `.rtc`) and inspects.
#[unsafe(no_mangle)]
pub extern "C" fn retro_get_memory_data(id: c_uint) -> *mut c_void {
    with_session("retro_get_memory_data", std::ptr::null_mut(), |s| {
        let len = s.save_ram_len();
        let hw = &mut s.core.state_mut().hw;
        match id {
            memory::SAVE_RAM if len > 0 => hw.cart_ram.as_mut_ptr().cast(),
            memory::SYSTEM_RAM => hw.wram.as_mut_ptr().cast(),
            // VRAM bank 1 follows bank 0 in the state: one 16 KiB block on a CGB.
            memory::VIDEO_RAM => hw.vram.as_mut_ptr().cast(),
            memory::RTC => s
                .rtc
                .as_mut()
                .map_or(std::ptr::null_mut(), |rtc| rtc.as_mut_ptr().cast()),
            _ => std::ptr::null_mut(),
        }
    })
}

/// Sizes of the memories of [`retro_get_memory_data`].
#[unsafe(no_mangle)]
pub extern "C" fn retro_get_memory_size(id: c_uint) -> usize {
    with_session("retro_get_memory_size", 0, |s| match id {
        memory::SAVE_RAM => s.save_ram_len(),
        memory::SYSTEM_RAM => 0x2000,
        memory::VIDEO_RAM => {
            if s.core.model() == backspin_core::Model::Cgb {
                0x4000
            } else {
                0x2000
            }
        }
        memory::RTC => s.rtc.as_ref().map_or(0, |_| session::RTC_BYTES),
        _ => 0,
    })
}
