//! The layering of docs/architecture.md, checked on the sources: each heavy dependency is
//! used only in the layer that owns it, so that the protocol stays in `lsp`, tensors in
//! `model` (and the binary's front ends that pick a device), and graphs in `automata`. Every
//! analysis below the LSP layer stays a plain library call on plain types. The modules
//! import one another without a circle, and only from their own layer and those below. A
//! model family is named in at most ten production files outside its folder; no function
//! is longer than 150 lines, and no source file has more than 800 lines of code. And one
//! check on the build: the Python binding crate's dependencies have the features of
//! rulelens's test build, so that building the Python package after the tests compiles no
//! crate twice.

use std::collections::{BTreeMap, BTreeSet};
use std::path::{Path, PathBuf};
use std::process::Command;

/// A crate, and the source folders and files (relative to `src/`) that may name it.
const OWNERS: &[(&str, &[&str])] = &[
    ("tower_lsp_server", &["lsp/"]),
    ("tokio", &["lsp/"]),
    ("futures", &["lsp/"]),
    ("candle_core", &["model/", "cli/"]),
    ("candle_nn", &["model/"]),
    ("petgraph", &["automata/"]),
    ("plotters", &["report/charts.rs"]),
    ("minijinja", &["report/page.rs"]),
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

/// The modules a file's code outside its tests names, as paths from the crate root: the
/// paths of its top-level `use` items and every `crate::…` or `super::…` path written
/// in place, resolved against `module` (the file's own path, `["lsp", "handlers",
/// "hover"]`), each cut at the first segment that is not one of `modules`. A file's tests
/// (from its first `#[cfg(test)]` on) are left out.
fn imports(source: &str, module: &[String], modules: &[Vec<String>]) -> Vec<Vec<String>> {
    let code: Vec<&str> = source
        .lines()
        .take_while(|line| line.trim() != "#[cfg(test)]")
        .map(|line| line.split("//").next().unwrap_or(""))
        .collect();
    let mut paths = Vec::new();
    let mut current: Option<String> = None;
    for line in &code {
        if current.is_none() && (line.starts_with("use ") || line.starts_with("pub use ")) {
            current = Some(String::new());
        }
        match &mut current {
            Some(statement) => {
                statement.push_str(line);
                statement.push(' ');
                if line.trim_end().ends_with(';') {
                    paths.extend(use_paths(&current.take().unwrap()));
                }
            }
            None => paths.extend(paths_in_place(line)),
        }
    }
    paths
        .iter()
        .filter_map(|path| resolve(path, module, modules))
        .collect()
}

/// The paths of a `use` statement: every path of a `{…}` group, flattened one level deep
/// (the groups of this crate list names, not nested paths with modules inside).
fn use_paths(statement: &str) -> Vec<String> {
    let path = statement
        .trim()
        .trim_start_matches("pub ")
        .trim_start_matches("use ")
        .trim_end()
        .trim_end_matches(';');
    match path.split_once('{') {
        Some((prefix, rest)) => rest
            .trim_end()
            .trim_end_matches('}')
            .split(',')
            .map(|name| format!("{prefix}{}", name.trim()))
            .collect(),
        None => vec![path.to_string()],
    }
}

/// The `crate::…` and `super::…` paths written in a line of code (outside `use` items).
fn paths_in_place(line: &str) -> Vec<String> {
    let mut found = Vec::new();
    for root in ["crate::", "super::"] {
        for (at, _) in line.match_indices(root) {
            let before = line[..at].chars().next_back();
            if before.is_some_and(|c| c.is_alphanumeric() || c == '_' || c == ':') {
                continue;
            }
            let path: String = line[at..]
                .chars()
                .take_while(|&c| c.is_alphanumeric() || c == '_' || c == ':')
                .collect();
            found.push(path);
        }
    }
    found
}

/// The module `path` (`crate::a::b::Name`, `super::x`) names, resolved against `module`
/// and cut at the first segment that is not one of `modules`; `None` for a path from
/// elsewhere, or for the module itself or one that holds it.
fn resolve(path: &str, module: &[String], modules: &[Vec<String>]) -> Option<Vec<String>> {
    let mut segments: Vec<&str> = path
        .split("::")
        .map(str::trim)
        .filter(|s| !s.is_empty())
        .collect();
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
        _ => return None,
    };
    for segment in segments {
        let mut next = base.clone();
        next.push(segment.to_string());
        if !modules.contains(&next) {
            break;
        }
        base = next;
    }
    (base != module && !module.starts_with(&base)).then_some(base)
}

/// Every module under `src/` (its path from the crate root: `["lsp", "handlers", "hover"]`;
/// `cli` and `main` are the binary's), with the modules its code outside its tests imports
/// ([`imports`]).
fn import_graph() -> Vec<(Vec<String>, Vec<Vec<String>>)> {
    let src = Path::new(env!("CARGO_MANIFEST_DIR")).join("src");
    let mut files = Vec::new();
    rust_files(&src, &mut files);
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
    files
        .iter()
        .zip(&modules)
        .map(|(file, module)| {
            let source = std::fs::read_to_string(file).unwrap();
            (module.clone(), imports(&source, module, &modules))
        })
        .collect()
}

#[test]
fn the_modules_import_one_another_without_a_cycle() {
    let graph = import_graph();
    let modules: Vec<&Vec<String>> = graph.iter().map(|(module, _)| module).collect();
    assert!(
        graph
            .iter()
            .map(|(_, targets)| targets.len())
            .sum::<usize>()
            > 20,
        "found too few imports: {graph:?}"
    );
    let edges: Vec<Vec<usize>> = graph
        .iter()
        .map(|(_, targets)| {
            targets
                .iter()
                .filter_map(|target| modules.iter().position(|m| *m == target))
                .collect()
        })
        .collect();
    let found: Vec<String> = circles(&edges)
        .into_iter()
        .map(|circle| {
            let mut names: Vec<String> = circle.iter().map(|&m| modules[m].join("::")).collect();
            names.sort();
            format!("{} modules: {}", names.len(), names.join(", "))
        })
        .collect();
    assert!(
        found.is_empty(),
        "modules that import one another in a circle:\n{}",
        found.join("\n")
    );
}

/// The floors of `docs/architecture.md`'s layers, bottom up, by top-level module: a module
/// imports from its own floor and those below it, never from one above.
const FLOORS: &[&[&str]] = &[
    &["digest", "limits", "text", "diagnostic"],
    &["syntax"],
    &["corpus"],
    &["automata"],
    &["rules_file", "labeling"],
    &["model"],
    &["explain"],
    &["suggest"],
    &["ide"],
    &["project"],
    &["report"],
    &["lsp"],
    &["cli", "main", "lib"],
];

/// The floor of a module, by its first segment.
fn floor_of(module: &[String]) -> Option<usize> {
    let top = module.first()?;
    FLOORS
        .iter()
        .position(|floor| floor.contains(&top.as_str()))
}

/// `module imports target` for each import that runs up a floor.
fn upward_imports(graph: &[(Vec<String>, Vec<Vec<String>>)]) -> Vec<String> {
    let mut found = Vec::new();
    for (module, targets) in graph {
        for target in targets {
            if floor_of(target) > floor_of(module) {
                found.push(format!(
                    "{} imports {}",
                    module.join("::"),
                    target.join("::")
                ));
            }
        }
    }
    found.sort();
    found.dedup();
    found
}

#[test]
fn the_modules_import_only_their_floor_and_those_below() {
    let graph = import_graph();
    let unplaced: Vec<String> = graph
        .iter()
        .filter(|(module, _)| floor_of(module).is_none())
        .map(|(module, _)| module.join("::"))
        .collect();
    assert!(
        unplaced.is_empty(),
        "modules on no floor (add them to FLOORS, as docs/architecture.md places them): {unplaced:?}"
    );
    let upward = upward_imports(&graph);
    assert!(
        upward.is_empty(),
        "imports that run up the layers of docs/architecture.md:\n{}",
        upward.join("\n")
    );
}

#[test]
fn an_import_from_a_floor_above_is_found() {
    let module = |path: &str| -> Vec<String> { path.split("::").map(str::to_string).collect() };
    let graph = vec![
        (
            module("rules_file"),
            vec![module("model::train::checkpoint"), module("text")],
        ),
        (
            module("lsp::jobs"),
            vec![module("model"), module("lsp::state")],
        ),
        (module("labeling"), vec![module("rules_file")]),
    ];
    assert_eq!(
        upward_imports(&graph),
        ["rules_file imports model::train::checkpoint"]
    );
    assert_eq!(floor_of(&module("nowhere")), None);
}

/// The circles of a directed graph (`graph[a]` lists the nodes `a` points to): its strongly
/// connected components of more than one node, or of one node pointing to itself (Tarjan's
/// algorithm).
fn circles(graph: &[Vec<usize>]) -> Vec<Vec<usize>> {
    struct Search<'a> {
        graph: &'a [Vec<usize>],
        index: Vec<Option<usize>>,
        low: Vec<usize>,
        on_stack: Vec<bool>,
        stack: Vec<usize>,
        next: usize,
        found: Vec<Vec<usize>>,
    }
    impl Search<'_> {
        fn visit(&mut self, at: usize) {
            self.index[at] = Some(self.next);
            self.low[at] = self.next;
            self.next += 1;
            self.stack.push(at);
            self.on_stack[at] = true;
            for &to in &self.graph[at] {
                match self.index[to] {
                    None => {
                        self.visit(to);
                        self.low[at] = self.low[at].min(self.low[to]);
                    }
                    Some(index) if self.on_stack[to] => self.low[at] = self.low[at].min(index),
                    Some(_) => {}
                }
            }
            if Some(self.low[at]) == self.index[at] {
                let mut component = Vec::new();
                while let Some(node) = self.stack.pop() {
                    self.on_stack[node] = false;
                    component.push(node);
                    if node == at {
                        break;
                    }
                }
                if component.len() > 1 || self.graph[at].contains(&at) {
                    component.sort();
                    self.found.push(component);
                }
            }
        }
    }
    let n = graph.len();
    let mut search = Search {
        graph,
        index: vec![None; n],
        low: vec![0; n],
        on_stack: vec![false; n],
        stack: Vec::new(),
        next: 0,
        found: Vec::new(),
    };
    for node in 0..n {
        if search.index[node].is_none() {
            search.visit(node);
        }
    }
    search.found
}

#[test]
fn circles_are_the_strongly_connected_parts() {
    // 0 → 1 → 2 → 0 is a circle, 3 → 4 is not, 5 points to itself, 6 → 7 → 6 is another.
    let graph = vec![
        vec![1],
        vec![2, 3],
        vec![0],
        vec![4],
        vec![],
        vec![5],
        vec![7, 0],
        vec![6],
    ];
    let mut found = circles(&graph);
    found.sort();
    assert_eq!(found, [vec![0, 1, 2], vec![5], vec![6, 7]]);
    assert!(circles(&[vec![1], vec![2], vec![]]).is_empty());
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
    let source = "use super::super::state::Snapshot;\nuse crate::lsp::{sync, state::Session};\nuse crate::ide::x;\n    use super::*;\npub use super::hover::Thing;\nfn f() { super::super::sync::run(crate::lsp::state::X) } // crate::lsp::handlers\n#[cfg(test)]\nfn g() { crate::lsp::sync::y() }\n";
    let found: Vec<String> = imports(source, &here, &modules)
        .iter()
        .map(|m| m.join("::"))
        .collect();
    assert_eq!(
        found,
        [
            "lsp::state",
            "lsp::sync",
            "lsp::state",
            "lsp::state",
            "lsp::sync"
        ]
    );
}

/// Each package of `cargo tree -p package` (with `edges`), as "name vX.Y.Z", with the
/// feature lists it is built with (one per build of it: a crate can be built for the host and
/// for the target).
fn features_of(package: &str, edges: &str) -> BTreeMap<String, BTreeSet<String>> {
    let output = Command::new(env!("CARGO"))
        .current_dir(env!("CARGO_MANIFEST_DIR"))
        .args([
            "tree",
            "--locked",
            "--offline",
            "--prefix",
            "none",
            "-p",
            package,
            "-e",
        ])
        .args([edges, "-f", "{p}|{f}"])
        .output()
        .unwrap();
    assert!(
        output.status.success(),
        "cargo tree -p {package} (run `cargo fetch --locked` first: `cargo test` fetches the root package's dependencies only): {}",
        String::from_utf8_lossy(&output.stderr)
    );
    let mut packages: BTreeMap<String, BTreeSet<String>> = BTreeMap::new();
    for line in String::from_utf8(output.stdout).unwrap().lines() {
        let Some((id, features)) = line.split_once('|') else {
            continue;
        };
        // "name v1.2.3 (/path)" for a path dependency; "(*)" marks a repeat.
        let name_version = id.split_whitespace().take(2).collect::<Vec<_>>().join(" ");
        let features = features
            .trim_end_matches(" (*)")
            .trim_end_matches(" (proc-macro)");
        packages
            .entry(name_version)
            .or_default()
            .insert(features.to_string());
    }
    packages
}

/// tests/run.sh builds the Python package (maturin, the dev profile, the same target
/// folder) after `cargo test`. Cargo builds a crate again when its features differ, and with
/// candle's, everything above it: rulelens's dev-dependencies turn on features of crates
/// that the binding crate reaches too (python/Cargo.toml lists those it names only for
/// that).
#[test]
fn the_python_crate_builds_its_dependencies_as_the_tests_do() {
    let tests = features_of("rulelens", "normal,build,dev");
    let python = features_of("rulelens-python", "normal,build");
    assert!(python.len() > 100, "found only {python:?}");
    let differing: Vec<String> = python
        .iter()
        .filter_map(|(package, features)| {
            let in_tests = tests.get(package)?;
            (in_tests != features).then(|| format!("{package}: {features:?} against {in_tests:?}"))
        })
        .collect();
    assert!(
        differing.is_empty(),
        "the Python crate builds these with other features than rulelens's tests do:\n{}",
        differing.join("\n")
    );
}

#[test]
fn the_neovim_plugin_carries_the_grammars_queries_unchanged() {
    // Neovim finds a parser's queries on its runtime path, so the plugin carries a copy of
    // the grammar's; the grammar's are the ones the tree-sitter tests check.
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let grammar = root.join("grammars/tree-sitter-rules/queries");
    let plugin = root.join("editors/neovim/queries/rules");
    let names = |dir: &Path| -> BTreeSet<String> {
        std::fs::read_dir(dir)
            .unwrap()
            .map(|entry| entry.unwrap().file_name().to_string_lossy().into_owned())
            .collect()
    };
    assert_eq!(names(&plugin), names(&grammar));
    for name in names(&grammar) {
        assert!(
            std::fs::read(grammar.join(&name)).unwrap()
                == std::fs::read(plugin.join(&name)).unwrap(),
            "editors/neovim/queries/rules/{name} differs from grammars/tree-sitter-rules/queries/{name}: copy the grammar's"
        );
    }
}

/// The most lines a function outside the tests may take: past it, a function mixes policy,
/// plumbing and presentation, and its parts want names of their own.
const MAX_FUNCTION_LINES: usize = 150;

/// The functions of `source` outside its tests (from its first `#[cfg(test)]` on) longer
/// than `max` lines, signature to closing brace, as (name, first line, lines).
fn long_functions(source: &str, max: usize) -> Vec<(String, usize, usize)> {
    let lines: Vec<&str> = source
        .lines()
        .take_while(|line| line.trim() != "#[cfg(test)]")
        .collect();
    let mut found = Vec::new();
    for (i, line) in lines.iter().enumerate() {
        let code = line.trim_start();
        let indent = &line[..line.len() - code.len()];
        let mut rest = code;
        for prefix in [
            "pub(crate) ",
            "pub(super) ",
            "pub ",
            "const ",
            "async ",
            "unsafe ",
        ] {
            rest = rest.strip_prefix(prefix).unwrap_or(rest);
        }
        let Some(after) = rest.strip_prefix("fn ") else {
            continue;
        };
        let name: String = after
            .chars()
            .take_while(|c| c.is_alphanumeric() || *c == '_')
            .collect();
        // The signature ends at a body's `{`, or at the `;` of a declaration without one.
        let Some(signature_end) = lines[i..]
            .iter()
            .position(|l| l.trim_end().ends_with('{') || l.trim_end().ends_with(';'))
        else {
            continue;
        };
        if lines[i + signature_end].trim_end().ends_with(';') {
            continue;
        }
        let close = format!("{indent}}}");
        if let Some(end) = lines[i..].iter().position(|l| *l == close)
            && end + 1 > max
        {
            found.push((name, i + 1, end + 1));
        }
    }
    found
}

#[test]
fn no_function_outside_the_tests_is_longer_than_the_limit() {
    let src = Path::new(env!("CARGO_MANIFEST_DIR")).join("src");
    let mut files = Vec::new();
    rust_files(&src, &mut files);
    let mut long = Vec::new();
    for file in &files {
        let relative = file.strip_prefix(&src).unwrap();
        let is_test = relative.components().any(|c| c.as_os_str() == "tests")
            || ["tests.rs", "fixture.rs"]
                .iter()
                .any(|name| relative.file_name().is_some_and(|f| f == *name));
        if is_test {
            continue;
        }
        let source = std::fs::read_to_string(file).unwrap();
        for (name, line, lines) in long_functions(&source, MAX_FUNCTION_LINES) {
            long.push(format!(
                "src/{}:{line}: {name}, {lines} lines",
                relative.display()
            ));
        }
    }
    assert!(
        long.is_empty(),
        "functions over {MAX_FUNCTION_LINES} lines (split them into named parts):\n{}",
        long.join("\n")
    );
}

#[test]
fn long_functions_are_measured_from_signature_to_closing_brace() {
    let body = "        x += 1;\n".repeat(5);
    let source = format!(
        "pub fn short() {{\n}}\n\nimpl X {{\n    pub(crate) async fn long(\n        a: u8,\n    ) -> u8 {{\n{body}    }}\n    fn declared(&self);\n}}\n#[cfg(test)]\nfn in_tests() {{\n{body}}}\n"
    );
    assert_eq!(long_functions(&source, 5), [("long".to_string(), 5, 9)]);
    assert!(long_functions(&source, 9).is_empty());
}

/// The most production files outside a model family's folder that may name it: its
/// registration in the model layer (`model/mod.rs`, `train/settings.rs`, `train/kinds.rs`),
/// its variant and its view in `ide/trained/`, the Python binding's three files, and what is
/// the family's alone (a command of its own, the CLI's help).
const MAX_FILES_NAMING_A_FAMILY: usize = 10;

/// The production sources (`src/`, and the Python package and binding under `python/`) that
/// name `family` (case-insensitively) outside `src/model/<family>/`: test files and the tests
/// at the end of a file (after its first `#[cfg(test)]`) left out.
fn files_naming(family: &str) -> Vec<String> {
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let mut files = Vec::new();
    for (dir, extensions) in [
        ("src", &["rs"][..]),
        ("python/src", &["rs"][..]),
        ("python/rulelens", &["py", "pyi"][..]),
    ] {
        let mut stack = vec![root.join(dir)];
        while let Some(dir) = stack.pop() {
            for entry in std::fs::read_dir(&dir).unwrap() {
                let path = entry.unwrap().path();
                if path.is_dir() {
                    stack.push(path);
                } else if path
                    .extension()
                    .is_some_and(|e| extensions.iter().any(|x| e == *x))
                {
                    files.push(path);
                }
            }
        }
    }
    let own = root.join("src/model").join(family);
    let mut naming: Vec<String> = files
        .into_iter()
        .filter(|file| !file.starts_with(&own))
        .filter(|file| {
            let relative = file.strip_prefix(root).unwrap();
            !(relative.components().any(|c| c.as_os_str() == "tests")
                || ["tests.rs", "testing.rs"]
                    .iter()
                    .any(|name| relative.file_name().is_some_and(|f| f == *name)))
        })
        .filter(|file| {
            let source = std::fs::read_to_string(file).unwrap();
            let production = source.split("\n#[cfg(test)]").next().unwrap_or("");
            production.to_lowercase().contains(family)
        })
        .map(|file| file.strip_prefix(root).unwrap().display().to_string())
        .collect();
    naming.sort();
    naming
}

#[test]
fn a_model_family_is_named_in_few_files_outside_its_folder() {
    // MVMA-G, the family added last, with an editor view and a command of its own.
    let naming = files_naming("mvma");
    assert!(
        naming.len() <= MAX_FILES_NAMING_A_FAMILY,
        "{} production files outside src/model/mvma name MVMA-G (at most {MAX_FILES_NAMING_A_FAMILY}; \
         choose by family in ide/trained, not in the layers above it):\n{}",
        naming.len(),
        naming.join("\n")
    );
    assert!(
        naming.contains(&"src/ide/trained/mod.rs".to_string()),
        "the check found nothing where the family is declared: {naming:?}"
    );
}

/// The most lines of code (neither blank nor only a comment) a source file may have before
/// its tests.
const MAX_FILE_LINES: usize = 800;

/// The lines of code of `source` before its first `#[cfg(test)]`: neither blank nor only a
/// comment.
fn lines_of_code(source: &str) -> usize {
    source
        .split("\n#[cfg(test)]")
        .next()
        .unwrap_or("")
        .lines()
        .map(str::trim)
        .filter(|line| !line.is_empty() && !line.starts_with("//"))
        .count()
}

#[test]
fn no_source_file_outside_the_tests_has_more_lines_of_code_than_the_limit() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let mut files = Vec::new();
    rust_files(&root.join("src"), &mut files);
    rust_files(&root.join("python/src"), &mut files);
    let mut long = Vec::new();
    for file in &files {
        let relative = file.strip_prefix(root).unwrap();
        if relative.components().any(|c| c.as_os_str() == "tests")
            || relative.file_name().is_some_and(|f| f == "tests.rs")
        {
            continue;
        }
        let lines = lines_of_code(&std::fs::read_to_string(file).unwrap());
        if lines > MAX_FILE_LINES {
            long.push(format!("{}: {lines}", relative.display()));
        }
    }
    assert!(files.len() > 100, "found too few files: {}", files.len());
    assert!(
        long.is_empty(),
        "files over {MAX_FILE_LINES} lines of code (split them by what they do):\n{}",
        long.join("\n")
    );
}

#[test]
fn lines_of_code_leave_out_blanks_comments_and_the_tests() {
    let source = "//! doc\nuse x;\n\n/// item\nfn f() {\n    // note\n    g();\n}\n#[cfg(test)]\nmod tests {\n    fn t() {}\n}\n";
    assert_eq!(lines_of_code(source), 4);
}
