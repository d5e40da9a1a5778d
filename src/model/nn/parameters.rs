//! A network's tensors, declared once: each is named, shaped and initialised in one call of
//! [`Parameters::declare`], which either makes it (a fresh network) or takes it from a
//! checkpoint, checking its shape against the declaration. The trainable set, the
//! checkpoint's names and the shape checks all follow from the declarations, the way
//! candle's `VarBuilder` serves both training and loading in `candle-transformers`' models.

use crate::model::nn::rng::SplitMix64;
use candle_core::{DType, Device, Result, Tensor, Var};
use std::collections::HashMap;

/// How a fresh tensor starts.
pub enum Init {
    Zeros,
    /// Every entry N(0, std²).
    Normal {
        std: f64,
    },
    /// Every entry U(−bound, bound).
    Uniform {
        bound: f64,
    },
    /// Each row drawn from N(0, 1) and scaled to unit length.
    UnitRows,
    /// The given values, row-major.
    Values(Vec<f32>),
    /// `base`'s values (drawn as `base` draws them) with the given rows, each as wide as
    /// the last dimension (one entry of a vector), in place.
    Overriding {
        base: Box<Init>,
        rows: Vec<(usize, Vec<f32>)>,
    },
}

/// Where declared tensors come from.
#[derive(Clone)]
enum Source {
    Fresh(SplitMix64),
    Checkpoint(HashMap<String, Tensor>),
}

/// One declared tensor.
#[derive(Clone)]
struct Entry {
    name: String,
    var: Var,
    trainable: bool,
}

/// The declared tensors of one network, in declaration order. A clone shares the tensors
/// (training one trains the other).
#[derive(Clone)]
pub struct Parameters {
    device: Device,
    source: Source,
    entries: Vec<Entry>,
}

impl std::fmt::Debug for Parameters {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_list()
            .entries(
                self.entries
                    .iter()
                    .map(|entry| (&entry.name, entry.var.dims())),
            )
            .finish()
    }
}

impl Parameters {
    /// Declarations make their tensors, drawing random ones from `seed`.
    pub fn fresh(seed: u64, device: &Device) -> Parameters {
        Parameters {
            device: device.clone(),
            source: Source::Fresh(SplitMix64::new(seed)),
            entries: Vec::new(),
        }
    }

    /// Declarations take their tensors from a checkpoint's, by name.
    pub fn checkpoint(tensors: HashMap<String, Tensor>, device: &Device) -> Parameters {
        Parameters {
            device: device.clone(),
            source: Source::Checkpoint(tensors),
            entries: Vec::new(),
        }
    }

    /// The device tensors are made on.
    pub fn device(&self) -> &Device {
        &self.device
    }

    /// Declares the tensor `name` of shape `dims`: made from `init` in a fresh network,
    /// taken (and its shape checked) from a checkpoint. `trainable` tensors are what
    /// training updates.
    pub fn declare(
        &mut self,
        name: &str,
        dims: &[usize],
        init: Init,
        trainable: bool,
    ) -> Result<Tensor> {
        if self.entries.iter().any(|entry| entry.name == name) {
            candle_core::bail!("tensor `{name}` is declared twice");
        }
        let tensor = match &mut self.source {
            Source::Checkpoint(tensors) => {
                let tensor = tensors
                    .remove(name)
                    .ok_or_else(|| candle_core::Error::Msg(format!("missing tensor `{name}`")))?;
                if tensor.dims() != dims {
                    candle_core::bail!(
                        "tensor `{name}` has shape {:?} where {dims:?} was expected",
                        tensor.dims()
                    );
                }
                tensor.to_dtype(DType::F32)?.to_device(&self.device)?
            }
            Source::Fresh(rng) => make(init, dims, rng, &self.device)?,
        };
        if tensor.dims() != dims {
            candle_core::bail!(
                "tensor `{name}` was made with shape {:?} where {dims:?} was declared",
                tensor.dims()
            );
        }
        let var = Var::from_tensor(&tensor)?;
        let value = var.as_tensor().clone();
        self.entries.push(Entry {
            name: name.to_string(),
            var,
            trainable,
        });
        Ok(value)
    }

    /// Ends the declarations: a checkpoint's tensors that nothing declared are an error.
    pub fn finish(&self) -> Result<()> {
        if let Source::Checkpoint(tensors) = &self.source {
            let mut left: Vec<&String> = tensors.keys().collect();
            left.sort();
            if let Some(name) = left.first() {
                candle_core::bail!("unexpected tensor `{name}`");
            }
        }
        Ok(())
    }

    /// The tensor declared as `name`, if any.
    pub fn var(&self, name: &str) -> Option<Var> {
        self.entries
            .iter()
            .find(|entry| entry.name == name)
            .map(|entry| entry.var.clone())
    }

    /// The trainable tensors, in declaration order.
    pub fn trainable(&self) -> Vec<Var> {
        self.entries
            .iter()
            .filter(|entry| entry.trainable)
            .map(|entry| entry.var.clone())
            .collect()
    }

    /// The names of [`Parameters::trainable`], in the same order.
    pub fn trainable_names(&self) -> Vec<String> {
        self.entries
            .iter()
            .filter(|entry| entry.trainable)
            .map(|entry| entry.name.clone())
            .collect()
    }

    /// Every tensor under its name.
    pub fn named_tensors(&self) -> Vec<(String, Tensor)> {
        self.entries
            .iter()
            .map(|entry| (entry.name.clone(), entry.var.as_tensor().clone()))
            .collect()
    }
}

/// A standard normal draw (Box–Muller).
pub(crate) fn normal(rng: &mut SplitMix64) -> f64 {
    let u1 = rng.next_f64().max(f64::MIN_POSITIVE);
    let u2 = rng.next_f64();
    (-2.0 * u1.ln()).sqrt() * (std::f64::consts::TAU * u2).cos()
}

fn make(init: Init, dims: &[usize], rng: &mut SplitMix64, device: &Device) -> Result<Tensor> {
    Tensor::from_vec(values(init, dims, rng)?, dims, device)
}

/// A fresh tensor's values, row-major.
fn values(init: Init, dims: &[usize], rng: &mut SplitMix64) -> Result<Vec<f32>> {
    let n: usize = dims.iter().product();
    Ok(match init {
        Init::Zeros => vec![0f32; n],
        Init::Normal { std } => (0..n).map(|_| (normal(rng) * std) as f32).collect(),
        Init::Uniform { bound } => (0..n)
            .map(|_| ((rng.next_f64() * 2.0 - 1.0) * bound) as f32)
            .collect(),
        Init::UnitRows => {
            let width = dims.last().copied().unwrap_or(1).max(1);
            let mut values: Vec<f32> = (0..n).map(|_| normal(rng) as f32).collect();
            for row in values.chunks_mut(width) {
                let norm = row.iter().map(|x| x * x).sum::<f32>().sqrt();
                if norm > 0.0 {
                    row.iter_mut().for_each(|x| *x /= norm);
                }
            }
            values
        }
        Init::Values(values) => {
            if values.len() != n {
                candle_core::bail!("{} initial values for a tensor of {n}", values.len());
            }
            values
        }
        Init::Overriding { base, rows } => {
            // A vector's rows are its entries.
            let width = match dims {
                [.., last] if dims.len() > 1 => *last,
                _ => 1,
            };
            let mut values = values(*base, dims, rng)?;
            for (row, given) in rows {
                match values.get_mut(row * width..(row + 1) * width) {
                    Some(slot) if given.len() == width => slot.copy_from_slice(&given),
                    _ => candle_core::bail!("row {row} of {width} values does not fit {dims:?}"),
                }
            }
            values
        }
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn overriding_rows_keeps_the_bases_other_draws() {
        let draw = |init: Init, dims: &[usize]| {
            make(init, dims, &mut SplitMix64::new(9), &Device::Cpu)
                .unwrap()
                .flatten_all()
                .unwrap()
                .to_vec1::<f32>()
                .unwrap()
        };
        let base = draw(Init::UnitRows, &[3, 2]);
        let rows = vec![(1, vec![5.0, 6.0])];
        let overridden = draw(
            Init::Overriding {
                base: Box::new(Init::UnitRows),
                rows,
            },
            &[3, 2],
        );
        assert_eq!(overridden[..2], base[..2]);
        assert_eq!(overridden[2..4], [5.0, 6.0]);
        assert_eq!(overridden[4..], base[4..]);
        // A vector's rows are its entries.
        let vector = draw(
            Init::Overriding {
                base: Box::new(Init::Zeros),
                rows: vec![(2, vec![7.0])],
            },
            &[4],
        );
        assert_eq!(vector, [0.0, 0.0, 7.0, 0.0]);
        let misfit = Init::Overriding {
            base: Box::new(Init::Zeros),
            rows: vec![(4, vec![7.0])],
        };
        assert!(make(misfit, &[4], &mut SplitMix64::new(9), &Device::Cpu).is_err());
    }

    #[test]
    fn a_checkpoint_gives_back_what_was_declared_and_refuses_other_shapes() {
        let mut fresh = Parameters::fresh(3, &Device::Cpu);
        let a = fresh.declare("a", &[2, 3], Init::UnitRows, true).unwrap();
        fresh.declare("b", &[4], Init::Zeros, false).unwrap();
        assert_eq!(fresh.trainable_names(), ["a"]);
        let norms: Vec<f32> = a.sqr().unwrap().sum(1).unwrap().to_vec1().unwrap();
        assert!(norms.iter().all(|n| (n - 1.0).abs() < 1e-5), "{norms:?}");
        let saved: HashMap<String, Tensor> = fresh.named_tensors().into_iter().collect();
        // candle appends a backtrace to its errors when RUST_BACKTRACE is set.
        let message = |error: candle_core::Error| {
            let text = error.to_string();
            text.lines().next().unwrap_or_default().to_string()
        };

        let mut loaded = Parameters::checkpoint(saved.clone(), &Device::Cpu);
        let back = loaded.declare("a", &[2, 3], Init::Zeros, true).unwrap();
        assert_eq!(back.to_vec2::<f32>().unwrap(), a.to_vec2::<f32>().unwrap());
        assert_eq!(
            message(loaded.finish().unwrap_err()),
            "unexpected tensor `b`"
        );
        let mut wrong = Parameters::checkpoint(saved, &Device::Cpu);
        assert_eq!(
            message(wrong.declare("a", &[3, 2], Init::Zeros, true).unwrap_err()),
            "tensor `a` has shape [2, 3] where [3, 2] was expected"
        );
        assert_eq!(
            message(wrong.declare("c", &[1], Init::Zeros, true).unwrap_err()),
            "missing tensor `c`"
        );
    }
}
