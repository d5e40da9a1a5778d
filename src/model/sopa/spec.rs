//! The free soft patterns a SoPa learns, as the paper's code writes them: `5:10,4:10`
//! is ten patterns of five states (four tokens) and ten of four (papers-brief §2.2).

use serde::{Deserialize, Deserializer, Serialize, Serializer};
use std::borrow::Cow;
use std::fmt;
use std::str::FromStr;

/// The most states a pattern may have: beyond it a typo, not a wish (each state is a
/// column of every step's work).
pub const MAX_PATTERN_STATES: usize = 16;
/// The most free patterns a spec may ask for (each is a row of transitions per state).
pub const MAX_FREE_PATTERNS: usize = 4_096;

/// How many free patterns of how many states: `(states, count)` pairs, longest first.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct PatternSpec(pub Cow<'static, [(usize, usize)]>);

impl PatternSpec {
    /// The patterns' state counts, longest first.
    pub fn lengths(&self) -> Vec<usize> {
        let mut lengths: Vec<usize> = self
            .0
            .iter()
            .flat_map(|&(states, count)| std::iter::repeat_n(states, count))
            .collect();
        lengths.sort_by_key(|&states| std::cmp::Reverse(states));
        lengths
    }

    /// How many patterns the spec names.
    pub fn n_patterns(&self) -> usize {
        self.0.iter().map(|&(_, count)| count).sum()
    }
}

impl FromStr for PatternSpec {
    type Err = String;

    /// `STATES:COUNT` pairs separated by commas; `none` (or nothing) for no free pattern.
    fn from_str(text: &str) -> Result<PatternSpec, String> {
        let text = text.trim();
        if text.is_empty() || text == "none" {
            return Ok(PatternSpec(Cow::Owned(Vec::new())));
        }
        let mut pairs = Vec::new();
        for part in text.split(',') {
            let bad = || format!("`{part}` is not STATES:COUNT (such as `5:10`)");
            let (states, count) = part.trim().split_once(':').ok_or_else(bad)?;
            let states: usize = states.trim().parse().map_err(|_| bad())?;
            let count: usize = count.trim().parse().map_err(|_| bad())?;
            if !(2..=MAX_PATTERN_STATES).contains(&states) {
                return Err(format!(
                    "a pattern has between 2 and {MAX_PATTERN_STATES} states, not {states}"
                ));
            }
            pairs.push((states, count));
        }
        let spec = PatternSpec(Cow::Owned(pairs));
        if spec.n_patterns() > MAX_FREE_PATTERNS {
            return Err(format!(
                "at most {MAX_FREE_PATTERNS} free patterns, not {}",
                spec.n_patterns()
            ));
        }
        Ok(spec)
    }
}

impl fmt::Display for PatternSpec {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        if self.0.is_empty() {
            return write!(f, "none");
        }
        for (i, (states, count)) in self.0.iter().enumerate() {
            write!(f, "{}{states}:{count}", if i > 0 { "," } else { "" })?;
        }
        Ok(())
    }
}

impl Serialize for PatternSpec {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        serializer.collect_str(self)
    }
}

impl<'de> Deserialize<'de> for PatternSpec {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<PatternSpec, D::Error> {
        let text = String::deserialize(deserializer)?;
        text.parse().map_err(serde::de::Error::custom)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn specs_read_and_print_as_the_paper_writes_them() {
        let spec: PatternSpec = "5:2, 3:1".parse().unwrap();
        assert_eq!(spec.lengths(), [5, 5, 3]);
        assert_eq!(spec.to_string(), "5:2,3:1");
        assert_eq!("none".parse::<PatternSpec>().unwrap().n_patterns(), 0);
        assert_eq!(
            "5-10".parse::<PatternSpec>().unwrap_err(),
            "`5-10` is not STATES:COUNT (such as `5:10`)"
        );
        assert_eq!(
            "40:1".parse::<PatternSpec>().unwrap_err(),
            "a pattern has between 2 and 16 states, not 40"
        );
    }
}
