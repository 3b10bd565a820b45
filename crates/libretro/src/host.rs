//! The frontend's callbacks as it hands them over, and the small helpers over them
//! (environment calls, logging, reading a variable).

use std::ffi::{CStr, CString, c_uint, c_void};
use std::sync::Mutex;

use crate::ffi::{
    self, AudioSampleBatchFn, EnvironmentFn, InputPollFn, InputStateFn, LogCallback, LogPrintfFn,
    VideoRefreshFn,
};

/// Every callback the frontend set (`retro_set_*`), and what the environment told us.
#[derive(Default, Clone, Copy)]
pub struct Callbacks {
    pub environment: Option<EnvironmentFn>,
    pub video: Option<VideoRefreshFn>,
    pub audio_batch: Option<AudioSampleBatchFn>,
    pub input_poll: Option<InputPollFn>,
    pub input_state: Option<InputStateFn>,
    pub log: Option<LogPrintfFn>,
    /// Whether `video` takes a null picture as "the last one again" (GET_CAN_DUPE).
    pub can_dupe: bool,
}

pub static CALLBACKS: Mutex<Callbacks> = Mutex::new(Callbacks {
    environment: None,
    video: None,
    audio_batch: None,
    input_poll: None,
    input_state: None,
    log: None,
    can_dupe: false,
});

/// A copy of the callbacks (a poisoned lock still holds valid function pointers).
pub fn callbacks() -> Callbacks {
    *CALLBACKS.lock().unwrap_or_else(|e| e.into_inner())
}

/// Changes the callbacks.
pub fn update(change: impl FnOnce(&mut Callbacks)) {
    change(&mut CALLBACKS.lock().unwrap_or_else(|e| e.into_inner()));
}

/// Calls the environment callback; false when there is none or it declines.
///
/// # Safety
/// `data` must be what the frontend expects for `cmd`.
pub unsafe fn environment(cmd: c_uint, data: *mut c_void) -> bool {
    match callbacks().environment {
        // SAFETY: the frontend's function, called as libretro.h specifies.
        Some(env) => unsafe { env(cmd, data) },
        None => false,
    }
}

/// Asks whether the frontend can repeat a frame (a null picture), and remembers it.
pub fn fetch_can_dupe() {
    let mut can_dupe = false;
    // SAFETY: GET_CAN_DUPE fills a bool.
    let answered = unsafe {
        environment(
            ffi::env::GET_CAN_DUPE,
            std::ptr::from_mut(&mut can_dupe).cast(),
        )
    };
    update(|c| c.can_dupe = answered && can_dupe);
}

/// Whether the frontend will show the frame about to run: false for the frames run-ahead
/// runs unseen (GET_AUDIO_VIDEO_ENABLE bit 0); true when the frontend does not say.
pub fn video_shown() -> bool {
    let mut flags: std::ffi::c_int = 0;
    // SAFETY: GET_AUDIO_VIDEO_ENABLE fills an int.
    let answered = unsafe {
        environment(
            ffi::env::GET_AUDIO_VIDEO_ENABLE,
            std::ptr::from_mut(&mut flags).cast(),
        )
    };
    !answered || flags & 1 != 0
}

/// Asks the frontend for its log interface (once the environment callback is set).
pub fn fetch_log_interface() {
    let mut interface = LogCallback { log: None };
    // SAFETY: GET_LOG_INTERFACE fills a `retro_log_callback`.
    if unsafe {
        environment(
            ffi::env::GET_LOG_INTERFACE,
            std::ptr::from_mut(&mut interface).cast(),
        )
    } {
        update(|c| c.log = interface.log);
    }
}

/// One line to the frontend's log, or to stderr without one.
pub fn log(level: c_uint, message: &str) {
    let line =
        CString::new(format!("[backspin] {message}\n").replace('\0', " ")).unwrap_or_default();
    match callbacks().log {
        // SAFETY: a printf-style function given "%s" and one NUL-terminated string.
        Some(log) => unsafe { log(level, c"%s".as_ptr(), line.as_ptr()) },
        None => eprint!("{}", line.to_string_lossy()),
    }
}

/// The value the frontend has for option `key`.
pub fn variable(key: &CStr) -> Option<String> {
    let mut var = ffi::Variable {
        key: key.as_ptr(),
        value: std::ptr::null(),
    };
    // SAFETY: GET_VARIABLE fills `value` with a string the frontend owns.
    let ok = unsafe { environment(ffi::env::GET_VARIABLE, std::ptr::from_mut(&mut var).cast()) };
    if !ok || var.value.is_null() {
        return None;
    }
    // SAFETY: non-null, NUL-terminated, valid until the next environment call.
    Some(
        unsafe { CStr::from_ptr(var.value) }
            .to_string_lossy()
            .into_owned(),
    )
}

/// The frontend's system directory (where boot ROMs live), if it has one.
pub fn system_directory() -> Option<std::path::PathBuf> {
    let mut dir: *const std::ffi::c_char = std::ptr::null();
    // SAFETY: GET_SYSTEM_DIRECTORY fills a `const char *`.
    let ok = unsafe {
        environment(
            ffi::env::GET_SYSTEM_DIRECTORY,
            std::ptr::from_mut(&mut dir).cast(),
        )
    };
    if !ok || dir.is_null() {
        return None;
    }
    // SAFETY: non-null, NUL-terminated.
    let text = unsafe { CStr::from_ptr(dir) }
        .to_string_lossy()
        .into_owned();
    Some(std::path::PathBuf::from(text))
}
