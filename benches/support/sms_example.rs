//! The bundled SMS example as the benchmarks that train on it read it.

use rulelens::corpus::Example;
use rulelens::limits::ReadLimits;
use rulelens::rules_file::RulesFile;
use std::path::Path;

/// `examples/sms`: its rules file, then its train and dev examples.
pub fn sms_example() -> (RulesFile, Vec<Example>, Vec<Example>) {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("examples/sms");
    let file = RulesFile::read(
        &root.join("sms.rules"),
        &Default::default(),
        &ReadLimits::DEFAULT,
    )
    .expect("rules");
    let read = |name: &str| {
        rulelens::corpus::read_file(&root.join(name), &ReadLimits::DEFAULT)
            .expect("bundled corpus")
            .examples
    };
    (file, read("train.tsv"), read("dev.tsv"))
}
