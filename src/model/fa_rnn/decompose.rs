//! CP decomposition of a weighted automaton's symbol tensor T1 (S×K×K):
//! `T1[s,i,j] ≈ Σ_r E[s,r]·D1[i,r]·D2[j,r]` (Jiang et al. 2020, §3.2 and appendix B).
//!
//! Two methods:
//! - **Exact** ([`exact`]): one rank-1 term per distinct change a symbol makes to a state's
//!   row of the wildcard matrix (+1 on the edge it takes, −1 on the edge other words take),
//!   whose symbol column is the indicator of the symbols making that change. The
//!   reconstruction is exact, so a network built from it predicts exactly what the rules
//!   predict.
//! - **ALS** ([`als`]): alternating least squares with SVD-based initialisation (leading
//!   eigenvectors of each mode's Gram matrix, columns beyond the mode's size filled with
//!   seeded uniform noise, as tensorly does), stopping when the relative error changes by
//!   less than the tolerance. T1 is sparse (0/1 entries), so the MTTKRPs iterate over
//!   nonzeros and no Khatri-Rao product is formed; each r×r normal equation is solved by
//!   Cholesky with a small ridge. O(iterations · (nnz·r + (S+2K)·r² + r³)).
//!
//! Both end with the factor balancing of appendix B: the three factors are scaled to the
//! same root-mean-square entry, which leaves the reconstruction unchanged. All arithmetic
//! is f64 on the CPU (nalgebra); the network converts to f32.

use crate::model::fa_rnn::weighted::WeightedAutomaton;
use crate::model::nn::rng::SplitMix64;
use nalgebra::{DMatrix, SymmetricEigen};
use std::collections::BTreeMap;

/// Default for [`AlsConfig::max_iterations`].
pub const DEFAULT_ALS_ITERATIONS: usize = 100;
/// Default for [`AlsConfig::tolerance`].
pub const DEFAULT_ALS_TOLERANCE: f64 = 1e-5;

/// How a decomposition was made.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Method {
    Exact,
    Als,
}

/// The three CP factors and how well they reconstruct T1.
#[derive(Debug, Clone, PartialEq)]
pub struct Decomposition {
    pub method: Method,
    /// E_R over symbols: S × r.
    pub symbol_factors: DMatrix<f64>,
    /// D1 (from-state factor): K × r.
    pub from_factors: DMatrix<f64>,
    /// D2 (to-state factor): K × r.
    pub to_factors: DMatrix<f64>,
    /// ‖T1 − T̂1‖_F / ‖T1‖_F (0 when T1 is empty).
    pub relative_error: f64,
}

impl Decomposition {
    pub fn rank(&self) -> usize {
        self.symbol_factors.ncols()
    }
}

/// A nonzero of T1: (symbol, from, to, weight).
type Nonzero = (usize, usize, usize, f64);

/// Nonzeros grouped by two indices, each as (the third index, weight).
type Groups = BTreeMap<(usize, usize), Vec<(usize, f64)>>;

/// Settings of [`als`].
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct AlsConfig {
    /// Most ALS sweeps. Default [`DEFAULT_ALS_ITERATIONS`].
    pub max_iterations: usize,
    /// Stop when the relative error changes by less than this between sweeps. Default
    /// [`DEFAULT_ALS_TOLERANCE`].
    pub tolerance: f64,
    /// Seed of the noise that fills initial columns beyond a mode's size.
    pub seed: u64,
}

impl Default for AlsConfig {
    fn default() -> AlsConfig {
        AlsConfig {
            max_iterations: DEFAULT_ALS_ITERATIONS,
            tolerance: DEFAULT_ALS_TOLERANCE,
            seed: 0,
        }
    }
}

/// A state's row change: (from, the target gaining weight, the target losing weight).
type RowChange = (u32, Option<u32>, Option<u32>);

/// The distinct row changes of T1, each with the symbols making it, in order.
fn row_changes(automaton: &WeightedAutomaton) -> BTreeMap<RowChange, Vec<usize>> {
    let mut per_symbol_row: BTreeMap<(usize, u32), (Option<u32>, Option<u32>)> = BTreeMap::new();
    for t in &automaton.transitions {
        let entry = per_symbol_row
            .entry((t.symbol.index(), t.from))
            .or_default();
        if t.weight > 0.0 {
            entry.0 = Some(t.to);
        } else {
            entry.1 = Some(t.to);
        }
    }
    let mut changes: BTreeMap<RowChange, Vec<usize>> = BTreeMap::new();
    for ((symbol, from), (plus, minus)) in per_symbol_row {
        changes.entry((from, plus, minus)).or_default().push(symbol);
    }
    changes
}

/// The exact decomposition: one rank-1 term per distinct row change.
///
/// ```
/// let text = "default ham\nspam: $* free $*\n";
/// let parse = rulelens::syntax::parse(text);
/// let (rules, _) = rulelens::syntax::lower(&parse, text);
/// let (system, _) = rulelens::automata::compile(&rules, &Default::default());
/// let automaton = rulelens::model::WeightedAutomaton::new(&system);
/// let exact = rulelens::model::decompose::exact(&automaton);
/// assert_eq!(exact.rank(), 1); // `free` moves state 0's weight to state 1
/// assert!(exact.relative_error < 1e-12);
/// ```
pub fn exact(automaton: &WeightedAutomaton) -> Decomposition {
    let changes = row_changes(automaton);
    let rank = changes.len();
    let (s, k) = (automaton.n_symbols, automaton.n_states);
    let mut symbol_factors = DMatrix::zeros(s, rank);
    let mut from_factors = DMatrix::zeros(k, rank);
    let mut to_factors = DMatrix::zeros(k, rank);
    for (r, ((from, plus, minus), symbols)) in changes.iter().enumerate() {
        from_factors[(*from as usize, r)] = 1.0;
        if let Some(plus) = plus {
            to_factors[(*plus as usize, r)] = 1.0;
        }
        if let Some(minus) = minus {
            to_factors[(*minus as usize, r)] = -1.0;
        }
        for &symbol in symbols {
            symbol_factors[(symbol, r)] = 1.0;
        }
    }
    let mut decomposition = Decomposition {
        method: Method::Exact,
        symbol_factors,
        from_factors,
        to_factors,
        relative_error: 0.0,
    };
    balance(&mut decomposition);
    decomposition.relative_error = relative_error(automaton, &decomposition);
    decomposition
}

/// A rank-`rank` CP decomposition by alternating least squares.
pub fn als(automaton: &WeightedAutomaton, rank: usize, config: &AlsConfig) -> Decomposition {
    let rank = rank.max(1);
    let (s, k) = (automaton.n_symbols, automaton.n_states);
    let mut rng = SplitMix64::new(config.seed);
    let nonzeros: Vec<Nonzero> = automaton
        .transitions
        .iter()
        .map(|t| {
            (
                t.symbol.index(),
                t.from as usize,
                t.to as usize,
                f64::from(t.weight),
            )
        })
        .collect();
    // Gram matrices of the three unfoldings, for the SVD initialisation.
    let mut gram = [
        DMatrix::zeros(s, s),
        DMatrix::zeros(k, k),
        DMatrix::zeros(k, k),
    ];
    // Per mode: the nonzeros grouped by their other two indices, as (row, weight).
    let mut groups: [Groups; 3] = Default::default();
    for &(sym, i, j, w) in &nonzeros {
        groups[0].entry((i, j)).or_default().push((sym, w));
        groups[1].entry((sym, j)).or_default().push((i, w));
        groups[2].entry((sym, i)).or_default().push((j, w));
    }
    for (mode, group) in groups.iter().enumerate() {
        for members in group.values() {
            for &(a, wa) in members {
                for &(b, wb) in members {
                    gram[mode][(a, b)] += wa * wb;
                }
            }
        }
    }
    let [gram_s, gram_from, gram_to] = gram;
    let mut a = svd_init(gram_s, rank, &mut rng);
    let mut b = svd_init(gram_from, rank, &mut rng);
    let mut c = svd_init(gram_to, rank, &mut rng);

    let mut decomposition = Decomposition {
        method: Method::Als,
        symbol_factors: a.clone(),
        from_factors: b.clone(),
        to_factors: c.clone(),
        relative_error: f64::INFINITY,
    };
    let mut previous = f64::INFINITY;
    for _ in 0..config.max_iterations {
        a = solve_mode(&nonzeros, 0, s, &b, &c);
        b = solve_mode(&nonzeros, 1, k, &a, &c);
        c = solve_mode(&nonzeros, 2, k, &a, &b);
        decomposition.symbol_factors = a.clone();
        decomposition.from_factors = b.clone();
        decomposition.to_factors = c.clone();
        let error = relative_error(automaton, &decomposition);
        decomposition.relative_error = error;
        if (previous - error).abs() < config.tolerance {
            break;
        }
        previous = error;
    }
    balance(&mut decomposition);
    decomposition.relative_error = relative_error(automaton, &decomposition);
    decomposition
}

/// The leading `rank` eigenvectors of a Gram matrix (the left singular vectors of the
/// unfolding), with uniform [0, 1) noise for the columns the mode cannot fill.
fn svd_init(gram: DMatrix<f64>, rank: usize, rng: &mut SplitMix64) -> DMatrix<f64> {
    let n = gram.nrows();
    let eigen = SymmetricEigen::new(gram);
    let mut order: Vec<usize> = (0..n).collect();
    order.sort_by(|&x, &y| eigen.eigenvalues[y].total_cmp(&eigen.eigenvalues[x]));
    let mut factor = DMatrix::zeros(n, rank);
    for r in 0..rank {
        match order.get(r) {
            // A little noise breaks the symmetries that make pure singular vectors a saddle
            // point of ALS on these 0/±1 tensors.
            Some(&column) => {
                let scale = 0.1 / (n as f64).sqrt();
                for i in 0..n {
                    factor[(i, r)] =
                        eigen.eigenvectors[(i, column)] + scale * (rng.next_f64() - 0.5);
                }
            }
            None => {
                for i in 0..n {
                    factor[(i, r)] = rng.next_f64();
                }
            }
        }
    }
    factor
}

/// One ALS update: the factor of `mode` (with `n_rows` rows) minimising the error given the
/// other two factors, `MTTKRP · ((PᵀP) ⊙ (QᵀQ))⁻¹`.
fn solve_mode(
    nonzeros: &[Nonzero],
    mode: usize,
    n_rows: usize,
    p: &DMatrix<f64>,
    q: &DMatrix<f64>,
) -> DMatrix<f64> {
    let rank = p.ncols();
    let mut mttkrp = DMatrix::<f64>::zeros(n_rows, rank);
    for &(s, i, j, w) in nonzeros {
        let (row, x, y) = match mode {
            0 => (s, i, j),
            1 => (i, s, j),
            _ => (j, s, i),
        };
        for r in 0..rank {
            mttkrp[(row, r)] += w * p[(x, r)] * q[(y, r)];
        }
    }
    let mut hadamard = (p.transpose() * p).component_mul(&(q.transpose() * q));
    let ridge = 1e-9 * (hadamard.trace() / rank as f64).max(1e-12);
    for r in 0..rank {
        hadamard[(r, r)] += ridge;
    }
    match hadamard.clone().cholesky() {
        Some(cholesky) => cholesky.solve(&mttkrp.transpose()).transpose(),
        // Not positive definite even with the ridge: fall back to the pseudo-inverse.
        None => match hadamard.pseudo_inverse(1e-12) {
            Ok(pinv) => mttkrp * pinv,
            Err(_) => DMatrix::zeros(n_rows, rank),
        },
    }
}

/// Scales the three factors to the same root-mean-square entry (appendix B); the product,
/// and so the reconstruction, is unchanged.
fn balance(decomposition: &mut Decomposition) {
    let rms = |m: &DMatrix<f64>| m.norm() / (m.len().max(1) as f64).sqrt();
    let (a, b, c) = (
        rms(&decomposition.symbol_factors),
        rms(&decomposition.from_factors),
        rms(&decomposition.to_factors),
    );
    if a == 0.0 || b == 0.0 || c == 0.0 {
        return;
    }
    let target = (a * b * c).cbrt();
    decomposition.symbol_factors *= target / a;
    decomposition.from_factors *= target / b;
    decomposition.to_factors *= target / c;
}

/// ‖T1 − T̂1‖_F / ‖T1‖_F, computed from the nonzeros and the factors' Gram matrices:
/// ‖T̂1‖² = 1ᵀ[(AᵀA)⊙(BᵀB)⊙(CᵀC)]1 and ⟨T1,T̂1⟩ = Σ_nz Σ_r A·B·C.
pub fn relative_error(automaton: &WeightedAutomaton, decomposition: &Decomposition) -> f64 {
    let norm_sq: f64 = automaton
        .transitions
        .iter()
        .map(|t| f64::from(t.weight).powi(2))
        .sum();
    if norm_sq == 0.0 {
        return 0.0;
    }
    let (a, b, c) = (
        &decomposition.symbol_factors,
        &decomposition.from_factors,
        &decomposition.to_factors,
    );
    let model_sq = (a.transpose() * a)
        .component_mul(&(b.transpose() * b))
        .component_mul(&(c.transpose() * c))
        .sum();
    let inner: f64 = automaton
        .transitions
        .iter()
        .map(|t| {
            let (s, i, j) = (t.symbol.index(), t.from as usize, t.to as usize);
            let model: f64 = (0..a.ncols())
                .map(|r| a[(s, r)] * b[(i, r)] * c[(j, r)])
                .sum();
            f64::from(t.weight) * model
        })
        .sum();
    ((norm_sq - 2.0 * inner + model_sq).abs()).sqrt() / norm_sq.sqrt()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn automaton(text: &str) -> WeightedAutomaton {
        let parse = crate::syntax::parse(text);
        let (rules, _) = crate::syntax::lower(&parse, text);
        let (system, _) = crate::automata::compile(&rules, &Default::default());
        WeightedAutomaton::new(&system)
    }

    #[test]
    fn exact_has_one_term_per_row_change_and_no_error() {
        let automaton =
            automaton("default ham\nspam: $* free $* call $*\nham: $* ( hi | hey ) $*\n");
        let exact = exact(&automaton);
        // `free` leaves state 0, `call` leaves state 1, `hi`/`hey` leave ham's start.
        assert_eq!(exact.rank(), 3);
        assert!(exact.relative_error < 1e-6, "{}", exact.relative_error);
    }

    #[test]
    fn als_recovers_a_low_rank_automaton() {
        let automaton = automaton("default ham\nspam: $* free $* call $*\nham: $* hi $*\n");
        let config = AlsConfig {
            max_iterations: 300,
            tolerance: 0.0,
            seed: 0,
        };
        let low = als(&automaton, 2, &config);
        let full = als(&automaton, 3, &config);
        assert!(
            low.relative_error > 0.1,
            "rank 2 cannot be exact: {}",
            low.relative_error
        );
        assert!(
            full.relative_error < 1e-4,
            "rank 3 is: {}",
            full.relative_error
        );
        assert_eq!(als(&automaton, 3, &config), full, "seeded runs repeat");
    }
}
