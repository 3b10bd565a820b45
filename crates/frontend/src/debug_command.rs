//! `backspin debug`: the time-travel debugger's DAP server (crates/debug) on stdin/stdout,
//! as VS Code starts adapters, or on a TCP port.

use crate::error::{CliError, read_user_file};
use crate::headless::{load_boot_rom, model_of};
use crate::rom_file::load_rom;
use crate::{CliResult, ModelArg};
use backspin_core::{Core, Model, Options};
use backspin_debug::dap::{Adapter, LaunchArgs, Program, serve};
use backspin_debug::{LineTable, SourceLines, Symbols};
use clap::Args;
use std::io::BufReader;
use std::path::{Path, PathBuf};
use std::process::ExitCode;

/// A first session: `backspin debug game.gb --port 4711`, then in VS Code's launch.json
/// `{"type": "backspin", "request": "launch", "program": "game.gb", "debugServer": 4711}`
/// (or let the extension in editors/vscode start `backspin debug` itself), set a function
/// breakpoint on a label from the `.sym` file, run, and step forward or back.
#[derive(Args, Debug)]
#[command(after_help = "A first session in VS Code:
  1. cd editors/vscode && npm run package && code --install-extension backspin-debug-0.1.0.vsix
  2. put `backspin` on your PATH (cargo install --path crates/frontend)
  3. launch.json: {\"type\": \"backspin\", \"request\": \"launch\", \"program\": \"${workspaceFolder}/game.gb\", \"stopOnEntry\": true}
  4. F5, then add a function breakpoint on a label from game.sym (or an address like 01:4000)
  5. step in/over/out, or Step Back / Reverse Continue to run backwards to the previous hit")]
pub struct DebugArgs {
    /// The ROM (the client's `launch` may name another as `program`).
    pub rom: Option<PathBuf>,
    /// Labels (an RGBDS `.sym` file); default: the ROM's name with `.sym`, if present. A
    /// line table from our assembler beside it (`.lines`) gives breakpoints by source line.
    #[arg(long)]
    pub sym: Option<PathBuf>,
    #[arg(long, value_enum, default_value_t = ModelArg::Auto)]
    pub model: ModelArg,
    /// A boot ROM to run first.
    #[arg(long)]
    pub boot_rom: Option<PathBuf>,
    /// Listen on this TCP port (localhost) for one client instead of using stdin/stdout.
    #[arg(long)]
    pub port: Option<u16>,
}

pub fn run(args: &DebugArgs) -> CliResult {
    let defaults = LaunchArgs {
        program: args.rom.as_ref().map(|p| p.display().to_string()),
        model: Some(format!("{:?}", args.model).to_lowercase()),
        sym: args.sym.as_ref().map(|p| p.display().to_string()),
        stop_on_entry: None,
        boot_rom: args.boot_rom.as_ref().map(|p| p.display().to_string()),
    };
    let mut adapter = Adapter::new(Box::new(move |asked: &LaunchArgs| {
        load(asked, &defaults).map_err(|e| e.to_string())
    }));
    let result = match args.port {
        None => serve(
            &mut adapter,
            BufReader::new(std::io::stdin()),
            std::io::stdout().lock(),
        ),
        Some(port) => {
            let listener = std::net::TcpListener::bind(("127.0.0.1", port)).map_err(|e| {
                CliError::without_path(format!("cannot listen on port {port}: {e}"))
            })?;
            eprintln!("backspin debug: listening on 127.0.0.1:{port}");
            let (stream, _) = listener
                .accept()
                .map_err(|e| CliError::without_path(format!("cannot accept a client: {e}")))?;
            let reader = BufReader::new(
                stream
                    .try_clone()
                    .map_err(|e| CliError::without_path(e.to_string()))?,
            );
            serve(&mut adapter, reader, stream)
        }
    };
    result.map_err(|e| CliError::without_path(format!("debug connection failed: {e}")))?;
    Ok(ExitCode::SUCCESS)
}

/// The machine, labels and source lines for a launch: the client's arguments, else the
/// command line's.
fn load(asked: &LaunchArgs, defaults: &LaunchArgs) -> Result<Program, CliError> {
    let pick = |a: &Option<String>, b: &Option<String>| a.clone().or_else(|| b.clone());
    let program = pick(&asked.program, &defaults.program)
        .ok_or_else(|| CliError::without_path("no ROM: give `program` in launch.json"))?;
    let program = PathBuf::from(program);
    let rom = load_rom(&program)?;
    let boot_rom = pick(&asked.boot_rom, &defaults.boot_rom)
        .map(|p| load_boot_rom(Path::new(&p)))
        .transpose()?;
    let model = match pick(&asked.model, &defaults.model)
        .as_deref()
        .unwrap_or("auto")
    {
        "dmg" => model_of(ModelArg::Dmg, &rom),
        "cgb" => model_of(ModelArg::Cgb, &rom),
        "auto" => match &boot_rom {
            Some(boot) => boot.model(),
            None => Model::auto_for(&rom),
        },
        other => {
            return Err(CliError::new(
                format!("unknown model `{other}` (auto, dmg or cgb)"),
                &program,
            ));
        }
    };
    let named = pick(&asked.sym, &defaults.sym).map(PathBuf::from);
    let given = named.is_some();
    let sym = named.unwrap_or_else(|| program.with_extension("sym"));
    let (symbols, lines) = labels_and_lines(&sym, given)?;
    Ok(Program {
        core: Core::new(rom, Options { model, boot_rom }),
        symbols,
        lines,
    })
}

/// The labels in `sym` (which must exist when `required`) and our assembler's line table
/// beside it (`game.lines`), if there is one.
pub(crate) fn labels_and_lines(
    sym: &Path,
    required: bool,
) -> Result<(Symbols, SourceLines), CliError> {
    let symbols = if required || sym.exists() {
        read_symbols(sym)?
    } else {
        Symbols::default()
    };
    let lines_path = sym.with_extension("lines");
    let lines = if lines_path.exists() {
        SourceLines::new(read_line_table(&lines_path)?)
    } else {
        SourceLines::default()
    };
    Ok((symbols, lines))
}

fn read_line_table(path: &Path) -> Result<LineTable, CliError> {
    let bytes = read_user_file("line table", path, 256 << 20)?;
    let text = String::from_utf8_lossy(&bytes);
    LineTable::parse(&text).map_err(|e| CliError::new(e, path))
}

fn read_symbols(path: &Path) -> Result<Symbols, CliError> {
    let bytes = read_user_file("symbol file", path, 64 << 20)?;
    let text = String::from_utf8_lossy(&bytes);
    Symbols::parse(&text).map_err(|e| CliError::new(e, path))
}
