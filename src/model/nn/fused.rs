//! What every family's fused operations (custom candle operations with their own backward
//! passes) share: reading an input's values in the forward pass ([`contiguous`]) and in the
//! backward pass ([`values`]), and what the forward pass keeps for the backward one
//! ([`Kept`]).

use candle_core::{CpuStorage, Layout, Result, Tensor};
use std::sync::Mutex;

/// The f32 values of a contiguous input of the custom operation `op`.
pub(crate) fn contiguous<'a>(
    op: &str,
    storage: &'a CpuStorage,
    layout: &Layout,
    what: &str,
) -> Result<&'a [f32]> {
    let data = storage.as_slice::<f32>()?;
    match layout.contiguous_offsets() {
        Some((start, end)) => Ok(&data[start..end]),
        None => candle_core::bail!("{op}: {what} must be contiguous"),
    }
}

/// A tensor's values, in row-major order: what a backward pass reads its inputs as.
pub(crate) fn values(tensor: &Tensor) -> Result<Vec<f32>> {
    tensor.flatten_all()?.to_vec1()
}

/// What a fused operation's forward pass keeps for its backward pass (its trace, argmaxes or
/// units), which otherwise computes it again: kept by the last forward pass, taken by the
/// first backward pass after it.
#[derive(Debug)]
pub(crate) struct Kept<T>(Mutex<Option<T>>);

impl<T> Kept<T> {
    pub(crate) fn new() -> Kept<T> {
        Kept(Mutex::new(None))
    }

    /// Keeps `value` in place of what was kept (nothing, when the lock is poisoned).
    pub(crate) fn keep(&self, value: T) {
        if let Ok(mut kept) = self.0.lock() {
            *kept = Some(value);
        }
    }

    /// What the last forward pass kept, once.
    pub(crate) fn take(&self) -> Option<T> {
        self.0.lock().ok().and_then(|mut kept| kept.take())
    }
}
