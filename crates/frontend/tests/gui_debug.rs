//! `backspin --debug-port N`: a DAP client attaches to the real window under Xvfb, pauses
//! the game (the title says paused and stays on one frame while the client steps), and a
//! disconnect leaves the game running. Skips with a printed reason when Xvfb, xdotool or
//! import is missing (`.ci/run` installs them).

mod gui_support;

use backspin_debug::dap::{read_message, write_message};
use gui_support::{Display, SERIAL, STEP_LIMIT, counter_rom, missing_tools, out_dir, player_args};
use gui_support::{paused_frame, wait_for_log, wait_for_title};
use serde_json::{Value, json};
use std::io::BufReader;
use std::net::TcpStream;

struct Client {
    reader: BufReader<TcpStream>,
    writer: TcpStream,
    seq: i64,
}

impl Client {
    /// Connects to a window that listens (its log says so: see `wait_for_log`).
    fn connect(port: u16) -> Client {
        let stream = TcpStream::connect(("127.0.0.1", port)).expect("the window listens");
        Client {
            reader: BufReader::new(stream.try_clone().expect("a socket clones")),
            writer: stream,
            seq: 0,
        }
    }

    fn next(&mut self) -> Value {
        let body = read_message(&mut self.reader)
            .expect("the window answers")
            .expect("the window keeps the connection");
        serde_json::from_slice(&body).expect("JSON")
    }

    /// Sends `command` and reads up to its (successful) response.
    fn request(&mut self, command: &str, arguments: Value) -> Value {
        self.seq += 1;
        let message =
            json!({"seq": self.seq, "type": "request", "command": command, "arguments": arguments});
        write_message(&mut self.writer, &message).expect("the window reads");
        loop {
            let value = self.next();
            if value["type"] == "response" && value["request_seq"] == self.seq {
                assert_eq!(value["success"], true, "{command}: {value}");
                return value;
            }
        }
    }

    fn wait_stopped(&mut self) -> Value {
        loop {
            let value = self.next();
            if value["event"] == "stopped" {
                return value["body"].clone();
            }
        }
    }
}

#[test]
fn gui_a_debugger_attaches_pauses_and_detaches_leaving_the_game_running() {
    if let Some(missing) = missing_tools() {
        println!(
            "SKIPPED gui_a_debugger_attaches_pauses_and_detaches_leaving_the_game_running: {missing} not installed"
        );
        return;
    }
    let _serial = SERIAL.lock().unwrap_or_else(|e| e.into_inner());
    let rom = counter_rom("debug-attach");
    let out = out_dir();
    let config = out.join("debug-attach-config.toml");
    let _ = std::fs::remove_file(&config);
    let log = out.join("debug-attach.log");
    // A port free a moment ago.
    let port = std::net::TcpListener::bind(("127.0.0.1", 0))
        .and_then(|l| l.local_addr())
        .expect("a free port")
        .port()
        .to_string();
    let mut display = Display::start();
    let mut args = player_args(&rom, &config);
    args.extend(["--fresh", "--debug-port", &port]);
    display.launch(&args, &log);
    let window = display.wait_for_window(&log);
    wait_for_title(&display, &window, "a second of play", |f, _| f >= 60);

    assert!(
        wait_for_log(&log, "a debugger can attach", STEP_LIMIT),
        "the window does not listen on {port}"
    );
    let mut c = Client::connect(port.parse().expect("a port number"));
    c.request("initialize", json!({"adapterID": "backspin"}));
    c.request("attach", json!({}));
    c.request("configurationDone", json!({}));
    c.request("pause", json!({"threadId": 1}));
    assert_eq!(c.wait_stopped()["reason"], "pause");
    let paused = paused_frame(&display, &window);
    // Stepping moves within the frame: the window holds it.
    for _ in 0..20 {
        c.request("stepIn", json!({"threadId": 1}));
        c.wait_stopped();
    }
    c.request("stepBack", json!({"threadId": 1}));
    c.wait_stopped();
    let (still, _) = display.title_frame(&window);
    assert!(
        still <= paused + 1,
        "paused at {paused}, then showed {still}"
    );
    c.request("disconnect", json!({}));
    // Detached: the game runs on.
    wait_for_title(&display, &window, "play after the debugger left", |f, t| {
        f > paused + 60 && !t.contains(" - paused")
    });
    display.close_until_exited(&window);
}
