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

/// The modules a file's top-level `use` items name, as paths from the crate root: `super::x`
/// and `crate::…` resolved against `module` (the file's own path, `["lsp", "handlers",
/// "hover"]`), each cut at the first segment that is not one of `modules`.
fn imports(source: &str, module: &[String], modules: &[Vec<String>]) -> Vec<Vec<String>> {
    let mut statements = Vec::new();
    let mut current: Option<String> = None;
    for line in source.lines() {
        if current.is_none() && (line.starts_with("use ") || line.starts_with("pub use ")) {
            current = Some(String::new());
        }
        if let Some(statement) = &mut current {
            statement.push_str(line.split("//").next().unwrap_or(""));
            statement.push(' ');
            if line.trim_end().ends_with(';') {
                statements.push(current.take().unwrap());
            }
        }
    }
    let mut found = Vec::new();
    for statement in statements {
        let path = statement
            .trim_start_matches("pub ")
            .trim_start_matches("use ")
            .trim_end()
            .trim_end_matches(';');
        // Every path of a `{…}` group, flattened one level deep is enough here: the groups
        // of this crate list names, not nested paths with modules inside.
        let (prefix, names) = match path.split_once('{') {
            Some((prefix, rest)) => (prefix, rest.trim_end_matches('}').split(',').collect()),
            None => ("", vec![path]),
        };
        for name in names {
            let full = format!("{prefix}{}", name.trim());
            let mut segments: Vec<&str> = full.split("::").map(str::trim).collect();
            let mut base: Vec<String> = match segments.first() {
                Some(&"crate") => {
                    segments.remove(0);
                    Vec::new()
                }
                Some(&"super") => {
                    let mut base = module.to_vec();
                    while segments.first() == Some(&"super") {
                        segments.remove(0);
                        base.pop();
                    }
                    base
                }
                _ => continue,
            };
            for segment in segments {
                let mut next = base.clone();
                next.push(segment.to_string());
                if !modules.contains(&next) {
                    break;
                }
                base = next;
            }
            if base != module && !module.starts_with(&base) {
                found.push(base);
            }
        }
    }
    found
}

#[test]
fn the_lsp_modules_import_one_another_without_a_cycle() {
    let src = Path::new(env!("CARGO_MANIFEST_DIR")).join("src");
    let mut files = Vec::new();
    rust_files(&src.join("lsp"), &mut files);
    let module_of = |file: &Path| -> Vec<String> {
        let relative = file.strip_prefix(&src).unwrap().with_extension("");
        let mut path: Vec<String> = relative
            .components()
            .map(|c| c.as_os_str().to_string_lossy().into_owned())
            .collect();
        if path.last().is_some_and(|last| last == "mod") {
            path.pop();
        }
        path
    };
    let modules: Vec<Vec<String>> = files.iter().map(|f| module_of(f)).collect();
    let edges: Vec<Vec<Vec<String>>> = files
        .iter()
        .map(|file| {
            let source = std::fs::read_to_string(file).unwrap();
            imports(&source, &module_of(file), &modules)
                .into_iter()
                .filter(|target| target.first().is_some_and(|root| root == "lsp"))
                .collect()
        })
        .collect();
    assert!(
        edges.iter().flatten().count() > 20,
        "found too few imports: {edges:?}"
    );
    // Depth-first search for a back edge: 0 unvisited, 1 on the stack, 2 done.
    fn visit(
        at: usize,
        modules: &[Vec<String>],
        edges: &[Vec<Vec<String>>],
        state: &mut [u8],
        stack: &mut Vec<usize>,
    ) -> Option<Vec<String>> {
        state[at] = 1;
        stack.push(at);
        for target in &edges[at] {
            let Some(next) = modules.iter().position(|m| m == target) else {
                continue;
            };
            if state[next] == 1 {
                let from = stack.iter().position(|&m| m == next).unwrap();
                return Some(
                    stack[from..]
                        .iter()
                        .chain([&next])
                        .map(|&m| modules[m].join("::"))
                        .collect(),
                );
            }
            if state[next] == 0
                && let Some(cycle) = visit(next, modules, edges, state, stack)
            {
                return Some(cycle);
            }
        }
        stack.pop();
        state[at] = 2;
        None
    }
    let mut state = vec![0u8; modules.len()];
    for start in 0..modules.len() {
        if state[start] == 0
            && let Some(cycle) = visit(start, &modules, &edges, &mut state, &mut Vec::new())
        {
            panic!("an import cycle in src/lsp: {}", cycle.join(" → "));
        }
    }
}

#[test]
fn imports_resolve_super_crate_and_groups() {
    let modules: Vec<Vec<String>> = [
        "lsp",
        "lsp::state",
        "lsp::handlers",
        "lsp::handlers::hover",
        "lsp::sync",
    ]
    .iter()
    .map(|m| m.split("::").map(str::to_string).collect())
    .collect();
    let here: Vec<String> = vec!["lsp".into(), "handlers".into(), "hover".into()];
    let source = "use super::super::state::Snapshot;\nuse crate::lsp::{sync, state::Session};\nuse crate::ide::x;\n    use super::*;\npub use super::hover::Thing;\n";
    let found: Vec<String> = imports(source, &here, &modules)
        .iter()
        .map(|m| m.join("::"))
        .collect();
    assert_eq!(found, ["lsp::state", "lsp::sync", "lsp::state"]);
}
