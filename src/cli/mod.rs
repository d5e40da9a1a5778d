//! The subcommands of the `rulelens` binary; each module is one command. They print to
//! standard output with [`out!`] and [`outln!`] (text for a reader, its control characters
//! shown, not obeyed) or [`out_data!`] and [`outln_data!`] (a rules file, JSON, DOT, byte for
//! byte), which return a failed write (a full disk, a closed file) as an error where
//! `print!` would panic.

pub mod bench;
pub mod check;
pub mod classify;
mod device;
pub mod dot;
pub mod eval;
pub mod explain_code;
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

/// `print!` of text for a reader: shown [`printable`](rulelens::text::printable), and a
/// failed write to standard output returned as an error instead of a panic.
macro_rules! out {
    ($($arg:tt)*) => {
        $crate::cli::write_stdout(format_args!($($arg)*), $crate::cli::Shown::Printable)
    };
}

/// [`out!`] with a newline.
macro_rules! outln {
    () => {
        $crate::cli::out!("\n")
    };
    ($($arg:tt)*) => {
        $crate::cli::out!("{}\n", format_args!($($arg)*))
    };
}

/// `print!` of data (a rules file, JSON, DOT), written as it is: a failed write to
/// standard output is returned as an error instead of a panic.
macro_rules! out_data {
    ($($arg:tt)*) => {
        $crate::cli::write_stdout(format_args!($($arg)*), $crate::cli::Shown::AsIs)
    };
}

/// [`out_data!`] with a newline.
macro_rules! outln_data {
    ($($arg:tt)*) => {
        $crate::cli::out_data!("{}\n", format_args!($($arg)*))
    };
}

pub(crate) use {out, out_data, outln, outln_data};

/// The context of an error writing to standard output.
pub const CANNOT_WRITE_STDOUT: &str = "cannot write to standard output";

/// How text goes to standard output.
pub enum Shown {
    /// For a reader: [`printable`](rulelens::text::printable), so that a control character
    /// of a rules file or corpus is seen, not obeyed by the terminal.
    Printable,
    /// Data, byte for byte.
    AsIs,
}

/// Writes `text` to standard output (line-buffered: a line that cannot be written is an
/// error here, the rest when `main` flushes it).
pub fn write_stdout(text: std::fmt::Arguments, shown: Shown) -> anyhow::Result<()> {
    use anyhow::Context as _;
    use std::io::Write as _;
    let mut stdout = std::io::stdout().lock();
    match shown {
        Shown::AsIs => stdout.write_fmt(text),
        Shown::Printable => {
            stdout.write_all(rulelens::text::printable(&text.to_string()).as_bytes())
        }
    }
    .context(CANNOT_WRITE_STDOUT)
}
