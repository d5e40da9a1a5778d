//! `rulelens serve` against bad and heavy input at the protocol level, over stdio with the
//! minimal JSON-RPC client of tests/common/lsp_client.rs (the feature tests drive it with a
//! real LSP client library: `tests/lsp/`): requests before `initialize`, malformed JSON, unknown methods,
//! positions past the end of a line or inside a surrogate pair, a 10 MB rules document, a
//! corpus of 100,000 lines, framing errors followed by well-framed messages, `$/` requests,
//! lone `\r` line ends, and `exit` with and without `shutdown`. The server must answer each
//! with the right error or result and keep serving, and exit with the code LSP asks for.
//! Also: a code action on a corpus line carries the version of the rules document it edits,
//! and a rules file reading files outside the workspace folders is warned of.

#[path = "common/lsp_client.rs"]
mod lsp_client;

use lsp_client::{Server, temp_dir, uri};
use serde_json::{Value, json};

fn error_code(response: &Value) -> i64 {
    response["error"]["code"]
        .as_i64()
        .unwrap_or_else(|| panic!("not an error: {response}"))
}

#[test]
fn bad_messages_get_errors_and_the_server_keeps_serving() {
    let mut server = Server::start();
    // Before `initialize`: ServerNotInitialized.
    let early = server.request("textDocument/hover", json!({}));
    assert_eq!(error_code(&early), -32002, "{early}");
    // Malformed JSON: a parse error, then business as usual.
    server.send_raw(b"{\"jsonrpc\": \"2.0\", \"id\": 99, \"method\": ");
    let parse_error = server.wait_for(|m| m.get("error").is_some());
    assert_eq!(error_code(&parse_error), -32700, "{parse_error}");
    let response = server.initialize(json!({}), json!({ "training": { "enabled": false } }));
    assert_eq!(response["result"]["serverInfo"]["name"], "rulelens");
    assert_eq!(
        response["result"]["capabilities"]["positionEncoding"],
        "utf-16"
    );
    // An unknown method: MethodNotFound.
    let unknown = server.request("rulelens/noSuchThing", json!({}));
    assert_eq!(error_code(&unknown), -32601, "{unknown}");
    // Parameters of the wrong shape: InvalidParams, and the server still answers.
    let invalid = server.request("textDocument/hover", json!({ "textDocument": 3 }));
    assert_eq!(error_code(&invalid), -32602, "{invalid}");
    // A notification with bad parameters is dropped, not fatal.
    server.notify("textDocument/didOpen", json!({ "textDocument": {} }));

    // Positions past a line's end and inside a surrogate pair (UTF-16 column 8 is inside
    // the emoji) are clamped, not fatal.
    let dir = temp_dir("positions");
    let rules = dir.join("emoji.rules");
    let text = "default ham\nspam: $* \"😀\" $* free $*\n";
    std::fs::write(&rules, text).unwrap();
    let rules_uri = uri(&rules);
    server.open(&rules_uri, "rules", text);
    server.diagnostics(&rules_uri, 1);
    for (line, character) in [(1, 8), (1, 500), (40, 2), (0, 4)] {
        let hover = server.request(
            "textDocument/hover",
            json!({ "textDocument": { "uri": rules_uri },
                    "position": { "line": line, "character": character } }),
        );
        assert!(hover.get("error").is_none(), "{hover}");
    }
    // An edit whose range lies past the end is clamped: no text is lost.
    server.notify(
        "textDocument/didChange",
        json!({ "textDocument": { "uri": rules_uri, "version": 2 },
                "contentChanges": [{ "range": { "start": { "line": 9, "character": 0 },
                                                "end": { "line": 9, "character": 3 } },
                                     "text": "ham: $* hi $*\n" }] }),
    );
    let diagnostics = server.diagnostics(&rules_uri, 2);
    assert!(
        diagnostics.iter().all(|d| d["severity"] != 1),
        "{diagnostics:?}"
    );
    let symbols = server.request(
        "textDocument/documentSymbol",
        json!({ "textDocument": { "uri": rules_uri } }),
    );
    let names: Vec<&str> = symbols["result"]
        .as_array()
        .unwrap()
        .iter()
        .filter_map(|s| s["name"].as_str())
        .collect();
    assert!(
        names.contains(&"ham (line 3)") && names.contains(&"spam (line 2)"),
        "{names:?}"
    );
    assert_eq!(server.stop(), 0);
    std::fs::remove_dir_all(&dir).unwrap();
}

#[test]
fn utf8_positions_are_negotiated_when_offered() {
    let mut server = Server::start();
    let response = server.initialize(
        json!({ "general": { "positionEncodings": ["utf-8", "utf-16"] } }),
        json!({ "training": { "enabled": false } }),
    );
    assert_eq!(
        response["result"]["capabilities"]["positionEncoding"],
        "utf-8"
    );
    let dir = temp_dir("utf8");
    let rules = dir.join("r.rules");
    // `é` is two bytes: the unclosed group starts at byte column 13, UTF-16 column 12.
    let text = "default ham\n# é\nspam: $* é ( won $*\n";
    std::fs::write(&rules, text).unwrap();
    let rules_uri = uri(&rules);
    server.open(&rules_uri, "rules", text);
    let diagnostics = server.diagnostics(&rules_uri, 1);
    let unclosed = diagnostics
        .iter()
        .find(|d| d["code"] == "E0106")
        .unwrap_or_else(|| panic!("{diagnostics:?}"));
    assert_eq!(
        unclosed["range"]["start"],
        json!({ "line": 2, "character": 12 })
    );
    assert_eq!(server.stop(), 0);
    std::fs::remove_dir_all(&dir).unwrap();
}

/// A rules file from a repository one does not trust can name any file to read: the server
/// warns of each path outside the workspace folders (W0408), which a comment in the file
/// cannot silence and the user's `lints` setting can.
#[test]
fn files_a_rules_file_reads_outside_the_workspace_are_warned_of() {
    let dir = temp_dir("outside");
    let workspace = dir.join("workspace");
    std::fs::create_dir_all(&workspace).unwrap();
    std::fs::write(dir.join("secret.txt"), "free\n").unwrap();
    std::fs::write(workspace.join("cash.txt"), "cash\n").unwrap();
    let rules = workspace.join("r.rules");
    let text = "default ham\n\
                # rulelens: allow(warnings)\n\
                words secret from \"../secret.txt\"\n\
                words cash from \"cash.txt\"\n\
                spam: $* ( @secret | @cash ) $*\n";
    std::fs::write(&rules, text).unwrap();
    let rules_uri = uri(&rules);
    let warnings = |lints: Value| {
        let mut server = Server::start();
        server.request(
            "initialize",
            json!({ "processId": null, "capabilities": {},
                    "workspaceFolders": [{ "uri": uri(&workspace), "name": "workspace" }],
                    "initializationOptions": { "training": { "enabled": false },
                                               "lints": lints } }),
        );
        server.notify("initialized", json!({}));
        server.open(&rules_uri, "rules", text);
        let found: Vec<(String, Value)> = server
            .diagnostics(&rules_uri, 1)
            .into_iter()
            .filter(|d| d["code"] == "W0408")
            .map(|d| {
                (
                    d["message"].as_str().unwrap().to_string(),
                    d["range"].clone(),
                )
            })
            .collect();
        assert_eq!(server.stop(), 0);
        found
    };
    let found = warnings(json!({}));
    assert_eq!(found.len(), 1, "{found:?}");
    assert!(
        found[0].0.starts_with(
            "the word list `../secret.txt` is outside the workspace folders, and the language server reads it\nhelp: "
        ),
        "{}",
        found[0].0
    );
    assert_eq!(
        found[0].1,
        json!({ "start": { "line": 2, "character": 18 }, "end": { "line": 2, "character": 33 } })
    );
    assert!(warnings(json!({ "allow": ["path-outside-workspace"] })).is_empty());
    std::fs::remove_dir_all(&dir).unwrap();
}

#[test]
fn large_documents_and_corpora_are_served() {
    let dir = temp_dir("large");
    let mut server = Server::start();
    server.initialize(json!({}), json!({ "training": { "enabled": false } }));

    // A 10 MB rules document: mostly comments, with a few hundred rules.
    let mut text =
        String::from("default ham\ncorpus train \"train.tsv\"\ncorpus dev \"dev.tsv\"\n");
    let mut i = 0;
    while text.len() < 10 << 20 {
        if i % 200 == 0 {
            text.push_str(&format!("spam: $* word{i} $*\n"));
        } else {
            text.push_str("# a comment line that pads the file to ten megabytes of text\n");
        }
        i += 1;
    }
    // A corpus of 100,000 lines, one in 50 misclassified.
    let mut corpus = String::new();
    for line in 0..100_000 {
        let label = if line % 50 == 0 { "spam" } else { "ham" };
        corpus.push_str(&format!("{label}\tline {line} of the corpus\n"));
    }
    let rules = dir.join("big.rules");
    std::fs::write(&rules, &text).unwrap();
    std::fs::write(dir.join("train.tsv"), &corpus).unwrap();
    std::fs::write(dir.join("dev.tsv"), "ham\thello\n").unwrap();
    let rules_uri = uri(&rules);
    let corpus_uri = uri(&dir.join("train.tsv"));
    server.open(&rules_uri, "rules", &text);
    server.open(&corpus_uri, "tsv", &corpus);
    let diagnostics = server.diagnostics(&rules_uri, 1);
    assert!(
        diagnostics.iter().all(|d| d["severity"] != 1),
        "{:?}",
        &diagnostics[..3.min(diagnostics.len())]
    );
    // The corpus' misclassified lines arrive, capped at 1,000 by default.
    let lines = loop {
        let diagnostics = server.diagnostics(&corpus_uri, 1);
        let misclassified = diagnostics.iter().filter(|d| d["code"] == "I0505").count();
        if misclassified > 0 {
            break misclassified;
        }
    };
    assert_eq!(lines, 1000);
    let hover = server.request(
        "textDocument/hover",
        json!({ "textDocument": { "uri": corpus_uri },
                "position": { "line": 99_999, "character": 6 } }),
    );
    let value = hover["result"]["contents"]["value"]
        .as_str()
        .unwrap_or_default();
    assert!(value.contains("gold **ham**"), "{hover}");
    let hover = server.request(
        "textDocument/hover",
        json!({ "textDocument": { "uri": rules_uri },
                "position": { "line": 3, "character": 10 } }),
    );
    assert!(
        hover["result"]["contents"]["value"]
            .as_str()
            .unwrap_or_default()
            .contains("**pattern**"),
        "{hover}"
    );
    assert_eq!(server.stop(), 0);
    std::fs::remove_dir_all(&dir).unwrap();
}

fn framed(body: &str) -> String {
    format!("Content-Length: {}\r\n\r\n{body}", body.len())
}

#[test]
fn after_any_framing_error_the_next_messages_are_served() {
    let hover = r#"{"jsonrpc":"2.0","id":7,"method":"textDocument/hover","params":{"textDocument":{"uri":"file:///nowhere.rules"},"position":{"line":0,"character":0}}}"#;
    let symbol = r#"{"jsonrpc":"2.0","id":5,"method":"textDocument/documentSymbol","params":{"textDocument":{"uri":"file:///nowhere.rules"}}}"#;
    let faults = [
        (
            "a Content-Length that is no number",
            format!("Content-Length: abc\r\n\r\n{symbol}"),
        ),
        (
            "a short Content-Length",
            format!("Content-Length: 20\r\n\r\n{symbol}"),
        ),
        (
            "a long Content-Length",
            format!("Content-Length: {}\r\n\r\n{symbol}", symbol.len() + 30),
        ),
        (
            "Content-Length headers that disagree",
            format!(
                "Content-Length: {}\r\nContent-Length: 3\r\n\r\n{symbol}",
                symbol.len()
            ),
        ),
        ("stray bytes", format!("stray{}", framed(symbol))),
        // Past the message limit: the server once skipped that many bytes, the messages
        // after it included, and answered nothing more (issue 51).
        (
            "a Content-Length over 1 GiB",
            format!("Content-Length: 1073741825\r\n\r\n{symbol}"),
        ),
        (
            "a Content-Length of 2^64 - 1",
            format!("Content-Length: {}\r\n\r\n{symbol}", u64::MAX),
        ),
    ];
    for (what, fault) in faults {
        let mut server = Server::start();
        server.initialize(json!({}), json!({ "training": { "enabled": false } }));
        // The fault and the next message back to back, in one write, as a client sends them.
        server.send_bytes(format!("{fault}{}", framed(hover)).as_bytes());
        let error = server.wait_for(|m| m.get("error").is_some() && m["id"].is_null());
        assert_eq!(error_code(&error), -32700, "{what}: {error}");
        let answer = server.wait_for(|m| m["id"] == 7);
        assert!(answer.get("error").is_none(), "{what}: {answer}");
        assert_eq!(server.stop(), 0, "{what}");
    }
}

#[test]
fn exit_without_shutdown_exits_with_one() {
    let mut server = Server::start();
    server.initialize(json!({}), json!({ "training": { "enabled": false } }));
    assert_eq!(server.exit(), 1);
}

#[test]
fn dollar_requests_get_method_not_found_and_dollar_notifications_nothing() {
    let mut server = Server::start();
    server.initialize(json!({}), json!({ "training": { "enabled": false } }));
    server.notify("$/somethingNew", json!({}));
    let answer = server.request("$/somethingNew", json!({}));
    assert_eq!(error_code(&answer), -32601, "{answer}");
    // The notification got no answer: the next message is the next request's.
    let symbols = server.request(
        "textDocument/documentSymbol",
        json!({ "textDocument": { "uri": "file:///nowhere.rules" } }),
    );
    assert_eq!(symbols["result"], Value::Null, "{symbols}");
    assert_eq!(server.stop(), 0);
}

#[test]
fn a_lone_carriage_return_ends_a_line() {
    let mut server = Server::start();
    server.initialize(json!({}), json!({ "training": { "enabled": false } }));
    let text = "default ham\rspam: $* ( won $*\r\nham: $* hi $*\r";
    server.open("untitled:cr", "rules", text);
    let diagnostics = server.diagnostics("untitled:cr", 1);
    let unclosed: Vec<&Value> = diagnostics
        .iter()
        .filter(|d| d["code"] == "E0106")
        .collect();
    assert_eq!(unclosed.len(), 1, "{diagnostics:?}");
    assert_eq!(
        unclosed[0]["range"]["start"],
        json!({ "line": 1, "character": 9 })
    );
    assert_eq!(server.stop(), 0);
}

/// The widening offered on a corpus line edits the open rules document: its edit carries
/// the version it was computed for, and after the rules change it is offered for the new
/// version.
#[test]
fn a_widening_on_a_corpus_line_carries_the_version_of_the_rules_it_edits() {
    let dir = temp_dir("widen");
    let mut server = Server::start();
    server.initialize(
        json!({ "workspace": { "workspaceEdit": { "documentChanges": true } } }),
        json!({ "training": { "enabled": false } }),
    );
    let text = "default ham\ncorpus train \"train.tsv\"\ncorpus dev \"dev.tsv\"\n\
                spam: $* won $* prize $*\n";
    let train = "spam\tyou won a prize today\nspam\tyou won a voucher\nspam\twe won the voucher now\n\
                 spam\ti won this voucher !\nham\twe won the game\n";
    let rules = dir.join("r.rules");
    std::fs::write(&rules, text).unwrap();
    std::fs::write(dir.join("train.tsv"), train).unwrap();
    std::fs::write(
        dir.join("dev.tsv"),
        "spam\tthey won a voucher\nham\twon it\n",
    )
    .unwrap();
    let (rules_uri, train_uri) = (uri(&rules), uri(&dir.join("train.tsv")));
    server.open(&rules_uri, "rules", text);
    server.diagnostics(&rules_uri, 1);
    server.open(&train_uri, "tsv", train);
    // The line `you won a voucher`; the analysis of the rules comes in the background.
    let widen_at = |server: &mut Server| {
        let deadline = std::time::Instant::now() + lsp_client::DEADLINE;
        loop {
            let response = server.request(
                "textDocument/codeAction",
                json!({
                    "textDocument": { "uri": train_uri },
                    "range": { "start": { "line": 1, "character": 8 },
                               "end": { "line": 1, "character": 8 } },
                    "context": { "diagnostics": [] }
                }),
            );
            let actions = response["result"].as_array().cloned().unwrap_or_default();
            if let Some(widen) = actions
                .into_iter()
                .find(|a| a["title"].as_str().is_some_and(|t| t.starts_with("Widen")))
            {
                return widen;
            }
            assert!(
                std::time::Instant::now() < deadline,
                "no widening: {response}"
            );
            std::thread::sleep(std::time::Duration::from_millis(50));
        }
    };
    let widen = widen_at(&mut server);
    assert_eq!(
        widen["title"],
        "Widen `spam: $* won $* ( prize | voucher ) $*` (fixes 3 train lines, breaks 0; \
         dev 50.0 → 100.0 %)"
    );
    let change = &widen["edit"]["documentChanges"][0];
    assert_eq!(
        change["textDocument"],
        json!({ "uri": rules_uri, "version": 1 })
    );
    assert_eq!(change["edits"][0]["newText"], "( prize | voucher )");
    assert_eq!(widen["data"]["version"], 1);

    // The user edits the rules: the widening is offered again, for version 2.
    server.notify(
        "textDocument/didChange",
        json!({
            "textDocument": { "uri": rules_uri, "version": 2 },
            "contentChanges": [{ "text": format!("# edited\n{text}") }]
        }),
    );
    server.diagnostics(&rules_uri, 2);
    let widen = widen_at(&mut server);
    assert_eq!(
        widen["edit"]["documentChanges"][0]["textDocument"]["version"],
        2
    );
    assert_eq!(server.stop(), 0);
    std::fs::remove_dir_all(&dir).unwrap();
}
