//! [`Core`]: the state, the ROM and the host-side outputs, with the run loop.

use crate::bus::Bus;
use crate::cart::Rom;
use crate::cpu::{self, CpuMode};
use crate::events::Events;
use crate::fast_paths::FastPaths;
use crate::joypad::Buttons;
use crate::machine::{Machine, RunBus};
use crate::poll_loop::{PollHooks, PollLoops};
use crate::state::State;
use crate::written_pages::WrittenPages;
use crate::{SCREEN_HEIGHT, SCREEN_WIDTH};

mod observe;
pub use observe::StepObserver;

/// Which Game Boy is emulated.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
#[repr(u8)]
pub enum Model {
    /// DMG-01 (CPU revisions A/B/C behave alike for everything emulated here).
    #[default]
    Dmg = 0,
    /// CGB-001, CPU revision E for the post-boot state (Mooneye `boot_regs-cgb`,
    /// `boot_div-cgbABCDE`). A DMG cartridge runs in DMG compatibility mode, coloured
    /// through palette RAM as the CGB boot ROM sets it up.
    Cgb = 1,
}

impl Model {
    /// What `--model auto` picks: a CGB for cartridges whose header flags CGB support
    /// (0x143 is 0x80, CGB-enhanced, or 0xC0, CGB-only), a DMG otherwise.
    pub fn auto_for(rom: &Rom) -> Model {
        match rom.bytes().get(0x143) {
            Some(0x80 | 0xC0) => Model::Cgb,
            _ => Model::Dmg,
        }
    }

    /// Total decoding of a stored model (unknown values act as a DMG).
    pub fn from_raw(raw: u8) -> Model {
        match raw {
            1 => Model::Cgb,
            _ => Model::Dmg,
        }
    }
}

/// DMG boot ROM size.
pub const DMG_BOOT_ROM_BYTES: usize = 256;
/// CGB boot ROM size: a dump of 0x0000..=0x08FF, mapped except 0x0100..=0x01FF (where the
/// cartridge header shows through).
pub const CGB_BOOT_ROM_BYTES: usize = 2304;

/// A user-supplied boot ROM: 256 bytes (DMG) or 2304 bytes (CGB).
#[derive(Clone, Debug)]
pub struct BootRom(Box<[u8]>);

/// Why bytes are not a boot ROM.
#[derive(Debug, thiserror::Error)]
pub enum BootRomError {
    /// Neither 256 nor 2304 bytes.
    #[error("boot ROM is {len} bytes; a DMG boot ROM is exactly 256 bytes, a CGB one 2304 bytes")]
    WrongSize {
        /// The length given.
        len: usize,
    },
}

impl BootRom {
    /// Checks the size; the model follows from it.
    pub fn from_bytes(bytes: &[u8]) -> Result<BootRom, BootRomError> {
        if bytes.len() != DMG_BOOT_ROM_BYTES && bytes.len() != CGB_BOOT_ROM_BYTES {
            return Err(BootRomError::WrongSize { len: bytes.len() });
        }
        Ok(BootRom(bytes.into()))
    }

    /// The model this boot ROM belongs to (by its size).
    pub fn model(&self) -> Model {
        if self.0.len() == CGB_BOOT_ROM_BYTES {
            Model::Cgb
        } else {
            Model::Dmg
        }
    }

    /// The byte the boot ROM maps at `addr`, if it maps that address.
    #[inline]
    pub(crate) fn read(&self, addr: u16) -> Option<u8> {
        match addr {
            // The CGB dump is 0x900 bytes at their addresses; its 0x100..=0x1FF is unused.
            0x0000..=0x00FF | 0x0200..=0x08FF => self.0.get(usize::from(addr)).copied(),
            _ => None,
        }
    }
}

/// How to power on.
#[derive(Clone, Debug, Default)]
pub struct Options {
    /// Which Game Boy to emulate ([`Model::auto_for`] picks from the cartridge header).
    pub model: Model,
    /// Run this boot ROM from 0x0000; without one, start at 0x0100 with the registers and
    /// I/O state the DMG boot ROM leaves behind.
    pub boot_rom: Option<BootRom>,
}

/// Host-side outputs: written by emulation, never read back by it.
pub struct Output {
    /// The frame being drawn: one shade (0 = lightest .. 3 = darkest) per pixel, row-major.
    /// On a CGB: the DMG shade in compatibility mode, the colour number (0..=3, before the
    /// palette) in CGB mode; the picture itself is `frame_rgb`.
    pub frame: Box<[u8; SCREEN_WIDTH * SCREEN_HEIGHT]>,
    /// On a CGB: the frame being drawn as RGB555 (red in bits 0..=4), row-major. Unused
    /// (zero) on a DMG.
    pub frame_rgb: Box<[u16; SCREEN_WIDTH * SCREEN_HEIGHT]>,
    /// Bytes sent on the serial port since the host last cleared this.
    pub serial: Vec<u8>,
    /// Audio produced since the host last drained it.
    pub audio: crate::apu::AudioOut,
    /// Pages of the large memories written since `Core::take_written_pages`.
    pub(crate) written: WrittenPages,
}

impl Output {
    fn new() -> Output {
        Output {
            frame: Box::new([0; SCREEN_WIDTH * SCREEN_HEIGHT]),
            frame_rgb: Box::new([0; SCREEN_WIDTH * SCREEN_HEIGHT]),
            serial: Vec::new(),
            audio: crate::apu::AudioOut::default(),
            written: WrittenPages::ALL,
        }
    }
}

/// White in RGB555: a blanked colour frame (`Core::set_drawing`).
const BLANK_RGB555: u16 = 0x7FFF;

/// The emulated Game Boy: state, ROM, and host-side outputs.
pub struct Core {
    state: Box<State>,
    rom: Rom,
    model: Model,
    boot_rom: Option<BootRom>,
    out: Output,
    /// The speed tricks in use: never part of `State`.
    fast: FastPaths,
}

impl Core {
    /// Powers on with `rom` inserted.
    pub fn new(rom: Rom, options: Options) -> Core {
        let mut state: Box<State> = bytemuck::zeroed_box();
        crate::machine::power_on(&mut state, &rom, options.model, options.boot_rom.is_some());
        Core {
            state,
            rom,
            model: options.model,
            boot_rom: options.boot_rom,
            out: Output::new(),
            fast: FastPaths::ALL,
        }
    }

    /// Everything that decides the future. Copy it to save.
    pub fn state(&self) -> &State {
        &self.state
    }

    /// Power-cycles the machine, as switching it off and on again: everything starts as at
    /// power-on (the boot ROM runs again if one was given) except what a cartridge battery
    /// keeps, which is cartridge RAM and the MBC3 clock. The M-cycle clock restarts too; a
    /// timeline that must stay monotonic across resets keeps its own offset
    /// (`backspin-rewind`'s `Timeline`).
    pub fn reset(&mut self) {
        let mut fresh: Box<State> = bytemuck::zeroed_box();
        crate::machine::power_on(&mut fresh, &self.rom, self.model, self.boot_rom.is_some());
        let old = &mut self.state.hw;
        // Bring the lazily counted clock up to now, then carry it over restarted at the new
        // M-cycle origin.
        let now = self.rom.rtc_now_in(old);
        self.rom.rtc_sync(&mut old.mbc, now);
        fresh.hw.cart_ram = old.cart_ram;
        fresh.hw.mbc.rtc_live = old.mbc.rtc_live;
        fresh.hw.mbc.rtc_latched = old.mbc.rtc_latched;
        fresh.hw.mbc.rtc_subsecond = old.mbc.rtc_subsecond;
        fresh.hw.mbc.rtc_updated_at = fresh.hw.m_cycles;
        // Copied into the same box: hosts may hold its address (`Core::state_mut`).
        *self.state = *fresh;
        self.out.written = WrittenPages::ALL;
    }

    /// Replaces the whole state (a load, a rewind, a copy from another core).
    pub fn load_state(&mut self, state: &State) {
        *self.state = *state;
        self.out.written = WrittenPages::ALL;
    }

    /// The pages of VRAM, the CGB's banked work RAM and cartridge RAM that may have changed
    /// since the last call (every page after a load, a reset, `state_mut` or a battery
    /// load), and starts over: a rewind capture compares only those pages of them (nothing
    /// before [`TRACKED_FROM`](crate::written_pages::TRACKED_FROM) is tracked).
    /// Writes through a reference or pointer kept from `state_mut` are not seen.
    pub fn take_written_pages(&mut self) -> WrittenPages {
        std::mem::replace(&mut self.out.written, WrittenPages::NONE)
    }

    /// The cartridge.
    pub fn rom(&self) -> &Rom {
        &self.rom
    }

    /// The most recently completed frame (or the one being drawn, mid-frame).
    pub fn frame(&self) -> &[u8; SCREEN_WIDTH * SCREEN_HEIGHT] {
        &self.out.frame
    }

    /// The emulated model (as stored in the state).
    pub fn model(&self) -> Model {
        Model::from_raw(self.state.hw.model_raw)
    }

    /// Whether frames are in colour: true on a CGB, where [`Core::frame_rgb`] is the
    /// picture; false on a DMG, where [`Core::frame`] holds shades.
    pub fn frame_is_rgb(&self) -> bool {
        self.state.hw.cgb.is_cgb()
    }

    /// On a CGB, the most recently completed frame as RGB555 (red in bits 0..=4); expand
    /// with [`crate::rgb555_to_rgb888`].
    pub fn frame_rgb(&self) -> &[u16; SCREEN_WIDTH * SCREEN_HEIGHT] {
        &self.out.frame_rgb
    }

    /// Host-side outputs (serial bytes sent so far).
    pub fn output(&mut self) -> &mut Output {
        &mut self.out
    }

    /// Reads `addr` through the memory map without side effects and without a cycle passing
    /// (debuggers, test protocols such as Blargg's `$A000` status).
    pub fn peek(&mut self, addr: u16) -> u8 {
        self.machine().peek(addr)
    }

    /// Fills `out` with what `peek` reads at `start`, `start + 1`, ... (addresses wrap from
    /// 0xFFFF to 0x0000). One call for a whole range: a RAM observation read byte by byte
    /// through `peek` cost more than the frames it observed.
    pub fn peek_into(&mut self, start: u16, out: &mut [u8]) {
        self.machine().peek_into(start, out);
    }

    /// Writes `value` to `addr` from outside the program (a script, a debugger, a cheat):
    /// what the CPU's write would do there (an MBC register switches banks, an I/O
    /// register acts, RAM changes), at the current M-cycle with no cycle passing, and never
    /// blocked by OAM DMA or the PPU's VRAM and OAM lock-outs. Returns the events it caused
    /// (`BATTERY_DIRTY`, `SERIAL_BYTE`).
    pub fn poke(&mut self, addr: u16, value: u8) -> Events {
        let mut machine = self.machine();
        machine.poke(addr, value);
        machine.take_events()
    }

    /// The state for writing in place: for hosts that share the machine's memories with
    /// others by address (libretro's memory maps and save RAM, where the frontend reads and
    /// writes through raw pointers). Any bit pattern is a valid `State`; values derived from
    /// the mapper registers (bank offsets) are the caller's to leave alone. The state stays
    /// at one address for the life of the `Core` (loads and resets copy into it).
    pub fn state_mut(&mut self) -> &mut State {
        self.out.written = WrittenPages::ALL;
        &mut self.state
    }

    /// Applies cheat-device patches (file offset, byte) to the ROM image the CPU reads,
    /// replacing any earlier ones; an empty list restores the image as loaded. The ROM's
    /// identity (header, SHA-1) stays that of the file, so save states keep naming the
    /// unpatched cartridge. Takes effect from the next run call.
    pub fn set_rom_patches(&mut self, patches: &[(usize, u8)]) {
        self.rom = self.rom.with_patches(patches);
    }

    /// Finishes now every audio sample that lies wholly in the past and hands it to
    /// [`Output::audio`], instead of at the next frame end or flush period (a frame with the
    /// LCD off has no end): for a host that accounts for its samples at moments of its own
    /// choosing (libretro, where the samples delivered must equal emulated time × rate).
    /// Emulation and the samples themselves are unchanged; the synthesizer's bookkeeping in
    /// `State` moves on as at a frame end.
    pub fn finish_audio(&mut self) {
        self.machine().finish_audio();
    }

    /// M-cycles since power-on (or the last reset): the clock inputs are stamped with.
    pub fn m_cycles(&self) -> u64 {
        self.state.hw.m_cycles
    }

    /// Sets the pressed buttons from now on: an input event at the current M-cycle.
    pub fn set_buttons(&mut self, buttons: Buttons) {
        // A pressed button pulls a selected P1 line low, which a stopped CPU sees at its
        // next step.
        self.machine().set_buttons(buttons.0);
    }

    /// Whether the cartridge keeps RAM (or a clock) on a battery.
    pub fn has_battery(&self) -> bool {
        self.rom.has_battery()
    }

    /// The battery-backed bytes to store in a `.sav` file (cartridge RAM, then the MBC3
    /// clock footer stamped with `unix_now`), or `None` for carts without a battery.
    pub fn battery_save(&self, unix_now: u64) -> Option<Vec<u8>> {
        if !self.rom.has_battery() {
            return None;
        }
        // The clock counts lazily; save it as of now without touching the running state.
        let mut mbc = self.state.hw.mbc;
        let hw = &self.state.hw;
        let now = self
            .rom
            .rtc_now(&mut mbc, hw.m_cycles, hw.cgb.double_speed());
        self.rom.rtc_sync(&mut mbc, now);
        Some(
            self.rom
                .battery_bytes(&mbc, &self.state.hw.cart_ram, unix_now),
        )
    }

    /// Loads a `.sav` file's bytes into the cartridge. On error nothing changes. Returns the
    /// host time stored with the clock, if any, so the host can decide whether to advance
    /// the clock by the time that passed ([`Core::rtc_advance_seconds`]).
    pub fn load_battery(&mut self, bytes: &[u8]) -> Result<Option<u64>, crate::cart::BatteryError> {
        self.out.written.note_cart_ram();
        let hw = &mut self.state.hw;
        let now = self.rom.rtc_now_in(hw);
        self.rom.rtc_sync(&mut hw.mbc, now);
        self.rom.load_battery(&mut hw.mbc, &mut hw.cart_ram, bytes)
    }

    /// Advances the cartridge clock by `seconds` of host time: the one explicit way host time
    /// enters emulation (an input event at the current M-cycle, recorded like a button).
    pub fn rtc_advance_seconds(&mut self, seconds: u64) {
        let hw = &mut self.state.hw;
        let now = self.rom.rtc_now_in(hw);
        self.rom.rtc_advance_seconds(&mut hw.mbc, seconds, now);
    }

    /// Whether an MBC5 rumble cartridge has its motor on now.
    pub fn rumble(&self) -> bool {
        self.rom.rumble(&self.state.hw.mbc)
    }

    /// The buttons currently pressed.
    pub fn buttons(&self) -> Buttons {
        Buttons(self.state.hw.joypad.pressed)
    }

    /// Runs until the next frame is complete (or the CPU executes a breakpoint, which ends
    /// the call early with [`Events::BREAKPOINT`]).
    pub fn run_frame(&mut self) -> Events {
        // A frame is at most one LCD period; twice that bounds the loop whatever happens.
        let limit = self.state.hw.m_cycles + 2 * crate::M_CYCLES_PER_FRAME;
        self.run(limit, true)
    }

    /// Runs until the next frame is complete or the M-cycle clock reaches `target` (or passes
    /// it by less than one instruction), whichever comes first, or a breakpoint: how a movie
    /// replay applies an input inside a frame without running past the frame's end.
    pub fn run_frame_until(&mut self, target: u64) -> Events {
        let limit = self.state.hw.m_cycles + 2 * crate::M_CYCLES_PER_FRAME;
        let events = self.run(target.min(limit), true);
        if self.state.hw.m_cycles >= target {
            events | Events::TARGET_REACHED
        } else {
            events
        }
    }

    /// Runs until the M-cycle clock reaches `target` (or passes it by less than one
    /// instruction), or the CPU executes a breakpoint.
    pub fn run_until(&mut self, target: u64) -> Events {
        let events = self.run(target, false);
        if self.state.hw.m_cycles >= target {
            events | Events::TARGET_REACHED
        } else {
            events
        }
    }

    /// One CPU step: an instruction, an interrupt dispatch, or an idle M-cycle.
    pub fn step(&mut self) -> Events {
        let limit = self.state.hw.m_cycles + 1;
        self.run(limit, true)
    }

    /// Switches the speed tricks (all on by default) from the next call on. Each is
    /// checked to change nothing but the time taken: every byte of [`State`] is the same
    /// with any of them off, in any combination, except what drawing and audio synthesis
    /// produce ([`FastPath::changes_output`](crate::FastPath::changes_output)). Drawing
    /// switched back on blanks the frame ([`Core::set_drawing`]).
    pub fn set_fast_paths(&mut self, fast: FastPaths) {
        if fast.drawing && !self.fast.drawing {
            self.out.frame.fill(0);
            if self.frame_is_rgb() {
                self.out.frame_rgb.fill(BLANK_RGB555);
            }
        }
        // The machine hands `audio_synthesis` to the APU's output at the start of each run.
        self.fast = fast;
    }

    /// The speed tricks in use ([`Core::set_fast_paths`]).
    pub fn fast_paths(&self) -> FastPaths {
        self.fast
    }

    /// Whether the PPU produces pixels (on by default): [`FastPaths::drawing`] alone. Off,
    /// emulation is unchanged (mode-3 lengths, STAT, interrupts and every byte of [`State`]
    /// are as with drawing on: `crates/harness/tests/render_oracle.rs`) but no pixel is
    /// coloured or stored: for bots, tests and re-simulation that need the picture rarely.
    /// Switching it back on blanks [`Core::frame`] and [`Core::frame_rgb`] (white, as an LCD
    /// that is off), so a picture never mixes in pixels from before the pause, whose content
    /// would depend on what ran earlier: switch it on before the frame to show. A frame run
    /// entirely with drawing on is the frame a drawing run would show, unless the LCD is off
    /// for part of it (a drawing run keeps the previous frame's pixels there, this one shows
    /// them blank).
    pub fn set_drawing(&mut self, enabled: bool) {
        self.set_fast_paths(FastPaths {
            drawing: enabled,
            ..self.fast
        });
    }

    /// Whether the PPU produces pixels ([`Core::set_drawing`]).
    pub fn drawing(&self) -> bool {
        self.fast.drawing
    }

    /// Steps the CPU until `limit` M-cycles, a breakpoint, or (with `stop_at_frame`) a
    /// completed frame. Idle stretches of a halted CPU are skipped, but never past `limit`.
    fn run(&mut self, limit: u64, stop_at_frame: bool) -> Events {
        let hw = &mut self.state.hw;
        // The registers live in a local for the run (stored back below), whose address
        // never escapes: the plain steps keep them in host registers. Everything else
        // works on a copy (`cpu::out_of_line`), as any call not inlined would pin them in
        // memory for the whole loop.
        let mut registers = cpu::Registers::from(self.state.cpu);
        let mut machine = Machine::new(
            hw,
            &self.rom,
            self.boot_rom.as_ref(),
            &mut self.out,
            self.fast,
        );
        machine.set_stop_m_cycle(limit);
        // A read of LY or STAT is a slow access, so the checks below follow it and look for
        // a polling loop to skip (`poll_loop`); the bit never stops the run.
        let stop_events = if stop_at_frame {
            Events::BREAKPOINT | Events::FRAME_READY
        } else {
            Events::BREAKPOINT
        };
        let mut polls = PollLoops::new(self.fast.poll_loop_cache);
        let fast = self.fast;
        // The steps run on the machine with its countdown in a local (`RunBus`); the checks
        // and everything they call run on the machine itself (`Bus::far`).
        let mut bus = RunBus::new(&mut machine);
        loop {
            // The checks below look only at what a full tick, a slow access, a breakpoint or
            // a change of the CPU's mode or IME can change, and the machine reports those
            // (`Machine::take_checks_due_at`; the limit ends a quiet window). Between them
            // the CPU runs plain steps, which sample interrupts only when their fetch's
            // M-cycle ran in full.
            let opcode = if !bus.take_checks_due_at(registers.pc) {
                cpu::fetch_plain(&mut registers, &mut bus)
            } else {
                let step = bus.far(|machine| {
                    if machine.m_cycles() >= limit || machine.events().intersects(stop_events) {
                        return None;
                    }
                    Some(checked_fetch(
                        &mut registers,
                        machine,
                        &mut polls,
                        fast,
                        limit,
                    ))
                });
                match step {
                    Some(opcode) => opcode,
                    None => break,
                }
            };
            // One copy of the interpreter for both kinds of step: a second one, inlined
            // for the checked steps alone, was as large and met the instruction cache cold.
            if let Some(opcode) = opcode {
                cpu::execute(&mut registers, &mut bus, opcode);
            }
        }
        drop(bus);
        // A poll read the run stopped after is not the host's business.
        machine.take_poll_read();
        let mut events = machine.take_events();
        drop(machine);
        self.state.cpu = registers.into();
        if self.state.cpu.mode() == CpuMode::Locked {
            events |= Events::CPU_LOCKED;
        }
        events
    }

    fn machine(&mut self) -> Machine<'_> {
        Machine::new(
            &mut self.state.hw,
            &self.rom,
            self.boot_rom.as_ref(),
            &mut self.out,
            self.fast,
        )
    }

    /// The cartridge ROM bank mapped at `addr` now (16 KiB banks numbered from the start
    /// of the file, as `.sym` files and debuggers number them), or None for an address
    /// outside ROM (0x8000 and up). Reading it costs no cycle. While a boot ROM overlays
    /// 0x0000-0x00FF it still names the cartridge bank beneath.
    pub fn rom_bank_at(&self, addr: u16) -> Option<u16> {
        (addr < 0x8000).then(|| self.rom.bank_at(&self.state.hw.mbc, addr))
    }
}

/// The run loop's step when its checks are due (`Core::run`) up to its instruction: a
/// polling loop's skip, a halted or stopped CPU's idle stretch, or an unusual CPU's full
/// step ([`cpu::step`]'s), all of which end the step (`None`); else the fetch of a running
/// CPU's full step ([`cpu::fetch_running`]: it samples interrupts and reports its fetch),
/// whose opcode the loop executes. Each leaves the checks due for the next step where it
/// may have changed what they see. Inlined, it works on the loop's own registers; the
/// functions not inlined take a copy.
#[inline(always)]
fn checked_fetch(
    cpu: &mut cpu::Registers,
    machine: &mut Machine<'_>,
    polls: &mut PollLoops,
    fast: FastPaths,
    limit: u64,
) -> Option<u8> {
    if let Some(read) = machine.take_poll_read() {
        if fast.poll_loop_skipping {
            cpu::out_of_line_state(cpu, |cpu| polls.after_read(cpu, machine, read, limit));
        }
        // A skip moves the clock: the limit and the CPU are checked again.
        machine.require_checks();
        return None;
    }
    if machine.take_loop_jump() {
        if fast.poll_loop_skipping {
            cpu::out_of_line_state(cpu, |cpu| polls.at_loop_jump(cpu, machine, limit));
        } else {
            machine.not_a_poll_loop(cpu.pc);
        }
        machine.require_checks();
        return None;
    }
    if !cpu.runs_plainly() {
        if fast.halt_skipping && cpu.mode() != CpuMode::Running {
            let idle = cpu.mode() != CpuMode::Halted || machine.pending_interrupts() == 0;
            if idle {
                // Leave one cycle for the CPU's own idle step, which handles any event.
                let budget = limit.saturating_sub(machine.m_cycles() + 1);
                machine.skip_idle_cycles(cpu.mode(), budget);
            }
        }
        cpu::out_of_line(cpu, |cpu| unusual_step(cpu, machine));
        // Idle, just woken, an EI just taken effect or the HALT bug just spent: the CPU
        // takes the full step once more.
        machine.require_checks();
        return None;
    }
    // An instruction that makes the CPU unusual (EI, HALT, STOP, a lock-up) says so itself
    // (`Bus::cpu_changed`), as on the plain steps: nothing is left to do after it.
    cpu::fetch_running(cpu, machine)
}

/// The full step of a CPU that is not plainly running (halted, stopped, locked, an EI
/// waiting, the HALT bug), out of the run loop: these steps are rare, and their own copy
/// of the interpreter stays out of the loop's code.
#[inline(never)]
fn unusual_step(cpu: &mut cpu::Registers, machine: &mut Machine<'_>) {
    cpu::step_registers(cpu, machine);
}

impl Clone for Core {
    fn clone(&self) -> Core {
        Core {
            state: self.state.clone(),
            rom: self.rom.clone(),
            model: self.model,
            boot_rom: self.boot_rom.clone(),
            out: Output {
                frame: self.out.frame.clone(),
                frame_rgb: self.out.frame_rgb.clone(),
                serial: self.out.serial.clone(),
                audio: self.out.audio.clone(),
                // A clone's past is not this core's: nothing is known of it.
                written: WrittenPages::ALL,
            },
            fast: self.fast,
        }
    }
}
