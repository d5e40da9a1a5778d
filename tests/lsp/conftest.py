"""End-to-end tests of `rulelens serve` driven over stdio by pytest-lsp's real LSP client,
replaying the recorded client capabilities of Neovim 0.7.0 and VS Code.

Each test gets a fresh copy of `examples/sms` (so saves and the checkpoint cache stay in a
temporary folder) and a server started with that copy as its workspace. The server binary
is `$RULELENS_BIN`, else `target/debug/rulelens`.
"""

from __future__ import annotations

import asyncio
import os
import pathlib
import shutil
import sys
from typing import Any, Callable

import pytest
import pytest_lsp
from lsprotocol import types
from pygls.protocol import default_converter
from pytest_lsp import ClientServerConfig, LanguageClient, client_capabilities
from pytest_lsp.client import DEFAULT_CLIENT_FEATURES, register_lsp_features

REPO = pathlib.Path(__file__).resolve().parents[2]
BINARY = os.environ.get("RULELENS_BIN", str(REPO / "target" / "debug" / "rulelens"))
CLIENTS = ["neovim@v0.7.0", "visual-studio-code"]
# Seconds a test waits for the server before failing; training two epochs of SMS in a
# debug build on two cores takes well under this.
DEADLINE = float(os.environ.get("RULELENS_TEST_DEADLINE", "240"))


def make_client() -> LanguageClient:
    """pytest-lsp's client, also recording every diagnostics notification (with its
    version) and waking waiters on every notification it records (diagnostics, progress,
    log messages)."""
    client = LanguageClient(converter_factory=default_converter)
    client.published = []
    client.news = asyncio.Event()
    features = dict(DEFAULT_CLIENT_FEATURES)
    default_progress = features[types.PROGRESS]
    default_log = features[types.WINDOW_LOG_MESSAGE]

    def publish(client: LanguageClient, params: types.PublishDiagnosticsParams):
        client.diagnostics[params.uri] = params.diagnostics
        client.published.append(params)
        client.news.set()

    def progress(client: LanguageClient, params: types.ProgressParams):
        default_progress(client, params)
        client.news.set()

    def log(client: LanguageClient, params: types.LogMessageParams):
        default_log(client, params)
        client.news.set()

    def refresh(client: LanguageClient, params: None):
        client.refreshed.append(True)

    def refresh_diagnostics(client: LanguageClient, params: None):
        client.diagnostic_refreshes += 1
        client.news.set()

    async def register(client: LanguageClient, params: types.RegistrationParams):
        if client.registration_delay:
            await asyncio.sleep(client.registration_delay)
        client.registrations.extend(params.registrations)
        client.news.set()

    client.refreshed = []
    client.diagnostic_refreshes = 0
    client.registrations = []
    # Seconds the client takes to answer `client/registerCapability` (a busy editor).
    client.registration_delay = 0.0
    # VS Code watches files for the server (`workspace/didChangeWatchedFiles`).
    features[types.CLIENT_REGISTER_CAPABILITY] = register
    features[types.TEXT_DOCUMENT_PUBLISH_DIAGNOSTICS] = publish
    # A client that pulls diagnostics is asked to pull again after a save.
    features[types.WORKSPACE_DIAGNOSTIC_REFRESH] = refresh_diagnostics
    features[types.PROGRESS] = progress
    features[types.WINDOW_LOG_MESSAGE] = log
    # VS Code answers these; the server sends them when the client says it can.
    features[types.WORKSPACE_CODE_LENS_REFRESH] = refresh
    features[types.WORKSPACE_INLAY_HINT_REFRESH] = refresh
    register_lsp_features(client, features)
    return client


@pytest_lsp.fixture(
    config=ClientServerConfig(server_command=[BINARY, "serve"], client_factory=make_client),
    params=CLIENTS,
)
async def client(request, lsp_client: LanguageClient):
    yield
    await lsp_client.shutdown_session()


@pytest.fixture
def workspace(tmp_path: pathlib.Path) -> pathlib.Path:
    shutil.copytree(REPO / "examples" / "sms", tmp_path / "sms")
    return tmp_path / "sms"


async def wait_until(client: LanguageClient, condition: Callable[[], Any], what: str):
    """Waits for the server's notifications until `condition()` is truthy, and returns it."""
    loop = asyncio.get_running_loop()
    deadline = loop.time() + DEADLINE
    while True:
        value = condition()
        if value:
            return value
        client.news.clear()
        remaining = deadline - loop.time()
        if remaining <= 0:
            raise AssertionError(f"timed out waiting for {what}")
        try:
            await asyncio.wait_for(client.news.wait(), remaining)
        except asyncio.TimeoutError:
            raise AssertionError(f"timed out waiting for {what}") from None


def latest(client: LanguageClient, uri: str, version: int | None = None):
    """The newest diagnostics published for `uri` (with `version`, if given)."""
    for params in reversed(client.published):
        if params.uri == uri and (version is None or params.version == version):
            return params
    return None


async def start(
    client: LanguageClient,
    request,
    workspace: pathlib.Path,
    adjust: Callable[[types.ClientCapabilities], None] = lambda capabilities: None,
    **options,
):
    """Initializes the session with the recorded capabilities of this test's client, as
    `adjust` changes them, and returns the server's answer."""
    spec = request.node.callspec.params["client"]
    training = {"epochs": 2, "patience": 1, "delay": 0, "modelCache": str(workspace / ".cache")}
    training.update(options.pop("training", {}))
    capabilities = client_capabilities(spec)
    adjust(capabilities)
    return await client.initialize_session(
        types.InitializeParams(
            capabilities=capabilities,
            root_uri=workspace.as_uri(),
            workspace_folders=[types.WorkspaceFolder(uri=workspace.as_uri(), name="sms")],
            initialization_options={"training": training, **options},
        )
    )


def open_document(client: LanguageClient, path: pathlib.Path, language: str) -> str:
    uri = path.as_uri()
    client.text_document_did_open(
        types.DidOpenTextDocumentParams(
            text_document=types.TextDocumentItem(
                uri=uri, language_id=language, version=1, text=path.read_text()
            )
        )
    )
    return uri


def change(client: LanguageClient, uri: str, version: int, start, end, text: str):
    client.text_document_did_change(
        types.DidChangeTextDocumentParams(
            text_document=types.VersionedTextDocumentIdentifier(uri=uri, version=version),
            content_changes=[
                types.TextDocumentContentChangePartial(
                    range=types.Range(
                        start=types.Position(*start), end=types.Position(*end)
                    ),
                    text=text,
                )
            ],
        )
    )


def apply_edit(text: str, edit: types.TextEdit) -> str:
    """Applies an edit whose positions count UTF-16 code units (both recorded clients use
    UTF-16; the examples are ASCII around the edits, so code units are characters)."""
    lines = text.split("\n")

    def offset(position: types.Position) -> int:
        return sum(len(line) + 1 for line in lines[: position.line]) + position.character

    start, end = offset(edit.range.start), offset(edit.range.end)
    return text[:start] + edit.new_text + text[end:]
