//! Request dispatch: which request does what, and the run-control requests.

use super::{Adapter, Reply, SourceBreakpoint};
use crate::BreakpointSpec;
use crate::points::AccessKind;
use crate::session::{Motion, Session, StopReason};
use serde_json::{Value, json};

pub(crate) fn text<'a>(args: &'a Value, key: &str) -> Option<&'a str> {
    args.get(key).and_then(Value::as_str)
}

pub(crate) fn int(args: &Value, key: &str) -> Option<i64> {
    args.get(key).and_then(Value::as_i64)
}

/// What the adapter can do (the `initialize` response).
fn capabilities() -> Value {
    json!({
        "supportsConfigurationDoneRequest": true,
        "supportsFunctionBreakpoints": true,
        "supportsConditionalBreakpoints": true,
        "supportsHitConditionalBreakpoints": true,
        "supportsLogPoints": true,
        "supportsInstructionBreakpoints": true,
        "supportsDataBreakpoints": true,
        "supportsDataBreakpointBytes": true,
        "supportsReadMemoryRequest": true,
        "supportsWriteMemoryRequest": true,
        "supportsDisassembleRequest": true,
        "supportsStepBack": true,
        "supportsSetVariable": true,
        "supportsEvaluateForHovers": true,
        "supportsRestartRequest": true,
        "supportsTerminateRequest": true,
        "supportsSteppingGranularity": true,
    })
}

/// Requests that may come while the program runs.
const WHILE_RUNNING: &[&str] = &[
    "pause",
    "disconnect",
    "terminate",
    "threads",
    "initialize",
    "setBreakpoints",
    "setFunctionBreakpoints",
    "setInstructionBreakpoints",
    "setDataBreakpoints",
    "dataBreakpointInfo",
    "configurationDone",
    "restart",
];

impl Adapter {
    pub(crate) fn dispatch(
        &mut self,
        command: &str,
        args: &Value,
        after: &mut Vec<Value>,
    ) -> Reply {
        if self.running() && !WHILE_RUNNING.contains(&command) {
            return Err(format!("`{command}` needs the program paused: pause first"));
        }
        match command {
            "initialize" => Ok(capabilities()),
            // Attaching to a window's session: it is there already.
            "attach" if self.session.is_some() => {
                after.push(self.event("initialized", Value::Null));
                Ok(Value::Null)
            }
            "launch" | "attach" => {
                self.launch(args)?;
                after.push(self.event("initialized", Value::Null));
                Ok(Value::Null)
            }
            "disconnect" | "terminate" => {
                self.finished = true;
                after.push(self.event("terminated", Value::Null));
                Ok(Value::Null)
            }
            "threads" => Ok(json!({"threads": [{"id": 1, "name": "SM83 CPU"}]})),
            _ => {
                let session = self.session.as_mut().ok_or("launch first")?;
                match command {
                    "configurationDone" => {
                        let stop = if self.stop_on_entry {
                            Some(StopReason::Entry)
                        } else {
                            session.start(Motion::Continue);
                            None
                        };
                        if let Some(reason) = stop {
                            after.push(self.stopped(reason));
                        }
                        Ok(Value::Null)
                    }
                    "setBreakpoints" => self.set_source_breakpoints(args),
                    "setFunctionBreakpoints" => self.set_function_breakpoints(args),
                    "setInstructionBreakpoints" => self.set_instruction_breakpoints(args),
                    "dataBreakpointInfo" => data_breakpoint_info(session, args),
                    "setDataBreakpoints" => set_data_breakpoints(session, args),
                    "continue" => self.go(Motion::Continue, after),
                    "next" => self.go(Motion::Next, after),
                    "stepIn" => self.go(Motion::StepIn, after),
                    "stepOut" => self.go(Motion::StepOut, after),
                    "stepScanline" => self.go(Motion::Scanline, after),
                    "stepFrame" => self.go(Motion::Frame, after),
                    "pause" => {
                        let reason = session.pause();
                        after.push(self.stopped(reason));
                        Ok(Value::Null)
                    }
                    "stepBack" => self.back(Session::step_back, after),
                    "reverseContinue" => self.back(Session::reverse_continue, after),
                    "backScanline" => self.back(Session::back_scanline, after),
                    "backFrame" => self.back(Session::back_frame, after),
                    "restart" => {
                        let reason = session.restart();
                        after.push(self.stopped(reason));
                        Ok(Value::Null)
                    }
                    _ => self.inspect(command, args),
                }
            }
        }
    }

    /// Starts a forward motion; the stop comes from `poll` as an event.
    fn go(&mut self, motion: Motion, after: &mut Vec<Value>) -> Reply {
        let session = self.session.as_mut().ok_or("launch first")?;
        session.start(motion);
        // A single step usually ends at once: answer it without a round through `poll`.
        if motion != Motion::Continue {
            after.append(&mut self.poll());
        }
        let all = motion == Motion::Continue;
        Ok(json!({"allThreadsContinued": all}))
    }

    fn back(
        &mut self,
        motion: fn(&mut Session) -> Result<StopReason, String>,
        after: &mut Vec<Value>,
    ) -> Reply {
        let session = self.session.as_mut().ok_or("launch first")?;
        let reason = motion(session)?;
        after.push(self.stopped(reason));
        Ok(Value::Null)
    }

    /// Applies every breakpoint list (function, instruction, then source breakpoints by
    /// file) to the session; one result per spec in that order.
    fn apply_breakpoints(&mut self) -> Vec<Value> {
        let Some(session) = self.session.as_mut() else {
            return Vec::new();
        };
        let sources = self
            .source_specs
            .values()
            .flatten()
            .filter_map(|b| b.placed.as_ref().ok().map(|(_, spec)| spec));
        let specs: Vec<BreakpointSpec> = self
            .function_specs
            .iter()
            .chain(&self.instruction_specs)
            .chain(sources)
            .cloned()
            .collect();
        session
            .set_breakpoints(&specs)
            .into_iter()
            .map(|placed| match placed {
                Ok(p) => json!({"id": p.id, "verified": true,
                    "instructionReference": format!("0x{:04X}", p.addr)}),
                Err(message) => json!({"verified": false, "message": message}),
            })
            .collect()
    }

    fn set_function_breakpoints(&mut self, args: &Value) -> Reply {
        let list = args
            .get("breakpoints")
            .and_then(Value::as_array)
            .ok_or("breakpoints missing")?;
        self.function_specs = list
            .iter()
            .map(|b| BreakpointSpec {
                place: text(b, "name").unwrap_or("").to_string(),
                condition: text(b, "condition").map(str::to_string),
                hit_condition: text(b, "hitCondition").map(str::to_string),
                log_message: None,
            })
            .collect();
        let all = self.apply_breakpoints();
        let own = all[..self.function_specs.len()].to_vec();
        Ok(json!({"breakpoints": own}))
    }

    fn set_instruction_breakpoints(&mut self, args: &Value) -> Reply {
        let list = args
            .get("breakpoints")
            .and_then(Value::as_array)
            .ok_or("breakpoints missing")?;
        let mut specs = Vec::new();
        for b in list {
            let reference = text(b, "instructionReference").unwrap_or("");
            let offset = int(b, "offset").unwrap_or(0);
            let place = match crate::parse_address(reference) {
                Some((bank, addr)) => {
                    let addr = addr.wrapping_add(offset as u16);
                    match bank {
                        Some(bank) => format!("{bank:02X}:{addr:04X}"),
                        None => format!("${addr:04X}"),
                    }
                }
                None => reference.to_string(),
            };
            specs.push(BreakpointSpec {
                place,
                condition: text(b, "condition").map(str::to_string),
                hit_condition: text(b, "hitCondition").map(str::to_string),
                log_message: None,
            });
        }
        self.instruction_specs = specs;
        let all = self.apply_breakpoints();
        let first = self.function_specs.len();
        let own = all[first..first + self.instruction_specs.len()].to_vec();
        Ok(json!({"breakpoints": own}))
    }

    /// Breakpoints by file and line, through the ROM's line table (our assembler writes
    /// one beside the `.sym`): a line without code moves to the next line with code; a line
    /// whose code was placed several times (`REPT`) breaks at its first place.
    fn set_source_breakpoints(&mut self, args: &Value) -> Reply {
        let session = self.session.as_mut().ok_or("launch first")?;
        let source = args.get("source").ok_or("source missing")?;
        let path = text(source, "path")
            .ok_or("source.path missing")?
            .to_string();
        let list = args
            .get("breakpoints")
            .and_then(Value::as_array)
            .ok_or("breakpoints missing")?;
        let lines = session.source_lines();
        let mut own = Vec::new();
        for b in list {
            let asked = int(b, "line").unwrap_or(0);
            let placed = if lines.is_empty() {
                Err(
                    "no line table for this ROM (our assembler writes one as `.lines` beside \
                     the `.sym`): set a function breakpoint on a label"
                        .to_string(),
                )
            } else {
                u32::try_from(asked)
                    .map_err(|_| format!("no line {asked}"))
                    .and_then(|line| lines.place(&path, line))
                    .and_then(|at| {
                        let &(bank, addr) = at.places.first().ok_or("no code on that line")?;
                        let place = if addr < 0x8000 {
                            format!("{bank:02X}:{addr:04X}")
                        } else {
                            format!("${addr:04X}")
                        };
                        let spec = BreakpointSpec {
                            place,
                            condition: text(b, "condition").map(str::to_string),
                            hit_condition: text(b, "hitCondition").map(str::to_string),
                            log_message: text(b, "logMessage").map(str::to_string),
                        };
                        Ok((at.line, spec))
                    })
            };
            own.push(SourceBreakpoint { placed });
        }
        self.source_specs.insert(path.clone(), own);
        let all = self.apply_breakpoints();
        // This file's results follow the function and instruction breakpoints and those of
        // the files before it (in path order).
        let placed_count =
            |list: &Vec<SourceBreakpoint>| list.iter().filter(|b| b.placed.is_ok()).count();
        let mut next = self.function_specs.len()
            + self.instruction_specs.len()
            + self
                .source_specs
                .range(..path.clone())
                .map(|(_, list)| placed_count(list))
                .sum::<usize>();
        let mut out = Vec::new();
        for b in &self.source_specs[&path] {
            match &b.placed {
                Err(message) => out.push(json!({"verified": false, "message": message})),
                Ok((line, _)) => {
                    let mut result = all.get(next).cloned().unwrap_or(Value::Null);
                    next += 1;
                    result["line"] = json!(line);
                    result["source"] = json!({"path": path});
                    out.push(result);
                }
            }
        }
        Ok(json!({"breakpoints": out}))
    }
}

/// A data breakpoint id is `start:length` in hex.
fn data_breakpoint_info(session: &mut Session, args: &Value) -> Reply {
    let name = text(args, "name").ok_or("name missing")?;
    let bytes = int(args, "bytes").unwrap_or(1).clamp(1, 0x1_0000);
    let (_, start) = match session.resolve(name) {
        Ok(found) => found,
        Err(_) => {
            let value = session.evaluate(name)?;
            (None, value as u16)
        }
    };
    Ok(json!({
        "dataId": format!("{start:04X}:{bytes:X}"),
        "description": format!("${start:04X} ({bytes} byte{})", if bytes == 1 { "" } else { "s" }),
        "accessTypes": ["write", "read", "readWrite"],
        "canPersist": true,
    }))
}

fn set_data_breakpoints(session: &mut Session, args: &Value) -> Reply {
    let list = args
        .get("breakpoints")
        .and_then(Value::as_array)
        .ok_or("breakpoints missing")?;
    session.clear_watchpoints();
    let mut out = Vec::new();
    for b in list {
        let result = (|| {
            let id = text(b, "dataId").ok_or("dataId missing")?;
            let (start, len) = id.split_once(':').ok_or("bad dataId")?;
            let len = u32::from_str_radix(len, 16)
                .map_err(|_| "bad dataId")?
                .clamp(1, 0xFFFF);
            let access = match text(b, "accessType").unwrap_or("write") {
                "read" => AccessKind::Read,
                "readWrite" => AccessKind::ReadWrite,
                "write" => AccessKind::Write,
                other => return Err(format!("unknown access type `{other}`")),
            };
            session.add_watchpoint(
                &format!("${start}"),
                len as u16,
                access,
                text(b, "condition"),
            )
        })();
        out.push(match result {
            Ok(id) => json!({"id": id, "verified": true}),
            Err(message) => json!({"verified": false, "message": message}),
        });
    }
    Ok(json!({"breakpoints": out}))
}
