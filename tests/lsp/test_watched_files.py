"""A corpus file that changes on disk, not in the editor, is analyzed again as a save
does: reported by a client that watches files for the server (VS Code registers
`workspace/didChangeWatchedFiles`), or noticed by the server's own watcher (Neovim 0.7
watches nothing)."""

from __future__ import annotations

import pathlib

from lsprotocol import types
from pytest_lsp import LanguageClient

from conftest import latest, open_document, start, wait_until


def never_matching(client: LanguageClient, uri: str):
    """The lines of the rules that never match train (W0501), once published."""
    params = latest(client, uri)
    return params and sorted(
        d.range.start.line for d in params.diagnostics if d.code == "W0501"
    )


async def test_a_corpus_rewritten_on_disk_is_analyzed_again(
    client: LanguageClient, request, workspace: pathlib.Path
):
    await start(client, request, workspace, training={"enabled": False})
    rules = open_document(client, workspace / "sms.rules", "rules")
    before = await wait_until(
        client, lambda: never_matching(client, rules), "W0501 of the first save job"
    )

    # A labeling tool keeps only the first 200 lines of train.tsv, which is not open: many
    # more rules now match none of it.
    path = workspace / "train.tsv"
    lines = path.read_text().split("\n")
    path.write_text("\n".join(lines[:200]) + "\n")
    watchers = [r for r in client.registrations if r.method == "workspace/didChangeWatchedFiles"]
    spec = request.node.callspec.params["client"]
    if spec == "visual-studio-code":
        (registration,) = watchers
        globs = [w["globPattern"] for w in registration.register_options["watchers"]]
        assert globs == ["**/*.tsv", "**/*.jsonl"], globs
        client.workspace_did_change_watched_files(
            types.DidChangeWatchedFilesParams(
                changes=[types.FileEvent(uri=path.as_uri(), type=types.FileChangeType.Changed)]
            )
        )
    else:
        assert watchers == []

    def more_never_matching():
        now = never_matching(client, rules)
        return now and len(now) > len(before) and now

    after = await wait_until(client, more_never_matching, "W0501 after the corpus changed")
    assert set(before) < set(after), (before, after)
    # The log message and the diagnostics travel separately: wait for the message too.
    await wait_until(
        client,
        lambda: any("a bound corpus changed on disk" in m.message for m in client.log_messages),
        "the log message that says why",
    )


def codes(client: LanguageClient, uri: str):
    """The codes of the diagnostics last published for `uri`, once there are some."""
    params = latest(client, uri)
    return params is not None and sorted(str(d.code) for d in params.diagnostics)


async def test_a_word_list_file_written_on_disk_is_read_again(
    client: LanguageClient, request, workspace: pathlib.Path
):
    """A rules file reads a word list its author has not written yet (E0406); once the file
    is on disk, the server's watcher notices (whatever the client watches), the open rules
    document is analyzed again and the error goes. The client answers the server's request to
    watch files late (a busy editor), and the file is written before the answer: the watcher
    still counts it as changed when it first sees it."""
    client.registration_delay = 1.5
    await start(client, request, workspace, training={"enabled": False})
    path = workspace / "lists.rules"
    path.write_text('default ham\nwords lures from "lures.txt"\nspam: $* @lures $*\n')
    rules = open_document(client, path, "rules")
    await wait_until(client, lambda: "E0406" in (codes(client, rules) or []), "E0406")

    (workspace / "lures.txt").write_text("win\nfree\n")
    await wait_until(
        client,
        lambda: codes(client, rules) == [],
        "no diagnostics once lures.txt is on disk",
    )
    # The log message and the diagnostics travel separately: wait for the message too.
    await wait_until(
        client,
        lambda: any("a word-list file changed on disk" in m.message for m in client.log_messages),
        "the log message that says why",
    )
