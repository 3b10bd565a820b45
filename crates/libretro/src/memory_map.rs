//! The memory descriptors for `RETRO_ENVIRONMENT_SET_MEMORY_MAPS`, in the layout the
//! RetroAchievements library (rcheevos) reads Game Boy and Game Boy Color memory in: the
//! CPU's flat $0000-$FFFF view, then the CGB's WRAM banks 2-7 at $10000-$15FFF and
//! cartridge RAM banks 1-15 at $16000-$33FFF, which the CPU only sees through a bank.
//!
//! Descriptors are fixed pointers, so switchable windows show a fixed bank: ROM bank 1 at
//! $4000, VRAM bank 0, cartridge RAM bank 0 at $A000 and WRAM bank 1 at $D000 (the banks
//! after them have their own addresses above $FFFF). I/O registers ($FF00-$FF7F) live in
//! many fields of the state and are left out; IE ($FFFF) is one byte and is in.

use std::ffi::c_void;

use backspin_core::{Core, Model};

use crate::ffi::{MemoryDescriptor, memdesc};

/// Where the CGB's WRAM banks 2-7 appear.
pub const WRAM_BANKS_START: usize = 0x10000;
/// Where cartridge RAM banks 1.. appear.
pub const CART_RAM_BANKS_START: usize = 0x16000;

fn descriptor(flags: u64, ptr: *mut u8, start: usize, len: usize) -> MemoryDescriptor {
    MemoryDescriptor {
        flags,
        ptr: ptr.cast::<c_void>(),
        offset: 0,
        start,
        select: 0,
        disconnect: 0,
        len,
        addrspace: std::ptr::null(),
    }
}

/// The descriptors for `core`. The pointers stay valid for the life of `core`: its state
/// stays at one address, and ROM descriptors point at the file as loaded, which Game Genie
/// patches leave alone (they patch the image the CPU reads).
pub fn descriptors(core: &mut Core) -> Vec<MemoryDescriptor> {
    let cgb = core.model() == Model::Cgb;
    let ram_bytes = core
        .rom()
        .header()
        .ram_bytes
        .min(backspin_core::state::CART_RAM_MAX);
    let rom = core.rom().bytes().as_ptr().cast_mut();
    let rom_len = core.rom().bytes().len();
    let hw = &mut core.state_mut().hw;
    let mut list = vec![
        descriptor(memdesc::CONST, rom, 0x0000, 0x4000),
        descriptor(
            memdesc::CONST,
            rom.wrapping_add(0x4000.min(rom_len)),
            0x4000,
            0x4000.min(rom_len.saturating_sub(0x4000)),
        ),
        descriptor(memdesc::VIDEO_RAM, hw.vram.as_mut_ptr(), 0x8000, 0x2000),
    ];
    if ram_bytes > 0 {
        list.push(descriptor(
            memdesc::SAVE_RAM,
            hw.cart_ram.as_mut_ptr(),
            0xA000,
            ram_bytes.min(0x2000),
        ));
    }
    list.push(descriptor(
        memdesc::SYSTEM_RAM,
        hw.wram.as_mut_ptr(),
        0xC000,
        0x2000,
    ));
    // Echo RAM: E000-FDFF reads C000-DDFF.
    list.push(descriptor(
        memdesc::SYSTEM_RAM,
        hw.wram.as_mut_ptr(),
        0xE000,
        0x1E00,
    ));
    list.push(descriptor(
        memdesc::VIDEO_RAM,
        hw.oam.as_mut_ptr(),
        0xFE00,
        0xA0,
    ));
    list.push(descriptor(
        memdesc::SYSTEM_RAM,
        hw.hram.as_mut_ptr(),
        0xFF80,
        0x7F,
    ));
    list.push(descriptor(
        0,
        std::ptr::from_mut(&mut hw.interrupt_enable),
        0xFFFF,
        1,
    ));
    if cgb {
        list.push(descriptor(
            memdesc::SYSTEM_RAM,
            hw.wram_banks.as_mut_ptr(),
            WRAM_BANKS_START,
            0x6000,
        ));
    }
    if ram_bytes > 0x2000 {
        list.push(descriptor(
            memdesc::SAVE_RAM,
            hw.cart_ram.as_mut_ptr().wrapping_add(0x2000),
            CART_RAM_BANKS_START,
            ram_bytes - 0x2000,
        ));
    }
    list.retain(|d| d.len > 0);
    list
}

/// The byte a reader of `descriptors` sees at `address` (what rcheevos does), if mapped.
/// For tests and the test host.
pub fn read(descriptors: &[MemoryDescriptor], address: usize) -> Option<u8> {
    let d = descriptors
        .iter()
        .find(|d| (d.start..d.start + d.len).contains(&address))?;
    // SAFETY: the descriptor's pointer covers `len` bytes (see `descriptors`).
    Some(unsafe { *d.ptr.cast::<u8>().add(d.offset + address - d.start) })
}
