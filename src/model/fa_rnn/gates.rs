//! The gates of FA-GRU (Jiang et al. 2020, §3.5; papers-brief §1.10): an update gate u and a
//! reset gate r around the FA-RNN step,
//! ```text
//! u = σ(5·(h U_u + z V_u + b_u))      r = σ(5·(h U_r + z V_r + b_r))
//! ĥ = (1 − r) ⊙ h₀ + r ⊙ h            h' = (1 − u) ⊙ h + u ⊙ step(ĥ, z)
//! ```
//! where `step` is the FA-RNN transition and h₀ the start vector (the reference resets to
//! the state after BOS, which is what h₀ is here: rulelens has no BOS token). U and V start
//! Xavier-normal (seeded), the biases at 7, so that both gates start at σ(≥ 20), which is
//! 1 in f32: the untrained FA-GRU computes exactly what the FA-RNN computes.

use crate::model::nn::parameters::{Init, Parameters};
use crate::model::nn::rng::SplitMix64;
use candle_core::{Result, Tensor};

/// The gates' sigmoid slope.
pub const GATE_SLOPE: f64 = 5.0;
/// The gates' initial bias.
pub const GATE_BIAS: f32 = 7.0;

/// One gate: `σ(SLOPE·(h U + z V + b))`.
#[derive(Debug, Clone)]
pub(crate) struct Gate {
    /// [K, K]
    pub(crate) state: Tensor,
    /// [r, K]
    pub(crate) token: Tensor,
    /// [K]
    pub(crate) bias: Tensor,
}

/// The update and reset gates.
#[derive(Debug, Clone)]
pub(crate) struct Gates {
    pub(crate) update: Gate,
    pub(crate) reset: Gate,
}

/// Xavier-normal [rows, cols] values from a seeded generator (Box–Muller).
fn xavier(rows: usize, cols: usize, rng: &mut SplitMix64) -> Vec<f32> {
    let std = (2.0 / (rows + cols) as f64).sqrt();
    (0..rows * cols)
        .map(|_| {
            let (u1, u2) = (rng.next_f64().max(f64::MIN_POSITIVE), rng.next_f64());
            (std * (-2.0 * u1.ln()).sqrt() * (std::f64::consts::TAU * u2).cos()) as f32
        })
        .collect()
}

impl Gate {
    /// Declares the gate `name` (`update`, `reset`): `NAME_state`, `NAME_token`, `NAME_bias`.
    fn declare(
        parameters: &mut Parameters,
        name: &str,
        (states, rank): (usize, usize),
        rng: &mut SplitMix64,
    ) -> Result<Gate> {
        Ok(Gate {
            state: parameters.declare(
                &format!("{name}_state"),
                &[states, states],
                Init::Values(xavier(states, states, rng)),
                true,
            )?,
            token: parameters.declare(
                &format!("{name}_token"),
                &[rank, states],
                Init::Values(xavier(rank, states, rng)),
                true,
            )?,
            bias: parameters.declare(
                &format!("{name}_bias"),
                &[states],
                Init::Values(vec![GATE_BIAS; states]),
                true,
            )?,
        })
    }

    /// [batch, K] from h [batch, K] and z [batch, r].
    fn open(&self, h: &Tensor, z: &Tensor) -> Result<Tensor> {
        let pre = (h.matmul(&self.state)? + z.matmul(&self.token)?)?.broadcast_add(&self.bias)?;
        candle_nn::ops::sigmoid(&pre.affine(GATE_SLOPE, 0.0)?)
    }
}

impl Gates {
    /// Declares both gates of a network of `states` states and rank `rank` in `parameters`
    /// (fresh ones drawn from `seed`).
    pub(crate) fn declare(
        parameters: &mut Parameters,
        states: usize,
        rank: usize,
        seed: u64,
    ) -> Result<Gates> {
        let mut rng = SplitMix64::new(seed ^ 0x6a09_e667_f3bc_c908);
        Ok(Gates {
            update: Gate::declare(parameters, "update", (states, rank), &mut rng)?,
            reset: Gate::declare(parameters, "reset", (states, rank), &mut rng)?,
        })
    }

    /// Whether `name` is one of the gates' tensors.
    pub(crate) fn is_gate_tensor(name: &str) -> bool {
        ["update", "reset"]
            .iter()
            .any(|gate| name.starts_with(gate) && name[gate.len()..].starts_with('_'))
    }

    /// One gated step: `h` [batch, K], `start` [batch, K], `z` [batch, r], `step` the FA-RNN
    /// transition.
    pub(crate) fn step(
        &self,
        h: &Tensor,
        start: &Tensor,
        z: &Tensor,
        step: impl Fn(&Tensor) -> Result<Tensor>,
    ) -> Result<Tensor> {
        let update = self.update.open(h, z)?;
        let reset = self.reset.open(h, z)?;
        let reset_to = ((start * reset.affine(-1.0, 1.0)?)? + (h * &reset)?)?;
        let candidate = step(&reset_to)?;
        (h * update.affine(-1.0, 1.0)?)? + (candidate * update)?
    }
}
