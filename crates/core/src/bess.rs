//! BESS import: loads the portable part ("Best Effort Save State", SameBoy's `BESS.md`) of
//! a save state written by another emulator (SameBoy, BGB, Emulicious, ...), DMG or CGB
//! (CGB mode and DMG compatibility mode, from KEY0), with the MBC3 clock (`RTC ` block).
//!
//! BESS keeps the CPU registers, the I/O registers as last written, the memories and the
//! mapper registers, but not the PPU's dot position, the APU's timers, DMA progress, the
//! divider's low bits or an EI delay. So the import starts from a machine parked at the
//! start of VBlank (LY 144, where SameBoy saves between frames) and overlays what the file
//! has: a best effort, returned with warnings. Like a native load, it validates everything
//! first and changes the running game only on success.

use crate::cart::{CART_RAM_MAX, MbcKind};
use crate::cgb::{MODE_CGB, MODE_COMPATIBILITY};
use crate::{Core, Model, Options, Rom, State};

/// BESS buffer sizes on a CGB: eight WRAM banks, two VRAM banks, 64 bytes per palette RAM.
const CGB_WRAM_BYTES: usize = 0x8000;
const CGB_VRAM_BYTES: usize = 0x4000;
const PALETTE_BYTES: usize = 0x40;
/// The `RTC ` block: current and latched S, M, H, DL, DH as u32 each, then a u64 UNIX time.
const RTC_BLOCK_BYTES: usize = 0x30;

/// Why a BESS state cannot be imported. The running game is unchanged.
#[derive(Debug, thiserror::Error)]
pub enum BessError {
    /// The file does not end in a BESS footer.
    #[error("no BESS footer: not a save state another emulator can share")]
    NoFooter,
    #[error("BESS block {block:?} at byte {offset} runs past the end of the file")]
    /// A block's length points past the end of the file.
    BlockPastEnd {
        /// The block's four-letter tag.
        block: String,
        /// Where the block starts in the file.
        offset: usize,
    },
    /// The block list is not terminated.
    #[error("the BESS blocks have no END block")]
    NoEnd,
    /// The mandatory CORE block (registers, memory locations) is missing.
    #[error("the BESS state has no CORE block")]
    NoCore,
    #[error("BESS block {block} is {len} bytes, shorter than the {needed} it must have")]
    /// A block is shorter than its fixed fields.
    BlockTooShort {
        /// The block's tag.
        block: &'static str,
        /// Its length in the file.
        len: usize,
        /// The length it must have at least.
        needed: usize,
    },
    #[error("BESS version {major}.{minor} is not supported (major version 1 is)")]
    /// A BESS major version other than 1.
    Version {
        /// The file's major version.
        major: u16,
        /// The file's minor version.
        minor: u16,
    },
    #[error("this BESS state is for a model Backspin does not know ({tag:?})")]
    /// The CORE block names a model family Backspin does not emulate.
    Model {
        /// The model tag as stored ("GD  ", "CC  ", ...).
        tag: String,
    },
    #[error(
        "this BESS state is for a {state_model} and the running model is a {running}; run with --model {flag}"
    )]
    /// The state is for a DMG and the core runs a CGB, or the other way round.
    WrongModel {
        /// The model the state was saved on.
        state_model: &'static str,
        /// The model the core runs.
        running: &'static str,
        /// The `--model` value that would load it.
        flag: &'static str,
    },
    #[error(
        "the BESS state was saved while the boot ROM was running, which Backspin cannot resume without one"
    )]
    /// The state was saved inside the boot ROM, which Backspin has no copy of.
    BootRomRunning,
}

/// A successful import.
#[derive(Clone, Debug, Default)]
pub struct BessImport {
    /// The writer, from the NAME block ("SameBoy v1.0.3"), if given.
    pub emulator: Option<String>,
    /// What the import could not restore exactly, one sentence each.
    pub warnings: Vec<String>,
    /// From an `RTC ` block: the host time (UNIX seconds) when the state was saved. The
    /// imported clock reads as it did then; a host may advance it by the time since
    /// (`Core::rtc_advance_seconds`), as after loading a battery save.
    pub rtc_saved_unix_seconds: Option<u64>,
}

/// The model family a BESS state was saved on (from its CORE block), `None` when the file
/// has no readable BESS part or names an unknown family. SGB states count as DMG.
pub fn saved_model(bytes: &[u8]) -> Option<Model> {
    let blocks = blocks(bytes).ok()?;
    let core = blocks.iter().find(|block| &block.id == b"CORE")?.body;
    match core.get(4)? {
        b'G' | b'S' => Some(Model::Dmg),
        b'C' => Some(Model::Cgb),
        _ => None,
    }
}

fn model_name(model: Model) -> (&'static str, &'static str) {
    match model {
        Model::Dmg => ("Game Boy (DMG)", "dmg"),
        Model::Cgb => ("Game Boy Color", "cgb"),
    }
}

/// Whether `bytes` end with a BESS footer.
pub fn has_footer(bytes: &[u8]) -> bool {
    bytes.len() >= 8 && &bytes[bytes.len() - 4..] == b"BESS"
}

struct Block<'a> {
    id: [u8; 4],
    body: &'a [u8],
}

/// The blocks from the footer's first block to END.
fn blocks(bytes: &[u8]) -> Result<Vec<Block<'_>>, BessError> {
    if !has_footer(bytes) {
        return Err(BessError::NoFooter);
    }
    let footer = bytes.len() - 8;
    let first = u32::from_le_bytes(bytes[footer..footer + 4].try_into().expect("4 bytes"));
    let mut offset = first as usize;
    let mut blocks = Vec::new();
    loop {
        let header = offset
            .checked_add(8)
            .and_then(|end| bytes.get(offset..end))
            .ok_or(BessError::NoEnd)?;
        let id: [u8; 4] = header[..4].try_into().expect("4 bytes");
        let len = u32::from_le_bytes(header[4..].try_into().expect("4 bytes")) as usize;
        let body = (offset + 8)
            .checked_add(len)
            .and_then(|end| bytes.get(offset + 8..end))
            .ok_or_else(|| BessError::BlockPastEnd {
                block: String::from_utf8_lossy(&id).into_owned(),
                offset,
            })?;
        if &id == b"END " {
            return Ok(blocks);
        }
        blocks.push(Block { id, body });
        offset += 8 + len;
    }
}

/// Imports the BESS part of `bytes` into `core`. On error `core` is unchanged.
pub fn import(core: &mut Core, bytes: &[u8]) -> Result<BessImport, BessError> {
    let blocks = blocks(bytes)?;
    let find = |id: &[u8; 4]| blocks.iter().find(|block| &block.id == id);
    let mut result = BessImport::default();
    if let Some(name) = find(b"NAME") {
        result.emulator = Some(String::from_utf8_lossy(name.body).into_owned());
    }
    let core_block = find(b"CORE").ok_or(BessError::NoCore)?.body;
    if core_block.len() < 0xD0 {
        return Err(BessError::BlockTooShort {
            block: "CORE",
            len: core_block.len(),
            needed: 0xD0,
        });
    }
    let u16_at = |at: usize| u16::from_le_bytes([core_block[at], core_block[at + 1]]);
    let u32_at = |at: usize| {
        u32::from_le_bytes(core_block[at..at + 4].try_into().expect("4 bytes")) as usize
    };
    let (major, minor) = (u16_at(0), u16_at(2));
    if major != 1 {
        return Err(BessError::Version { major, minor });
    }
    let tag = String::from_utf8_lossy(&core_block[4..8]).into_owned();
    let state_model = match core_block[4] {
        b'G' => Model::Dmg,
        b'S' => {
            result
                .warnings
                .push("an SGB state: loaded as a DMG, without SGB features".to_string());
            Model::Dmg
        }
        b'C' => Model::Cgb,
        _ => return Err(BessError::Model { tag }),
    };
    // A state of one model in a machine of the other would mix two machines (SameBoy
    // refuses it too).
    if state_model != core.model() {
        let (state_name, flag) = model_name(state_model);
        return Err(BessError::WrongModel {
            state_model: state_name,
            running: model_name(core.model()).0,
            flag,
        });
    }
    let io = &core_block[0x18..0x98];
    if io[0x50] == 0 {
        return Err(BessError::BootRomRunning);
    }
    if let Some(info) = find(b"INFO")
        && info.body.len() >= 0x12
    {
        let rom = core.rom().bytes();
        let (title, global) = (&info.body[..0x10], &info.body[0x10..0x12]);
        if rom.get(0x134..0x144) != Some(title) || rom.get(0x14E..0x150) != Some(global) {
            result.warnings.push(format!(
                "the state names another ROM ({:?}); loading it anyway",
                String::from_utf8_lossy(title).trim_end_matches(['\0', ' '])
            ));
        }
    }

    let lcd_on = io[0x40] & 0x80 != 0;
    // On a CGB, KEY0 bit 2 says DMG compatibility mode (Pan Docs "KEY0"), as the boot ROM
    // left it; the cartridge header is not asked.
    let cgb_mode = match state_model {
        Model::Dmg => None,
        Model::Cgb if io[0x4C] & 0x04 != 0 => Some(MODE_COMPATIBILITY),
        Model::Cgb => Some(MODE_CGB),
    };
    let mut state = parked_state(core.rom(), lcd_on, cgb_mode);
    apply_cpu(&mut state, core_block);
    apply_io(&mut state, io, &mut result.warnings);
    if cgb_mode.is_some() {
        apply_cgb_io(&mut state, io, &mut result.warnings);
    }
    // Buffers: (size, absolute file offset) pairs; missing bytes read as zero.
    let buffer = |index: usize| -> &[u8] {
        let (size, offset) = (u32_at(0x98 + 8 * index), u32_at(0x9C + 8 * index));
        offset
            .checked_add(size)
            .and_then(|end| bytes.get(offset..end))
            .unwrap_or(&[])
    };
    let hw = &mut state.hw;
    if cgb_mode.is_some() {
        // One buffer per memory, banks in order: WRAM 0..=7, VRAM 0..=1.
        let (wram, vram) = (buffer(0), buffer(1));
        copy_zero_filled(&mut hw.wram, wram.get(..0x2000).unwrap_or(wram));
        copy_zero_filled(&mut hw.wram_banks, wram.get(0x2000..).unwrap_or(&[]));
        copy_zero_filled(&mut hw.vram, vram.get(..0x2000).unwrap_or(vram));
        copy_zero_filled(&mut hw.vram_bank1, vram.get(0x2000..).unwrap_or(&[]));
        copy_zero_filled(&mut hw.cgb.bg_palettes, buffer(5));
        copy_zero_filled(&mut hw.cgb.obj_palettes, buffer(6));
        for (index, name) in [(5, "background palette"), (6, "object palette")] {
            if buffer(index).len() < PALETTE_BYTES {
                result.warnings.push(format!(
                    "the {name} buffer has {} of 64 bytes: the rest is zero",
                    buffer(index).len()
                ));
            }
        }
    } else {
        copy_zero_filled(&mut hw.wram, buffer(0));
        copy_zero_filled(&mut hw.vram, buffer(1));
    }
    copy_zero_filled(&mut hw.cart_ram[..], buffer(2));
    copy_zero_filled(&mut hw.oam, buffer(3));
    copy_zero_filled(&mut hw.hram[..0x7F], buffer(4));
    for (index, name) in [(0, "RAM"), (1, "VRAM"), (3, "OAM"), (4, "HRAM")] {
        if u32_at(0x98 + 8 * index) != 0 && buffer(index).is_empty() {
            result.warnings.push(format!(
                "the {name} buffer lies outside the file: zero-filled"
            ));
        }
    }
    if buffer(2).len() > CART_RAM_MAX {
        result
            .warnings
            .push("cartridge RAM larger than any supported cartridge: cut".to_string());
    }

    // The mapper: power-on registers, then the writes the MBC block lists, in order.
    let rom = core.rom();
    hw.mbc = rom.power_on_mbc();
    if let Some(mbc) = find(b"MBC ") {
        for write in mbc.body.chunks_exact(3) {
            let addr = u16::from_le_bytes([write[0], write[1]]);
            let now = rom.rtc_now_in(hw);
            match addr {
                0x0000..=0x7FFF => rom.write(&mut hw.mbc, addr, write[2], now),
                0xA000..=0xBFFF => {
                    rom.write_ram(&mut hw.mbc, &mut hw.cart_ram, addr, write[2], now);
                }
                _ => {}
            }
        }
    }
    if let Some(rtc) = find(b"RTC ") {
        if !rom.header().has_rtc {
            result
                .warnings
                .push("an RTC block for a cartridge without an MBC3 clock: ignored".to_string());
        } else if rtc.body.len() < RTC_BLOCK_BYTES {
            return Err(BessError::BlockTooShort {
                block: "RTC ",
                len: rtc.body.len(),
                needed: RTC_BLOCK_BYTES,
            });
        } else {
            result.rtc_saved_unix_seconds = Some(apply_rtc(&mut hw.mbc, rtc.body, hw.m_cycles));
        }
    }
    rom.update_offsets(&mut hw.mbc);
    core.load_state(&state);
    Ok(result)
}

/// A machine whose PPU has just entered VBlank (LY 144), as SameBoy saves between frames:
/// a post-boot DMG (`cgb_mode` `None`) or CGB in that mode running a parking loop, with the
/// LCD switched off first when `lcd_on` is false. Everything BESS records is overwritten
/// afterwards.
fn parked_state(rom: &Rom, lcd_on: bool, cgb_mode: Option<u8>) -> Box<State> {
    let mut parking = vec![0u8; 0x8000];
    let program: &[u8] = if lcd_on {
        &[0xF3, 0x18, 0xFE] // DI; JR -2
    } else {
        &[0xF3, 0xAF, 0xE0, 0x40, 0x18, 0xFE] // DI; XOR A; LDH (LCDC),A; JR -2
    };
    parking[0x100..0x100 + program.len()].copy_from_slice(program);
    if cgb_mode == Some(MODE_CGB) {
        parking[0x143] = 0x80;
    }
    let parking = Rom::from_bytes(parking).expect("the parking ROM is a valid 32 KiB ROM");
    let model = if cgb_mode.is_some() {
        Model::Cgb
    } else {
        Model::Dmg
    };
    let mut machine = Core::new(
        parking,
        Options {
            model,
            boot_rom: None,
        },
    );
    machine.run_frame();
    let mut state: Box<State> = bytemuck::zeroed_box();
    *state = *machine.state();
    // The real cartridge's mapper starts from power-on; the MBC block then applies.
    state.hw.mbc = rom.power_on_mbc();
    state
}

fn apply_cpu(state: &mut State, core_block: &[u8]) {
    let u16_at = |at: usize| u16::from_le_bytes([core_block[at], core_block[at + 1]]);
    let cpu = &mut state.cpu;
    cpu.pc = u16_at(0x08);
    let [f, a] = u16_at(0x0A).to_le_bytes();
    let [c, b] = u16_at(0x0C).to_le_bytes();
    let [e, d] = u16_at(0x0E).to_le_bytes();
    let [l, h] = u16_at(0x10).to_le_bytes();
    (cpu.a, cpu.f, cpu.b, cpu.c, cpu.d, cpu.e, cpu.h, cpu.l) = (a, f & 0xF0, b, c, d, e, h, l);
    cpu.sp = u16_at(0x12);
    cpu.ime = u8::from(core_block[0x14] != 0);
    state.hw.interrupt_enable = core_block[0x15];
    // 0 running, 1 halted, 2 stopped: the same numbers as `CpuMode`.
    cpu.mode_raw = core_block[0x16].min(2);
    cpu.halt_bug = 0;
}

/// The I/O registers, set directly (no side effects: no transfer, trigger or DMA starts).
fn apply_io(state: &mut State, io: &[u8], warnings: &mut Vec<String>) {
    let hw = &mut state.hw;
    hw.joypad.select = io[0x00] & 0x30;
    hw.serial.sb = io[0x01];
    hw.serial.sc = io[0x02] & 0x81;
    // APPROX: a transfer on the internal clock restarts with all 8 bits; on the external
    // clock it waits for a partner, as it did.
    hw.serial.bits_left = if io[0x02] & 0x81 == 0x81 { 8 } else { 0 };
    hw.timer.system_counter = u16::from(io[0x04]) << 8;
    hw.timer.tima = io[0x05];
    hw.timer.tma = io[0x06];
    hw.timer.tac = io[0x07] & 0x07;
    hw.timer.reload_phase = 0;
    hw.interrupt_flag = io[0x0F] & 0x1F;

    let apu = &mut hw.apu;
    apu.regs.copy_from_slice(&io[0x10..0x30]);
    apu.regs[0x16] &= 0x80; // NR52: only the power switch is written
    apu.wave_ram.copy_from_slice(&io[0x30..0x40]);
    // APPROX: BESS has no channel state; channels stay silent until the game triggers them.
    for tone in [&mut apu.square1, &mut apu.square2, &mut apu.noise] {
        tone.active = 0;
        tone.envelope_running = 0;
    }
    apu.noise.lfsr = 0x7FFF;
    apu.wave.active = 0;
    apu.sweep_enabled = 0;

    let ppu = &mut hw.ppu;
    ppu.lcdc = io[0x40];
    // Mode and coincidence bits are the PPU's own; the file gives the interrupt enables.
    ppu.stat = (io[0x41] & 0x78) | (ppu.stat & 0x07);
    ppu.scy = io[0x42];
    ppu.scx = io[0x43];
    ppu.lyc = io[0x45];
    ppu.bgp = io[0x47];
    ppu.obp0 = io[0x48];
    ppu.obp1 = io[0x49];
    ppu.wy = io[0x4A];
    ppu.wx = io[0x4B];
    if io[0x40] & 0x80 != 0 && io[0x44] != 144 {
        warnings.push(format!(
            "saved at LY {}: the PPU resumes at the start of VBlank (LY 144)",
            io[0x44]
        ));
    }
    hw.dma.source_high = io[0x46];
    hw.boot_rom_mapped = 0;
}

/// The CGB registers (the machine is already parked in the right mode). Set directly: no
/// VRAM DMA starts, HDMA5 reads idle.
fn apply_cgb_io(state: &mut State, io: &[u8], warnings: &mut Vec<String>) {
    let cgb = &mut state.hw.cgb;
    cgb.key0 = io[0x4C];
    // Bit 7 is the current speed, bit 0 a switch armed for the next STOP.
    cgb.key1 = io[0x4D] & 0x81;
    if cgb.double_speed() {
        warnings.push(
            "saved at double speed: the PPU resumes at the start of VBlank in double speed"
                .to_string(),
        );
    }
    cgb.vbk = io[0x4F] & 0x01;
    [
        cgb.hdma_source_high,
        cgb.hdma_source_low,
        cgb.hdma_dest_high,
        cgb.hdma_dest_low,
    ] = [io[0x51], io[0x52], io[0x53], io[0x54]];
    // APPROX: an HBlank transfer in progress is not resumed (BESS has no DMA progress, and
    // SameBoy writes HDMA5 as 00 when idle, so the byte cannot tell).
    cgb.hdma_remaining = 0xFF;
    cgb.rp = io[0x56] & 0xC1;
    cgb.bcps = io[0x68] & 0xBF;
    cgb.ocps = io[0x6A] & 0xBF;
    cgb.opri = io[0x6C] & 0x01;
    cgb.svbk = io[0x70] & 0x07;
    [cgb.ff72, cgb.ff73, cgb.ff74] = [io[0x72], io[0x73], io[0x74]];
    cgb.ff75 = io[0x75] & 0x70;
}

/// Sets the MBC3 clock from an `RTC ` block and returns its UNIX time. The clock reads as
/// saved and counts on from `now` (the sub-second phase restarts).
fn apply_rtc(mbc: &mut crate::cart::MbcState, body: &[u8], now: u64) -> u64 {
    let register = |index: usize| {
        let at = index * 4;
        u32::from_le_bytes(body[at..at + 4].try_into().expect("4 bytes"))
    };
    // S 0..=59, M 0..=59, H 0..=23, DL 8 bits, DH bits 0 (day 8), 6 (halt), 7 (carry):
    // masked to the bits the registers hold.
    let masks = [0x3F, 0x3F, 0x1F, 0xFF, 0xC1];
    for (index, mask) in masks.iter().enumerate() {
        mbc.rtc_live[index] = (register(index) as u8) & mask;
        mbc.rtc_latched[index] = (register(5 + index) as u8) & mask;
    }
    mbc.rtc_subsecond = 0;
    mbc.rtc_updated_at = now;
    u64::from_le_bytes(body[0x28..0x30].try_into().expect("8 bytes"))
}

fn copy_zero_filled(target: &mut [u8], source: &[u8]) {
    let copied = source.len().min(target.len());
    target[..copied].copy_from_slice(&source[..copied]);
    target[copied..].fill(0);
}

/// Appends BESS blocks and footer to a Backspin file (`state_file::save`), so other
/// emulators can import it. The memory buffers point into the file's own sections
/// (`memories`: field name and file offset), which store the chips' bytes as they are. On a
/// CGB, BESS wants all WRAM banks in one buffer and both VRAM banks in another, which the
/// file's fields are not: copies of those (and of palette RAM) go before the blocks.
/// `unix_seconds` (the save's creation time) dates the MBC3 clock's `RTC ` block.
pub(crate) fn append_footer(
    out: &mut Vec<u8>,
    state: &State,
    rom: &Rom,
    memories: &[(&'static str, usize)],
    unix_seconds: u64,
) {
    let offset = |name: &str| {
        memories
            .iter()
            .find(|(field, _)| *field == name)
            .map_or(0, |&(_, offset)| offset)
    };
    let hw = &state.hw;
    let ram_bytes = rom.header().ram_bytes.min(CART_RAM_MAX);
    let mut buffers = [
        (0x2000, offset("wram")),
        (0x2000, offset("vram")),
        (ram_bytes, offset("cart_ram")),
        (0xA0, offset("oam")),
        (0x7F, offset("hram")),
        (0, 0),
        (0, 0),
    ];
    if hw.cgb.is_cgb() {
        let copy = |out: &mut Vec<u8>, parts: &[&[u8]]| {
            let start = out.len();
            for part in parts {
                out.extend_from_slice(part);
            }
            (out.len() - start, start)
        };
        buffers[0] = copy(out, &[&hw.wram, &hw.wram_banks]);
        buffers[1] = copy(out, &[&hw.vram, &hw.vram_bank1]);
        buffers[5] = copy(out, &[&hw.cgb.bg_palettes]);
        buffers[6] = copy(out, &[&hw.cgb.obj_palettes]);
        debug_assert_eq!(buffers[0].0, CGB_WRAM_BYTES);
        debug_assert_eq!(buffers[1].0, CGB_VRAM_BYTES);
        debug_assert_eq!(buffers[5].0, PALETTE_BYTES);
    }
    let first_block = out.len();
    let block = |out: &mut Vec<u8>, id: &[u8; 4], body: &[u8]| {
        out.extend_from_slice(id);
        out.extend_from_slice(&(body.len() as u32).to_le_bytes());
        out.extend_from_slice(body);
    };
    block(out, b"NAME", crate::state_file::EMULATOR_VERSION.as_bytes());
    let mut info = [0u8; 0x12];
    if let (Some(title), Some(global)) =
        (rom.bytes().get(0x134..0x144), rom.bytes().get(0x14E..0x150))
    {
        info[..0x10].copy_from_slice(title);
        info[0x10..].copy_from_slice(global);
    }
    block(out, b"INFO", &info);
    block(out, b"CORE", &core_block(state, &buffers));
    let mbc = mbc_writes(state, rom);
    if !mbc.is_empty() {
        block(out, b"MBC ", &mbc);
    }
    if rom.header().has_rtc {
        block(out, b"RTC ", &rtc_block(state, rom, unix_seconds));
    }
    block(out, b"END ", &[]);
    out.extend_from_slice(&(first_block as u32).to_le_bytes());
    out.extend_from_slice(b"BESS");
}

/// The `RTC ` block: the clock registers now (brought up to the state's M-cycle) and as
/// latched, then the host time of the save.
fn rtc_block(state: &State, rom: &Rom, unix_seconds: u64) -> Vec<u8> {
    let mbc = &state.hw.mbc;
    let mut copy = *mbc;
    let now = rom.rtc_now(&mut copy, state.hw.m_cycles, state.hw.cgb.double_speed());
    let live = rom.rtc_registers(&copy, now).unwrap_or(mbc.rtc_live);
    let mut body = Vec::with_capacity(RTC_BLOCK_BYTES);
    for register in live.iter().chain(&mbc.rtc_latched) {
        body.extend_from_slice(&u32::from(*register).to_le_bytes());
    }
    body.extend_from_slice(&unix_seconds.to_le_bytes());
    body
}

/// `buffers`: (size, file offset) of RAM, VRAM, cartridge RAM, OAM, HRAM, BG and OBJ
/// palette RAM, in BESS order.
fn core_block(state: &State, buffers: &[(usize, usize); 7]) -> Vec<u8> {
    let (cpu, hw) = (&state.cpu, &state.hw);
    let mut body = Vec::with_capacity(0xD0);
    body.extend_from_slice(&1u16.to_le_bytes()); // BESS 1.1
    body.extend_from_slice(&1u16.to_le_bytes());
    // DMG with the CPU revision unspecified; the CGB's post-boot state is revision E's.
    body.extend_from_slice(if hw.cgb.is_cgb() { b"CCE " } else { b"GD  " });
    for value in [
        cpu.pc,
        u16::from_le_bytes([cpu.f, cpu.a]),
        u16::from_le_bytes([cpu.c, cpu.b]),
        u16::from_le_bytes([cpu.e, cpu.d]),
        u16::from_le_bytes([cpu.l, cpu.h]),
        cpu.sp,
    ] {
        body.extend_from_slice(&value.to_le_bytes());
    }
    // An EI still pending counts as on: BESS has no EI delay.
    body.push(u8::from(cpu.ime != 0));
    body.push(hw.interrupt_enable);
    // Running 0, halted 1, stopped 2; a locked CPU (illegal opcode) has no BESS value and
    // is written as stopped, the closest.
    body.push(cpu.mode_raw.min(2));
    body.push(0);
    body.extend_from_slice(&io_registers(state));
    for &(size, offset) in buffers {
        body.extend_from_slice(&(size as u32).to_le_bytes());
        body.extend_from_slice(&(offset as u32).to_le_bytes());
    }
    debug_assert_eq!(body.len(), 0xD0);
    body
}

/// FF00-FF7F as the program last wrote them (BESS: unused bits are don't-care).
fn io_registers(state: &State) -> [u8; 0x80] {
    let hw = &state.hw;
    let mut io = [0u8; 0x80];
    io[0x00] = hw.joypad.read();
    io[0x01] = hw.serial.sb;
    io[0x02] = hw.serial.sc | 0x7E;
    io[0x04] = (hw.timer.system_counter >> 8) as u8;
    io[0x05] = hw.timer.tima;
    io[0x06] = hw.timer.tma;
    io[0x07] = hw.timer.tac | 0xF8;
    io[0x0F] = hw.interrupt_flag | 0xE0;
    io[0x10..0x30].copy_from_slice(&hw.apu.regs);
    io[0x30..0x40].copy_from_slice(&hw.apu.wave_ram);
    let ppu = &hw.ppu;
    io[0x40] = ppu.lcdc;
    io[0x41] = ppu.stat | 0x80;
    io[0x42] = ppu.scy;
    io[0x43] = ppu.scx;
    io[0x44] = ppu.ly;
    io[0x45] = ppu.lyc;
    io[0x46] = hw.dma.source_high;
    io[0x47] = ppu.bgp;
    io[0x48] = ppu.obp0;
    io[0x49] = ppu.obp1;
    io[0x4A] = ppu.wy;
    io[0x4B] = ppu.wx;
    io[0x50] = u8::from(hw.boot_rom_mapped == 0);
    let cgb = &hw.cgb;
    if cgb.is_cgb() {
        io[0x4C] = cgb.key0;
        io[0x4D] = cgb.key1 | 0x7E;
        io[0x4F] = cgb.vbk | 0xFE;
        io[0x51..0x55].copy_from_slice(&[
            cgb.hdma_source_high,
            cgb.hdma_source_low,
            cgb.hdma_dest_high,
            cgb.hdma_dest_low,
        ]);
        io[0x55] = cgb.hdma_remaining;
        io[0x56] = cgb.rp;
        let palette_byte = |ram: &[u8; 64], index: u8| ram[usize::from(index & 0x3F)];
        io[0x68] = cgb.bcps;
        io[0x69] = palette_byte(&cgb.bg_palettes, cgb.bcps);
        io[0x6A] = cgb.ocps;
        io[0x6B] = palette_byte(&cgb.obj_palettes, cgb.ocps);
        // The priority mode (a later write's read-back value is not kept).
        io[0x6C] = cgb.opri & 1;
        io[0x70] = cgb.svbk;
        io[0x72..0x76].copy_from_slice(&[cgb.ff72, cgb.ff73, cgb.ff74, cgb.ff75]);
    }
    io
}

/// The mapper writes that rebuild `state`'s MBC registers (BESS `MBC ` block).
fn mbc_writes(state: &State, rom: &Rom) -> Vec<u8> {
    let mbc = &state.hw.mbc;
    let ramg = if mbc.ramg != 0 { 0x0A } else { 0x00 };
    let writes: &[(u16, u8)] = match rom.header().mbc_kind {
        MbcKind::RomOnly => &[],
        MbcKind::Mbc1 => &[
            (0x0000, ramg),
            (0x2000, mbc.bank1),
            (0x4000, mbc.bank2),
            (0x6000, mbc.mode),
        ],
        MbcKind::Mbc2 => &[(0x0000, ramg), (0x0100, mbc.romb0)],
        MbcKind::Mbc3 => &[(0x0000, ramg), (0x2000, mbc.romb0), (0x4000, mbc.ramb)],
        MbcKind::Mbc5 => &[
            (0x0000, ramg),
            (0x2000, mbc.romb0),
            (0x3000, mbc.romb1),
            (0x4000, mbc.ramb),
        ],
    };
    let mut body = Vec::with_capacity(writes.len() * 3);
    for &(addr, value) in writes {
        body.extend_from_slice(&addr.to_le_bytes());
        body.push(value);
    }
    body
}
