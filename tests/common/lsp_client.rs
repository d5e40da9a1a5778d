//! A minimal LSP client over stdio for `rulelens serve`, written here so that the
//! protocol-level tests (tests/lsp_protocol.rs) can send malformed bytes and the latency
//! benchmark (benches/lsp.rs) adds as little as possible to what it measures. The feature
//! tests use a real LSP client library instead (tests/lsp/).

// Each user takes what it needs.
#![allow(dead_code)]

use serde_json::{Value, json};
use std::io::{BufRead, BufReader, Read, Write};
use std::process::{Child, ChildStdin, Command, Stdio};
use std::sync::mpsc::{Receiver, RecvTimeoutError, channel};
use std::time::{Duration, Instant};

/// How long a caller waits for a message before failing (the heavy documents included).
pub const DEADLINE: Duration = Duration::from_secs(120);

pub struct Server {
    child: Child,
    stdin: ChildStdin,
    messages: Receiver<Value>,
    next_id: u64,
    /// Messages read while waiting for something else.
    seen: Vec<Value>,
}

impl Server {
    /// The server's peak resident memory so far, in MiB (Linux; `None` elsewhere).
    #[allow(dead_code)]
    pub fn peak_rss_mib(&self) -> Option<f64> {
        let status = std::fs::read_to_string(format!("/proc/{}/status", self.child.id())).ok()?;
        let line = status.lines().find(|line| line.starts_with("VmHWM:"))?;
        let kib: f64 = line.split_whitespace().nth(1)?.parse().ok()?;
        Some(kib / 1024.0)
    }

    pub fn start() -> Server {
        let mut child = Command::new(env!("CARGO_BIN_EXE_rulelens"))
            .arg("serve")
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::null())
            .spawn()
            .expect("start rulelens serve");
        let stdin = child.stdin.take().unwrap();
        let stdout = child.stdout.take().unwrap();
        let (sender, messages) = channel();
        std::thread::spawn(move || {
            let mut reader = BufReader::new(stdout);
            loop {
                let mut length = None;
                loop {
                    let mut line = String::new();
                    if reader.read_line(&mut line).unwrap_or(0) == 0 {
                        return;
                    }
                    let line = line.trim_end();
                    if line.is_empty() {
                        break;
                    }
                    if let Some(value) = line.strip_prefix("Content-Length: ") {
                        length = value.parse::<usize>().ok();
                    }
                }
                let mut body = vec![0; length.expect("Content-Length")];
                if reader.read_exact(&mut body).is_err() {
                    return;
                }
                let message: Value = serde_json::from_slice(&body).expect("server sent JSON");
                if sender.send(message).is_err() {
                    return;
                }
            }
        });
        Server {
            child,
            stdin,
            messages,
            next_id: 1,
            seen: Vec::new(),
        }
    }

    pub fn send_raw(&mut self, body: &[u8]) {
        write!(self.stdin, "Content-Length: {}\r\n\r\n", body.len()).unwrap();
        self.stdin.write_all(body).unwrap();
        self.stdin.flush().unwrap();
    }

    /// Writes bytes as they are, framing and all.
    pub fn send_bytes(&mut self, bytes: &[u8]) {
        self.stdin.write_all(bytes).unwrap();
        self.stdin.flush().unwrap();
    }

    pub fn send(&mut self, message: Value) {
        self.send_raw(message.to_string().as_bytes());
    }

    pub fn notify(&mut self, method: &str, params: Value) {
        self.send(json!({ "jsonrpc": "2.0", "method": method, "params": params }));
    }

    /// Sends a request and waits for its response (answering the server's own requests).
    pub fn request(&mut self, method: &str, params: Value) -> Value {
        let id = self.next_id;
        self.next_id += 1;
        self.send(json!({ "jsonrpc": "2.0", "id": id, "method": method, "params": params }));
        self.wait_for(|m| m["id"] == id && m.get("method").is_none())
    }

    /// The next message that satisfies `wanted`, answering server requests on the way.
    pub fn wait_for(&mut self, wanted: impl Fn(&Value) -> bool) -> Value {
        self.wait_for_within(DEADLINE, wanted)
    }

    /// [`Server::wait_for`], failing after `limit` rather than [`DEADLINE`].
    pub fn wait_for_within(&mut self, limit: Duration, wanted: impl Fn(&Value) -> bool) -> Value {
        if let Some(i) = self.seen.iter().position(&wanted) {
            return self.seen.remove(i);
        }
        let deadline = Instant::now() + limit;
        loop {
            let left = deadline.saturating_duration_since(Instant::now());
            let message = match self.messages.recv_timeout(left) {
                Ok(message) => message,
                Err(RecvTimeoutError::Timeout) => panic!("timed out; seen {:?}", self.seen),
                Err(RecvTimeoutError::Disconnected) => panic!("the server closed its output"),
            };
            self.accept(&message);
            if wanted(&message) {
                return message;
            }
            self.seen.push(message);
        }
    }

    /// Whether a message already read satisfies `wanted`, reading what has arrived since
    /// without waiting.
    pub fn has_seen(&mut self, wanted: impl Fn(&Value) -> bool) -> bool {
        while let Ok(message) = self.messages.try_recv() {
            self.accept(&message);
            self.seen.push(message);
        }
        self.seen.iter().any(wanted)
    }

    /// The messages read so far that `wait_for` did not take, after waiting up to `timeout`
    /// for a new one and reading all that have arrived.
    pub fn seen_after(&mut self, timeout: Duration) -> &[Value] {
        if let Ok(message) = self.messages.recv_timeout(timeout) {
            self.accept(&message);
            self.seen.push(message);
        }
        while let Ok(message) = self.messages.try_recv() {
            self.accept(&message);
            self.seen.push(message);
        }
        &self.seen
    }

    /// The title of the next `$/progress` begin whose token starts with `prefix`
    /// (`rulelens/train/` for the rule network).
    pub fn progress_title(&mut self, prefix: &str) -> String {
        let begin = self.wait_for(|m| {
            m["method"] == "$/progress"
                && m["params"]["value"]["kind"] == "begin"
                && m["params"]["token"]
                    .as_str()
                    .is_some_and(|token| token.starts_with(prefix))
        });
        begin["params"]["value"]["title"]
            .as_str()
            .unwrap_or_default()
            .to_string()
    }

    /// Forgets the messages read while waiting for something else.
    pub fn clear_seen(&mut self) {
        self.seen.clear();
    }

    /// Answers a request from the server (configuration, progress) with `null`.
    fn accept(&mut self, message: &Value) {
        if message.get("method").is_some() && message.get("id").is_some() {
            let id = message["id"].clone();
            self.send(json!({ "jsonrpc": "2.0", "id": id, "result": null }));
        }
    }

    pub fn initialize(&mut self, capabilities: Value, options: Value) -> Value {
        let response = self.request(
            "initialize",
            json!({ "processId": null, "rootUri": null, "capabilities": capabilities,
                    "initializationOptions": options }),
        );
        self.notify("initialized", json!({}));
        response
    }

    pub fn open(&mut self, uri: &str, language: &str, text: &str) {
        self.notify(
            "textDocument/didOpen",
            json!({ "textDocument": { "uri": uri, "languageId": language, "version": 1, "text": text } }),
        );
    }

    pub fn diagnostics(&mut self, uri: &str, version: i64) -> Vec<Value> {
        let message = self.wait_for(|m| {
            m["method"] == "textDocument/publishDiagnostics"
                && m["params"]["uri"] == uri
                && m["params"]["version"] == version
        });
        message["params"]["diagnostics"]
            .as_array()
            .cloned()
            .unwrap_or_default()
    }

    /// `shutdown`, `exit`, and the exit status.
    pub fn stop(mut self) -> i32 {
        let response = self.request("shutdown", Value::Null);
        assert_eq!(response["result"], Value::Null, "{response}");
        self.exit()
    }

    /// `exit` (without `shutdown` unless sent before), and the exit status.
    pub fn exit(mut self) -> i32 {
        self.notify("exit", Value::Null);
        let deadline = Instant::now() + DEADLINE;
        loop {
            if let Some(status) = self.child.try_wait().unwrap() {
                return status.code().unwrap_or(-1);
            }
            assert!(Instant::now() < deadline, "the server did not exit");
            std::thread::sleep(Duration::from_millis(20));
        }
    }
}

pub fn temp_dir(name: &str) -> std::path::PathBuf {
    let dir = std::env::temp_dir().join(format!("rulelens-lsp-{name}-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).unwrap();
    dir
}

pub fn uri(path: &std::path::Path) -> String {
    format!("file://{}", path.display())
}
