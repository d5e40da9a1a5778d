//! The binary against hostile and odd input (issue 51's findings): each test is one finding,
//! and checks that it ends in a clear error, never a panic, a hang or a wrong result.

use std::path::Path;
use std::process::{Command, Output, Stdio};

/// `rulelens ARGS` in the repository root, its standard output sent to `stdout`.
fn rulelens_to(args: &[&str], stdout: Stdio) -> Output {
    Command::new(env!("CARGO_BIN_EXE_rulelens"))
        .args(args)
        .current_dir(env!("CARGO_MANIFEST_DIR"))
        .env("NO_COLOR", "1")
        .stdin(Stdio::null())
        .stdout(stdout)
        .output()
        .expect("the binary runs")
}

#[test]
fn a_full_standard_output_is_an_error_not_a_panic() {
    if !Path::new("/dev/full").exists() {
        return;
    }
    let (fa_rnn, mvma) = (
        "tests/data/checkpoints/fa-rnn",
        "tests/data/checkpoints/mvma-g",
    );
    let dev = "tests/data/train/dev.tsv";
    let commands: [&[&str]; 13] = [
        &["check", "examples/sms/sms.rules"],
        &["check", "examples/sms/sms.rules", "--format", "json"],
        &["dot", "examples/sms/sms.rules"],
        &["explain", "E0401"],
        &["completions", "bash"],
        &["man"],
        &["eval", fa_rnn, "--corpus", dev],
        // The corpus named: the fixture's manifest records the rules path of the checkout
        // that made it, whose `corpus dev` another checkout does not have.
        &["reconstruct", fa_rnn, "--corpus", dev],
        &["classify", "examples/sms/sms.rules", "free prize now"],
        &["predict", fa_rnn, "free prize now"],
        &["polarity", mvma, "free prize"],
        &["init", dev],
        &["suggest", "examples/sms/sms.rules"],
    ];
    for args in commands {
        let full = std::fs::OpenOptions::new()
            .write(true)
            .open("/dev/full")
            .unwrap();
        let output = rulelens_to(args, Stdio::from(full));
        let stderr = String::from_utf8_lossy(&output.stderr);
        assert_eq!(output.status.code(), Some(1), "{args:?}: {stderr}");
        assert!(
            stderr.contains("error: cannot write to standard output"),
            "{args:?}: {stderr}"
        );
        assert!(!stderr.contains("panicked"), "{args:?}: {stderr}");
    }
}

#[test]
fn init_on_a_corpus_with_a_line_in_error_writes_nothing_and_fails() {
    let dir = std::env::temp_dir().join(format!("rulelens-init-errors-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let corpus = dir.join("weird.jsonl");
    std::fs::write(
        &corpus,
        "{\"text\": 3}\n{\"text\": \"hi\", \"label\": \"a\"}\n",
    )
    .unwrap();
    let out = dir.join("weird.rules");
    let output = rulelens_to(
        &[
            "init",
            corpus.to_str().unwrap(),
            "--out",
            out.to_str().unwrap(),
        ],
        Stdio::piped(),
    );
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert_eq!(output.status.code(), Some(1), "{stderr}");
    assert!(stderr.contains("error[E0404]"), "{stderr}");
    assert!(
        stderr.contains("1 line in error; nothing written"),
        "{stderr}"
    );
    assert!(!out.exists());
    std::fs::remove_dir_all(&dir).unwrap();
}

#[test]
fn control_characters_of_rules_and_corpora_are_shown_not_obeyed() {
    let dir = std::env::temp_dir().join(format!("rulelens-escapes-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    // A rule in error, quoted by its diagnostic; rules whose dev corpus has a gold label
    // they do not know (a warning quoting it) and misclassified lines.
    let (broken, rules) = (dir.join("broken.rules"), dir.join("e.rules"));
    std::fs::write(&broken, "default ham\nspam: $* prize $* \x1b]0;PWNED\x07\n").unwrap();
    std::fs::write(
        &rules,
        "default ham\nspam: $* free $*\ncorpus dev \"dev.tsv\"\n",
    )
    .unwrap();
    std::fs::write(
        dir.join("dev.tsv"),
        "ham\tfree \x1b[2J now\x00\nspam\tbuy \x1b]0;PWNED\x07 this\nsp\x1bam\tfree x\n",
    )
    .unwrap();
    let (broken, rules) = (broken.to_str().unwrap(), rules.to_str().unwrap());
    let controls = |bytes: &[u8]| {
        bytes
            .iter()
            .any(|&b| b < 0x20 && b != b'\n' && b != b'\t' || b == 0x7f)
    };
    let runs: [&[&str]; 4] = [
        &["check", broken],
        &["check", rules, "--show-errors", "5"],
        &["classify", rules, "free \x1b[2J prize\x07"],
        &[
            "classify",
            rules,
            "--format",
            "json",
            "free \x1b[2J prize\x07",
        ],
    ];
    for args in runs {
        let output = rulelens_to(args, Stdio::piped());
        let (stdout, stderr) = (
            String::from_utf8_lossy(&output.stdout),
            String::from_utf8_lossy(&output.stderr),
        );
        assert!(!controls(&output.stdout), "{args:?}: {stdout:?}");
        assert!(!controls(&output.stderr), "{args:?}: {stderr:?}");
        if args.contains(&"json") {
            // JSON keeps the text, escaped.
            assert!(stdout.contains(r"\u001b[2J prize\u0007"), "{stdout}");
        } else {
            assert!(
                format!("{stdout}{stderr}").contains('␛'),
                "{stdout}{stderr}"
            );
        }
    }
    std::fs::remove_dir_all(&dir).unwrap();
}

/// A copy of the FA-RNN checkpoint of `tests/data/checkpoints` in `to`, without the file
/// `except`.
fn copy_checkpoint(to: &Path, except: Option<&str>) {
    let checkpoint = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/data/checkpoints/fa-rnn");
    std::fs::create_dir_all(to).unwrap();
    for entry in std::fs::read_dir(&checkpoint).unwrap() {
        let entry = entry.unwrap();
        if except.is_none_or(|except| entry.file_name() != except) {
            std::fs::copy(entry.path(), to.join(entry.file_name())).unwrap();
        }
    }
}

/// A copy of the checkpoint of [`copy_checkpoint`] in `dir`, its manifest edited by
/// `tamper`, and what each command that reads a checkpoint (`eval`, `predict`,
/// `reconstruct`) does with it.
fn commands_reading_tampered_checkpoint(
    dir: &Path,
    tamper: impl FnOnce(&mut serde_json::Value),
) -> Vec<(&'static str, Output)> {
    copy_checkpoint(dir, None);
    let manifest = dir.join("manifest.json");
    let mut value: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(&manifest).unwrap()).unwrap();
    tamper(&mut value);
    std::fs::write(&manifest, value.to_string()).unwrap();
    let model = dir.to_str().unwrap();
    let runs: [(&str, &[&str]); 3] = [
        ("eval", &["--corpus", "tests/data/train/dev.tsv"]),
        ("predict", &["free prize"]),
        ("reconstruct", &[]),
    ];
    runs.into_iter()
        .map(|(command, rest)| {
            let args: Vec<&str> = [command, model]
                .into_iter()
                .chain(rest.iter().copied())
                .collect();
            (command, rulelens_to(&args, Stdio::piped()))
        })
        .collect()
}

/// `rulelens ARGS` in `dir`, standard input from `stdin`; fails the test when it has not
/// ended within a minute (a hang).
fn rulelens_within(dir: &Path, args: &[&str], stdin: Stdio) -> Output {
    let mut child = Command::new(env!("CARGO_BIN_EXE_rulelens"))
        .args(args)
        .current_dir(dir)
        .env("NO_COLOR", "1")
        .stdin(stdin)
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("the binary runs");
    let started = std::time::Instant::now();
    while child.try_wait().unwrap().is_none() {
        if started.elapsed() > std::time::Duration::from_secs(60) {
            child.kill().unwrap();
            panic!("{args:?} hangs");
        }
        std::thread::sleep(std::time::Duration::from_millis(20));
    }
    child.wait_with_output().unwrap()
}

#[cfg(unix)]
#[test]
fn special_files_are_refused_by_type_without_waiting_for_a_writer() {
    use std::os::unix::fs::symlink;
    let dir = std::env::temp_dir().join(format!("rulelens-special-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    for fifo in ["fifo.rules", "fifo.tsv", "words.txt"] {
        let made = Command::new("mkfifo").arg(dir.join(fifo)).status().unwrap();
        assert!(made.success());
    }
    symlink("/dev/zero", dir.join("zero.tsv")).unwrap();
    std::fs::write(
        dir.join("bound.rules"),
        "default ham\ncorpus dev \"fifo.tsv\"\ncorpus train \"zero.tsv\"\n",
    )
    .unwrap();
    std::fs::write(
        dir.join("words.rules"),
        "default ham\nwords offer from \"words.txt\"\nspam: $* @offer $*\n",
    )
    .unwrap();
    // A checkpoint whose manifest is a FIFO, and one whose weights are /dev/zero.
    for (copy, special) in [
        ("fifo-manifest", "manifest.json"),
        ("zero-weights", "weights.safetensors"),
    ] {
        copy_checkpoint(&dir.join(copy), Some(special));
    }
    let made = Command::new("mkfifo")
        .arg(dir.join("fifo-manifest/manifest.json"))
        .status()
        .unwrap();
    assert!(made.success());
    symlink("/dev/zero", dir.join("zero-weights/weights.safetensors")).unwrap();

    let rules = Path::new(env!("CARGO_MANIFEST_DIR")).join("examples/sms/sms.rules");
    let rules = rules.to_str().unwrap();
    let cases: [(&[&str], &str); 6] = [
        (
            &["check", "fifo.rules"],
            "cannot read fifo.rules: not a regular file: a FIFO",
        ),
        (
            &["check", rules, "--corpus", "fifo.tsv"],
            "not a regular file: a FIFO",
        ),
        (
            &["check", "bound.rules"],
            "corpus file `fifo.tsv` is not a regular file: a FIFO",
        ),
        (
            &["check", "bound.rules"],
            "`zero.tsv` is not a regular file: a character device",
        ),
        (
            &["check", "words.rules"],
            "cannot read `words.txt`: not a regular file: a FIFO",
        ),
        (
            &["predict", "fifo-manifest", "free prize"],
            "not a regular file: a FIFO",
        ),
    ];
    for (args, said) in cases {
        let output = rulelens_within(&dir, args, Stdio::null());
        let stderr = String::from_utf8_lossy(&output.stderr);
        assert_eq!(output.status.code(), Some(1), "{args:?}: {stderr}");
        assert!(stderr.contains(said), "{args:?}: {stderr}");
    }
    let output = rulelens_within(
        &dir,
        &["predict", "zero-weights", "free prize"],
        Stdio::null(),
    );
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert_eq!(output.status.code(), Some(1), "{stderr}");
    assert!(
        stderr.contains("not a regular file: a character device"),
        "{stderr}"
    );
    std::fs::remove_dir_all(&dir).unwrap();
}

#[test]
fn standard_input_is_read_only_up_to_the_corpus_limit() {
    let Ok(zero) = std::fs::File::open("/dev/zero") else {
        return;
    };
    let here = Path::new(env!("CARGO_MANIFEST_DIR"));
    let runs: [&[&str]; 2] = [
        &[
            "classify",
            "examples/sms/sms.rules",
            "--max-corpus-bytes",
            "1MiB",
        ],
        &[
            "predict",
            "tests/data/checkpoints/fa-rnn",
            "--max-corpus-bytes",
            "1MiB",
        ],
    ];
    for args in runs {
        let output = rulelens_within(here, args, Stdio::from(zero.try_clone().unwrap()));
        let stderr = String::from_utf8_lossy(&output.stderr);
        assert_eq!(output.status.code(), Some(1), "{args:?}: {stderr}");
        assert!(
            stderr.contains("standard input is larger than the 1MiB a corpus file may have"),
            "{args:?}: {stderr}"
        );
    }
}

#[test]
fn a_checkpoint_naming_another_file_as_its_rules_does_not_print_it() {
    let dir = std::env::temp_dir().join(format!("rulelens-echo-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    // A private file in the rules language's shape: every line would be a rule.
    let secret = dir.join("secret.txt");
    std::fs::write(
        &secret,
        "root: x:0:0:root:/root:/bin/bash\ntoken: s3cr3t-t0ken\n",
    )
    .unwrap();
    let outputs = commands_reading_tampered_checkpoint(&dir, |manifest| {
        manifest["rules"]["path"] = secret.to_str().unwrap().into();
    });
    for (command, output) in outputs {
        let said = format!(
            "{}{}",
            String::from_utf8_lossy(&output.stdout),
            String::from_utf8_lossy(&output.stderr)
        );
        assert_eq!(output.status.code(), Some(1), "{command}: {said}");
        assert!(said.contains("has other rules"), "{command}: {said}");
        assert!(
            !said.contains("s3cr3t") && !said.contains("/bin/bash"),
            "{command}: {said}"
        );
    }
    std::fs::remove_dir_all(&dir).unwrap();
}

/// A vocabulary as no training writes it (reversed: the unknown word last; a word twice) is
/// refused by every command that reads the checkpoint, where `eval` scored it and
/// `predict` stopped with a backtrace (issue 51, item 3.7).
#[test]
fn a_checkpoint_vocabulary_as_no_training_writes_it_is_refused() {
    let dir = std::env::temp_dir().join(format!("rulelens-vocabulary-{}", std::process::id()));
    for tamper in ["reversed", "repeated"] {
        let outputs = commands_reading_tampered_checkpoint(&dir, |manifest| {
            let words = manifest["vocabulary"].as_array_mut().unwrap();
            match tamper {
                "reversed" => words.reverse(),
                _ => {
                    let last = words.len() - 1;
                    words[last] = words[1].clone();
                }
            }
        });
        for (command, output) in outputs {
            let stderr = String::from_utf8_lossy(&output.stderr);
            assert_eq!(
                output.status.code(),
                Some(1),
                "{tamper} {command}: {stderr}"
            );
            assert!(
                stderr.contains("manifest.json") && stderr.contains("its vocabulary"),
                "{tamper} {command}: {stderr}"
            );
        }
    }
    std::fs::remove_dir_all(&dir).unwrap();
}

#[test]
fn train_out_refuses_a_folder_another_training_holds_or_with_another_manifest() {
    let here = Path::new(env!("CARGO_MANIFEST_DIR"));
    let dir = std::env::temp_dir().join(format!("rulelens-out-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let train = |out: &Path| {
        rulelens_within(
            here,
            &[
                "train",
                "tests/data/train/tiny.rules",
                "--embeddings",
                "tests/data/train/vectors.txt",
                "--epochs",
                "1",
                "--members",
                "1",
                "--out",
                out.to_str().unwrap(),
            ],
            Stdio::null(),
        )
    };
    // Someone else's manifest.json is not written over.
    let theirs = dir.join("theirs");
    std::fs::create_dir_all(&theirs).unwrap();
    std::fs::write(
        theirs.join("manifest.json"),
        "{\"name\": \"their-package\"}\n",
    )
    .unwrap();
    let output = train(&theirs);
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert_eq!(output.status.code(), Some(1), "{stderr}");
    assert!(
        stderr.contains("is not a rulelens checkpoint's"),
        "{stderr}"
    );
    assert_eq!(
        std::fs::read_to_string(theirs.join("manifest.json")).unwrap(),
        "{\"name\": \"their-package\"}\n"
    );
    // A folder whose lock another training holds is refused at once.
    let ours = dir.join("ours");
    std::fs::create_dir_all(&ours).unwrap();
    let held = std::fs::OpenOptions::new()
        .create(true)
        .truncate(false)
        .write(true)
        .open(ours.join(".rulelens-train.lock"))
        .unwrap();
    held.try_lock().unwrap();
    let output = train(&ours);
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert_eq!(output.status.code(), Some(1), "{stderr}");
    assert!(
        stderr.contains("another `rulelens train` is writing a checkpoint there"),
        "{stderr}"
    );
    assert!(!ours.join("manifest.json").exists());
    // Once it is let go, training writes there, and may write there again.
    drop(held);
    for _ in 0..2 {
        let output = train(&ours);
        assert!(
            output.status.success(),
            "{}",
            String::from_utf8_lossy(&output.stderr)
        );
        assert!(ours.join("manifest.json").exists());
    }
    std::fs::remove_dir_all(&dir).unwrap();
}

#[cfg(unix)]
#[test]
fn suggest_write_keeps_links_permissions_and_hard_links() {
    use std::os::unix::fs::{MetadataExt, PermissionsExt, symlink};
    let here = Path::new(env!("CARGO_MANIFEST_DIR"));
    let dir = std::env::temp_dir().join(format!("rulelens-write-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    for file in ["train.tsv", "dev.tsv"] {
        std::fs::copy(here.join("tests/data/train").join(file), dir.join(file)).unwrap();
    }
    let bare = std::fs::read_to_string(here.join("tests/data/train/bare.rules")).unwrap();
    let edited = |path: &Path| {
        let text = std::fs::read_to_string(path).unwrap();
        text.contains("suggested by rulelens") && text.starts_with(&bare)
    };
    let write = |rules: &Path| {
        let output = rulelens_within(
            &dir,
            &["suggest", rules.to_str().unwrap(), "--write"],
            Stdio::null(),
        );
        assert!(
            output.status.success(),
            "{}",
            String::from_utf8_lossy(&output.stderr)
        );
    };
    // A symbolic link: its target is edited, and it stays a link.
    let (target, link) = (dir.join("target.rules"), dir.join("link.rules"));
    std::fs::write(&target, &bare).unwrap();
    symlink("target.rules", &link).unwrap();
    write(&link);
    assert!(
        std::fs::symlink_metadata(&link)
            .unwrap()
            .file_type()
            .is_symlink()
    );
    assert!(edited(&target));
    // A read-only file stays read-only.
    let read_only = dir.join("read_only.rules");
    std::fs::write(&read_only, &bare).unwrap();
    std::fs::set_permissions(&read_only, std::fs::Permissions::from_mode(0o444)).unwrap();
    write(&read_only);
    assert!(edited(&read_only));
    let mode = std::fs::metadata(&read_only).unwrap().permissions().mode();
    assert_eq!(mode & 0o777, 0o444);
    // Two names of one file stay one file.
    let (first, second) = (dir.join("first.rules"), dir.join("second.rules"));
    std::fs::write(&first, &bare).unwrap();
    std::fs::hard_link(&first, &second).unwrap();
    let inode = std::fs::metadata(&first).unwrap().ino();
    write(&first);
    assert!(edited(&second));
    assert_eq!(std::fs::metadata(&first).unwrap().ino(), inode);
    assert_eq!(std::fs::metadata(&second).unwrap().nlink(), 2);
    std::fs::remove_dir_all(&dir).unwrap();
}
