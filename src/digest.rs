//! SHA-256 digests as lowercase hex, declared once for every layer that names a text by its
//! hash: the checkpoint manifest (rules, word lists, weights), the model and bench caches,
//! a word list's fingerprint, the bundled word vectors, the sentence encoder's remembered
//! line vectors, and the editor's check that a code action still applies to the text it
//! was computed on. The ground floor: it imports nothing
//! of the crate.

use sha2::{Digest, Sha256};

/// SHA-256 of `bytes`, as lowercase hex.
pub fn sha256_hex(bytes: &[u8]) -> String {
    hex(&Sha256::digest(bytes))
}

/// SHA-256, hex, of `parts` each prefixed with its length, so that no two different
/// sequences of parts hash the same bytes.
pub fn sha256_of_parts<'a>(parts: impl IntoIterator<Item = &'a [u8]>) -> String {
    let mut hasher = Sha256::new();
    for part in parts {
        hasher.update((part.len() as u64).to_le_bytes());
        hasher.update(part);
    }
    hex(&hasher.finalize())
}

/// A digest (or any bytes) as lowercase hex, two digits a byte.
pub fn hex(bytes: &[u8]) -> String {
    bytes.iter().map(|b| format!("{b:02x}")).collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn digests_are_the_published_ones() {
        // FIPS 180-2's example, "abc".
        assert_eq!(
            sha256_hex(b"abc"),
            "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad"
        );
        // Parts are length-prefixed: ["ab", "c"] and ["a", "bc"] differ, and equal the hash
        // of their prefixed bytes.
        assert_ne!(
            sha256_of_parts([&b"ab"[..], b"c"]),
            sha256_of_parts([&b"a"[..], b"bc"])
        );
        let mut prefixed = Vec::new();
        for part in [&b"ab"[..], b"c"] {
            prefixed.extend_from_slice(&(part.len() as u64).to_le_bytes());
            prefixed.extend_from_slice(part);
        }
        assert_eq!(sha256_of_parts([&b"ab"[..], b"c"]), sha256_hex(&prefixed));
    }
}
