//! Which memory an instruction is about to read and write, decoded from its opcode and the
//! registers before it runs: how watchpoints see CPU accesses without a hook in the core's
//! hot path. Opcode fetches are not data accesses and are left out. Interrupt dispatch
//! pushes are found after the fact (`Session`), as are DMA writes (by value change).

use backspin_core::state::CpuState;

/// One data access of an instruction.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Access {
    pub addr: u16,
    pub write: bool,
}

/// Up to two accesses (no SM83 instruction makes more data accesses than two).
#[derive(Clone, Copy, Debug, Default)]
pub struct Accesses {
    list: [Option<Access>; 2],
}

impl Accesses {
    fn push(&mut self, addr: u16, write: bool) {
        if let Some(slot) = self.list.iter_mut().find(|s| s.is_none()) {
            *slot = Some(Access { addr, write });
        }
    }

    /// The accesses in bus order.
    pub fn iter(&self) -> impl Iterator<Item = Access> + '_ {
        self.list.iter().flatten().copied()
    }
}

fn condition(cpu: &CpuState, opcode: u8) -> bool {
    let (z, c) = (cpu.f & 0x80 != 0, cpu.f & 0x10 != 0);
    match (opcode >> 3) & 3 {
        0 => !z,
        1 => z,
        2 => !c,
        _ => c,
    }
}

/// The data accesses the instruction `bytes` (at least 3 bytes from PC) makes with `cpu`.
pub fn decode(cpu: &CpuState, bytes: [u8; 3]) -> Accesses {
    let mut out = Accesses::default();
    let [opcode, n8, n8b] = bytes;
    let n16 = u16::from_le_bytes([n8, n8b]);
    let hl = cpu.hl();
    let sp = cpu.sp;
    let push2 = |out: &mut Accesses| {
        out.push(sp.wrapping_sub(1), true);
        out.push(sp.wrapping_sub(2), true);
    };
    let pop2 = |out: &mut Accesses| {
        out.push(sp, false);
        out.push(sp.wrapping_add(1), false);
    };
    match opcode {
        0x02 => out.push(cpu.bc(), true),
        0x12 => out.push(cpu.de(), true),
        0x22 | 0x32 => out.push(hl, true),
        0x0A => out.push(cpu.bc(), false),
        0x1A => out.push(cpu.de(), false),
        0x2A | 0x3A => out.push(hl, false),
        0x08 => {
            out.push(n16, true);
            out.push(n16.wrapping_add(1), true);
        }
        0x34 | 0x35 => {
            out.push(hl, false);
            out.push(hl, true);
        }
        0x36 => out.push(hl, true),
        0x70..=0x75 | 0x77 => out.push(hl, true),
        0x46 | 0x4E | 0x56 | 0x5E | 0x66 | 0x6E | 0x7E => out.push(hl, false),
        0x86 | 0x8E | 0x96 | 0x9E | 0xA6 | 0xAE | 0xB6 | 0xBE => out.push(hl, false),
        0xE0 => out.push(0xFF00 | u16::from(n8), true),
        0xF0 => out.push(0xFF00 | u16::from(n8), false),
        0xE2 => out.push(0xFF00 | u16::from(cpu.c), true),
        0xF2 => out.push(0xFF00 | u16::from(cpu.c), false),
        0xEA => out.push(n16, true),
        0xFA => out.push(n16, false),
        0xC5 | 0xD5 | 0xE5 | 0xF5 => push2(&mut out),
        0xC1 | 0xD1 | 0xE1 | 0xF1 | 0xC9 | 0xD9 => pop2(&mut out),
        0xC0 | 0xC8 | 0xD0 | 0xD8 if condition(cpu, opcode) => pop2(&mut out),
        0xCD | 0xC7 | 0xCF | 0xD7 | 0xDF | 0xE7 | 0xEF | 0xF7 | 0xFF => push2(&mut out),
        0xC4 | 0xCC | 0xD4 | 0xDC if condition(cpu, opcode) => push2(&mut out),
        0xCB if n8 & 7 == 6 => {
            out.push(hl, false);
            // BIT only reads; the rotates, shifts, RES and SET write back.
            if !(0x40..0x80).contains(&n8) {
                out.push(hl, true);
            }
        }
        _ => {}
    }
    out
}

/// Whether the opcode is a call (CALL, conditional or not, or RST).
pub fn is_call(opcode: u8) -> bool {
    matches!(opcode, 0xCD | 0xC4 | 0xCC | 0xD4 | 0xDC) || opcode & 0xC7 == 0xC7
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn decodes_stores_loads_and_stack_traffic() {
        let cpu = CpuState {
            sp: 0xDFF0,
            h: 0xC0,
            l: 0x10,
            ..CpuState::default()
        };
        let all = |bytes| decode(&cpu, bytes).iter().collect::<Vec<_>>();
        assert_eq!(
            all([0x77, 0, 0]),
            vec![Access {
                addr: 0xC010,
                write: true
            }]
        );
        assert_eq!(
            all([0xEA, 0x34, 0xC1]),
            vec![Access {
                addr: 0xC134,
                write: true
            }]
        );
        assert_eq!(all([0xCD, 0, 0]).len(), 2);
        assert_eq!(
            all([0xCB, 0x46, 0]),
            vec![Access {
                addr: 0xC010,
                write: false
            }]
        );
        assert_eq!(all([0x00, 0, 0]), vec![]);
        assert!(is_call(0xFF) && is_call(0xCD) && !is_call(0xC3));
    }
}
