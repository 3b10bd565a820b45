//! Backspin's time-travel debugger: instruction breakpoints (by address, label or bank),
//! watchpoints, stepping forward and backward over a [`backspin_rewind::Timeline`], and a
//! Debug Adapter Protocol server (`dap`) that VS Code talks to through `backspin debug`.

mod access;
mod controls;
pub mod dap;
mod expr;
mod machine_view;
mod observed;
mod points;
mod reverse;
mod session;
mod source_lines;
mod symbols;

pub use backspin_asm::LineTable;
pub use controls::{BreakpointSpec, Line, Placed, parse_address};
pub use expr::Expr;
pub use machine_view::IO_REGISTERS;
pub use points::AccessKind;
pub use session::{CallFrame, DEFAULT_HISTORY_BYTES, Motion, Session, StopReason};
pub use source_lines::{LinePlace, SourceLines};
pub use symbols::{Location, Symbols};
