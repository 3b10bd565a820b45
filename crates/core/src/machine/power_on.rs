//! Power-on: the state a machine starts from, with or without a boot ROM.

use super::*;

/// Fills `state` as the machine is at power-on (with a boot ROM) or as the boot ROM leaves
/// it at 0x0100 (Pan Docs "Power Up Sequence"; Mooneye `boot_regs-dmgABC`,
/// `boot_hwio-dmgABCmgb`, `boot_div-dmgABCmgb`; on a CGB `boot_regs-cgb`, `boot_hwio-C`,
/// `boot_div-cgbABCDE`).
pub(crate) fn power_on(state: &mut State, rom: &Rom, model: Model, with_boot_rom: bool) {
    let hw = &mut state.hw;
    hw.model_raw = model as u8;
    hw.mbc = rom.power_on_mbc();
    hw.boot_rom_mapped = u8::from(with_boot_rom);
    hw.dma = DmaState::post_boot();
    hw.joypad = JoypadState::post_boot();
    let cgb_cartridge = matches!(rom.bytes().get(0x143), Some(0x80 | 0xC0));
    hw.cgb = match model {
        Model::Dmg => CgbState::zeroed_dmg(),
        // The boot ROM starts in CGB mode and switches to compatibility mode (KEY0) itself.
        Model::Cgb if cgb_cartridge || with_boot_rom => CgbState::power_on(cgb::MODE_CGB),
        Model::Cgb => CgbState::power_on(cgb::MODE_COMPATIBILITY),
    };
    hw.ppu.set_colour_mode(hw.cgb.mode());
    hw.apu.cgb = u8::from(model == Model::Cgb);
    if with_boot_rom {
        state.cpu.pc = 0;
        hw.dma.source_high = 0;
        return;
    }
    let cpu = &mut state.cpu;
    cpu.pc = 0x0100;
    cpu.sp = 0xFFFE;
    match model {
        Model::Dmg => {
            cpu.a = 0x01;
            // The boot ROM's header-checksum loop leaves H and C set unless the checksum
            // byte is 0.
            cpu.f = if rom.bytes().get(0x14D).copied().unwrap_or(0) == 0 {
                0x80
            } else {
                0xB0
            };
            (cpu.b, cpu.c, cpu.d, cpu.e, cpu.h, cpu.l) = (0x00, 0x13, 0x00, 0xD8, 0x01, 0x4D);
        }
        Model::Cgb => {
            cpu.a = 0x11;
            cpu.f = 0x80;
            // CGB mode: DE=FF56, HL=000D; compatibility mode: DE=0008, HL=007C (Mooneye
            // `boot_regs-cgb`). UNVERIFIED: B holds the title checksum for licensed
            // compatibility-mode games on hardware; 0 here.
            (cpu.b, cpu.c, cpu.d, cpu.e, cpu.h, cpu.l) = if cgb_cartridge {
                (0x00, 0x00, 0xFF, 0x56, 0x00, 0x0D)
            } else {
                (0x00, 0x00, 0x00, 0x08, 0x00, 0x7C)
            };
            // Both button groups deselected: P1 reads FF (Mooneye `boot_hwio-C`).
            hw.joypad.select = 0x30;
        }
    }
    hw.timer = TimerState::post_boot();
    if model == Model::Cgb {
        hw.timer.system_counter = crate::timer::cgb_post_boot_system_counter(cgb_cartridge);
    }
    hw.serial = SerialState::post_boot();
    hw.ppu = match model {
        Model::Dmg => PpuState::post_boot(),
        Model::Cgb => PpuState::post_boot_cgb(),
    };
    hw.ppu.set_colour_mode(hw.cgb.mode());
    // The boot ROM leaves the header's logo in VRAM (ashiepaws `bully` checks it).
    let logo = rom.bytes().get(0x104..0x134).unwrap_or(&[]);
    crate::ppu::write_boot_logo(&mut hw.vram, logo);
    hw.apu = ApuState::post_boot();
    hw.apu.cgb = u8::from(model == Model::Cgb);
    hw.interrupt_flag = io::INT_VBLANK;
    if model == Model::Cgb {
        let compatibility = crate::compatibility_palettes::for_cartridge(rom.bytes());
        cgb::write_boot_palettes(&mut hw.cgb, &compatibility);
    }
}
