//! `Machine`: the memory map, I/O dispatch and the per-M-cycle tick. It implements [`Bus`].
//! PLACEHOLDER: being written.

use crate::bus::Bus;
use crate::cart::Rom;
use crate::core::{BootRom, Model, Output};
use crate::events::Events;
use crate::state::{HwState, State};

pub(crate) struct Machine<'a> {
    hw: &'a mut HwState,
    rom: &'a Rom,
    boot_rom: Option<&'a BootRom>,
    out: &'a mut Output,
    events: Events,
}

pub(crate) fn power_on(state: &mut State, rom: &Rom, model: Model, with_boot_rom: bool) {
    state.hw.model_raw = model as u8;
    state.hw.mbc = rom.power_on_mbc();
    state.hw.boot_rom_mapped = u8::from(with_boot_rom);
    state.cpu.pc = if with_boot_rom { 0 } else { 0x100 };
}

impl<'a> Machine<'a> {
    pub(crate) fn new(
        hw: &'a mut HwState,
        rom: &'a Rom,
        boot_rom: Option<&'a BootRom>,
        out: &'a mut Output,
    ) -> Machine<'a> {
        Machine {
            hw,
            rom,
            boot_rom,
            out,
            events: Events::empty(),
        }
    }

    pub(crate) fn take_events(&mut self) -> Events {
        std::mem::take(&mut self.events)
    }

    pub(crate) fn set_buttons(&mut self, buttons: u8) {
        self.hw.joypad.pressed = buttons;
    }

    pub(crate) fn peek(&mut self, addr: u16) -> u8 {
        self.read_mapped(addr)
    }

    fn tick(&mut self) {
        self.hw.m_cycles += 1;
    }

    fn read_mapped(&mut self, addr: u16) -> u8 {
        match addr {
            0x0000..=0x00FF if self.hw.boot_rom_mapped != 0 => match self.boot_rom {
                Some(boot) => boot.0[usize::from(addr)],
                None => self.rom.read(&self.hw.mbc, addr),
            },
            0x0000..=0x7FFF => self.rom.read(&self.hw.mbc, addr),
            0x8000..=0x9FFF => self.hw.vram[usize::from(addr & 0x1FFF)],
            0xA000..=0xBFFF => {
                self.rom
                    .read_ram(&self.hw.mbc, &self.hw.cart_ram, addr, self.hw.m_cycles)
            }
            0xC000..=0xFDFF => self.hw.wram[usize::from(addr & 0x1FFF)],
            0xFE00..=0xFE9F => self.hw.oam[usize::from(addr - 0xFE00)],
            0xFEA0..=0xFEFF => 0x00,
            0xFF00..=0xFF7F => 0xFF,
            0xFF80..=0xFFFE => self.hw.hram[usize::from(addr & 0x7F)],
            0xFFFF => self.hw.interrupt_enable,
        }
    }

    fn write_mapped(&mut self, addr: u16, value: u8) {
        match addr {
            0x0000..=0x7FFF => self
                .rom
                .write(&mut self.hw.mbc, addr, value, self.hw.m_cycles),
            0x8000..=0x9FFF => self.hw.vram[usize::from(addr & 0x1FFF)] = value,
            0xA000..=0xBFFF => {
                if self.rom.write_ram(
                    &mut self.hw.mbc,
                    &mut self.hw.cart_ram,
                    addr,
                    value,
                    self.hw.m_cycles,
                ) {
                    self.events |= Events::BATTERY_DIRTY;
                }
            }
            0xC000..=0xFDFF => self.hw.wram[usize::from(addr & 0x1FFF)] = value,
            0xFE00..=0xFE9F => self.hw.oam[usize::from(addr - 0xFE00)] = value,
            0xFEA0..=0xFEFF => {}
            0xFF00..=0xFF7F => {}
            0xFF80..=0xFFFE => self.hw.hram[usize::from(addr & 0x7F)] = value,
            0xFFFF => self.hw.interrupt_enable = value,
        }
    }
}

impl Bus for Machine<'_> {
    fn read(&mut self, addr: u16) -> u8 {
        self.tick();
        self.read_mapped(addr)
    }
    fn write(&mut self, addr: u16, value: u8) {
        self.tick();
        self.write_mapped(addr, value);
    }
    fn idle(&mut self) {
        self.tick();
    }
    fn pending_interrupts(&self) -> u8 {
        self.hw.interrupt_enable & self.hw.interrupt_flag & 0x1F
    }
    fn acknowledge_interrupt(&mut self, bit: u8) {
        self.hw.interrupt_flag &= !(1 << (bit & 7));
    }
    fn breakpoint(&mut self) {
        self.events |= Events::BREAKPOINT;
    }
    fn stop(&mut self) {
        let _ = &self.out;
    }
}
