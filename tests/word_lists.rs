//! Word lists (`words NAME = ( … )`, `words NAME from "PATH"`, `@NAME` in a regex): they
//! match exactly what the alternation of their entries matches, forwards and backwards, at
//! any size up to their limit; the caches tell their files apart; and the editor features
//! know them. (A checkpoint carrying its list files: `tests/cli.rs`.)

mod common;

use common::backtrack;
use rulelens::ide::{
    Figures, HoverConfig, SymbolKind, TokenClass, WordFrequencies, completions, definition,
    document_symbols, hover_rules, references, rename, render_rules_hover, semantic_tokens,
};
use rulelens::rules_file::RulesFile;
use rulelens::syntax::MAX_WORD_LIST_ENTRIES;
use rulelens::text::SourceText;

fn analyze(text: &str) -> RulesFile {
    RulesFile::analyze(
        SourceText::from_bytes(text.as_bytes()),
        None,
        &Default::default(),
    )
}

/// Whether pattern `p` of `file` matches `sentence`.
fn matches(file: &RulesFile, p: usize, sentence: &str) -> bool {
    let mut symbols = Vec::new();
    let alphabet = file.system.alphabet();
    alphabet.symbolize(&rulelens::text::tokenize(sentence), &mut symbols);
    let dfa = file.system.patterns()[p].dfa.as_ref().expect("compiled");
    dfa.is_match(&symbols, alphabet)
}

/// Every sentence of up to `max_len` tokens over `vocabulary`.
fn sentences(vocabulary: &[&str], max_len: usize) -> Vec<String> {
    let mut all = vec![String::new()];
    let mut frontier = vec![String::new()];
    for _ in 0..max_len {
        let mut next = Vec::new();
        for prefix in &frontier {
            for word in vocabulary {
                let sentence = format!("{prefix} {word}").trim().to_string();
                next.push(sentence);
            }
        }
        all.extend(next.iter().cloned());
        frontier = next;
    }
    all
}

#[test]
fn a_word_list_matches_what_the_alternation_of_its_entries_matches() {
    // Entries that share prefixes (`new`, `new york`, `new york city`) and one token entries
    // beside longer ones, so that the trie's shared transitions and its ends are exercised.
    let text = "default x
words cities = ( new | new york | new york city | paris | york | \"!\" )
y: $* ( in | to ) @cities $*
y: $* ( in | to ) ( new | new york | new york city | paris | york | \"!\" ) $*
y: @cities{2} $
y: ( new | new york | new york city | paris | york | \"!\" ){2} $
";
    let file = analyze(text);
    assert!(
        !file.has_errors(),
        "{:?}",
        file.diagnostics
            .iter()
            .map(|d| &d.message)
            .collect::<Vec<_>>()
    );
    let patterns = file.system.patterns();
    // Equal minimal DFAs: the same language.
    assert_eq!(patterns[0].dfa, patterns[1].dfa);
    assert_eq!(patterns[2].dfa, patterns[3].dfa);
    let vocabulary = ["in", "new", "york", "city", "paris", "!", "rome"];
    let mut matched = [0, 0];
    for sentence in sentences(&vocabulary, 4) {
        for (i, pair) in [(0, 1), (2, 3)].into_iter().enumerate() {
            let (a, b) = (
                matches(&file, pair.0, &sentence),
                matches(&file, pair.1, &sentence),
            );
            assert_eq!(a, b, "{sentence:?}");
            // And what the reference matcher, which knows no automata, says.
            let regex = &file.rules.patterns[pair.0].regex;
            assert_eq!(
                a,
                backtrack::is_match(regex, &common::sentence(&sentence)),
                "{sentence:?}"
            );
            matched[i] += usize::from(a);
        }
    }
    assert!(matched[0] > 100 && matched[1] > 100, "{matched:?}");

    // Backwards, as the bidirectional networks read: the reversed regex matches exactly the
    // reversed sentences.
    let regex = &file.rules.patterns[2].regex;
    let reversed = rulelens::syntax::print_regex(&regex.reversed());
    assert_eq!(reversed, "$ @cities{2}");
    let mut rules = file.rules.clone();
    rules.patterns[2].regex = regex.reversed();
    let (system, _) = rulelens::automata::compile(&rules, &Default::default());
    for sentence in sentences(&vocabulary, 4) {
        let backwards: Vec<&str> = sentence.split(' ').rev().collect();
        let mut symbols = Vec::new();
        system.alphabet().symbolize(
            &rulelens::text::tokenize(&backwards.join(" ")),
            &mut symbols,
        );
        let dfa = system.patterns()[2].dfa.as_ref().unwrap();
        assert_eq!(
            dfa.is_match(&symbols, system.alphabet()),
            matches(&file, 2, &sentence),
            "{sentence:?}"
        );
    }
}

#[test]
fn a_list_at_its_limit_is_one_transition_and_one_past_it_is_cut() {
    let dir = std::env::temp_dir().join(format!("rulelens-words-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let words: String = (0..MAX_WORD_LIST_ENTRIES)
        .map(|i| format!("place{i}\n"))
        .collect();
    std::fs::write(dir.join("places.txt"), &words).unwrap();
    let rules = dir.join("big.rules");
    std::fs::write(
        &rules,
        "default x\nwords places from \"places.txt\"\nloc: $* in @places $*\n",
    )
    .unwrap();
    let file = RulesFile::read(&rules, &Default::default(), &Default::default()).unwrap();
    assert!(file.diagnostics.is_empty(), "{:?}", file.diagnostics);
    assert_eq!(
        file.rules.word_lists[0].list.entries.len(),
        MAX_WORD_LIST_ENTRIES
    );
    for (sentence, expected) in [
        ("we met in place0 today", true),
        ("we met in place99999", true),
        ("we met in place100000", false),
        ("place5 in", false),
    ] {
        assert_eq!(matches(&file, 0, sentence), expected, "{sentence}");
    }
    // Every place is one class: the DFA of `$* in @places $*` is as small as `$* in x $*`'s.
    let small = analyze("default x\nloc: $* in place0 $*\n");
    assert_eq!(
        file.system.patterns()[0].dfa.as_ref().unwrap().n_states(),
        small.system.patterns()[0].dfa.as_ref().unwrap().n_states()
    );

    std::fs::write(dir.join("places.txt"), format!("{words}one more\n")).unwrap();
    let file = RulesFile::read(&rules, &Default::default(), &Default::default()).unwrap();
    let codes: Vec<&str> = file.diagnostics.iter().map(|d| d.code.as_str()).collect();
    assert_eq!(codes, ["E0211"]);
    assert_eq!(
        file.rules.word_lists[0].list.entries.len(),
        MAX_WORD_LIST_ENTRIES
    );
    std::fs::remove_dir_all(&dir).unwrap();
}

#[test]
fn the_caches_tell_word_list_files_apart() {
    let dir = std::env::temp_dir().join(format!("rulelens-words-key-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let rules = dir.join("k.rules");
    std::fs::write(&rules, "default x\nwords w from \"w.txt\"\ny: @w\n").unwrap();
    let identity = |words: &str| {
        std::fs::write(dir.join("w.txt"), words).unwrap();
        RulesFile::read(&rules, &Default::default(), &Default::default())
            .unwrap()
            .word_files_identity()
    };
    let (one, two) = (identity("a\n"), identity("a\nb\n"));
    assert!(one.starts_with("\nwords file w.txt "), "{one}");
    assert_ne!(one, two);
    assert_eq!(one, identity("a\n"));
    // Rules that read no file keep the keys of their text alone.
    assert_eq!(analyze("default x\ny: a\n").word_files_identity(), "");
    std::fs::remove_dir_all(&dir).unwrap();
}

/// A word-list file is read and tokenized once while it stays as it was: analysing its
/// rules again (the editor does on every keystroke) gives the list parsed before, and a
/// file with another length or modification time is read again (issue 51, item 8).
#[test]
fn a_word_list_file_is_parsed_again_only_when_it_changes() {
    let dir = std::env::temp_dir().join(format!("rulelens-words-kept-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let rules = dir.join("k.rules");
    std::fs::write(&rules, "default x\nwords w from \"w.txt\"\ny: $* @w $*\n").unwrap();
    let words = dir.join("w.txt");
    std::fs::write(&words, "paris\nnew york\n").unwrap();
    let list = || {
        RulesFile::read(&rules, &Default::default(), &Default::default())
            .unwrap()
            .rules
            .word_lists[0]
            .list
            .clone()
    };
    let first = list();
    assert!(std::sync::Arc::ptr_eq(&first, &list()), "parsed once");
    // Another length.
    std::fs::write(&words, "paris\nrome\n").unwrap();
    let second = list();
    assert_eq!(second.entries, [vec!["paris"], vec!["rome"]]);
    // The same length, another modification time.
    std::fs::write(&words, "paris\nroma\n").unwrap();
    let later = std::time::SystemTime::now() + std::time::Duration::from_secs(5);
    std::fs::File::options()
        .write(true)
        .open(&words)
        .unwrap()
        .set_modified(later)
        .unwrap();
    assert_eq!(list().entries, [vec!["paris"], vec!["roma"]]);
    // Gone: an error, not the list kept.
    std::fs::remove_file(&words).unwrap();
    let file = RulesFile::read(&rules, &Default::default(), &Default::default()).unwrap();
    assert!(
        file.diagnostics.iter().any(|d| d.code.as_str() == "E0406"),
        "{:?}",
        file.diagnostics
    );
    std::fs::remove_dir_all(&dir).unwrap();
}

const EDITED: &str = "default other
words cities = ( paris | new york )
loc: $* in @cities $*
pattern trip = $* to @cities $*
loc <- trip
";

#[test]
fn the_editor_knows_word_lists() {
    let file = analyze(EDITED);
    assert!(file.diagnostics.is_empty(), "{:?}", file.diagnostics);
    let at = |needle: &str, skip: usize| {
        let start = EDITED.match_indices(needle).nth(skip).unwrap().0;
        text_size::TextSize::from(start as u32 + 1)
    };
    let declaration = at("cities", 0);
    let range_of = |needle: &str, skip: usize| {
        let start = EDITED.match_indices(needle).nth(skip).unwrap().0 as u32;
        text_size::TextRange::at(start.into(), (needle.len() as u32).into())
    };

    // Go to definition from a use; find every use; rename them all, `@` kept.
    assert_eq!(
        definition(&file, at("@cities", 0)),
        Some(range_of("cities", 0))
    );
    assert_eq!(
        references(&file, declaration, true),
        [
            range_of("cities", 0),
            range_of("cities", 1),
            range_of("cities", 2)
        ]
    );
    let edits = rename(&file, at("@cities", 1), "towns", &[]).unwrap();
    let renamed = rulelens::ide::apply(EDITED, &edits[0].edits);
    assert_eq!(renamed, EDITED.replace("cities", "towns"));
    assert!(!analyze(&renamed).has_errors());

    // Completion after `@` and on a partial name.
    let words = WordFrequencies::default();
    let text = format!("{EDITED}loc: $* @");
    let typing = analyze(&text);
    let offered = completions(&typing, (text.len() as u32).into(), &words);
    let shown: Vec<(&str, Option<&str>)> = offered
        .iter()
        .map(|c| (c.label.as_str(), c.detail.as_deref()))
        .collect();
    assert_eq!(shown, [("cities", Some("2 entries"))]);
    let text = format!("{EDITED}loc: $* @ci");
    let typing = analyze(&text);
    let offered = completions(&typing, (text.len() as u32).into(), &words);
    assert_eq!(offered[0].insert_text, "cities");
    let end = text.len() as u32;
    assert_eq!(
        offered[0].replace,
        text_size::TextRange::new((end - 2).into(), end.into())
    );

    // The hover tells what the list holds and who uses it.
    let (range, hover) = hover_rules(
        &file,
        at("@cities", 1),
        Figures::default(),
        &HoverConfig::default(),
    )
    .unwrap();
    assert_eq!(range, range_of("cities", 2));
    let shown = render_rules_hover(&hover).to_markdown();
    assert!(shown.contains("`@cities` · 2 entries"), "{shown}");
    // A plain-text client gets the same, without Markdown.
    let plain = render_rules_hover(&hover).to_plain_text();
    assert!(plain.contains("word list `@cities` · 2 entries"), "{plain}");
    assert!(!plain.contains("**") && !plain.contains("```"), "{plain}");
    assert!(shown.contains("( paris | new york )"), "{shown}");
    assert!(
        shown.contains("(line 3)") && shown.contains("`trip` (line 4)"),
        "{shown}"
    );

    // Highlighting and the outline.
    let classes: Vec<TokenClass> = semantic_tokens(&file)
        .iter()
        .filter(|t| EDITED[t.range].contains("cities"))
        .map(|t| t.class)
        .collect();
    assert_eq!(classes, [TokenClass::WordList; 3]);
    let symbols = document_symbols(&file);
    let list = symbols
        .iter()
        .find(|s| s.kind == SymbolKind::WordList)
        .unwrap();
    assert_eq!(
        (list.name.as_str(), list.detail.as_deref()),
        ("@cities", Some("2 entries"))
    );
}
