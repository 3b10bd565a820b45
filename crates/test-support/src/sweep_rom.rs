//! A tiny cartridge built in code, so rewind tests and benches run on a fresh clone with no
//! external ROM.

/// A 32 KiB ROM-only cartridge. It polls both joypad groups forever and folds the result into a
/// 256-byte WRAM window (`C000..=C0FF`), so every frame changes a few hundred bytes and the
/// state depends on exactly when each input arrived. It needs only the CPU, the memory map
/// and P1; the project's own test ROMs can replace it once they exist.
pub fn builtin_rom() -> Vec<u8> {
    let mut rom = vec![0u8; 0x8000];
    // Entry point: NOP; JP $0150.
    rom[0x100..0x104].copy_from_slice(&[0x00, 0xC3, 0x50, 0x01]);
    rom[0x134..0x13F].copy_from_slice(b"REWINDSWEEP");
    let program: [u8; 22] = [
        0x21, 0x00, 0xC0, // 0150 LD HL,$C000
        0x3E, 0x20, //       0153 LD A,$20      select the direction keys
        0xE0, 0x00, //       0155 LDH ($00),A
        0xF0, 0x00, //       0157 LDH A,($00)
        0x47, //             0159 LD B,A
        0x3E, 0x10, //       015A LD A,$10      select the action keys
        0xE0, 0x00, //       015C LDH ($00),A
        0xF0, 0x00, //       015E LDH A,($00)
        0xA8, //             0160 XOR B
        0x86, //             0161 ADD A,(HL)
        0x77, //             0162 LD (HL),A
        0x2C, //             0163 INC L         stay inside one 256-byte page
        0x18, 0xED, //       0164 JR $0153
    ];
    rom[0x150..0x150 + program.len()].copy_from_slice(&program);
    // Header checksum over 0134..=014C, as the boot ROM computes it.
    let mut sum = 0u8;
    for &b in &rom[0x134..=0x14C] {
        sum = sum.wrapping_sub(b).wrapping_sub(1);
    }
    rom[0x14D] = sum;
    rom
}
