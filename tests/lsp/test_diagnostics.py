"""Diagnostics pulled or pushed, as the client can: a client that pulls them
(`textDocument/diagnostic`, with `workspace/diagnostic/refresh`) gets them when it asks and
is asked again after a save, and never gets them pushed; a client that does not gets them
published."""

from __future__ import annotations

import pathlib

from lsprotocol import types
from pytest_lsp import LanguageClient

from conftest import change, latest, open_document, start, wait_until


def pulls_diagnostics(capabilities: types.ClientCapabilities):
    """The capabilities of a client that pulls diagnostics and refreshes them on request,
    as VS Code's since 1.67."""
    capabilities.text_document.diagnostic = types.DiagnosticClientCapabilities()
    capabilities.workspace.diagnostics = types.DiagnosticWorkspaceClientCapabilities(
        refresh_support=True
    )


async def pull(client: LanguageClient, uri: str) -> list[types.Diagnostic]:
    report = await client.text_document_diagnostic_async(
        types.DocumentDiagnosticParams(text_document=types.TextDocumentIdentifier(uri=uri))
    )
    assert report.kind == "full", report
    return report.items


async def test_a_client_that_pulls_gets_diagnostics_when_it_asks_and_none_pushed(
    client: LanguageClient, request, workspace: pathlib.Path
):
    result = await start(
        client, request, workspace, adjust=pulls_diagnostics, training={"enabled": False}
    )
    provider = result.capabilities.diagnostic_provider
    assert provider is not None and provider.inter_file_dependencies, provider
    rules = open_document(client, workspace / "sms.rules", "rules")
    train = open_document(client, workspace / "train.tsv", "tsv")
    # The save's analysis (on opening) changes the corpus's diagnostics: pull again.
    await wait_until(client, lambda: client.diagnostic_refreshes, "workspace/diagnostic/refresh")
    lines = [d for d in await pull(client, train) if d.code == "I0505"]
    assert len(lines) == 366, len(lines)
    findings = [d.code for d in await pull(client, rules) if d.code.startswith("W05")]
    assert "W0501" in findings, findings
    # An edit: the next pull is of the new text (an unclosed group on line 18).
    change(client, rules, 2, (17, 6), (17, 6), "( ")
    unclosed = [d for d in await pull(client, rules) if d.code == "E0106"]
    assert [d.range.start for d in unclosed] == [types.Position(line=17, character=6)], unclosed
    assert client.published == [], [p.uri for p in client.published]


async def test_a_client_that_does_not_pull_gets_diagnostics_published(
    client: LanguageClient, request, workspace: pathlib.Path
):
    result = await start(client, request, workspace, training={"enabled": False})
    assert result.capabilities.diagnostic_provider is None
    open_document(client, workspace / "sms.rules", "rules")
    train = open_document(client, workspace / "train.tsv", "tsv")

    def misclassified():
        params = latest(client, train, 1)
        return params and [d for d in params.diagnostics if d.code == "I0505"]

    lines = await wait_until(client, misclassified, "published misclassified-line diagnostics")
    assert len(lines) == 366
    assert client.diagnostic_refreshes == 0
