//! Ensembles of the FA-RNN family: members trained side by side from the same rules
//! (`train/members.rs`) with consecutive seeds (each its own batch order and free-state noise, each stopped
//! early on dev), whose label logits are averaged. Every member computes the rule system
//! untrained, so the ensemble does too; and since each member's logits are sums of its
//! patterns' contributions, so are their mean's, and the hover's explanations stay exact.
//! In checkpoints member 0's tensors keep their names and member i's carry the prefix
//! `member{i}.` ([`member_prefix`]).

use crate::model::nn::batch::Batch;
use crate::model::nn::network::Network;
use candle_core::{Result, Tensor, Var};
use std::any::Any;
use std::collections::HashMap;

/// The most members an ensemble may have: each is a whole network, trained and run in turn.
pub const MAX_MEMBERS: usize = 64;

/// The prefix of member `i`'s tensor names in a checkpoint (none for member 0).
pub fn member_prefix(i: usize) -> String {
    if i == 0 {
        String::new()
    } else {
        format!("member{i}.")
    }
}

/// The member a checkpoint tensor's name belongs to, when it is not member 0, and the name
/// within that member.
pub fn member_of(name: &str) -> Option<(usize, &str)> {
    let (index, rest) = name.strip_prefix("member")?.split_once('.')?;
    let index: usize = index.parse().ok()?;
    (index >= 1).then_some((index, rest))
}

/// A checkpoint's tensors split by member, in member order: member 0's are the names with
/// no `member{i}.` prefix. Members must be numbered 1, 2, … without a gap.
pub fn split_members(tensors: HashMap<String, Tensor>) -> Result<Vec<HashMap<String, Tensor>>> {
    let mut members: Vec<HashMap<String, Tensor>> = vec![HashMap::new()];
    for (name, tensor) in tensors {
        match member_of(&name) {
            Some((i, rest)) => {
                if i >= MAX_MEMBERS {
                    candle_core::bail!(
                        "the tensor `{name}` names member {i}, and an ensemble has at most {MAX_MEMBERS}"
                    );
                }
                if members.len() <= i {
                    members.resize_with(i + 1, HashMap::new);
                }
                members[i].insert(rest.to_string(), tensor);
            }
            None => {
                members[0].insert(name, tensor);
            }
        }
    }
    if let Some(i) = members.iter().position(HashMap::is_empty) {
        candle_core::bail!("the tensors of ensemble member {i} are missing");
    }
    Ok(members)
}

/// Networks of the FA-RNN family whose label logits are averaged.
pub struct Ensemble {
    /// At least two, each an `FaRnn` or a `BiFaRnn` of the same rules.
    pub members: Vec<Box<dyn Network>>,
}

impl Ensemble {
    /// What `named` gives of each member, its names with the member's prefix.
    fn prefixed<T>(&self, named: impl Fn(&dyn Network) -> Vec<(String, T)>) -> Vec<(String, T)> {
        let mut out = Vec::new();
        for (i, member) in self.members.iter().enumerate() {
            let prefix = member_prefix(i);
            out.extend(
                named(member.as_ref())
                    .into_iter()
                    .map(|(name, value)| (format!("{prefix}{name}"), value)),
            );
        }
        out
    }
}

impl Network for Ensemble {
    fn logits(&self, batch: &Batch) -> Result<Tensor> {
        let mut sum: Option<Tensor> = None;
        for member in &self.members {
            let logits = member.logits(batch)?;
            sum = Some(match sum {
                None => logits,
                Some(sum) => (sum + logits)?,
            });
        }
        let sum =
            sum.ok_or_else(|| candle_core::Error::Msg("an ensemble without members".into()))?;
        sum.affine(1.0 / self.members.len() as f64, 0.0)
    }

    fn training_bytes_per_token(&self) -> u64 {
        self.members
            .iter()
            .map(|member| member.training_bytes_per_token())
            .sum()
    }

    fn parameters(&self) -> Vec<Var> {
        self.members
            .iter()
            .flat_map(|member| member.parameters())
            .collect()
    }

    fn head_parameters(&self) -> Vec<Var> {
        self.members
            .iter()
            .flat_map(|member| member.head_parameters())
            .collect()
    }

    fn parameter_names(&self) -> Vec<String> {
        self.prefixed(|member| {
            let names = member.parameter_names();
            names.into_iter().map(|name| (name, ())).collect()
        })
        .into_iter()
        .map(|(name, ())| name)
        .collect()
    }

    fn named_tensors(&self) -> Vec<(String, Tensor)> {
        self.prefixed(|member| member.named_tensors())
    }

    fn as_any(&self) -> &dyn Any {
        self
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use candle_core::Device;

    fn tensors(names: &[&str]) -> HashMap<String, Tensor> {
        names
            .iter()
            .map(|name| {
                (
                    name.to_string(),
                    Tensor::zeros(1, candle_core::DType::F32, &Device::Cpu).unwrap(),
                )
            })
            .collect()
    }

    #[test]
    fn a_checkpoints_tensors_split_by_member_and_a_gap_or_a_member_too_many_is_refused() {
        let split = split_members(tensors(&[
            "d1",
            "backward.d1",
            "member1.d1",
            "member2.backward.d1",
            "membership",
        ]))
        .unwrap();
        let names: Vec<Vec<&str>> = split
            .iter()
            .map(|member| {
                let mut names: Vec<&str> = member.keys().map(String::as_str).collect();
                names.sort_unstable();
                names
            })
            .collect();
        assert_eq!(
            names,
            [
                vec!["backward.d1", "d1", "membership"],
                vec!["d1"],
                vec!["backward.d1"]
            ]
        );
        let gap = split_members(tensors(&["d1", "member2.d1"])).unwrap_err();
        assert!(
            gap.to_string().contains("ensemble member 1 are missing"),
            "{gap}"
        );
        let past = split_members(tensors(&["d1", "member64.d1"])).unwrap_err();
        assert!(past.to_string().contains("at most 64"), "{past}");
        assert_eq!(member_of("member0.d1"), None);
        assert_eq!(member_of("member3.d1"), Some((3, "d1")));
    }
}
