//! What every family's fused operations (custom candle operations with their own backward
//! passes) share: reading an input's values.

use candle_core::{CpuStorage, Layout, Result};

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
