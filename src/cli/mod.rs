//! The subcommands of the `rulelens` binary; each module is one command. They print to
//! standard output with [`out!`] and [`outln!`], which return a failed write (a full disk,
//! a closed file) as an error where `print!` would panic.

pub mod bench;
pub mod check;
pub mod classify;
pub mod dot;
pub mod eval;
pub mod explain;
mod files;
pub mod init;
mod learned;
pub mod output;
pub mod polarity;
pub mod predict;
pub mod reconstruct;
pub mod report;
pub mod suggest;
mod table;
pub mod train;

/// `print!` that returns a failed write to standard output as an error instead of
/// panicking.
macro_rules! out {
    ($($arg:tt)*) => {
        $crate::cli::write_stdout(format_args!($($arg)*))
    };
}

/// `println!` that returns a failed write to standard output as an error instead of
/// panicking.
macro_rules! outln {
    () => {
        $crate::cli::write_stdout(format_args!("\n"))
    };
    ($($arg:tt)*) => {
        $crate::cli::write_stdout(format_args!("{}\n", format_args!($($arg)*)))
    };
}

pub(crate) use {out, outln};

/// The context of an error writing to standard output.
pub const CANNOT_WRITE_STDOUT: &str = "cannot write to standard output";

/// Writes `text` to standard output (line-buffered: a line that cannot be written is an
/// error here, the rest when `main` flushes it).
pub fn write_stdout(text: std::fmt::Arguments) -> anyhow::Result<()> {
    use anyhow::Context as _;
    use std::io::Write as _;
    std::io::stdout()
        .lock()
        .write_fmt(text)
        .context(CANNOT_WRITE_STDOUT)
}
