//! Requests that look at (and change) the stopped machine: stack, variables, memory,
//! disassembly, evaluation.

use super::requests::{int, text};
use super::{Adapter, Reply};
use crate::machine_view::{IO_REGISTERS, register};
use crate::session::Session;
use base64::Engine;
use base64::engine::general_purpose::STANDARD as BASE64;
use serde_json::{Value, json};

/// Variable references of the scopes.
const REGISTERS: i64 = 1;
const IO: i64 = 2;
const LABELS: i64 = 3;
const TIMING: i64 = 4;

const REGISTER_NAMES: &[&str] = &[
    "a", "f", "b", "c", "d", "e", "h", "l", "af", "bc", "de", "hl", "sp", "pc", "ime", "zf", "nf",
    "hf", "cf",
];

/// Where the machine is in time: frame, LY, dot in the line, M-cycle.
pub(crate) fn timing(session: &Session) -> String {
    let core = session.timeline().core();
    let state = core.state();
    format!(
        "frame {}, LY {}, dot {}, M-cycle {}",
        session.timeline().frame(),
        state.hw.ppu.ly,
        state.hw.ppu.line_dot,
        core.m_cycles()
    )
}

/// `name+offset` for an address from the nearest label, or the bare address.
fn place_name(session: &Session, addr: u16) -> String {
    let bank = session.timeline().core().rom_bank_at(addr);
    match session.symbols().nearest(addr, bank) {
        Some((name, 0)) => format!("{name} (${addr:04X})"),
        Some((name, off)) if off < 0x400 => format!("{name}+{off} (${addr:04X})"),
        _ => format!("${addr:04X}"),
    }
}

fn hex(value: i64, width: usize) -> String {
    format!("${value:0width$X}")
}

/// Parses a value typed into the variables pane or sent as a register value.
fn parse_value(session: &mut Session, text: &str) -> Result<u16, String> {
    let value = session.evaluate(text)?;
    u16::try_from(value).map_err(|_| format!("{value} does not fit in 16 bits"))
}

impl Adapter {
    pub(crate) fn inspect(&mut self, command: &str, args: &Value) -> Reply {
        let session = self.session.as_mut().ok_or("launch first")?;
        match command {
            "stackTrace" => Ok(stack_trace(session)),
            "scopes" => Ok(json!({"scopes": [
                {"name": "Registers", "variablesReference": REGISTERS, "expensive": false},
                {"name": "I/O registers", "variablesReference": IO, "expensive": false},
                {"name": "Labels", "variablesReference": LABELS, "expensive": false},
                {"name": "Timing", "variablesReference": TIMING, "expensive": false},
            ]})),
            "variables" => variables(session, int(args, "variablesReference").unwrap_or(0)),
            "setVariable" => {
                let name = text(args, "name").ok_or("name missing")?;
                let value = parse_value(session, text(args, "value").ok_or("value missing")?)?;
                match int(args, "variablesReference") {
                    Some(REGISTERS) => session.set_register(name, value)?,
                    Some(IO) => {
                        let &(_, addr) = IO_REGISTERS
                            .iter()
                            .find(|(n, _)| *n == name)
                            .ok_or_else(|| format!("no I/O register `{name}`"))?;
                        session.write_memory(addr, &[value as u8]);
                    }
                    _ => return Err("only registers and I/O registers can be set".into()),
                }
                let shown = session.evaluate(name).unwrap_or(i64::from(value));
                Ok(json!({"value": hex(shown, 2)}))
            }
            "readMemory" => {
                let reference = text(args, "memoryReference").ok_or("memoryReference missing")?;
                let (_, base) = session.resolve(reference)?;
                let offset = int(args, "offset").unwrap_or(0);
                let count = int(args, "count").ok_or("count missing")?;
                if !(0..=0x1_0000).contains(&count) {
                    return Err(format!("count {count} is out of range (0..=65536)"));
                }
                let start = (i64::from(base) + offset).rem_euclid(0x1_0000) as u16;
                let mut bytes = vec![0u8; count as usize];
                session.peek_into(start, &mut bytes);
                Ok(json!({"address": format!("0x{start:04X}"), "data": BASE64.encode(&bytes)}))
            }
            "writeMemory" => {
                let reference = text(args, "memoryReference").ok_or("memoryReference missing")?;
                let (_, base) = session.resolve(reference)?;
                let offset = int(args, "offset").unwrap_or(0);
                let data = BASE64
                    .decode(text(args, "data").ok_or("data missing")?)
                    .map_err(|e| format!("data is not base64: {e}"))?;
                if data.len() > 0x1_0000 {
                    return Err("more than 64 KiB of data".into());
                }
                let start = (i64::from(base) + offset).rem_euclid(0x1_0000) as u16;
                session.write_memory(start, &data);
                Ok(json!({"bytesWritten": data.len()}))
            }
            "disassemble" => {
                let reference = text(args, "memoryReference").ok_or("memoryReference missing")?;
                let (_, base) = session.resolve(reference)?;
                let base = base.wrapping_add(int(args, "offset").unwrap_or(0) as u16);
                let offset = int(args, "instructionOffset")
                    .unwrap_or(0)
                    .clamp(-4096, 4096);
                let count = int(args, "instructionCount").ok_or("instructionCount missing")?;
                if !(0..=4096).contains(&count) {
                    return Err(format!(
                        "instructionCount {count} is out of range (0..=4096)"
                    ));
                }
                let lines = session.disassemble(base, offset, count as usize);
                let list: Vec<Value> = lines
                    .iter()
                    .map(|l| {
                        let bytes: Vec<String> = l.bytes[..usize::from(l.length).min(3)]
                            .iter()
                            .map(|b| format!("{b:02X}"))
                            .collect();
                        let mut v = json!({"address": format!("0x{:04X}", l.addr),
                            "instructionBytes": bytes.join(" "), "instruction": l.text});
                        if let Some(label) = &l.label {
                            v["symbol"] = json!(label);
                        }
                        v
                    })
                    .collect();
                Ok(json!({"instructions": list}))
            }
            "evaluate" => {
                let expression = text(args, "expression").ok_or("expression missing")?;
                let value = session.evaluate(expression)?;
                Ok(
                    json!({"result": format!("{} ({value})", hex(value, 2)), "variablesReference": 0}),
                )
            }
            "source" => Err("no source is available: use the disassembly view".into()),
            "loadedSources" => Ok(json!({"sources": []})),
            "breakpointLocations" => Ok(json!({"breakpoints": []})),
            "exceptionInfo" => Err("no exception information".into()),
            "setExceptionBreakpoints" => Ok(json!({"breakpoints": []})),
            _ => Err(format!("unknown request `{command}`")),
        }
    }
}

/// CRC-32 of the whole `State`'s bytes: equal hashes across a step back and forth, or a
/// reverse continue, show the machine is where it was.
fn state_hash(session: &Session) -> u32 {
    crc32fast::hash(bytemuck::bytes_of(session.timeline().core().state()))
}

fn stack_trace(session: &Session) -> Value {
    let pc = session.timeline().core().state().cpu.pc;
    let mut frames = vec![frame(session, 0, String::new(), pc)];
    for (i, call) in session.calls().iter().rev().enumerate() {
        let kind = if call.interrupt { "interrupt at " } else { "" };
        frames.push(frame(session, i + 1, kind.into(), call.call_site));
    }
    let total = frames.len();
    json!({"stackFrames": frames, "totalFrames": total})
}

/// One stack frame at `addr`, with its source file and line when the line table has them.
fn frame(session: &Session, id: usize, kind: String, addr: u16) -> Value {
    let mut frame = json!({"id": id, "name": format!("{kind}{}", place_name(session, addr)),
        "line": 0, "column": 0, "instructionPointerReference": format!("0x{addr:04X}")});
    let bank = session.timeline().core().rom_bank_at(addr);
    if let Some((path, line)) = session.source_lines().line_at(addr, bank) {
        let name = std::path::Path::new(path)
            .file_name()
            .map_or(path.into(), |n| n.to_string_lossy());
        frame["source"] = json!({"name": name, "path": path});
        frame["line"] = json!(line);
        frame["column"] = json!(1);
    }
    frame
}

fn variables(session: &mut Session, reference: i64) -> Reply {
    let variable = |name: &str, value: String, memory: Option<u16>| {
        let mut v = json!({"name": name, "value": value, "variablesReference": 0});
        if let Some(addr) = memory {
            v["memoryReference"] = json!(format!("0x{addr:04X}"));
        }
        v
    };
    let list: Vec<Value> = match reference {
        REGISTERS => {
            let cpu = session.timeline().core().state().cpu;
            REGISTER_NAMES
                .iter()
                .map(|&name| {
                    let value = register(&cpu, name).unwrap_or(0);
                    let width = if name.len() == 2 && !name.ends_with('f') || name == "af" {
                        4
                    } else {
                        2
                    };
                    let shown = if name.ends_with('f') && name.len() == 2 {
                        value.to_string()
                    } else {
                        hex(value, width)
                    };
                    variable(name, shown, None)
                })
                .collect()
        }
        IO => IO_REGISTERS
            .iter()
            .map(|&(name, addr)| variable(name, hex(i64::from(session.peek(addr)), 2), Some(addr)))
            .collect(),
        LABELS => {
            let mut labels: Vec<(String, u16)> = session
                .symbols()
                .iter()
                .filter(|(_, loc)| loc.addr >= 0x8000)
                .map(|(name, loc)| (name.to_string(), loc.addr))
                .collect();
            labels.sort();
            labels.truncate(1000);
            labels
                .into_iter()
                .map(|(name, addr)| {
                    let value = format!("{} @ ${addr:04X}", hex(i64::from(session.peek(addr)), 2));
                    variable(&name, value, Some(addr))
                })
                .collect()
        }
        TIMING => {
            let core = session.timeline().core();
            let state = core.state();
            vec![
                variable("frame", session.timeline().frame().to_string(), None),
                variable("LY", state.hw.ppu.ly.to_string(), None),
                variable("dot", state.hw.ppu.line_dot.to_string(), None),
                variable("M-cycle", core.m_cycles().to_string(), None),
                variable("state CRC-32", format!("{:08X}", state_hash(session)), None),
            ]
        }
        _ => return Err(format!("no variables with reference {reference}")),
    };
    Ok(json!({"variables": list}))
}
