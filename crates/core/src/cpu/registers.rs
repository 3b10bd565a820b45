//! The registers as the interpreter works on them: [`CpuState`] with BC, DE and HL held as
//! pairs. Most instructions that name H, L, B, C, D or E use them as an address or a 16-bit
//! value (`[hl+]`, `inc de`, `add hl, bc`), so a pair is one value where [`CpuState`]'s bytes
//! (its layout is the save state's) would be joined and split again by every such
//! instruction; the pairs also leave fewer values for the run loop to keep in host registers.

use super::{CpuMode, CpuState};

/// [`CpuState`], field for field, with the register pairs joined. Converting either way
/// loses nothing.
#[derive(Clone, Copy)]
pub(crate) struct Registers {
    pub(crate) pc: u16,
    /// Read and written only through `sp` and `set_sp`, which keep it in memory.
    sp: u16,
    pub(crate) a: u8,
    /// [`CpuState::f`].
    pub(crate) f: u8,
    pub(crate) bc: u16,
    pub(crate) de: u16,
    pub(crate) hl: u16,
    /// [`CpuState::ime`].
    pub(crate) ime: u8,
    /// [`CpuState::mode_raw`].
    pub(crate) mode_raw: u8,
    /// [`CpuState::halt_bug`].
    pub(crate) halt_bug: u8,
    /// [`CpuState::_pad`], carried so that the round trip is exact.
    pad: u8,
}

impl From<CpuState> for Registers {
    #[inline(always)]
    fn from(cpu: CpuState) -> Registers {
        Registers {
            pc: cpu.pc,
            sp: cpu.sp,
            a: cpu.a,
            f: cpu.f,
            bc: cpu.bc(),
            de: cpu.de(),
            hl: cpu.hl(),
            ime: cpu.ime,
            mode_raw: cpu.mode_raw,
            halt_bug: cpu.halt_bug,
            pad: cpu._pad[0],
        }
    }
}

impl From<Registers> for CpuState {
    #[inline(always)]
    fn from(registers: Registers) -> CpuState {
        let [b, c] = registers.bc.to_be_bytes();
        let [d, e] = registers.de.to_be_bytes();
        let [h, l] = registers.hl.to_be_bytes();
        CpuState {
            pc: registers.pc,
            sp: registers.sp,
            a: registers.a,
            f: registers.f,
            b,
            c,
            d,
            e,
            h,
            l,
            ime: registers.ime,
            mode_raw: registers.mode_raw,
            halt_bug: registers.halt_bug,
            _pad: [registers.pad],
        }
    }
}

impl Registers {
    /// SP. Kept in memory (a volatile access is never promoted to a host register): the
    /// run loop (`Core::run`) has more values live across its plain steps than the host
    /// has callee-saved registers, and SP, which few instructions use, left to the
    /// register allocator was copied between two host registers around every instruction.
    #[inline(always)]
    pub(crate) fn sp(&self) -> u16 {
        // SAFETY: a reference to the field is valid and aligned for the read.
        unsafe { std::ptr::read_volatile(&self.sp) }
    }
    #[inline(always)]
    pub(crate) fn set_sp(&mut self, value: u16) {
        // SAFETY: a reference to the field is valid and aligned for the write.
        unsafe { std::ptr::write_volatile(&mut self.sp, value) }
    }
    /// [`CpuState::mode`].
    #[inline(always)]
    pub(crate) fn mode(&self) -> CpuMode {
        CpuMode::from_raw(self.mode_raw)
    }
    #[inline(always)]
    pub(crate) fn set_mode(&mut self, mode: CpuMode) {
        self.mode_raw = mode as u8;
    }
    /// [`CpuState::runs_plainly`].
    #[inline(always)]
    pub(crate) fn runs_plainly(&self) -> bool {
        super::runs_plainly(self.mode_raw, self.halt_bug, self.ime)
    }
    #[inline(always)]
    pub(crate) fn af(&self) -> u16 {
        u16::from_be_bytes([self.a, self.f])
    }
    /// As [`CpuState::set_af`]: F's low nibble does not exist.
    #[inline(always)]
    pub(crate) fn set_af(&mut self, value: u16) {
        [self.a, self.f] = value.to_be_bytes();
        self.f &= 0xF0;
    }
}
