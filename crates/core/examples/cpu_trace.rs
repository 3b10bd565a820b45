//! An instruction trace of one frame, to compare with SameBoy's (`tools/sameboy-trace.c`).
//!
//! Usage: `cpu_trace ROM dmg|cgb BOOT_ROM FRAMES`
//!
//! Powers on with the boot ROM, runs FRAMES whole frames, then prints one line per CPU step
//! of the next frame (an instruction, an interrupt dispatch or a halted M-cycle): M-cycles
//! since that frame began, LY, STAT, PC, the registers, IME, IF, IE, the CPU's mode and the
//! instruction at PC.

use backspin_core::{BootRom, Core, Model, Options, Rom, disassemble};
use std::error::Error;
use std::io::{BufWriter, Write};

fn main() -> Result<(), Box<dyn Error>> {
    let args: Vec<String> = std::env::args().collect();
    let [_, rom, model, boot, frames] = &args[..] else {
        return Err("usage: cpu_trace ROM dmg|cgb BOOT_ROM FRAMES".into());
    };
    let rom = Rom::from_bytes(std::fs::read(rom)?)?;
    let model = match model.as_str() {
        "dmg" => Model::Dmg,
        "cgb" => Model::Cgb,
        other => return Err(format!("model {other} is neither dmg nor cgb").into()),
    };
    let boot_rom = Some(BootRom::from_bytes(&std::fs::read(boot)?)?);
    let frames: u64 = frames.parse()?;
    let mut core = Core::new(rom, Options { model, boot_rom });
    while core.state().hw.frames < frames {
        core.run_frame();
    }
    let start = core.m_cycles();
    let frame = core.state().hw.frames;
    let mut out = BufWriter::new(std::io::stdout().lock());
    while core.state().hw.frames == frame {
        let c = core.state().cpu;
        let mut bytes = [0u8; 3];
        core.peek_into(c.pc, &mut bytes);
        let (text, _) = disassemble(&bytes, c.pc);
        let (ly, stat) = (core.peek(0xFF44), core.peek(0xFF41));
        let (flags, enable) = (core.peek(0xFF0F), core.peek(0xFFFF));
        writeln!(
            out,
            "{:6} LY={ly:3} STAT={stat:02X} PC={:04X} AF={:04X} BC={:04X} DE={:04X} HL={:04X} \
             SP={:04X} IME={} IF={flags:02X} IE={enable:02X} mode={:?} {text}",
            core.m_cycles() - start,
            c.pc,
            c.af(),
            c.bc(),
            c.de(),
            c.hl(),
            c.sp,
            c.ime,
            c.mode(),
        )?;
        core.step();
    }
    out.flush()?;
    Ok(())
}
