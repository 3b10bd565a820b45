//! The text input script of `backspin movie record --inputs SCRIPT`.
//!
//! One command per line, applied in order (a line waits until its time has come):
//! ```text
//! # a comment; blank lines are ignored
//! 0 none            frame 0 (power-on): hold nothing
//! 120 a right       from the start of frame 120, hold exactly A and Right
//! @2000000 start    from the first instruction at or after timeline M-cycle 2,000,000
//! 300 reset         power-cycle at the start of frame 300 (cartridge RAM and clock kept)
//! 400 rtc 3600      add an hour to the cartridge clock (MBC3) at frame 400
//! 450 write C0A0 7  write 0x07 to C0A0 through the memory map (hex; as the CPU's write)
//! 460 write 2:D000 ff  write 0xFF straight into WRAM bank 2 at D000 (hex bank:address)
//! end 600           the movie is 600 frames long (default: the last line's frame + 60)
//! ```
//! Buttons: `a b select start right left up down` (any case), or `none`. Frames count from
//! 0 and from the start of the recording.

use crate::InputScript;
use crate::format::{Input, MovieError};
use backspin_core::{Buttons, Core, Events, FrameBounds, M_CYCLES_PER_FRAME};

/// When a script line takes effect.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum When {
    /// At the start of this frame (0: before the first).
    Frame(u64),
    /// At the first instruction boundary at or after this timeline M-cycle.
    Cycle(u64),
}

/// A parsed script.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Script {
    pub lines: Vec<(When, Input)>,
    /// Frames to record.
    pub frames: u64,
}

fn error(line: usize, what: impl Into<String>) -> MovieError {
    MovieError::Script {
        line,
        what: what.into(),
    }
}

fn button(name: &str) -> Option<u8> {
    Some(match name.to_ascii_lowercase().as_str() {
        "a" => Buttons::A,
        "b" => Buttons::B,
        "select" => Buttons::SELECT,
        "start" => Buttons::START,
        "right" => Buttons::RIGHT,
        "left" => Buttons::LEFT,
        "up" => Buttons::UP,
        "down" => Buttons::DOWN,
        "none" => 0,
        _ => return None,
    })
}

impl Script {
    pub fn parse(text: &str) -> Result<Script, MovieError> {
        let mut lines = Vec::new();
        let mut end = None;
        let mut last_frame = 0u64;
        for (index, raw) in text.lines().enumerate() {
            let number = index + 1;
            let line = raw.split('#').next().unwrap_or("").trim();
            let mut words = line.split_whitespace();
            let Some(first) = words.next() else { continue };
            let rest: Vec<&str> = words.collect();
            let number_of = |word: &str, what: &str| {
                word.replace('_', "")
                    .parse::<u64>()
                    .map_err(|_| error(number, format!("{what} {word:?} is not a number")))
            };
            if first.eq_ignore_ascii_case("end") {
                let [frames] = rest[..] else {
                    return Err(error(number, "`end` takes one frame count"));
                };
                end = Some(number_of(frames, "frame count")?);
                continue;
            }
            let when = match first.strip_prefix('@') {
                Some(cycle) => {
                    let cycle = number_of(cycle, "M-cycle")?;
                    last_frame = last_frame.max(cycle / M_CYCLES_PER_FRAME);
                    When::Cycle(cycle)
                }
                None => {
                    let frame = number_of(first, "frame")?;
                    last_frame = last_frame.max(frame);
                    When::Frame(frame)
                }
            };
            let input = match rest.first().map(|w| w.to_ascii_lowercase()) {
                None => {
                    return Err(error(
                        number,
                        "nothing to do: name buttons, `none`, `reset`, `rtc SECONDS` or `write ADDR VALUE`",
                    ));
                }
                Some(word) if word == "reset" && rest.len() == 1 => Input::Reset,
                Some(word) if word == "write" => {
                    let [_, target, value] = rest[..] else {
                        return Err(error(
                            number,
                            "`write` takes an address ([BANK:]ADDR, hex) and a value (hex)",
                        ));
                    };
                    write_of(target, value).map_err(|what| error(number, what))?
                }
                Some(word) if word == "rtc" => {
                    let [_, seconds] = rest[..] else {
                        return Err(error(number, "`rtc` takes a number of seconds"));
                    };
                    Input::RtcAdvance(number_of(seconds, "seconds")?)
                }
                Some(_) => {
                    let mut mask = 0;
                    for word in &rest {
                        mask |= button(word).ok_or_else(|| {
                            error(number, format!("{word:?} is not a button (a b select start right left up down none)"))
                        })?;
                    }
                    Input::Buttons(mask)
                }
            };
            lines.push((when, input));
        }
        Ok(Script {
            lines,
            frames: end.unwrap_or(last_frame + 60),
        })
    }

    /// `frames` frames of the seeded, human-like joypad script the tests and benches use
    /// ([`InputScript`]), one line per change.
    pub fn random(seed: u64, frames: u64) -> Script {
        let mut input = InputScript::new(seed);
        let mut lines = Vec::new();
        let mut held = 0;
        for frame in 0..frames {
            let buttons = input.next_frame();
            if buttons != held || frame == 0 {
                lines.push((When::Frame(frame), Input::Buttons(buttons)));
                held = buttons;
            }
        }
        Script { lines, frames }
    }
}

/// A `write [BANK:]ADDR VALUE` line's input (all hex).
fn write_of(target: &str, value: &str) -> Result<Input, String> {
    let hex = |word: &str, what: &str, max: u32| {
        u32::from_str_radix(word.trim_start_matches("0x"), 16)
            .ok()
            .filter(|&v| v <= max)
            .ok_or_else(|| format!("{what} {word:?} is not a hex number up to {max:X}"))
    };
    let (bank, addr) = match target.split_once(':') {
        Some((bank, addr)) => (Some(hex(bank, "bank", 0xFFFE)? as u16), addr),
        None => (None, target),
    };
    Ok(Input::Write {
        bank,
        addr: hex(addr, "address", 0xFFFF)? as u16,
        value: hex(value, "value", 0xFF)? as u8,
    })
}

/// The script as an input source for the engine: lines in order.
pub(crate) struct ScriptSource {
    pub lines: Vec<(When, Input)>,
    pub next: usize,
}

impl crate::engine::InputSource for ScriptSource {
    fn due(&mut self, cycle: u64, frame: u64) -> Option<Input> {
        let (when, input) = *self.lines.get(self.next)?;
        let due = match when {
            When::Frame(at) => frame >= at,
            When::Cycle(at) => cycle >= at,
        };
        if due {
            self.next += 1;
            Some(input)
        } else {
            None
        }
    }
    fn next_cycle(&self) -> u64 {
        match self.lines.get(self.next) {
            Some((When::Cycle(at), _)) => *at,
            _ => u64::MAX,
        }
    }
}

/// Plays a script's button, clock and write lines into a core as it runs, without recording:
/// the test harness's scripted rows and `backspin run --inputs`. Lines apply as when
/// recording (`Engine`): a cycle line at the first instruction boundary at or after its
/// M-cycle (the core's clock, from power-on), a frame line at the start of that frame.
pub struct ScriptPlayer {
    source: ScriptSource,
    frame: u64,
}

impl ScriptPlayer {
    /// A player for `script`; a `reset` line is refused (it would restart the core's clock
    /// under the caller).
    pub fn new(script: &Script) -> Result<ScriptPlayer, String> {
        if let Some(index) = script.lines.iter().position(|(_, i)| *i == Input::Reset) {
            return Err(format!(
                "line {} of {}: `reset` is not supported here",
                index + 1,
                script.lines.len()
            ));
        }
        Ok(ScriptPlayer {
            source: ScriptSource {
                lines: script.lines.clone(),
                next: 0,
            },
            frame: 0,
        })
    }

    /// Runs `core` to the end of its next frame (as [`Core::run_frame`]), applying the lines
    /// that fall due on the way; returns the events of the whole frame.
    pub fn run_frame(&mut self, core: &mut Core) -> Events {
        use crate::engine::InputSource;
        let bounds = FrameBounds::begin(core);
        let mut events = Events::empty();
        loop {
            while let Some(input) = self.source.due(core.m_cycles(), self.frame) {
                events |= crate::engine::apply_to_core(core, input);
            }
            if bounds.ended(core) {
                break;
            }
            let target = self
                .source
                .next_cycle()
                .min(bounds.limit())
                .max(core.m_cycles() + 1);
            events |= core.run_frame_until(target);
            if bounds.ended(core) {
                break;
            }
        }
        self.frame += 1;
        Events(events.0 & !Events::TARGET_REACHED.0)
    }
}
