//! Provenance comments for the edits `rulelens suggest` applies (`refine`): above each line
//! an edit writes, a comment with what the edit is and its evidence; where an edit only
//! removes lines, a comment with what was removed. So the rules file says, after
//! `suggest --write`, which rules were suggested and on what figures.
//!
//! The comment starts `# suggested by rulelens:`, which no allow directive reads
//! (`syntax::allow`), and the lines an edit touched are found by a line diff of the texts
//! before and after it.

use super::candidate::Suggestion;
use similar::{DiffOp, TextDiff};

/// `after` (the rules text once `suggestion` is applied to `before`) with its provenance
/// comments.
pub fn with_provenance(before: &str, after: &str, suggestion: &Suggestion) -> String {
    let evidence = &suggestion.evidence;
    let figures = format!(
        "fixes {} train line{}, breaks {}; dev accuracy {:.2}% → {:.2}%",
        evidence.fixed,
        if evidence.fixed == 1 { "" } else { "s" },
        evidence.broken,
        100.0 * evidence.dev_before,
        100.0 * evidence.dev_after
    );
    let old: Vec<&str> = before.split_inclusive('\n').collect();
    let new: Vec<&str> = after.split_inclusive('\n').collect();
    let diff = TextDiff::from_slices(&old, &new);
    // Per line of `after`, the comment to put above it; and one for its end.
    let mut above: Vec<Option<String>> = vec![None; new.len() + 1];
    let ops = diff.ops();
    let only_removes = ops
        .iter()
        .all(|op| matches!(op, DiffOp::Equal { .. } | DiffOp::Delete { .. }));
    for op in ops {
        match *op {
            DiffOp::Insert { new_index, .. } | DiffOp::Replace { new_index, .. } => {
                above[new_index] = Some(format!(
                    "# suggested by rulelens: {} ({figures})\n",
                    suggestion.describe()
                ));
            }
            DiffOp::Delete {
                old_index,
                old_len,
                new_index,
            } if only_removes => {
                let removed: Vec<&str> = old[old_index..old_index + old_len]
                    .iter()
                    .map(|line| line.trim_end())
                    .collect();
                above[new_index] = Some(format!(
                    "# suggested by rulelens: removed `{}` ({figures})\n",
                    removed.join(" / ")
                ));
            }
            DiffOp::Equal { .. } | DiffOp::Delete { .. } => {}
        }
    }
    let mut out = String::with_capacity(after.len() + 200);
    for (index, line) in new.iter().enumerate() {
        if let Some(comment) = &above[index] {
            out.push_str(comment);
        }
        out.push_str(line);
    }
    if let Some(comment) = &above[new.len()] {
        if !out.is_empty() && !out.ends_with('\n') {
            out.push('\n');
        }
        out.push_str(comment);
    }
    out
}
