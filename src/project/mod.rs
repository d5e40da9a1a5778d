//! A rules file and its corpora as the language server keeps them, below the protocol:
//! which corpora a rules file binds and where each one's text comes from (an open buffer or
//! the file), the analysis of a save, its suggested edits, the checkpoint cache, the
//! network of a save, loaded from the cache or trained, and the bench of every model family
//! on the corpora (`bench`).
//!
//! Everything here is a plain, blocking call on plain types, cancelled by polling a flag:
//! no protocol types and no async. The server (`lsp/jobs.rs`) decides when to call what and
//! on which thread; the tests call the same functions without a server.

pub mod bench;
mod bindings;
mod cache;
mod save;

pub use bindings::{
    Binding, CorpusOrigin, OpenCorpus, bindings, find_rules_binding, read_corpus, same_file,
};
pub use cache::{cache_key, checkpoint_dir, default_bench_root, default_cache_root};
pub use save::{
    CorpusReport, CorpusSources, FreshlyTrained, NetworkPlan, NoNetwork, SavedAnalysis,
    analyze_save, load_network, network_plan, save_vectors, suggest_learned_save, suggest_save,
    train_network,
};
