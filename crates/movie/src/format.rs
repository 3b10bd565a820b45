//! The movie file: what was played (ROM, model, boot ROM, start, inputs at their exact
//! M-cycles) and what it must produce (a hash of `State` after every frame, and per-region
//! hashes every [`CHECKPOINT_FRAMES`] frames).
//!
//! Layout (all integers little-endian):
//! ```text
//! magic "BSPNMOVI" (8) · major u16 · minor u16
//! sections: tag [u8; 4] · payload length u32 · payload      (unknown tags are skipped)
//!   INFO  emulator version (str) · ROM SHA-1 [20] · ROM title (str) · model u8 ·
//!         boot ROM: 0 | 1 + SHA-1 [20] · state-format minor of the hashes u16 · GUID [16] ·
//!         rerecords u64 · author (str) · description (str) · RTC start seconds u64 ·
//!         frames u64 · final timeline M-cycle u64
//!   STRT  kind u8 (0 power-on, clean cartridge RAM; 1 power-on with a battery save;
//!         2 a save-state file) · the bytes of that .sav / state file (the rest)
//!   EVNT  count u32 · per event: timeline M-cycle u64 · kind u8 ·
//!         (0 buttons: mask u8 | 1 reset: nothing | 2 RTC advance: seconds u64 |
//!          3 memory write (1.1): bank u16, 0xFFFF = through the memory map · address u16 ·
//!          value u8)
//!   FRAM  one u32 per frame: the frame hash of `State` at the end of each frame
//!   CHKP  region count u8 · names (u8 length + ASCII) · count u32 ·
//!         per checkpoint: frame u64 · timeline M-cycle u64 · one XXH64 per region
//!   KEYS  (1.2, optional) count u32 · per keyframe: frame u64 · timeline M-cycle u64 ·
//!         state-file length u32 · LZ4 block length u32 · LZ4 block (raw, no frame) of a
//!         save-state file (`backspin_core::state_file`) of `State` at that checkpoint
//! CRC-32 (IEEE) of everything before it, u32
//! ```
//! `str` is a u16 byte length and UTF-8. A reader refuses another major (naming both
//! versions), reads any minor of its major (later minors only add sections or append to
//! them), and checks the CRC before trusting a byte. Host metadata (GUID, author, text) is
//! never hashed; the hashes cover emulation state only (see [`crate::regions`]).

use crate::regions::{REGION_COUNT, REGIONS, RegionHashes};
use backspin_core::state_file::checksum::crc32;

pub const MAGIC: [u8; 8] = *b"BSPNMOVI";
pub const FORMAT_MAJOR: u16 = 1;
/// 1.1 added memory writes (event kind 3); 1.2 added keyframes (the KEYS section). Older
/// files are read as movies without either.
pub const FORMAT_MINOR: u16 = 2;
/// Frames between two checkpoints (and a checkpoint at frame 0 and at the last frame).
pub const CHECKPOINT_FRAMES: u64 = 60;

/// Why a movie cannot be used. One line each.
#[derive(Debug, thiserror::Error)]
pub enum MovieError {
    #[error("not a Backspin movie")]
    NotAMovie,
    #[error(
        "this movie is format {file_major}.{file_minor}, written by a newer Backspin; this one \
         reads {FORMAT_MAJOR}.x (up to {FORMAT_MAJOR}.{FORMAT_MINOR})"
    )]
    TooNew { file_major: u16, file_minor: u16 },
    #[error(
        "this movie is format {file_major}.{file_minor}, which this Backspin (format \
         {FORMAT_MAJOR}.{FORMAT_MINOR}) does not read"
    )]
    TooOld { file_major: u16, file_minor: u16 },
    #[error("the movie file is truncated: it ends inside {at}")]
    Truncated { at: &'static str },
    #[error("the movie is corrupt (checksum {stored:08X}, contents {computed:08X})")]
    BadChecksum { stored: u32, computed: u32 },
    #[error("the movie is corrupt: {what}")]
    Corrupt { what: String },
    #[error(
        "this movie is for another game ({movie_title:?}, SHA-1 {movie_sha1}); the ROM given is \
         {rom_title:?} (SHA-1 {rom_sha1})"
    )]
    WrongRom {
        movie_title: String,
        movie_sha1: String,
        rom_title: String,
        rom_sha1: String,
    },
    #[error("this movie was recorded with the boot ROM whose SHA-1 is {wanted}; {given}")]
    BootRom { wanted: String, given: String },
    #[error("this movie was recorded without a boot ROM; run it without one")]
    NoBootRomWanted,
    #[error(
        "this movie's checkpoints hash save-state format 1.{minor}, newer than this Backspin's \
         1.{ours}: it can be played but not verified"
    )]
    HashesTooNew { minor: u16, ours: u16 },
    #[error("the movie's start cannot be loaded: {what}")]
    BadStart { what: String },
    #[error("the input script, line {line}: {what}")]
    Script { line: usize, what: String },
}

/// Where the recording starts.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Start {
    /// Power-on with clean (zeroed) cartridge RAM.
    PowerOn,
    /// Power-on with these battery-save (`.sav`) bytes in the cartridge.
    PowerOnWithSave(Vec<u8>),
    /// From this save-state file.
    SaveState(Vec<u8>),
}

/// An outside influence on the emulation.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Input {
    /// Hold exactly these buttons (a `Buttons` mask) from now on.
    Buttons(u8),
    /// Power-cycle (cartridge RAM and clock kept), as `Timeline::reset`.
    Reset,
    /// Add host seconds to the cartridge clock.
    RtcAdvance(u64),
    /// A script's memory write (`Core::poke` without a bank, `Core::poke_banked` with one).
    Write {
        bank: Option<u16>,
        addr: u16,
        value: u8,
    },
}

/// The bank field of a write through the memory map.
const MAPPED: u16 = 0xFFFF;

/// An input at its timeline M-cycle (the core's M-cycle plus the cycle of the latest
/// reset, so it never goes back).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Event {
    pub cycle: u64,
    pub input: Input,
}

/// Per-region hashes of `State` at the end of a frame.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Checkpoint {
    /// Frames completed (0: the start).
    pub frame: u64,
    pub cycle: u64,
    pub regions: RegionHashes,
}

/// Everything a movie holds.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Movie {
    pub emulator_version: String,
    pub rom_sha1: [u8; 20],
    pub rom_title: String,
    /// A `Model` discriminant.
    pub model: u8,
    pub boot_rom_sha1: Option<[u8; 20]>,
    /// The save-state format minor whose fields the hashes cover.
    pub state_minor: u16,
    /// Identifies the recording (random at record time; metadata, never hashed).
    pub guid: [u8; 16],
    pub rerecords: u64,
    pub author: String,
    pub description: String,
    pub start: Start,
    /// Seconds added to the cartridge clock before the first frame (0: none).
    pub rtc_start_seconds: u64,
    /// Frames recorded.
    pub frames: u64,
    /// The timeline M-cycle at the end of the last frame (the emulated length).
    pub final_cycle: u64,
    pub events: Vec<Event>,
    /// `frame_hashes[n]` is the frame hash at the end of frame `n` (frames count from 0, so
    /// `n + 1` frames are complete then).
    pub frame_hashes: Vec<u32>,
    pub checkpoints: Vec<Checkpoint>,
    /// Whole states at some checkpoints (oldest first; none in 1.0 files).
    pub keyframes: Vec<Keyframe>,
}

/// The whole state at a checkpoint, so verification can start there and a desync can be
/// named field by field without a reference run.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Keyframe {
    /// Frames completed (a checkpoint's frame).
    pub frame: u64,
    pub cycle: u64,
    /// A save-state file of the state then (portable, checked on load).
    pub state_file: Vec<u8>,
}

/// No save-state file comes near this; a keyframe claiming more is corrupt (the limit keeps
/// a fuzzed length from allocating gigabytes).
const MAX_KEYFRAME_BYTES: usize = 16 << 20;

/// Hex digits of a SHA-1 (or any bytes).
pub fn hex(bytes: &[u8]) -> String {
    bytes.iter().map(|b| format!("{b:02x}")).collect()
}

struct Writer(Vec<u8>);

impl Writer {
    fn u8(&mut self, v: u8) {
        self.0.push(v);
    }
    fn u16(&mut self, v: u16) {
        self.0.extend_from_slice(&v.to_le_bytes());
    }
    fn u32(&mut self, v: u32) {
        self.0.extend_from_slice(&v.to_le_bytes());
    }
    fn u64(&mut self, v: u64) {
        self.0.extend_from_slice(&v.to_le_bytes());
    }
    fn bytes(&mut self, v: &[u8]) {
        self.0.extend_from_slice(v);
    }
    fn str(&mut self, v: &str) {
        // Longer text is cut at a character boundary below 64 KiB.
        let mut end = v.len().min(u16::MAX as usize);
        while !v.is_char_boundary(end) {
            end -= 1;
        }
        self.u16(end as u16);
        self.bytes(&v.as_bytes()[..end]);
    }
    fn section(&mut self, tag: &[u8; 4], body: impl FnOnce(&mut Writer)) {
        self.bytes(tag);
        let at = self.0.len();
        self.u32(0);
        body(self);
        let len = u32::try_from(self.0.len() - at - 4).expect("a section is below 4 GiB");
        self.0[at..at + 4].copy_from_slice(&len.to_le_bytes());
    }
}

/// The file bytes of `movie`.
pub fn encode(movie: &Movie) -> Vec<u8> {
    let mut w = Writer(Vec::with_capacity(64 + movie.frame_hashes.len() * 4));
    w.bytes(&MAGIC);
    w.u16(FORMAT_MAJOR);
    w.u16(FORMAT_MINOR);
    w.section(b"INFO", |w| {
        w.str(&movie.emulator_version);
        w.bytes(&movie.rom_sha1);
        w.str(&movie.rom_title);
        w.u8(movie.model);
        match movie.boot_rom_sha1 {
            None => w.u8(0),
            Some(sha1) => {
                w.u8(1);
                w.bytes(&sha1);
            }
        }
        w.u16(movie.state_minor);
        w.bytes(&movie.guid);
        w.u64(movie.rerecords);
        w.str(&movie.author);
        w.str(&movie.description);
        w.u64(movie.rtc_start_seconds);
        w.u64(movie.frames);
        w.u64(movie.final_cycle);
    });
    w.section(b"STRT", |w| match &movie.start {
        Start::PowerOn => w.u8(0),
        Start::PowerOnWithSave(bytes) => {
            w.u8(1);
            w.bytes(bytes);
        }
        Start::SaveState(bytes) => {
            w.u8(2);
            w.bytes(bytes);
        }
    });
    w.section(b"EVNT", |w| {
        w.u32(u32::try_from(movie.events.len()).expect("under 4 billion events"));
        for event in &movie.events {
            w.u64(event.cycle);
            match event.input {
                Input::Buttons(mask) => {
                    w.u8(0);
                    w.u8(mask);
                }
                Input::Reset => w.u8(1),
                Input::RtcAdvance(seconds) => {
                    w.u8(2);
                    w.u64(seconds);
                }
                Input::Write { bank, addr, value } => {
                    w.u8(3);
                    w.u16(bank.unwrap_or(MAPPED));
                    w.u16(addr);
                    w.u8(value);
                }
            }
        }
    });
    w.section(b"FRAM", |w| {
        for hash in &movie.frame_hashes {
            w.u32(*hash);
        }
    });
    w.section(b"CHKP", |w| {
        w.u8(REGION_COUNT as u8);
        for name in REGIONS {
            w.u8(name.len() as u8);
            w.bytes(name.as_bytes());
        }
        w.u32(u32::try_from(movie.checkpoints.len()).expect("under 4 billion checkpoints"));
        for checkpoint in &movie.checkpoints {
            w.u64(checkpoint.frame);
            w.u64(checkpoint.cycle);
            for hash in checkpoint.regions {
                w.u64(hash);
            }
        }
    });
    if !movie.keyframes.is_empty() {
        w.section(b"KEYS", |w| {
            w.u32(u32::try_from(movie.keyframes.len()).expect("under 4 billion keyframes"));
            for keyframe in &movie.keyframes {
                let packed = lz4_flex::block::compress(&keyframe.state_file);
                w.u64(keyframe.frame);
                w.u64(keyframe.cycle);
                w.u32(u32::try_from(keyframe.state_file.len()).expect("a state is below 4 GiB"));
                w.u32(u32::try_from(packed.len()).expect("a state is below 4 GiB"));
                w.bytes(&packed);
            }
        });
    }
    let crc = crc32(&w.0);
    w.u32(crc);
    w.0
}

fn decode_keyframes(payload: Option<&[u8]>, frames: u64) -> Result<Vec<Keyframe>, MovieError> {
    let Some(data) = payload else {
        return Ok(Vec::new());
    };
    let mut r = Reader {
        data,
        pos: 0,
        at: "the KEYS section",
    };
    let count = r.count(24)?;
    let mut keyframes: Vec<Keyframe> = Vec::with_capacity(count);
    for index in 0..count {
        let frame = r.u64()?;
        let cycle = r.u64()?;
        let len = r.u32()? as usize;
        let packed_len = r.u32()? as usize;
        let packed = r.take(packed_len)?;
        if len > MAX_KEYFRAME_BYTES {
            return Err(corrupt(format!("keyframe {index} claims {len} bytes")));
        }
        if frame > frames || keyframes.last().is_some_and(|k| k.frame >= frame) {
            return Err(corrupt(format!("keyframe {index} is at frame {frame}")));
        }
        let state_file = lz4_flex::block::decompress(packed, len)
            .ok()
            .filter(|bytes| bytes.len() == len)
            .ok_or_else(|| corrupt(format!("keyframe {index} does not decompress")))?;
        keyframes.push(Keyframe {
            frame,
            cycle,
            state_file,
        });
    }
    Ok(keyframes)
}

/// Reads fields of one section; every read is bounds-checked.
struct Reader<'a> {
    data: &'a [u8],
    pos: usize,
    at: &'static str,
}

impl<'a> Reader<'a> {
    fn take(&mut self, n: usize) -> Result<&'a [u8], MovieError> {
        let end = self
            .pos
            .checked_add(n)
            .filter(|&end| end <= self.data.len())
            .ok_or(MovieError::Truncated { at: self.at })?;
        let bytes = &self.data[self.pos..end];
        self.pos = end;
        Ok(bytes)
    }
    fn array<const N: usize>(&mut self) -> Result<[u8; N], MovieError> {
        let mut out = [0; N];
        out.copy_from_slice(self.take(N)?);
        Ok(out)
    }
    fn u8(&mut self) -> Result<u8, MovieError> {
        Ok(self.take(1)?[0])
    }
    fn u16(&mut self) -> Result<u16, MovieError> {
        Ok(u16::from_le_bytes(self.array()?))
    }
    fn u32(&mut self) -> Result<u32, MovieError> {
        Ok(u32::from_le_bytes(self.array()?))
    }
    fn u64(&mut self) -> Result<u64, MovieError> {
        Ok(u64::from_le_bytes(self.array()?))
    }
    fn str(&mut self) -> Result<String, MovieError> {
        let len = usize::from(self.u16()?);
        let bytes = self.take(len)?;
        String::from_utf8(bytes.to_vec())
            .map_err(|_| corrupt(format!("{} holds text that is not UTF-8", self.at)))
    }
    fn rest(&mut self) -> &'a [u8] {
        let rest = &self.data[self.pos..];
        self.pos = self.data.len();
        rest
    }
    fn remaining(&self) -> usize {
        self.data.len() - self.pos
    }
    /// A count of items of at least `item_bytes` each, refused when the section cannot
    /// hold them (no allocation from a corrupt count).
    fn count(&mut self, item_bytes: usize) -> Result<usize, MovieError> {
        let count = self.u32()? as usize;
        if count.saturating_mul(item_bytes) > self.remaining() {
            return Err(MovieError::Truncated { at: self.at });
        }
        Ok(count)
    }
}

fn corrupt(what: impl Into<String>) -> MovieError {
    MovieError::Corrupt { what: what.into() }
}

/// The format version of a movie file, checked before anything else.
pub fn version(bytes: &[u8]) -> Result<(u16, u16), MovieError> {
    if bytes.len() < 12 || bytes[..8] != MAGIC {
        return Err(MovieError::NotAMovie);
    }
    let major = u16::from_le_bytes([bytes[8], bytes[9]]);
    let minor = u16::from_le_bytes([bytes[10], bytes[11]]);
    if major > FORMAT_MAJOR {
        return Err(MovieError::TooNew {
            file_major: major,
            file_minor: minor,
        });
    }
    if major < FORMAT_MAJOR {
        return Err(MovieError::TooOld {
            file_major: major,
            file_minor: minor,
        });
    }
    Ok((major, minor))
}

/// Parses and checks a movie file.
pub fn decode(bytes: &[u8]) -> Result<Movie, MovieError> {
    let (_, minor) = version(bytes)?;
    if bytes.len() < 16 {
        return Err(MovieError::Truncated { at: "the header" });
    }
    let (body, crc) = bytes.split_at(bytes.len() - 4);
    let stored = u32::from_le_bytes([crc[0], crc[1], crc[2], crc[3]]);
    let computed = crc32(body);
    if stored != computed {
        return Err(MovieError::BadChecksum { stored, computed });
    }
    let mut sections = Reader {
        data: &body[12..],
        pos: 0,
        at: "a section header",
    };
    let (mut info, mut start, mut events, mut frames, mut checkpoints, mut keys) =
        (None, None, None, None, None, None);
    while sections.remaining() > 0 {
        let tag: [u8; 4] = sections.array()?;
        let len = sections.u32()? as usize;
        let payload = sections.take(len)?;
        match &tag {
            b"INFO" => info = Some(payload),
            b"STRT" => start = Some(payload),
            b"EVNT" => events = Some(payload),
            b"FRAM" => frames = Some(payload),
            b"CHKP" => checkpoints = Some(payload),
            b"KEYS" => keys = Some(payload),
            _ => {} // a later minor's section
        }
    }
    let missing = |name: &str| corrupt(format!("the {name} section is missing"));
    let mut r = Reader {
        data: info.ok_or_else(|| missing("INFO"))?,
        pos: 0,
        at: "the INFO section",
    };
    let emulator_version = r.str()?;
    let rom_sha1 = r.array()?;
    let rom_title = r.str()?;
    let model = r.u8()?;
    if model > 1 {
        return Err(corrupt(format!(
            "model {model} is not a Game Boy this Backspin knows"
        )));
    }
    let boot_rom_sha1 = match r.u8()? {
        0 => None,
        1 => Some(r.array()?),
        other => return Err(corrupt(format!("boot ROM flag {other}"))),
    };
    let state_minor = r.u16()?;
    let guid = r.array()?;
    let rerecords = r.u64()?;
    let author = r.str()?;
    let description = r.str()?;
    let rtc_start_seconds = r.u64()?;
    let frame_count = r.u64()?;
    let final_cycle = r.u64()?;

    let mut r = Reader {
        data: start.ok_or_else(|| missing("STRT"))?,
        pos: 0,
        at: "the STRT section",
    };
    let start = match r.u8()? {
        0 => Start::PowerOn,
        1 => Start::PowerOnWithSave(r.rest().to_vec()),
        2 => Start::SaveState(r.rest().to_vec()),
        other => return Err(corrupt(format!("start kind {other}"))),
    };

    let mut r = Reader {
        data: events.ok_or_else(|| missing("EVNT"))?,
        pos: 0,
        at: "the EVNT section",
    };
    let count = r.count(9)?;
    let mut events = Vec::with_capacity(count);
    for index in 0..count {
        let cycle = r.u64()?;
        let input = match r.u8()? {
            0 => Input::Buttons(r.u8()?),
            1 => Input::Reset,
            2 => Input::RtcAdvance(r.u64()?),
            3 => {
                let bank = r.u16()?;
                Input::Write {
                    bank: (bank != MAPPED).then_some(bank),
                    addr: r.u16()?,
                    value: r.u8()?,
                }
            }
            // A later minor's kind of input: this reader cannot replay it.
            _ if minor > FORMAT_MINOR => {
                return Err(MovieError::TooNew {
                    file_major: FORMAT_MAJOR,
                    file_minor: minor,
                });
            }
            other => return Err(corrupt(format!("event {index} has kind {other}"))),
        };
        if events.last().is_some_and(|e: &Event| e.cycle > cycle) {
            return Err(corrupt(format!("event {index} goes back in time")));
        }
        events.push(Event { cycle, input });
    }

    let frame_bytes = frames.ok_or_else(|| missing("FRAM"))?;
    if frame_bytes.len() % 4 != 0 || (frame_bytes.len() / 4) as u64 != frame_count {
        return Err(corrupt(format!(
            "{} bytes of frame hashes for {frame_count} frames",
            frame_bytes.len()
        )));
    }
    let frame_hashes = frame_bytes
        .chunks_exact(4)
        .map(|c| u32::from_le_bytes([c[0], c[1], c[2], c[3]]))
        .collect();

    let mut r = Reader {
        data: checkpoints.ok_or_else(|| missing("CHKP"))?,
        pos: 0,
        at: "the CHKP section",
    };
    let region_count = usize::from(r.u8()?);
    let mut order = Vec::with_capacity(region_count);
    for _ in 0..region_count {
        let len = usize::from(r.u8()?);
        let name = r.take(len)?;
        // Regions this Backspin does not know are read and ignored.
        order.push(REGIONS.iter().position(|known| known.as_bytes() == name));
    }
    if REGIONS
        .iter()
        .enumerate()
        .any(|(i, _)| !order.contains(&Some(i)))
    {
        return Err(corrupt(
            "the checkpoints lack a region this Backspin hashes",
        ));
    }
    let count = r.count(16 + 8 * region_count)?;
    let mut checkpoints: Vec<Checkpoint> = Vec::with_capacity(count);
    for index in 0..count {
        let frame = r.u64()?;
        let cycle = r.u64()?;
        let mut regions = [0; REGION_COUNT];
        for slot in &order {
            let hash = r.u64()?;
            if let Some(i) = slot {
                regions[*i] = hash;
            }
        }
        if frame > frame_count || checkpoints.last().is_some_and(|c| c.frame >= frame) {
            return Err(corrupt(format!("checkpoint {index} is at frame {frame}")));
        }
        checkpoints.push(Checkpoint {
            frame,
            cycle,
            regions,
        });
    }

    let keyframes = decode_keyframes(keys, frame_count)?;

    Ok(Movie {
        emulator_version,
        rom_sha1,
        rom_title,
        model,
        boot_rom_sha1,
        state_minor,
        guid,
        rerecords,
        author,
        description,
        start,
        rtc_start_seconds,
        frames: frame_count,
        final_cycle,
        events,
        frame_hashes,
        checkpoints,
        keyframes,
    })
}
