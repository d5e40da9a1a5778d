//! W0408: the files a rules file reads, its `words NAME from "PATH"` lists and its `corpus`
//! bindings, that lie outside the editor's workspace folders. The language server reads
//! what a rules file names, so a rules file from a repository one does not trust could read
//! any file of the user's: its text would be copied into the checkpoints training writes,
//! and a corpus's lines quoted in diagnostics and hovers. The warning says so where the path
//! is written. Only the user's `lints` setting silences it: the file's own
//! `# rulelens: allow(…)` comments do not, since they are the untrusted file's to write.
//!
//! A path is resolved as the reads resolve it (relative to the rules file), then with its
//! symbolic links followed where the file exists, so that a link inside the workspace to a
//! file outside it counts as outside. Cost: one `canonicalize` per path read.

use crate::diagnostic::{Code, Diagnostic};
use crate::rules_file::RulesFile;
use std::path::{Component, Path, PathBuf};
use text_size::TextRange;

/// W0408 for each file `file` reads from outside every folder of `folders`; none without a
/// workspace folder, or for a rules file without a path (whose relative paths read nothing).
pub fn outside_workspace(file: &RulesFile, folders: &[PathBuf]) -> Vec<Diagnostic> {
    let Some(dir) = file.path.as_deref().and_then(Path::parent) else {
        return Vec::new();
    };
    if folders.is_empty() {
        return Vec::new();
    }
    let folders: Vec<PathBuf> = folders.iter().map(|folder| resolved(folder)).collect();
    let word_files = (file.rules.word_lists.iter())
        .filter_map(|list| list.file.as_ref())
        .map(|read| (read.path.as_str(), read.path_range, "word list"));
    let corpora = (file.rules.corpora.iter())
        .map(|binding| (binding.path.as_str(), binding.path_range, "corpus"));
    let mut found = Vec::new();
    for (path, range, what) in word_files.chain(corpora) {
        let read = resolved(&dir.join(path));
        if folders.iter().any(|folder| read.starts_with(folder)) {
            continue;
        }
        found.push(outside(path, range, what));
    }
    found
}

fn outside(path: &str, range: TextRange, what: &str) -> Diagnostic {
    Diagnostic::new(
        Code::PathOutsideWorkspace,
        range,
        format!(
            "the {what} `{path}` is outside the workspace folders, and the language server reads it"
        ),
    )
    .with_help(
        "keep the files a rules file reads inside the workspace; to trust such paths, add \
         `path-outside-workspace` to the `lints.allow` setting (a comment in the file does not)",
    )
}

/// `path` with its symbolic links followed where it exists, else with its `.` and `..`
/// components taken out as written.
fn resolved(path: &Path) -> PathBuf {
    std::fs::canonicalize(path).unwrap_or_else(|_| {
        let mut out = PathBuf::new();
        for component in path.components() {
            match component {
                Component::CurDir => {}
                Component::ParentDir => {
                    out.pop();
                }
                other => out.push(other),
            }
        }
        out
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::text::SourceText;

    /// The paths W0408 is reported on, as written.
    fn warned(file: &RulesFile, folders: &[PathBuf]) -> Vec<String> {
        outside_workspace(file, folders)
            .iter()
            .map(|d| {
                assert_eq!(d.code, Code::PathOutsideWorkspace);
                file.source.text[d.range].to_string()
            })
            .collect()
    }

    #[test]
    fn files_read_from_outside_the_workspace_folders_are_warned_of() {
        let dir = std::env::temp_dir().join(format!("rulelens-outside-{}", std::process::id()));
        let workspace = dir.join("workspace");
        std::fs::create_dir_all(workspace.join("lists")).unwrap();
        std::fs::write(dir.join("secret.txt"), "free\n").unwrap();
        std::fs::write(workspace.join("lists/cash.txt"), "cash\n").unwrap();
        std::fs::write(dir.join("other.tsv"), "spam\tfree\n").unwrap();
        std::fs::write(workspace.join("train.tsv"), "spam\tfree\n").unwrap();
        #[cfg(unix)]
        std::os::unix::fs::symlink(dir.join("secret.txt"), workspace.join("link.txt")).unwrap();
        let text = format!(
            "default ham\n\
             words secret from \"../secret.txt\"\n\
             words cash from \"lists/cash.txt\"\n\
             words inside_and_out from \"lists/../../workspace/lists/cash.txt\"\n\
             words absolute from \"{}\"\n\
             words linked from \"link.txt\"\n\
             # rulelens: allow(path-outside-workspace)\n\
             spam: $* ( @secret | @cash | @inside_and_out | @absolute | @linked ) $*\n\
             corpus train \"train.tsv\"\n\
             corpus dev \"../other.tsv\"\n",
            dir.join("secret.txt").display()
        );
        let rules = workspace.join("a.rules");
        let file = RulesFile::analyze(
            SourceText::from_bytes(text.as_bytes()),
            Some(&rules),
            &Default::default(),
        );
        let absolute = format!("\"{}\"", dir.join("secret.txt").display());
        let mut expected = vec!["\"../secret.txt\"", absolute.as_str()];
        if cfg!(unix) {
            // A link inside the workspace to a file outside it is outside.
            expected.push("\"link.txt\"");
        }
        // A comment in the file does not silence it: the file is what is not trusted.
        expected.push("\"../other.tsv\"");
        assert_eq!(warned(&file, std::slice::from_ref(&workspace)), expected);
        // A second folder that holds them, or a folder above, trusts them.
        assert!(warned(&file, &[workspace.clone(), dir.clone()]).is_empty());
        // Without a workspace folder, or for an untitled buffer, nothing is outside.
        assert!(warned(&file, &[]).is_empty());
        let untitled = RulesFile::analyze(
            SourceText::from_bytes(text.as_bytes()),
            None,
            &Default::default(),
        );
        assert!(warned(&untitled, std::slice::from_ref(&workspace)).is_empty());
        std::fs::remove_dir_all(&dir).unwrap();
    }
}
