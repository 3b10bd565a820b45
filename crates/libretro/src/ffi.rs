//! Our own `repr(C)` declarations of the parts of `libretro.h` (API version 1) the core uses:
//! the structs it reads or fills and the numbers it passes. Names follow the header with the
//! `RETRO_`/`retro_` prefix dropped.

use std::ffi::{c_char, c_uint, c_void};

/// `RETRO_API_VERSION`.
pub const API_VERSION: c_uint = 1;

/// `RETRO_DEVICE_JOYPAD`.
pub const DEVICE_JOYPAD: c_uint = 1;
/// `RETRO_DEVICE_ID_JOYPAD_*`.
pub mod joypad {
    use std::ffi::c_uint;
    pub const B: c_uint = 0;
    pub const SELECT: c_uint = 2;
    pub const START: c_uint = 3;
    pub const UP: c_uint = 4;
    pub const DOWN: c_uint = 5;
    pub const LEFT: c_uint = 6;
    pub const RIGHT: c_uint = 7;
    pub const A: c_uint = 8;
    /// `RETRO_DEVICE_ID_JOYPAD_MASK`: all buttons as one bitmask (with input bitmasks).
    pub const MASK: c_uint = 256;
}

/// `RETRO_REGION_NTSC`.
pub const REGION_NTSC: c_uint = 0;

/// `RETRO_MEMORY_*`.
pub mod memory {
    use std::ffi::c_uint;
    pub const SAVE_RAM: c_uint = 0;
    pub const RTC: c_uint = 1;
    pub const SYSTEM_RAM: c_uint = 2;
    pub const VIDEO_RAM: c_uint = 3;
}

/// `RETRO_ENVIRONMENT_*`.
pub mod env {
    use std::ffi::c_uint;
    const EXPERIMENTAL: c_uint = 0x10000;
    pub const GET_CAN_DUPE: c_uint = 3;
    pub const GET_SYSTEM_DIRECTORY: c_uint = 9;
    pub const SET_PIXEL_FORMAT: c_uint = 10;
    pub const SET_INPUT_DESCRIPTORS: c_uint = 11;
    pub const GET_VARIABLE: c_uint = 15;
    pub const SET_VARIABLES: c_uint = 16;
    pub const GET_VARIABLE_UPDATE: c_uint = 17;
    pub const SET_SUPPORT_NO_GAME: c_uint = 18;
    pub const GET_LOG_INTERFACE: c_uint = 27;
    pub const SET_MEMORY_MAPS: c_uint = 36 | EXPERIMENTAL;
    pub const SET_SERIALIZATION_QUIRKS: c_uint = 44;
    pub const GET_AUDIO_VIDEO_ENABLE: c_uint = 47 | EXPERIMENTAL;
    pub const GET_INPUT_BITMASKS: c_uint = 51 | EXPERIMENTAL;
    pub const GET_CORE_OPTIONS_VERSION: c_uint = 52;
    pub const SET_CORE_OPTIONS_V2: c_uint = 67;
}

/// `RETRO_PIXEL_FORMAT_XRGB8888`.
pub const PIXEL_FORMAT_XRGB8888: c_uint = 1;

/// `RETRO_LOG_*` levels.
pub mod log_level {
    use std::ffi::c_uint;
    pub const INFO: c_uint = 1;
    pub const WARN: c_uint = 2;
    pub const ERROR: c_uint = 3;
}

/// `RETRO_MEMDESC_*` flags.
pub mod memdesc {
    pub const CONST: u64 = 1 << 0;
    pub const SYSTEM_RAM: u64 = 1 << 2;
    pub const SAVE_RAM: u64 = 1 << 3;
    pub const VIDEO_RAM: u64 = 1 << 4;
}

/// `retro_environment_t`.
pub type EnvironmentFn = unsafe extern "C" fn(cmd: c_uint, data: *mut c_void) -> bool;
/// `retro_video_refresh_t`.
pub type VideoRefreshFn =
    unsafe extern "C" fn(data: *const c_void, width: c_uint, height: c_uint, pitch: usize);
/// `retro_audio_sample_t`.
pub type AudioSampleFn = unsafe extern "C" fn(left: i16, right: i16);
/// `retro_audio_sample_batch_t`.
pub type AudioSampleBatchFn = unsafe extern "C" fn(data: *const i16, frames: usize) -> usize;
/// `retro_input_poll_t`.
pub type InputPollFn = unsafe extern "C" fn();
/// `retro_input_state_t`.
pub type InputStateFn =
    unsafe extern "C" fn(port: c_uint, device: c_uint, index: c_uint, id: c_uint) -> i16;
/// `retro_log_printf_t` (variadic in C; we always pass `"%s"` and one string).
pub type LogPrintfFn = unsafe extern "C" fn(level: c_uint, fmt: *const c_char, ...);

/// `struct retro_log_callback`.
#[repr(C)]
pub struct LogCallback {
    pub log: Option<LogPrintfFn>,
}

/// `struct retro_system_info`.
#[repr(C)]
pub struct SystemInfo {
    pub library_name: *const c_char,
    pub library_version: *const c_char,
    pub valid_extensions: *const c_char,
    pub need_fullpath: bool,
    pub block_extract: bool,
}

/// `struct retro_game_geometry`.
#[repr(C)]
pub struct GameGeometry {
    pub base_width: c_uint,
    pub base_height: c_uint,
    pub max_width: c_uint,
    pub max_height: c_uint,
    pub aspect_ratio: f32,
}

/// `struct retro_system_timing`.
#[repr(C)]
pub struct SystemTiming {
    pub fps: f64,
    pub sample_rate: f64,
}

/// `struct retro_system_av_info`.
#[repr(C)]
pub struct SystemAvInfo {
    pub geometry: GameGeometry,
    pub timing: SystemTiming,
}

/// `struct retro_game_info`.
#[repr(C)]
pub struct GameInfo {
    pub path: *const c_char,
    pub data: *const c_void,
    pub size: usize,
    pub meta: *const c_char,
}

/// `struct retro_variable`.
#[repr(C)]
pub struct Variable {
    pub key: *const c_char,
    pub value: *const c_char,
}

/// `struct retro_input_descriptor`.
#[repr(C)]
pub struct InputDescriptor {
    pub port: c_uint,
    pub device: c_uint,
    pub index: c_uint,
    pub id: c_uint,
    pub description: *const c_char,
}

/// `struct retro_memory_descriptor`.
#[repr(C)]
#[derive(Clone, Copy)]
pub struct MemoryDescriptor {
    pub flags: u64,
    pub ptr: *mut c_void,
    pub offset: usize,
    pub start: usize,
    pub select: usize,
    pub disconnect: usize,
    pub len: usize,
    pub addrspace: *const c_char,
}

/// `struct retro_memory_map`.
#[repr(C)]
pub struct MemoryMap {
    pub descriptors: *const MemoryDescriptor,
    pub num_descriptors: c_uint,
}

/// `RETRO_NUM_CORE_OPTION_VALUES_MAX`.
pub const NUM_CORE_OPTION_VALUES_MAX: usize = 128;

/// `struct retro_core_option_value`.
#[repr(C)]
#[derive(Clone, Copy)]
pub struct CoreOptionValue {
    pub value: *const c_char,
    pub label: *const c_char,
}

/// `struct retro_core_option_v2_category`.
#[repr(C)]
pub struct CoreOptionV2Category {
    pub key: *const c_char,
    pub desc: *const c_char,
    pub info: *const c_char,
}

/// `struct retro_core_option_v2_definition`.
#[repr(C)]
pub struct CoreOptionV2Definition {
    pub key: *const c_char,
    pub desc: *const c_char,
    pub desc_categorized: *const c_char,
    pub info: *const c_char,
    pub info_categorized: *const c_char,
    pub category_key: *const c_char,
    pub values: [CoreOptionValue; NUM_CORE_OPTION_VALUES_MAX],
    pub default_value: *const c_char,
}

/// `struct retro_core_options_v2`.
#[repr(C)]
pub struct CoreOptionsV2 {
    pub categories: *const CoreOptionV2Category,
    pub definitions: *const CoreOptionV2Definition,
}
