//! Reading a network back as rules: the untrained network of the bundled rules files reads
//! back as rules that match exactly the same sentences, and the reconstructed file checks
//! without errors.

use candle_core::Device;
use rulelens::explain::{ReconstructConfig, reconstruct, rewrite_rules};
use rulelens::model::{FaRnn, Scoring, WeightedAutomaton, decompose};
use rulelens::rules_file::RulesFile;
use rulelens::syntax::PatternId;
use rulelens::text::SourceText;
use std::path::Path;

#[test]
fn the_untrained_network_reads_back_as_rules_matching_the_same_sentences() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    for name in ["sms", "trec"] {
        let path = root.join(format!("examples/{name}/{name}.rules"));
        let original = RulesFile::read(&path, &Default::default()).unwrap();
        let automaton = WeightedAutomaton::new(&original.system);
        let exact = decompose::exact(&automaton);
        let net = FaRnn::new(
            &original.system,
            &automaton,
            &exact,
            None,
            Scoring::Forward,
            &Device::Cpu,
        )
        .unwrap();
        let tokens = net.known_token_vectors(&original.system, None).unwrap();
        let reconstructions = reconstruct(
            &net.plain().unwrap(),
            &automaton.pattern_states,
            &tokens,
            &ReconstructConfig::default(),
        );
        assert!(reconstructions.iter().all(|r| r.regex.is_some()));
        let replacements: Vec<(PatternId, String)> = reconstructions
            .iter()
            .map(|r| (r.pattern, r.text()))
            .collect();
        let text = rewrite_rules(&original.source.text, &original.rules, &replacements);
        let rewritten = RulesFile::analyze(
            SourceText::from_bytes(text.as_bytes()),
            Some(&path),
            &Default::default(),
        );
        assert!(
            !rewritten.has_errors(),
            "{name}: {:?}",
            rewritten.diagnostics
        );
        assert_eq!(
            rewritten.system.patterns().len(),
            original.system.patterns().len()
        );

        let corpus =
            rulelens::corpus::read_file(&root.join(format!("examples/{name}/dev.tsv"))).unwrap();
        for example in &corpus.examples {
            assert_eq!(
                rewritten.system.classify(&example.text).matched,
                original.system.classify(&example.text).matched,
                "{name}: {:?}",
                example.text
            );
        }
    }
}
