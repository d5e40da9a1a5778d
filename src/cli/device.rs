//! The device a command runs its network on (`--device cpu|cuda`), opened with the error
//! as the command's.

use candle_core::Device;
use rulelens::model::DeviceKind;

/// Opens `kind`: the CPU, or the CUDA device of a build with the `cuda` feature.
pub fn open(kind: DeviceKind) -> anyhow::Result<Device> {
    kind.open().map_err(anyhow::Error::msg)
}
