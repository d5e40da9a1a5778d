//! The layering of docs/architecture.md, checked on the sources: each heavy dependency is
//! used only in the layer that owns it, so that the protocol stays in `lsp`, tensors in
//! `model` (and the binary's front ends that pick a device), and graphs in `automata`. Every
//! analysis below the LSP layer stays a plain library call on plain types.

use std::path::{Path, PathBuf};

/// A crate, and the source folders and files (relative to `src/`) that may name it.
const OWNERS: &[(&str, &[&str])] = &[
    ("tower_lsp_server", &["lsp/"]),
    ("tokio", &["lsp/"]),
    ("futures", &["lsp/"]),
    ("candle_core", &["model/", "cli/", "main.rs"]),
    ("candle_nn", &["model/"]),
    ("petgraph", &["automata/"]),
];

fn rust_files(dir: &Path, out: &mut Vec<PathBuf>) {
    for entry in std::fs::read_dir(dir).unwrap() {
        let path = entry.unwrap().path();
        if path.is_dir() {
            rust_files(&path, out);
        } else if path.extension().is_some_and(|e| e == "rs") {
            out.push(path);
        }
    }
}

/// Whether `line` names `krate` as a path (`krate::`, `use krate`, `krate as`), outside a
/// comment.
fn names(line: &str, krate: &str) -> bool {
    let code = line.split("//").next().unwrap_or("");
    code.match_indices(krate).any(|(at, _)| {
        let before = code[..at].chars().next_back();
        let after = &code[at + krate.len()..];
        !before.is_some_and(|c| c.is_alphanumeric() || c == '_')
            && (after.starts_with("::") || after.starts_with(';') || after.starts_with(" as "))
    })
}

#[test]
fn heavy_dependencies_stay_in_their_layers() {
    let src = Path::new(env!("CARGO_MANIFEST_DIR")).join("src");
    let mut files = Vec::new();
    rust_files(&src, &mut files);
    assert!(files.len() > 20, "found only {files:?}");
    let mut misplaced = Vec::new();
    for file in &files {
        let relative = file
            .strip_prefix(&src)
            .unwrap()
            .to_string_lossy()
            .replace('\\', "/");
        let text = std::fs::read_to_string(file).unwrap();
        for (krate, owners) in OWNERS {
            if owners.iter().any(|owner| relative.starts_with(owner)) {
                continue;
            }
            for (number, line) in text.lines().enumerate() {
                if names(line, krate) {
                    misplaced.push(format!("src/{relative}:{}: {krate}: {line}", number + 1));
                }
            }
        }
    }
    assert!(
        misplaced.is_empty(),
        "dependencies outside their layer:\n{}",
        misplaced.join("\n")
    );
}

#[test]
fn the_check_finds_what_it_looks_for() {
    assert!(names("use tokio::sync::mpsc;", "tokio"));
    assert!(names(
        "    let d = candle_core::Device::Cpu;",
        "candle_core"
    ));
    assert!(!names("// tokio::spawn is not used here", "tokio"));
    assert!(!names("use my_tokio::x;", "tokio"));
    assert!(!names("let tokio_like = 1;", "tokio"));
}
