//! The Debug Adapter Protocol server: requests in, responses and events out. The adapter
//! is a plain state machine over JSON values ([`Adapter::handle`], [`Adapter::poll`]); the
//! transport ([`serve`]) reads and writes framed messages on a stream.

mod inspect;
mod requests;
mod transport;

pub use transport::{read_message, write_message};

use crate::session::{Session, StopReason};
use crate::source_lines::SourceLines;
use crate::symbols::Symbols;
use backspin_core::Core;
use serde::Deserialize;
use serde_json::{Value, json};
use std::collections::BTreeMap;
use std::io::{BufRead, Write};
use std::sync::mpsc;

/// `launch` arguments (also what `backspin debug` passes as defaults).
#[derive(Clone, Debug, Default, Deserialize)]
#[serde(rename_all = "camelCase", default)]
pub struct LaunchArgs {
    /// The ROM file.
    pub program: Option<String>,
    /// `auto`, `dmg` or `cgb`.
    pub model: Option<String>,
    /// A `.sym` file (default: the ROM's name with `.sym`, if there is one).
    pub sym: Option<String>,
    /// Stop before the first instruction instead of running.
    pub stop_on_entry: Option<bool>,
    /// A boot ROM to run first.
    pub boot_rom: Option<String>,
}

/// What a launch debugs: the machine, its labels and (for ROMs from our assembler) its
/// source lines.
pub struct Program {
    pub core: Core,
    pub symbols: Symbols,
    pub lines: SourceLines,
}

/// Builds the program for a launch (the frontend's ROM loading).
pub type Loader = Box<dyn FnMut(&LaunchArgs) -> Result<Program, String> + Send>;

/// Instructions run between looks at the incoming messages while running (a pause
/// answers within a few milliseconds).
const RUN_SLICE: u64 = 20_000;

/// The protocol state of one client connection.
pub struct Adapter {
    loader: Loader,
    pub(crate) session: Option<Session>,
    seq: i64,
    stop_on_entry: bool,
    pub(crate) function_specs: Vec<crate::BreakpointSpec>,
    pub(crate) instruction_specs: Vec<crate::BreakpointSpec>,
    /// Source breakpoints by file path: the line asked for and where it went (the line
    /// with code and its breakpoint) or why it could not be placed.
    pub(crate) source_specs: BTreeMap<String, Vec<SourceBreakpoint>>,
    finished: bool,
}

/// A breakpoint set on a source line.
pub(crate) struct SourceBreakpoint {
    /// The line with code it moved to and its instruction breakpoint, or why none.
    pub(crate) placed: Result<(u32, crate::BreakpointSpec), String>,
}

/// A request's failure: the message shown to the user.
pub(crate) type Reply = Result<Value, String>;

impl Adapter {
    /// An adapter that builds its machine with `loader` when launched.
    pub fn new(loader: Loader) -> Adapter {
        Adapter {
            loader,
            session: None,
            seq: 0,
            stop_on_entry: false,
            function_specs: Vec::new(),
            instruction_specs: Vec::new(),
            source_specs: BTreeMap::new(),
            finished: false,
        }
    }

    /// An adapter for a session already under way (a playing window's): `attach` succeeds
    /// at once, `launch` is refused, and after `configurationDone` the game runs on.
    pub fn attached(session: Session) -> Adapter {
        let mut adapter = Adapter::new(Box::new(|_| {
            Err("attached to a running game: there is nothing to launch".into())
        }));
        adapter.session = Some(session);
        adapter
    }

    /// The session, once launched or attached.
    pub fn session_mut(&mut self) -> Option<&mut Session> {
        self.session.as_mut()
    }

    /// Ends the adapter, handing back its session.
    pub fn into_session(self) -> Option<Session> {
        self.session
    }

    /// Whether the client ended the session (disconnect or terminate).
    pub fn finished(&self) -> bool {
        self.finished
    }

    /// Whether the program runs (then [`Adapter::poll`] moves it on).
    pub fn running(&self) -> bool {
        self.session.as_ref().is_some_and(Session::running)
    }

    fn next_seq(&mut self) -> i64 {
        self.seq += 1;
        self.seq
    }

    pub(crate) fn event(&mut self, event: &str, body: Value) -> Value {
        json!({"seq": self.next_seq(), "type": "event", "event": event, "body": body})
    }

    /// Handles one message body; returns what to send back (a response to a request, then
    /// any events). Anything that is not a well-formed request gets an error response or,
    /// with no request to answer, an `output` event saying what was wrong.
    pub fn handle(&mut self, body: &[u8]) -> Vec<Value> {
        let message: Value = match serde_json::from_slice(body) {
            Ok(value) => value,
            Err(e) => {
                let text = format!("not a JSON message: {e}\n");
                return vec![self.event("output", json!({"category": "stderr", "output": text}))];
            }
        };
        let request_seq = message.get("seq").and_then(Value::as_i64).unwrap_or(0);
        let command = message
            .get("command")
            .and_then(Value::as_str)
            .unwrap_or("")
            .to_string();
        if message.get("type").and_then(Value::as_str) != Some("request") || command.is_empty() {
            let text = "ignored a message that is not a request with a command\n";
            return vec![self.event("output", json!({"category": "stderr", "output": text}))];
        }
        let arguments = message.get("arguments").cloned().unwrap_or(Value::Null);
        let mut after = Vec::new();
        let reply = self.dispatch(&command, &arguments, &mut after);
        let seq = self.next_seq();
        let response = match reply {
            Ok(body) => json!({"seq": seq, "type": "response", "request_seq": request_seq,
                "success": true, "command": command, "body": body}),
            Err(message) => json!({"seq": seq, "type": "response", "request_seq": request_seq,
                "success": false, "command": command, "message": message,
                "body": {"error": {"id": 1, "format": message, "showUser": false}}}),
        };
        let mut out = vec![response];
        out.append(&mut after);
        out
    }

    /// Runs the program on by one slice; returns the events that produced (a `stopped`
    /// event when it stopped, logpoint output).
    pub fn poll(&mut self) -> Vec<Value> {
        self.poll_for(RUN_SLICE)
    }

    /// [`Adapter::poll`] with a slice of at most `instructions` (a window paces its game
    /// with short slices).
    pub fn poll_for(&mut self, instructions: u64) -> Vec<Value> {
        let Some(session) = self.session.as_mut() else {
            return Vec::new();
        };
        let stop = session.advance(instructions);
        let mut out = self.log_events();
        if let Some(reason) = stop {
            out.push(self.stopped(reason));
        }
        out
    }

    pub(crate) fn log_events(&mut self) -> Vec<Value> {
        let lines = self
            .session
            .as_mut()
            .map(Session::take_log)
            .unwrap_or_default();
        lines
            .into_iter()
            .map(|line| {
                self.event(
                    "output",
                    json!({"category": "console", "output": line + "\n"}),
                )
            })
            .collect()
    }

    /// The `stopped` event for `reason`, with where the machine is in time.
    pub(crate) fn stopped(&mut self, reason: StopReason) -> Value {
        let (name, ids) = match reason {
            StopReason::Entry => ("entry", vec![]),
            StopReason::Step => ("step", vec![]),
            StopReason::Breakpoint(id) => ("breakpoint", vec![id]),
            StopReason::Watchpoint(id) => ("data breakpoint", vec![id]),
            StopReason::Pause => ("pause", vec![]),
            StopReason::StartOfHistory => ("step", vec![]),
            StopReason::Locked => ("exception", vec![]),
        };
        let timing = self
            .session
            .as_ref()
            .map(inspect::timing)
            .unwrap_or_default();
        let description = match reason {
            StopReason::StartOfHistory => format!("start of history: {timing}"),
            StopReason::Locked => format!("CPU locked (illegal opcode): {timing}"),
            _ => timing,
        };
        self.event(
            "stopped",
            json!({"reason": name, "threadId": 1, "allThreadsStopped": true,
                "description": description, "hitBreakpointIds": ids}),
        )
    }

    pub(crate) fn launch(&mut self, args: &Value) -> Reply {
        if self.session.is_some() {
            return Err("already launched".into());
        }
        let args: LaunchArgs = serde_json::from_value(args.clone())
            .map_err(|e| format!("bad launch arguments: {e}"))?;
        let program = (self.loader)(&args)?;
        self.stop_on_entry = args.stop_on_entry.unwrap_or(false);
        let mut session = Session::new(program.core, program.symbols, crate::DEFAULT_HISTORY_BYTES);
        session.set_source_lines(program.lines);
        self.session = Some(session);
        Ok(Value::Null)
    }
}

/// Serves one client on `input`/`output` until it disconnects or the stream ends.
pub fn serve(
    adapter: &mut Adapter,
    input: impl BufRead + Send + 'static,
    mut output: impl Write,
) -> std::io::Result<()> {
    let (sender, receiver) = mpsc::channel();
    std::thread::spawn(move || {
        let mut input = input;
        loop {
            let message = read_message(&mut input);
            let end = !matches!(message, Ok(Some(_)));
            if sender.send(message).is_err() || end {
                return;
            }
        }
    });
    while !adapter.finished() {
        let message = if adapter.running() {
            match receiver.try_recv() {
                Ok(message) => Some(message),
                Err(mpsc::TryRecvError::Empty) => None,
                Err(mpsc::TryRecvError::Disconnected) => return Ok(()),
            }
        } else {
            match receiver.recv() {
                Ok(message) => Some(message),
                Err(_) => return Ok(()),
            }
        };
        let out = match message {
            Some(Ok(Some(body))) => adapter.handle(&body),
            Some(Ok(None)) => return Ok(()),
            Some(Err(e)) => return Err(e),
            None => adapter.poll(),
        };
        for value in &out {
            write_message(&mut output, value)?;
        }
    }
    Ok(())
}
