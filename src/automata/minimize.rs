//! Hopcroft's DFA minimization over symbol classes (Hopcroft 1971; the "smaller half"
//! worklist of splitter blocks), O(k·n·log n) for n states and k classes.
//!
//! Input is a complete DFA from `determinize.rs` (the state cap lives there). The initial
//! partition is {accepting, non-accepting}; each splitter block refines every block by
//! predecessor sets, class by class. The result is handed to [`Dfa::canonical`], which also
//! merges classes that became indistinguishable and numbers states and classes canonically,
//! so two patterns with the same language get equal [`Dfa`]s.

use super::alphabet::Alphabet;
use super::determinize::RawDfa;
use super::dfa::Dfa;

/// The minimal complete DFA of `raw`'s language.
pub(crate) fn minimize(raw: &RawDfa, alphabet: &Alphabet) -> Dfa {
    let n = raw.accepting.len();
    let k = raw.n_classes;

    // Predecessors by (class, target), in CSR form.
    let mut counts = vec![0u32; k * n + 1];
    for s in 0..n {
        for c in 0..k {
            let t = raw.table[s * k + c] as usize;
            counts[c * n + t + 1] += 1;
        }
    }
    for i in 1..counts.len() {
        counts[i] += counts[i - 1];
    }
    let mut fill = counts.clone();
    let mut preds = vec![0u32; n * k];
    for s in 0..n {
        for c in 0..k {
            let t = raw.table[s * k + c] as usize;
            let slot = &mut fill[c * n + t];
            preds[*slot as usize] = s as u32;
            *slot += 1;
        }
    }

    let mut block_of = vec![0u32; n];
    let mut members: Vec<Vec<u32>> = Vec::new();
    let accepting: Vec<u32> = (0..n as u32)
        .filter(|&s| raw.accepting[s as usize])
        .collect();
    let rejecting: Vec<u32> = (0..n as u32)
        .filter(|&s| !raw.accepting[s as usize])
        .collect();
    for block in [accepting, rejecting] {
        if !block.is_empty() {
            let id = members.len() as u32;
            for &s in &block {
                block_of[s as usize] = id;
            }
            members.push(block);
        }
    }
    let mut in_worklist = vec![false; members.len()];
    let mut worklist = Vec::new();
    if members.len() == 2 {
        let smaller = usize::from(members[1].len() < members[0].len());
        worklist.push(smaller as u32);
        in_worklist[smaller] = true;
    }

    let mut marked = vec![false; n];
    let mut marked_count: Vec<u32> = vec![0; members.len()];
    let mut touched: Vec<u32> = Vec::new();
    let mut sources: Vec<u32> = Vec::new();
    while let Some(splitter) = worklist.pop() {
        in_worklist[splitter as usize] = false;
        let splitter_members = members[splitter as usize].clone();
        for c in 0..k {
            sources.clear();
            for &t in &splitter_members {
                let range = counts[c * n + t as usize]..counts[c * n + t as usize + 1];
                for &s in &preds[range.start as usize..range.end as usize] {
                    if !marked[s as usize] {
                        marked[s as usize] = true;
                        sources.push(s);
                        let b = block_of[s as usize] as usize;
                        if marked_count[b] == 0 {
                            touched.push(b as u32);
                        }
                        marked_count[b] += 1;
                    }
                }
            }
            for &b in &touched {
                let b = b as usize;
                if (marked_count[b] as usize) < members[b].len() {
                    // Split: the marked states move to a new block.
                    let (moved, kept): (Vec<u32>, Vec<u32>) =
                        members[b].iter().partition(|&&s| marked[s as usize]);
                    let new = members.len() as u32;
                    for &s in &moved {
                        block_of[s as usize] = new;
                    }
                    let new_smaller = moved.len() <= kept.len();
                    members[b] = kept;
                    members.push(moved);
                    in_worklist.push(false);
                    marked_count.push(0);
                    if in_worklist[b] || new_smaller {
                        worklist.push(new);
                        in_worklist[new as usize] = true;
                    } else {
                        worklist.push(b as u32);
                        in_worklist[b] = true;
                    }
                }
                marked_count[b] = 0;
            }
            touched.clear();
            for &s in &sources {
                marked[s as usize] = false;
            }
        }
    }

    let n_blocks = members.len();
    let mut table = vec![0u32; n_blocks * k];
    let mut block_accepting = vec![false; n_blocks];
    for (b, block) in members.iter().enumerate() {
        let representative = block[0] as usize;
        block_accepting[b] = raw.accepting[representative];
        for c in 0..k {
            table[b * k + c] = block_of[raw.table[representative * k + c] as usize];
        }
    }
    Dfa::canonical(
        &raw.symbols,
        &raw.symbol_classes,
        k,
        table,
        block_accepting,
        block_of[0],
        alphabet,
    )
}
