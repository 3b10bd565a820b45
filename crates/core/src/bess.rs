//! BESS import: loads the portable part ("Best Effort Save State", SameBoy's `BESS.md`) of
//! a save state written by another emulator (SameBoy, BGB, Emulicious, ...). DMG only.
//!
//! BESS keeps the CPU registers, the I/O registers as last written, the memories and the
//! mapper registers, but not the PPU's dot position, the APU's timers, DMA progress, the
//! divider's low bits or an EI delay. So the import starts from a machine parked at the
//! start of VBlank (LY 144, where SameBoy saves between frames) and overlays what the file
//! has: a best effort, returned with warnings. Like a native load, it validates everything
//! first and changes the running game only on success.

use crate::cart::{CART_RAM_MAX, MbcKind};
use crate::{Core, Options, Rom, State};

/// Why a BESS state cannot be imported. The running game is unchanged.
#[derive(Debug, thiserror::Error)]
pub enum BessError {
    #[error("no BESS footer: not a save state another emulator can share")]
    NoFooter,
    #[error("BESS block {block:?} at byte {offset} runs past the end of the file")]
    BlockPastEnd { block: String, offset: usize },
    #[error("the BESS blocks have no END block")]
    NoEnd,
    #[error("the BESS state has no CORE block")]
    NoCore,
    #[error("BESS block {block} is {len} bytes, shorter than the {needed} it must have")]
    BlockTooShort {
        block: &'static str,
        len: usize,
        needed: usize,
    },
    #[error("BESS version {major}.{minor} is not supported (major version 1 is)")]
    Version { major: u16, minor: u16 },
    #[error(
        "this BESS state is for a {model} (model {tag:?}); Backspin imports only DMG states from BESS"
    )]
    Model { tag: String, model: &'static str },
    #[error(
        "BESS import loads DMG states only and the running model is a CGB; run with --model dmg"
    )]
    RunningCgb,
    #[error(
        "the BESS state was saved while the boot ROM was running, which Backspin cannot resume without one"
    )]
    BootRomRunning,
}

/// A successful import.
#[derive(Clone, Debug, Default)]
pub struct BessImport {
    /// The writer, from the NAME block ("SameBoy v1.0.3"), if given.
    pub emulator: Option<String>,
    /// What the import could not restore exactly, one sentence each.
    pub warnings: Vec<String>,
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
    // CGB import (palettes, banks, HDMA) is not written yet; a DMG state in a CGB's state
    // would mix two machines.
    if core.model() == crate::Model::Cgb {
        return Err(BessError::RunningCgb);
    }
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
    match core_block[4] {
        b'G' => {}
        b'S' => result
            .warnings
            .push("an SGB state: loaded as a DMG, without SGB features".to_string()),
        b'C' => {
            return Err(BessError::Model {
                tag,
                model: "Game Boy Color",
            });
        }
        _ => {
            return Err(BessError::Model {
                tag,
                model: "model Backspin does not know",
            });
        }
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
    let mut state = parked_state(core.rom(), lcd_on);
    apply_cpu(&mut state, core_block);
    apply_io(&mut state, io, &mut result.warnings);
    // Buffers: (size, absolute file offset) pairs; missing bytes read as zero.
    let buffer = |index: usize| -> &[u8] {
        let (size, offset) = (u32_at(0x98 + 8 * index), u32_at(0x9C + 8 * index));
        offset
            .checked_add(size)
            .and_then(|end| bytes.get(offset..end))
            .unwrap_or(&[])
    };
    let hw = &mut state.hw;
    copy_zero_filled(&mut hw.wram, buffer(0));
    copy_zero_filled(&mut hw.vram, buffer(1));
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
            match addr {
                0x0000..=0x7FFF => rom.write(&mut hw.mbc, addr, write[2], hw.m_cycles),
                0xA000..=0xBFFF => {
                    rom.write_ram(&mut hw.mbc, &mut hw.cart_ram, addr, write[2], hw.m_cycles);
                }
                _ => {}
            }
        }
    }
    if find(b"RTC ").is_some() {
        result
            .warnings
            .push("the cartridge clock (RTC block) is not imported yet".to_string());
    }
    core.load_state(&state);
    Ok(result)
}

/// A machine whose PPU has just entered VBlank (LY 144), as SameBoy saves between frames:
/// a post-boot DMG running a parking loop, with the LCD switched off first when `lcd_on`
/// is false. Everything BESS records is overwritten afterwards.
fn parked_state(rom: &Rom, lcd_on: bool) -> Box<State> {
    let mut parking = vec![0u8; 0x8000];
    let program: &[u8] = if lcd_on {
        &[0xF3, 0x18, 0xFE] // DI; JR -2
    } else {
        &[0xF3, 0xAF, 0xE0, 0x40, 0x18, 0xFE] // DI; XOR A; LDH (LCDC),A; JR -2
    };
    parking[0x100..0x100 + program.len()].copy_from_slice(program);
    let parking = Rom::from_bytes(parking).expect("the parking ROM is a valid 32 KiB ROM");
    let mut machine = Core::new(parking, Options::default());
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

fn copy_zero_filled(target: &mut [u8], source: &[u8]) {
    let copied = source.len().min(target.len());
    target[..copied].copy_from_slice(&source[..copied]);
    target[copied..].fill(0);
}

/// Appends BESS blocks and footer to a Backspin file (`state_file::save`), so other
/// emulators can import it. The memory buffers point into the file's own sections
/// (`memories`: field name and file offset), which store the chips' bytes as they are.
pub(crate) fn append_footer(
    out: &mut Vec<u8>,
    state: &State,
    rom: &Rom,
    memories: &[(&'static str, usize)],
) {
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
    block(out, b"CORE", &core_block(state, rom, memories));
    let mbc = mbc_writes(state, rom);
    if !mbc.is_empty() {
        block(out, b"MBC ", &mbc);
    }
    block(out, b"END ", &[]);
    out.extend_from_slice(&(first_block as u32).to_le_bytes());
    out.extend_from_slice(b"BESS");
}

fn core_block(state: &State, rom: &Rom, memories: &[(&'static str, usize)]) -> Vec<u8> {
    let (cpu, hw) = (&state.cpu, &state.hw);
    let mut body = Vec::with_capacity(0xD0);
    body.extend_from_slice(&1u16.to_le_bytes()); // BESS 1.1
    body.extend_from_slice(&1u16.to_le_bytes());
    body.extend_from_slice(b"GD  "); // DMG, CPU revision unspecified
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
    let ram_bytes = rom.header().ram_bytes.min(CART_RAM_MAX);
    let offset = |name: &str| {
        memories
            .iter()
            .find(|(field, _)| *field == name)
            .map_or(0, |&(_, offset)| offset)
    };
    for (size, name) in [
        (0x2000, "wram"),
        (0x2000, "vram"),
        (ram_bytes, "cart_ram"),
        (0xA0, "oam"),
        (0x7F, "hram"),
    ] {
        body.extend_from_slice(&(size as u32).to_le_bytes());
        body.extend_from_slice(&(offset(name) as u32).to_le_bytes());
    }
    // No colour palettes on the DMG.
    body.extend_from_slice(&[0; 16]);
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
