//! The save-state file: a portable, versioned, checked encoding of [`State`].
//!
//! Layout, all integers little-endian:
//!
//! ```text
//! magic        8 bytes  "BSPNSTAT"
//! major, minor u16 each format version (see FORMAT_MAJOR / FORMAT_MINOR)
//! model        u8       a `Model`, as `HwState::model_raw`
//! ROM identity          title (u8 length + ASCII), header checksum u8, global checksum u16,
//!                       SHA-1 of the ROM file (20 bytes), from 1.4 the cartridge RAM size
//!                       u32 (the header's; MBC2 512; none 0): how much of `hw.cart_ram`
//!                       the sections hold (older minors hold all 128 KiB)
//! state        u32 length, then the sections (`codec`): one per struct of `State`, nested,
//!                       each `name, u32 length, fields`; fields in declaration order
//! CRC-32       u32      of every byte above
//! file CRC-32  u32      (from 1.7) of every byte of the file but these four, to its end
//! metadata     u32 length, payload, u32 CRC-32 of the payload: creation time, frame number,
//!                       emulator version, thumbnail PNG. Never affects emulation and is not
//!                       part of the checked state; before 1.7 a damaged metadata block is
//!                       ignored, from 1.7 the file CRC refuses the file.
//! BESS         (files from `save`) blocks and footer for other emulators, pointing into
//!                       the memories in the sections (on a CGB into copies of WRAM, VRAM
//!                       and palette RAM placed before the blocks, as BESS wants each of
//!                       those in one piece); readers of this format ignore it.
//! ```
//!
//! Versions: a minor bump appends fields (`#[state(since = N)]` on the field, or on a new
//! sub-struct) and adds a step to [`upgrade`] that fills them for older files. A reader
//! accepts every older minor of its major, refuses newer minors and other majors, naming
//! both versions. Loading parses into a scratch state, validates it (checksum, model, ROM,
//! every enum and flag), recomputes what is derived (MBC bank offsets) and only then
//! replaces the running state: on any error the running game is untouched.
//!
//! History: 1.0 lacks `hw.apu.flush_clock` (added to the core after the format's first
//! layout; its fixup sets 0, "just flushed", the value a zeroed APU has). 1.1 lacks the
//! Game Boy Color (`hw.cgb`, `hw.vram_bank1`, `hw.wram_banks`, the PPU's colour fields,
//! `hw.apu.cgb`) and saves padding, at the lengths it had then; its files are all DMG
//! states, and the fixup sets the CGB fields as a DMG has them. 1.2 saves no padding.
//! 1.3 adds `hw.speed_switch_wake_m_cycle` (the CGB speed switch's HALT) and
//! `hw.timer.div_reset_pending`, which its fixup sets 0 (nothing under way, as in any 1.2
//! file, saved between CPU steps), and the CGB background fetcher's latches
//! (`hw.ppu.fetch_map_entry`, `fetcher_y`, `fetch_tile_sel`, `tile_sel_glitch`), which it
//! forms from the registers as the fetcher's own steps would.
//! 1.4 stores only the cartridge's RAM (its size in the header; the rest of `hw.cart_ram`
//! is zero, as the core never writes past the cartridge's RAM): a DMG state without
//! cartridge RAM shrinks from 183 KB to about 55 KB. No field changes, so no fixup.
//! 1.5 adds a value of `hw.ppu.step` (the CGB's VRAM lock 4 dots into the LCD-on line's
//! mode 3), which a 1.4 reader refuses as corrupt. No field changes, so no fixup.
//! 1.6 adds `hw.ppu.disabled_window_glitch` (a DMG's disabled window inserting a blank
//! pixel where WX matches), which its fixup sets idle; and `hw.ppu.window_y_reached` is
//! set only with LCDC bit 5 (the window enabled) from 1.6 on.
//! 1.7 adds the file CRC: damage anywhere in the file, thumbnail and BESS part included, is
//! refused (before, only the header and state were checked). No field changes, so no fixup.
//!
//! A file that starts with the magic (or with a few of its bits flipped) is a Backspin
//! state: its errors are final, and a caller must not retry it as another emulator's
//! state through its BESS part.
//!
//! The thumbnail is stored as given: PNG encoding lives in the frontend, which already
//! depends on a PNG encoder.

pub mod checksum;
mod codec;
mod read;

pub use codec::field_name_at;

use read::{checked_sections, file_info, parse_header};

use crate::cart::CART_RAM_MAX;
use crate::cgb::CgbState;
use crate::{Core, Model, Rom, State};

/// First bytes of every save-state file.
pub const MAGIC: [u8; 8] = *b"BSPNSTAT";
/// Incompatible layout changes bump the major version: other majors are refused.
pub const FORMAT_MAJOR: u16 = 1;
/// Appended fields bump the minor version: older minors load through [`upgrade`].
pub const FORMAT_MINOR: u16 = 7;
/// The first minor whose [`State`] layout is today's: later minors changed only the file
/// around the state, so raw `State` bytes stamped with any minor from here on are today's
/// (how a rewind history file, which stores raw states, checks its stamp).
pub const STATE_LAYOUT_SINCE_MINOR: u16 = 6;
/// The first minor that stores only the cartridge's RAM (sized in the header).
const SIZED_CART_RAM_MINOR: u16 = 4;
/// The first minor whose file CRC covers the whole file.
const FILE_CRC_MINOR: u16 = 7;
/// Bits of the magic that may be flipped in a file still taken for a damaged Backspin state
/// (a foreign file this close to the magic by chance is vanishingly unlikely).
const DAMAGED_MAGIC_BITS: u32 = 4;

/// Why a file cannot be loaded. On every error the running game is unchanged.
#[derive(Debug, thiserror::Error)]
pub enum StateError {
    /// The file does not start with [`MAGIC`].
    #[error("not a Backspin save state")]
    NotASaveState,
    #[error(
        "this save state is format {file_major}.{file_minor}, written by a newer Backspin; \
         this one reads {FORMAT_MAJOR}.0 to {FORMAT_MAJOR}.{FORMAT_MINOR}"
    )]
    /// A newer minor of this major, or a newer major.
    TooNew {
        /// The file's major version.
        file_major: u16,
        /// The file's minor version.
        file_minor: u16,
    },
    #[error(
        "this save state is format {file_major}.{file_minor}, which this Backspin \
         (format {FORMAT_MAJOR}.{FORMAT_MINOR}) no longer reads"
    )]
    /// An older major, which this version no longer reads.
    TooOld {
        /// The file's major version.
        file_major: u16,
        /// The file's minor version.
        file_minor: u16,
    },
    #[error("the save state file is truncated: it ends inside {at}")]
    /// The file ends early.
    Truncated {
        /// The section or field the file ends in.
        at: String,
    },
    #[error("the save state is corrupt (checksum {stored:08X}, contents {computed:08X})")]
    /// The CRC-32 over the checked part does not match.
    BadChecksum {
        /// The CRC-32 the file stores.
        stored: u32,
        /// The CRC-32 of its contents.
        computed: u32,
    },
    #[error("the save state file is corrupt (file checksum {stored:08X}, contents {computed:08X})")]
    /// The CRC-32 over the whole file (format 1.7 on) does not match: damage outside the
    /// state, e.g. in the thumbnail or the BESS part.
    BadFileChecksum {
        /// The CRC-32 the file stores.
        stored: u32,
        /// The CRC-32 of the rest of the file.
        computed: u32,
    },
    #[error("the save state is corrupt: {what}")]
    /// A structural error (section lengths, names).
    Corrupt {
        /// What is wrong, for the message.
        what: String,
    },
    #[error("save state field {field} has impossible value {value}; the file is corrupt")]
    /// A field holds a value the machine can never have (an unknown enum, a flag above 1).
    OutOfRange {
        /// The field's path, e.g. `hw.ppu.mode_raw`.
        field: String,
        /// The value found.
        value: u64,
    },
    #[error(
        "this save state is for another game ({state_title:?}); the loaded ROM is \
         {rom_title:?}: load it with that ROM"
    )]
    /// The state belongs to another ROM (by SHA-1).
    WrongRom {
        /// The title of the ROM the state was saved with.
        state_title: String,
        /// The title of the loaded ROM.
        rom_title: String,
    },
    #[error(
        "this save state is for a {}; the running model is a {}",
        model_name(*.state_model),
        model_name(*.running_model)
    )]
    /// The state is for another model than the one the core runs.
    WrongModel {
        /// The saved `Model`, raw.
        state_model: u8,
        /// The running `Model`, raw.
        running_model: u8,
    },
}

/// A stored `Model` for messages.
fn model_name(raw: u8) -> String {
    match raw {
        0 => "DMG (Game Boy)".to_string(),
        1 => "CGB (Game Boy Color)".to_string(),
        _ => format!("model {raw} (unknown)"),
    }
}

/// Which ROM a state belongs to. The SHA-1 decides; the rest makes messages readable.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct RomIdentity {
    /// The header title (printable ASCII).
    pub title: String,
    /// Header byte 0x014D.
    pub header_checksum: u8,
    /// Header bytes 0x014E-0x014F as the big-endian number the header stores.
    pub global_checksum: u16,
    /// SHA-1 of the whole ROM file.
    pub sha1: [u8; 20],
    /// Bytes of cartridge RAM (the header's size, at most 128 KiB): how much of
    /// `hw.cart_ram` a file stores. Files before 1.4 store all of it (128 KiB).
    pub cart_ram_bytes: usize,
}

impl RomIdentity {
    /// The identity of `rom`.
    pub fn of(rom: &Rom) -> RomIdentity {
        let header = rom.header();
        RomIdentity {
            title: header.title.clone(),
            header_checksum: header.header_checksum,
            global_checksum: header.global_checksum,
            sha1: rom.sha1(),
            cart_ram_bytes: header.ram_bytes.min(CART_RAM_MAX),
        }
    }

    /// The SHA-1 as 40 lowercase hex digits.
    pub fn sha1_hex(&self) -> String {
        self.sha1.iter().map(|byte| format!("{byte:02x}")).collect()
    }
}

/// What rides beside the state without affecting it.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Metadata {
    /// Host time of the save, seconds since 1970 (0: unknown).
    pub created_unix_seconds: u64,
    /// Frames since power-on at the save (the frontend's count; `hw.frames` is the core's).
    pub frame: u64,
    /// Who wrote the file, e.g. "backspin 0.1.0".
    pub emulator_version: String,
    /// A 160x144 PNG of the screen, or empty.
    pub thumbnail_png: Vec<u8>,
}

/// What a file says about itself.
#[derive(Clone, Debug)]
pub struct FileInfo {
    /// Format major version.
    pub major: u16,
    /// Format minor version.
    pub minor: u16,
    /// A `Model` discriminant.
    pub model: u8,
    /// The ROM the state belongs to.
    pub rom: RomIdentity,
    /// Bytes of the encoded state (the sections).
    pub state_bytes: usize,
    /// Bytes of the checked part: header, state and CRC (the part a round trip reproduces).
    pub checked_bytes: usize,
    /// `None` when the file has no metadata block or a damaged one.
    pub metadata: Option<Metadata>,
}

/// The emulator version string for [`Metadata::emulator_version`].
pub const EMULATOR_VERSION: &str = concat!("backspin ", env!("CARGO_PKG_VERSION"));

/// Encodes the running game, with a BESS footer after the metadata so that other
/// emulators (SameBoy, BGB, ...) can import it (`crate::bess`).
pub fn save(core: &Core, metadata: &Metadata) -> Vec<u8> {
    let identity = RomIdentity::of(core.rom());
    let Encoded {
        mut bytes,
        memories,
        file_crc_at,
    } = encode_parts(core.state(), &identity, metadata, FORMAT_MINOR);
    crate::bess::append_footer(
        &mut bytes,
        core.state(),
        core.rom(),
        &memories,
        metadata.created_unix_seconds,
    );
    seal(&mut bytes, file_crc_at);
    // The round-trip self-check, cheap half: every save decodes to the same state.
    #[cfg(debug_assertions)]
    if let Ok((_, decoded)) = decode(&bytes) {
        debug_assert!(
            decoded.as_bytes() == core.state().as_bytes(),
            "save state does not decode to itself (first difference at {:?})",
            first_difference(&decoded, core.state())
        );
    }
    bytes
}

/// Encodes `state` for the ROM `rom` in the current format.
pub fn encode(state: &State, rom: &RomIdentity, metadata: &Metadata) -> Vec<u8> {
    encode_as_minor(state, rom, metadata, FORMAT_MINOR)
}

/// Encodes as an older minor of the current major would have (fields added later are left
/// out). For fixtures and tests of [`upgrade`]; players always write the current minor.
#[doc(hidden)]
pub fn encode_as_minor(
    state: &State,
    rom: &RomIdentity,
    metadata: &Metadata,
    minor: u16,
) -> Vec<u8> {
    let Encoded {
        mut bytes,
        file_crc_at,
        ..
    } = encode_parts(state, rom, metadata, minor);
    seal(&mut bytes, file_crc_at);
    bytes
}

/// Where the file CRC sits in a file of `minor` whose checked part is `checked_bytes` long.
fn file_crc_at(minor: u16, checked_bytes: usize) -> Option<usize> {
    (minor >= FILE_CRC_MINOR).then_some(checked_bytes)
}

/// Fills in the file CRC at `at` (none before 1.7): the last step of writing a file.
fn seal(bytes: &mut [u8], at: Option<usize>) {
    if let Some(at) = at {
        let crc = checksum::crc32_except(bytes, at);
        bytes[at..at + 4].copy_from_slice(&crc.to_le_bytes());
    }
}

/// A file before its file CRC is filled in.
struct Encoded {
    bytes: Vec<u8>,
    /// Where the memories (`wram`, `vram`, ...) start in the file, for the BESS part.
    memories: Vec<(&'static str, usize)>,
    /// Where the file CRC goes (none before 1.7).
    file_crc_at: Option<usize>,
}

/// The file in format `minor`, its file CRC still zero.
fn encode_parts(state: &State, rom: &RomIdentity, metadata: &Metadata, minor: u16) -> Encoded {
    // Sized for what is stored (most of `State` is cartridge RAM a file may leave out):
    // a buffer over glibc's mmap threshold would be mapped and unmapped on every save.
    let cart_ram_bytes = if minor >= SIZED_CART_RAM_MINOR {
        rom.cart_ram_bytes.min(CART_RAM_MAX)
    } else {
        CART_RAM_MAX
    };
    let capacity = size_of::<State>() - CART_RAM_MAX + cart_ram_bytes + 4096;
    let mut out = Vec::with_capacity(capacity + metadata.thumbnail_png.len());
    out.extend_from_slice(&MAGIC);
    out.extend_from_slice(&FORMAT_MAJOR.to_le_bytes());
    out.extend_from_slice(&minor.to_le_bytes());
    out.push(state.hw.model_raw);
    push_short_str(&mut out, &rom.title);
    out.push(rom.header_checksum);
    out.extend_from_slice(&rom.global_checksum.to_le_bytes());
    out.extend_from_slice(&rom.sha1);
    if minor >= SIZED_CART_RAM_MINOR {
        out.extend_from_slice(&(cart_ram_bytes as u32).to_le_bytes());
    }
    let length_at = out.len();
    out.extend_from_slice(&[0; 4]);
    let memories = codec::write_sections(state, minor, cart_ram_bytes, &mut out);
    let state_len = u32::try_from(out.len() - length_at - 4).expect("a State is far below 4 GiB");
    out[length_at..length_at + 4].copy_from_slice(&state_len.to_le_bytes());
    let crc = checksum::crc32(&out);
    out.extend_from_slice(&crc.to_le_bytes());
    let file_crc_at = file_crc_at(minor, out.len());
    if file_crc_at.is_some() {
        // Filled in by `seal` once the file is complete.
        out.extend_from_slice(&[0; 4]);
    }

    let mut meta = Vec::with_capacity(64 + metadata.thumbnail_png.len());
    meta.extend_from_slice(&metadata.created_unix_seconds.to_le_bytes());
    meta.extend_from_slice(&metadata.frame.to_le_bytes());
    push_short_str(&mut meta, &metadata.emulator_version);
    // A thumbnail over 4 GiB cannot exist; drop rather than fail if one somehow did.
    let png: &[u8] = if u32::try_from(metadata.thumbnail_png.len()).is_ok() {
        &metadata.thumbnail_png
    } else {
        &[]
    };
    meta.extend_from_slice(&(png.len() as u32).to_le_bytes());
    meta.extend_from_slice(png);
    out.extend_from_slice(&(meta.len() as u32).to_le_bytes());
    let meta_crc = checksum::crc32(&meta);
    out.extend_from_slice(&meta);
    out.extend_from_slice(&meta_crc.to_le_bytes());
    Encoded {
        bytes: out,
        memories,
        file_crc_at,
    }
}

/// A string of at most 255 bytes (longer ones are cut at a character boundary).
fn push_short_str(out: &mut Vec<u8>, text: &str) {
    let mut end = text.len().min(255);
    while !text.is_char_boundary(end) {
        end -= 1;
    }
    out.push(end as u8);
    out.extend_from_slice(&text.as_bytes()[..end]);
}

/// Reads the header, checks the CRCs and reads the metadata, without decoding the state.
pub fn info(bytes: &[u8]) -> Result<FileInfo, StateError> {
    let header = parse_header(bytes)?;
    let sections = checked_sections(bytes, &header)?;
    file_info(bytes, &header, sections.len())
}

/// Decodes a file into a new `State` (older minors upgraded), checking everything that
/// does not need the ROM. [`load`] adds the ROM and model checks.
pub fn decode(bytes: &[u8]) -> Result<(FileInfo, Box<State>), StateError> {
    let header = parse_header(bytes)?;
    let sections = checked_sections(bytes, &header)?;
    let mut state: Box<State> = bytemuck::zeroed_box();
    codec::read_sections(
        sections,
        header.minor,
        header.rom.cart_ram_bytes,
        &mut state,
    )?;
    if state.hw.model_raw != header.model {
        return Err(StateError::Corrupt {
            what: format!(
                "the header says model {}, the state model {}",
                header.model, state.hw.model_raw
            ),
        });
    }
    if header.minor < 2 && state.hw.model_raw != Model::Dmg as u8 {
        return Err(StateError::Corrupt {
            what: format!(
                "format {FORMAT_MAJOR}.{} has no Game Boy Color, yet the state is for a {}",
                header.minor,
                model_name(state.hw.model_raw)
            ),
        });
    }
    let info = file_info(bytes, &header, sections.len())?;
    upgrade(&mut state, header.minor);
    Ok((info, state))
}

/// Loads a file into the running game. Validates everything first; on error nothing
/// changes.
pub fn load(core: &mut Core, bytes: &[u8]) -> Result<FileInfo, StateError> {
    let (info, state) = decode_for(core, bytes)?;
    core.load_state(&state);
    Ok(info)
}

/// Decodes a file for the running game without loading it: every check of [`load`]
/// (model, ROM identity) and the derived values recomputed, so the state can be handed to
/// whatever applies it (the player's timeline logs a load as an event).
pub fn decode_for(core: &Core, bytes: &[u8]) -> Result<(FileInfo, Box<State>), StateError> {
    let (info, mut state) = decode(bytes)?;
    let running_model = core.state().hw.model_raw;
    if info.model != running_model {
        return Err(StateError::WrongModel {
            state_model: info.model,
            running_model,
        });
    }
    let ours = RomIdentity::of(core.rom());
    if info.rom.sha1 != ours.sha1 {
        return Err(StateError::WrongRom {
            state_title: info.rom.title.clone(),
            rom_title: ours.title,
        });
    }
    // Derived values: the bank offsets follow from the mapper registers and the ROM.
    core.rom().update_offsets(&mut state.hw.mbc);
    Ok((info, state))
}

/// Fills the fields that minors after `file_minor` added, so an older file loads as the
/// current layout. One step per minor; each says what the missing fields become and why.
pub fn upgrade(state: &mut State, file_minor: u16) {
    if file_minor < 1 {
        // 1.1 added `hw.apu.flush_clock`. 0 means "samples were just handed to the host",
        // the value a freshly powered APU has: the next flush comes a full period later.
        state.hw.apu.flush_clock = 0;
    }
    if file_minor < 2 {
        // 1.2 added the Game Boy Color; older files hold DMG states only (`decode` refuses
        // any other model). Everything CGB is as a DMG powers on with it: no CGB registers,
        // HDMA5 idle (0xFF: 0 would mean "a transfer is running", which the DMA step then
        // checks every M-cycle for nothing), the PPU's DMG pipeline, the DMG's APU, and
        // the extra memory banks zero.
        state.hw.cgb = CgbState::zeroed_dmg();
        state.hw.vram_bank1 = [0; 0x2000];
        state.hw.wram_banks = [0; 0x6000];
        state.hw.ppu.set_colour_mode(crate::cgb::MODE_DMG);
        state.hw.ppu.fetch_tile_attributes = 0;
        state.hw.ppu.bg_fifo_attributes = 0;
        state.hw.ppu.obj_fifo_palette_bit1 = 0;
        state.hw.ppu.obj_fifo_palette_bit2 = 0;
        state.hw.ppu.obj_fifo_oam_index = [0; 8];
        state.hw.apu.cgb = 0;
    }
    if file_minor < 3 {
        // 1.3 added the speed switch's HALT end and held DIV reset. A 1.2 core ran the whole
        // switch inside one CPU step, so a 1.2 file is never inside one: 0, none under way.
        state.hw.speed_switch_wake_m_cycle = 0;
        state.hw.timer.div_reset_pending = 0;
        // 1.3 added the CGB fetcher's latches: formed from the registers now, as its next
        // steps would (a DMG never reads them).
        state.hw.ppu.fill_fetch_latches();
    }
    if file_minor < 6 {
        // 1.6 added the disabled window's pixel insertion. Idle (0): it arms at the next
        // write clearing LCDC bit 5, so a file whose `window_y_reached` was set without the
        // window ever enabled (a 1.5 core did that) never inserts a pixel.
        state.hw.ppu.disabled_window_glitch = 0;
    }
}

/// The dotted name of the first field where `a` and `b` differ, or `None` if they are equal.
pub fn first_difference(a: &State, b: &State) -> Option<String> {
    let offset = a
        .as_bytes()
        .iter()
        .zip(b.as_bytes())
        .position(|(x, y)| x != y)?;
    Some(field_name_at(offset).unwrap_or_else(|| format!("byte {offset}")))
}

/// Why the round-trip self-check failed.
#[derive(Debug, thiserror::Error)]
pub enum SelfCheckError {
    /// The saved bytes do not load.
    #[error("the state does not load back: {0}")]
    Load(#[from] StateError),
    #[error("saving the loaded state gives different bytes (first differing field: {field})")]
    /// Saving the loaded state gives other bytes.
    NotReproduced {
        /// The first field that differs.
        field: String,
    },
    #[error("after loading, frame {frame} of 60 differs from the straight run at field {field}")]
    /// The loaded machine runs differently from the original.
    Diverged {
        /// The frame after the load at which the two differ.
        frame: u32,
        /// The first field that differs.
        field: String,
    },
}

/// Frames the self-check runs after loading.
pub const SELF_CHECK_FRAMES: u32 = 60;

/// NetHack-style round trip: the saved state, loaded into a fresh copy of the machine,
/// saves to identical bytes, and 60 frames from the load equal 60 straight frames.
/// `core` is not changed.
pub fn self_check(core: &Core) -> Result<(), SelfCheckError> {
    let metadata = Metadata::default();
    let saved = save(core, &metadata);
    let mut loaded = core.clone();
    // Start from a different state, so a field the loader forgot cannot pass by luck.
    let mut scrambled: Box<State> = bytemuck::zeroed_box();
    scrambled.hw.model_raw = core.state().hw.model_raw;
    loaded.load_state(&scrambled);
    load(&mut loaded, &saved)?;
    let resaved = save(&loaded, &metadata);
    if resaved != saved {
        let field = first_difference(loaded.state(), core.state())
            .unwrap_or_else(|| "(the states are equal; the encoding differs)".to_string());
        return Err(SelfCheckError::NotReproduced { field });
    }
    let mut straight = core.clone();
    for frame in 1..=SELF_CHECK_FRAMES {
        straight.run_frame();
        loaded.run_frame();
        if let Some(field) = first_difference(straight.state(), loaded.state()) {
            return Err(SelfCheckError::Diverged { frame, field });
        }
    }
    Ok(())
}
