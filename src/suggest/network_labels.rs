//! Train lines without a gold label, labeled by a trained network, so that with a handful
//! of gold lines suggestions are still judged on the whole train corpus (`rulelens suggest
//! --model`; `docs/cli.md`, "Few gold labels").

use crate::corpus::Example;

/// Gives every line of `examples` without a gold label the label `label_texts` gives its text
/// (a trained network's most probable one, `LoadedModel::most_probable_labels`), and says
/// how many it labeled; gold labels stay as they are.
pub fn label_unlabeled<E>(
    examples: &mut [Example],
    label_texts: impl FnOnce(&[&str]) -> Result<Vec<String>, E>,
) -> Result<usize, E> {
    let unlabeled: Vec<usize> = (0..examples.len())
        .filter(|&i| examples[i].label.is_none())
        .collect();
    let texts: Vec<&str> = unlabeled
        .iter()
        .map(|&i| examples[i].text.as_str())
        .collect();
    let labels = label_texts(&texts)?;
    for (&i, label) in unlabeled.iter().zip(labels) {
        examples[i].label = Some(label);
    }
    Ok(unlabeled.len())
}
