//! `backspin --debug-port N game.gb`: a Debug Adapter Protocol client attaches to the
//! playing window over TCP. While it is attached the emulation thread serves it between
//! frames: the window's timeline moves into the debug session (no second machine runs),
//! continuing plays the game at its normal pace with the player's buttons, a stop (pause,
//! breakpoint, step) holds the game and shows the picture at that instruction, and a
//! disconnect hands the timeline back with the game running. The window's own controls
//! other than the buttons wait until the debugger detaches.

use super::pacer::Pacer;
use super::{Command, Emu};
use backspin_debug::dap::{Adapter, read_message, write_message};
use backspin_debug::{Session, SourceLines, Symbols};
use backspin_rewind::Timeline;
use crossbeam_channel::{Receiver, RecvTimeoutError, TryRecvError};
use std::io::BufReader;
use std::net::{TcpListener, TcpStream};
use std::path::Path;
use std::time::Duration;

/// Instructions per slice while the debugger's continue runs: well under a frame, so the
/// game is paced by frames and a pause answers at once.
const SLICE: u64 = 2_000;

/// The port a debugger attaches to, and what it is told about the game.
pub struct DebugPort {
    clients: Receiver<TcpStream>,
    symbols: Symbols,
    lines: SourceLines,
}

impl DebugPort {
    /// Accepts clients on `listener` (one at a time is served), with the labels and source
    /// lines of the game.
    pub fn listen(listener: TcpListener, symbols: Symbols, lines: SourceLines) -> DebugPort {
        let (sender, clients) = crossbeam_channel::unbounded();
        std::thread::Builder::new()
            .name("debug port".into())
            .spawn(move || {
                for stream in listener.incoming().flatten() {
                    if sender.send(stream).is_err() {
                        return;
                    }
                }
            })
            .expect("the OS can start a thread");
        DebugPort {
            clients,
            symbols,
            lines,
        }
    }

    /// Listens on localhost:`port`, with the labels and line table beside the ROM
    /// (`game.sym`, `game.lines`) when there are.
    pub fn open(port: u16, rom_path: Option<&Path>) -> Result<DebugPort, String> {
        let listener = TcpListener::bind(("127.0.0.1", port))
            .map_err(|e| format!("--debug-port: cannot listen on port {port}: {e}"))?;
        let (symbols, lines) = match rom_path {
            Some(rom) => crate::debug_command::labels_and_lines(&rom.with_extension("sym"), false)
                .map_err(|e| e.to_string())?,
            None => (Symbols::default(), SourceLines::default()),
        };
        log::info!("a debugger can attach on 127.0.0.1:{port}");
        Ok(DebugPort::listen(listener, symbols, lines))
    }

    /// A client that connected since the last look.
    pub(super) fn client(&self) -> Option<TcpStream> {
        self.clients.try_recv().ok()
    }
}

/// Serves one attached client until it disconnects; false when the window closed meanwhile.
pub(super) fn serve(emu: &mut Emu, stream: TcpStream, commands: &Receiver<Command>) -> bool {
    let Some(port) = emu.debug_port.take() else {
        return true;
    };
    let open = serve_with(emu, &port, stream, commands);
    emu.debug_port = Some(port);
    open
}

fn serve_with(
    emu: &mut Emu,
    port: &DebugPort,
    mut stream: TcpStream,
    commands: &Receiver<Command>,
) -> bool {
    let Ok(reader) = stream.try_clone() else {
        return true;
    };
    log::info!("a debugger attached");
    let (sender, messages) = crossbeam_channel::unbounded();
    std::thread::spawn(move || {
        let mut reader = BufReader::new(reader);
        loop {
            let message = read_message(&mut reader);
            let end = !matches!(message, Ok(Some(_)));
            if sender.send(message).is_err() || end {
                return;
            }
        }
    });
    // The window's timeline goes to the session; a history-less copy stands in meanwhile.
    let stand_in = Timeline::new(emu.timeline.core().clone(), 0);
    let timeline = std::mem::replace(&mut emu.timeline, stand_in);
    let mut session = Session::attach(timeline, port.symbols.clone());
    session.set_source_lines(port.lines.clone());
    let mut adapter = Adapter::attached(session);
    let mut pacer = Pacer::new();
    let mut window_open = true;
    loop {
        for command in commands.try_iter() {
            match command {
                Command::Buttons(buttons) => emu.buttons = buttons,
                Command::Quit => window_open = false,
                _ => {}
            }
        }
        if !window_open {
            break;
        }
        let message = if adapter.running() {
            messages
                .try_recv()
                .map_err(|e| e == TryRecvError::Disconnected)
        } else {
            messages
                .recv_timeout(Duration::from_millis(50))
                .map_err(|e| e == RecvTimeoutError::Disconnected)
        };
        let mut out = match message {
            Ok(Ok(Some(body))) => adapter.handle(&body),
            Ok(_) | Err(true) => break,
            Err(false) => Vec::new(),
        };
        let mut show = out.iter().any(|m| m["event"] == "stopped");
        if adapter.running()
            && let Some(session) = adapter.session_mut()
        {
            session.set_buttons(emu.buttons);
            let frame = session.timeline().frame();
            out.extend(adapter.poll_for(SLICE));
            let framed = adapter
                .session_mut()
                .is_some_and(|s| s.timeline().frame() != frame);
            show |= framed || out.iter().any(|m| m["event"] == "stopped");
            if framed {
                // The game's own pace, as when playing in speedrun mode: by emulated time.
                if let Some(session) = adapter.session_mut() {
                    pacer.wait_for(session.timeline().cycle());
                }
            }
        } else {
            // Stopped: the pace starts afresh at the next continue.
            pacer = Pacer::new();
        }
        if out.iter().any(|m| write_message(&mut stream, m).is_err()) {
            break;
        }
        if show {
            emu.paused = !adapter.running();
            show_picture(emu, &mut adapter);
        }
        if adapter.finished() {
            break;
        }
    }
    if let Some(session) = adapter.into_session() {
        emu.timeline = session.into_timeline();
    }
    log::info!("the debugger detached");
    // A disconnect leaves the game running.
    emu.paused = false;
    emu.discard_audio();
    emu.send_frame(true);
    window_open
}

/// Sends the session's present picture to the window (the timeline is lent for it).
fn show_picture(emu: &mut Emu, adapter: &mut Adapter) {
    let Some(session) = adapter.session_mut() else {
        return;
    };
    session.swap_timeline(&mut emu.timeline);
    emu.discard_audio();
    emu.send_frame(true);
    session.swap_timeline(&mut emu.timeline);
}
