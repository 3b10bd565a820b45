//! The DAP adapter through its real message handler: a short session, and 10,000 fuzzed
//! messages that must each get an answer without a panic, after which it still works.

mod support;

use backspin_debug::dap::Adapter;
use backspin_test_support::SplitMix64;
use serde_json::{Value, json};

struct Client {
    adapter: Adapter,
    seq: i64,
}

impl Client {
    fn new() -> Client {
        Client {
            adapter: support::adapter(),
            seq: 0,
        }
    }

    /// Sends a request; returns its response and the events that came with it (running
    /// the program until it stops if it was started).
    fn request(&mut self, command: &str, arguments: Value) -> (Value, Vec<Value>) {
        self.seq += 1;
        let message =
            json!({"seq": self.seq, "type": "request", "command": command, "arguments": arguments});
        let out = self.adapter.handle(message.to_string().as_bytes());
        let response = out[0].clone();
        assert_eq!(response["type"], "response");
        assert_eq!(response["request_seq"], self.seq);
        let mut events = out[1..].to_vec();
        let mut slices = 0;
        while self.adapter.running() && slices < 10_000 {
            events.extend(self.adapter.poll());
            slices += 1;
        }
        (response, events)
    }

    fn ok(&mut self, command: &str, arguments: Value) -> (Value, Vec<Value>) {
        let (response, events) = self.request(command, arguments);
        assert_eq!(response["success"], true, "{command}: {response}");
        (response, events)
    }

    fn stopped(events: &[Value]) -> Value {
        let event = events
            .iter()
            .find(|e| e["event"] == "stopped")
            .expect("a stopped event");
        event["body"].clone()
    }

    fn pc(&mut self) -> String {
        let (r, _) = self.ok("stackTrace", json!({"threadId": 1}));
        r["body"]["stackFrames"][0]["instructionPointerReference"]
            .as_str()
            .unwrap()
            .to_string()
    }
}

#[test]
fn a_session_breaks_steps_watches_and_goes_back() {
    let mut c = Client::new();
    let (init, _) = c.ok("initialize", json!({"adapterID": "backspin"}));
    assert_eq!(init["body"]["supportsStepBack"], true);
    let (_, events) = c.ok(
        "launch",
        json!({"program": "counter.gb", "stopOnEntry": true}),
    );
    assert!(events.iter().any(|e| e["event"] == "initialized"));
    let (bps, _) = c.ok(
        "setFunctionBreakpoints",
        json!({"breakpoints": [{"name": "Increment"}]}),
    );
    assert_eq!(bps["body"]["breakpoints"][0]["verified"], true);
    let (_, events) = c.ok("configurationDone", json!({}));
    assert_eq!(Client::stopped(&events)["reason"], "entry");
    let (_, events) = c.ok("continue", json!({"threadId": 1}));
    assert_eq!(Client::stopped(&events)["reason"], "breakpoint");
    let (r, _) = c.ok("evaluate", json!({"expression": "pc == Increment"}));
    assert!(r["body"]["result"].as_str().unwrap().starts_with("$01"));
    let pc = c.pc();
    let (d, _) = c.ok(
        "disassemble",
        json!({"memoryReference": pc, "instructionOffset": -1, "instructionCount": 3}),
    );
    assert_eq!(d["body"]["instructions"][1]["symbol"], "Increment");
    // A write watchpoint on wCounter, two hits, and back to the first.
    c.ok("setFunctionBreakpoints", json!({"breakpoints": []}));
    let (info, _) = c.ok("dataBreakpointInfo", json!({"name": "wCounter"}));
    let id = info["body"]["dataId"].clone();
    c.ok(
        "setDataBreakpoints",
        json!({"breakpoints": [{"dataId": id, "accessType": "write"}]}),
    );
    let (_, events) = c.ok("continue", json!({"threadId": 1}));
    assert_eq!(Client::stopped(&events)["reason"], "data breakpoint");
    let first = c.pc();
    let (m, _) = c.ok(
        "readMemory",
        json!({"memoryReference": "wCounter", "count": 1}),
    );
    let first_value = m["body"]["data"].clone();
    c.ok("continue", json!({"threadId": 1}));
    let (_, events) = c.ok("reverseContinue", json!({"threadId": 1}));
    assert_eq!(Client::stopped(&events)["reason"], "data breakpoint");
    assert_eq!(c.pc(), first);
    let (m, _) = c.ok(
        "readMemory",
        json!({"memoryReference": "wCounter", "count": 1}),
    );
    assert_eq!(m["body"]["data"], first_value);
    // Registers can be set, and a request while running is refused with a message.
    c.ok(
        "setVariable",
        json!({"variablesReference": 1, "name": "a", "value": "$12"}),
    );
    let (r, _) = c.ok("evaluate", json!({"expression": "a"}));
    assert!(r["body"]["result"].as_str().unwrap().starts_with("$12"));
    c.ok("setDataBreakpoints", json!({"breakpoints": []}));
    let out = c
        .adapter
        .handle(br#"{"seq":900,"type":"request","command":"continue","arguments":{"threadId":1}}"#);
    assert_eq!(out[0]["success"], true);
    let out = c
        .adapter
        .handle(br#"{"seq":901,"type":"request","command":"stackTrace","arguments":{}}"#);
    assert_eq!(out[0]["success"], false);
    let out = c
        .adapter
        .handle(br#"{"seq":902,"type":"request","command":"pause","arguments":{}}"#);
    assert!(
        out.iter()
            .any(|e| e["event"] == "stopped" && e["body"]["reason"] == "pause")
    );
    let (_, events) = c.ok("disconnect", json!({}));
    assert!(events.iter().any(|e| e["event"] == "terminated"));
}

/// A random JSON value of some depth.
fn random_value(rng: &mut SplitMix64, depth: u32) -> Value {
    let pick = rng.below(if depth == 0 { 6 } else { 8 });
    match pick {
        0 => Value::Null,
        1 => json!(rng.below(2) == 1),
        2 => json!(rng.next_u64() as i64),
        3 => json!(rng.below(70_000) as i64 - 1000),
        4 => json!(
            [
                "",
                "a",
                "$C000",
                "wCounter",
                "0xFFFF",
                "a ==",
                "[hl] + (",
                "1/0",
                "Increment+3",
                "99:4000",
                "-1",
                "1e400",
                "{}",
                "\u{1F600}",
                "%2",
                "word[sp]"
            ][rng.below(16) as usize]
        ),
        5 => json!(f64::from(rng.below(1000) as u32) / 7.0),
        6 => Value::Array(
            (0..rng.below(4))
                .map(|_| random_value(rng, depth - 1))
                .collect(),
        ),
        _ => {
            let keys = [
                "name",
                "expression",
                "memoryReference",
                "count",
                "offset",
                "breakpoints",
                "dataId",
                "accessType",
                "instructionCount",
                "instructionOffset",
                "variablesReference",
                "value",
                "data",
                "condition",
                "hitCondition",
                "instructionReference",
                "threadId",
                "program",
                "stopOnEntry",
                "logMessage",
                "bytes",
            ];
            let mut map = serde_json::Map::new();
            for _ in 0..rng.below(5) {
                map.insert(
                    keys[rng.below(keys.len() as u64) as usize].into(),
                    random_value(rng, depth - 1),
                );
            }
            Value::Object(map)
        }
    }
}

#[test]
fn ten_thousand_fuzzed_messages_get_answers_and_the_session_survives() {
    let mut c = Client::new();
    c.ok("initialize", json!({}));
    c.ok(
        "launch",
        json!({"program": "counter.gb", "stopOnEntry": true}),
    );
    c.ok("configurationDone", json!({}));
    let commands = [
        "continue",
        "next",
        "stepIn",
        "stepOut",
        "stepBack",
        "reverseContinue",
        "pause",
        "stackTrace",
        "scopes",
        "variables",
        "setVariable",
        "readMemory",
        "writeMemory",
        "disassemble",
        "evaluate",
        "setFunctionBreakpoints",
        "setInstructionBreakpoints",
        "setBreakpoints",
        "dataBreakpointInfo",
        "setDataBreakpoints",
        "threads",
        "stepFrame",
        "backFrame",
        "stepScanline",
        "backScanline",
        "noSuchCommand",
        "",
        "launch",
        "restart",
    ];
    let mut rng = SplitMix64::new(32);
    for i in 0..10_000 {
        let seq = 10_000 + i;
        let body = match rng.below(10) {
            // Not JSON at all, or JSON that is not a request.
            0 => {
                let mut bytes = vec![0u8; rng.below(40) as usize];
                rng.fill(&mut bytes);
                bytes
            }
            1 => random_value(&mut rng, 3).to_string().into_bytes(),
            _ => {
                let command = commands[rng.below(commands.len() as u64) as usize];
                let arguments = random_value(&mut rng, 3);
                json!({"seq": seq, "type": "request", "command": command, "arguments": arguments})
                    .to_string()
                    .into_bytes()
            }
        };
        let t = std::time::Instant::now();
        let out = c.adapter.handle(&body);
        if std::env::var_os("FUZZ_TIMES").is_some() && t.elapsed().as_millis() > 20 {
            eprintln!(
                "slow {}ms: {}",
                t.elapsed().as_millis(),
                String::from_utf8_lossy(&body)
            );
        }
        assert!(!out.is_empty(), "message {i} got no answer");
        if out[0]["type"] == "response" {
            assert_eq!(out[0]["request_seq"], seq);
            if out[0]["success"] == false {
                assert!(out[0]["message"].as_str().is_some_and(|m| !m.is_empty()));
            }
        }
        // A run started by a fuzzed request goes on for a slice, then is paused.
        if c.adapter.running() {
            c.adapter.poll();
            c.adapter
                .handle(br#"{"seq":1,"type":"request","command":"pause"}"#);
        }
        assert!(!c.adapter.finished());
    }
    let (threads, _) = c.ok("threads", json!({}));
    assert_eq!(threads["body"]["threads"][0]["id"], 1);
    c.ok("stackTrace", json!({"threadId": 1}));
}

/// The line of `counter.asm` (1-based) whose text is `text`, trimmed.
fn counter_line(text: &str) -> u32 {
    let source = include_str!("roms/counter.asm");
    1 + source
        .lines()
        .position(|l| l.trim() == text)
        .expect("line in counter.asm") as u32
}

#[test]
fn source_breakpoints_go_by_file_and_line_and_frames_carry_lines() {
    let mut c = Client::new();
    c.ok("initialize", json!({"adapterID": "backspin"}));
    c.ok(
        "launch",
        json!({"program": "counter.gb", "stopOnEntry": true}),
    );
    let path = concat!(env!("CARGO_MANIFEST_DIR"), "/tests/roms/counter.asm");
    // The label line has no code: the breakpoint moves to the line below.
    let label = counter_line("Increment:");
    let (bps, _) = c.ok(
        "setBreakpoints",
        json!({"source": {"path": path}, "breakpoints": [{"line": label}, {"line": 100_000}]}),
    );
    let placed = &bps["body"]["breakpoints"];
    assert_eq!(placed[0]["verified"], true, "{placed}");
    assert_eq!(placed[0]["line"], label + 1);
    assert_eq!(placed[1]["verified"], false);
    // An included file this ROM does not hold is refused with a reason.
    let (other, _) = c.ok(
        "setBreakpoints",
        json!({"source": {"path": "/nowhere/else.asm"}, "breakpoints": [{"line": 1}]}),
    );
    assert_eq!(other["body"]["breakpoints"][0]["verified"], false);
    c.ok("configurationDone", json!({}));
    let (_, events) = c.ok("continue", json!({"threadId": 1}));
    assert_eq!(Client::stopped(&events)["reason"], "breakpoint");
    let (trace, _) = c.ok("stackTrace", json!({"threadId": 1}));
    let frames = &trace["body"]["stackFrames"];
    assert_eq!(frames[0]["line"], label + 1);
    assert!(
        frames[0]["source"]["path"]
            .as_str()
            .unwrap()
            .ends_with("counter.asm")
    );
    // The caller's frame is the `call Increment` line in the main loop.
    let call = counter_line("MainLoop:") + 1;
    assert_eq!(frames[1]["line"], call);
}
