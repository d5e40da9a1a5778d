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

use super::rng::SplitMix64;
use candle_core::{Device, Result, Tensor, Var};

/// The gates' sigmoid slope.
pub const GATE_SLOPE: f64 = 5.0;
/// The gates' initial bias.
pub const GATE_BIAS: f32 = 7.0;

/// One gate: `σ(SLOPE·(h U + z V + b))`.
#[derive(Debug, Clone)]
pub(crate) struct Gate {
    /// [K, K]
    pub(crate) state: Var,
    /// [r, K]
    pub(crate) token: Var,
    /// [K]
    pub(crate) bias: Var,
}

/// The update and reset gates.
#[derive(Debug, Clone)]
pub(crate) struct Gates {
    pub(crate) update: Gate,
    pub(crate) reset: Gate,
}

/// Xavier-normal [rows, cols] from a seeded generator (Box–Muller).
fn xavier(rows: usize, cols: usize, rng: &mut SplitMix64, device: &Device) -> Result<Tensor> {
    let std = (2.0 / (rows + cols) as f64).sqrt();
    let data: Vec<f32> = (0..rows * cols)
        .map(|_| {
            let (u1, u2) = (rng.next_f64().max(f64::MIN_POSITIVE), rng.next_f64());
            (std * (-2.0 * u1.ln()).sqrt() * (std::f64::consts::TAU * u2).cos()) as f32
        })
        .collect();
    Tensor::from_vec(data, (rows, cols), device)
}

impl Gate {
    fn new(states: usize, rank: usize, rng: &mut SplitMix64, device: &Device) -> Result<Gate> {
        Ok(Gate {
            state: Var::from_tensor(&xavier(states, states, rng, device)?)?,
            token: Var::from_tensor(&xavier(rank, states, rng, device)?)?,
            bias: Var::from_tensor(&Tensor::full(GATE_BIAS, states, device)?)?,
        })
    }

    /// [batch, K] from h [batch, K] and z [batch, r].
    fn open(&self, h: &Tensor, z: &Tensor) -> Result<Tensor> {
        let pre = (h.matmul(self.state.as_tensor())? + z.matmul(self.token.as_tensor())?)?
            .broadcast_add(self.bias.as_tensor())?;
        candle_nn::ops::sigmoid(&pre.affine(GATE_SLOPE, 0.0)?)
    }

    pub(crate) fn vars(&self) -> [&Var; 3] {
        [&self.state, &self.token, &self.bias]
    }
}

impl Gates {
    pub(crate) fn new(states: usize, rank: usize, seed: u64, device: &Device) -> Result<Gates> {
        let mut rng = SplitMix64::new(seed ^ 0x6a09_e667_f3bc_c908);
        Ok(Gates {
            update: Gate::new(states, rank, &mut rng, device)?,
            reset: Gate::new(states, rank, &mut rng, device)?,
        })
    }

    /// The tensors under their checkpoint names.
    pub(crate) fn named(&self) -> Vec<(&'static str, &Var)> {
        let [us, ut, ub] = self.update.vars();
        let [rs, rt, rb] = self.reset.vars();
        vec![
            ("update_state", us),
            ("update_token", ut),
            ("update_bias", ub),
            ("reset_state", rs),
            ("reset_token", rt),
            ("reset_bias", rb),
        ]
    }

    /// Gates from checkpoint tensors by name, if all six are there.
    pub(crate) fn from_named(
        take: &mut impl FnMut(&str) -> Option<Tensor>,
    ) -> Result<Option<Gates>> {
        let names = [
            "update_state",
            "update_token",
            "update_bias",
            "reset_state",
            "reset_token",
            "reset_bias",
        ];
        let tensors: Vec<Option<Tensor>> = names.iter().map(|n| take(n)).collect();
        if tensors.iter().all(Option::is_none) {
            return Ok(None);
        }
        let mut vars = Vec::with_capacity(6);
        for (name, tensor) in names.iter().zip(tensors) {
            match tensor {
                Some(tensor) => vars.push(Var::from_tensor(&tensor)?),
                None => candle_core::bail!("gate tensor `{name}` is missing"),
            }
        }
        let mut vars = vars.into_iter();
        let mut gate = || -> Option<Gate> {
            Some(Gate {
                state: vars.next()?,
                token: vars.next()?,
                bias: vars.next()?,
            })
        };
        match (gate(), gate()) {
            (Some(update), Some(reset)) => Ok(Some(Gates { update, reset })),
            _ => candle_core::bail!("gate tensors are incomplete"),
        }
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
