"""`mjrules lsp` end to end: a real server process (`python -m engine lsp`) driven by pygls's
language client over a stdio pipe, with LSP messages only (no handler is called directly):
initialize, didOpen a file with errors → diagnostics at the right ranges, didChange →
new diagnostics, hover, completion, definition across `extends`, the outline, formatting."""
from __future__ import annotations

import asyncio
import os
import signal
import sys
from pathlib import Path

from .extras import need_extra

need_extra("pygls", "lsp")  # the language server's extra
from lsprotocol import types as T  # noqa: E402
from pygls.lsp.client import LanguageClient  # noqa: E402

ROOT = Path(__file__).resolve().parent.parent
NANCHANG = ROOT / "rulesets" / "nanchang.rules"
WAIT = 120  # seconds: a guard against a hung server, not a timing assertion

TEXT = ("extends nanchang\n"
        "override fan 大七对 = x4 when pattern 大七对\n"
        "fan 新 = x2 when discrad\n"
        "meld 新顺 chow = distinct three in winds\n")


def line_of(path: Path, prefix: str) -> int:
    """0-based line of the first line of ``path`` starting with ``prefix``."""
    return next(i for i, row in enumerate(path.read_text(encoding="utf-8").split("\n")) if row.startswith(prefix))


async def _session(tmp_path: Path, steps):
    client = LanguageClient("mjrules-test", "v1")
    diagnostics: asyncio.Queue = asyncio.Queue()

    @client.feature(T.TEXT_DOCUMENT_PUBLISH_DIAGNOSTICS)
    def on_diagnostics(params: T.PublishDiagnosticsParams):
        diagnostics.put_nowait(params)

    await client.start_io(sys.executable, "-m", "engine", "lsp", cwd=str(ROOT))
    try:
        result = await asyncio.wait_for(client.initialize_async(T.InitializeParams(
            capabilities=T.ClientCapabilities(), root_uri=tmp_path.as_uri())), WAIT)
        client.initialized(T.InitializedParams())
        await steps(client, diagnostics, result)
        await asyncio.wait_for(client.shutdown_async(None), WAIT)
        client.exit(None)
        await asyncio.wait_for(client.stop(), WAIT)
    finally:
        _kill_servers()


def _kill_servers() -> None:
    """Kill this process's `mjrules lsp` children still running (a server that hung: the test
    has failed already; read from /proc, not from the client's private members)."""
    me = Path("/proc/self/task")
    kids = [int(p) for t in (me.iterdir() if me.exists() else ()) for p in (t / "children").read_text().split()]
    for pid in kids:
        try:
            cmd = Path(f"/proc/{pid}/cmdline").read_bytes().split(b"\0")
            if b"lsp" in cmd and b"engine" in cmd:
                os.kill(pid, signal.SIGKILL)
        except (OSError, ProcessLookupError):
            pass


def run(tmp_path: Path, steps) -> None:
    asyncio.run(_session(tmp_path, steps))


def _file_uri(path: Path, text: str) -> str:
    path.write_text(text, encoding="utf-8")
    return path.as_uri()


async def _open(client, diagnostics, uri: str, text: str):
    """didOpen ``text`` at ``uri``; the diagnostics the server publishes for it."""
    client.text_document_did_open(T.DidOpenTextDocumentParams(text_document=T.TextDocumentItem(
        uri=uri, language_id="mjrules", version=1, text=text)))
    return await asyncio.wait_for(diagnostics.get(), WAIT)


def test_lsp_over_stdio(tmp_path):
    path = tmp_path / "house.rules"
    path.write_text(TEXT, encoding="utf-8")
    uri = path.as_uri()
    doc = T.TextDocumentIdentifier(uri=uri)

    async def steps(client, diagnostics, result):
        caps = result.capabilities
        assert caps.hover_provider and caps.definition_provider and caps.document_symbol_provider
        assert caps.completion_provider is not None and caps.document_formatting_provider

        # didOpen a file with two errors: both, at their ranges (0-based lines, UTF-16 columns)
        client.text_document_did_open(T.DidOpenTextDocumentParams(text_document=T.TextDocumentItem(
            uri=uri, language_id="mjrules", version=1, text=TEXT)))
        got = await asyncio.wait_for(diagnostics.get(), WAIT)
        assert got.uri == uri
        found = [(d.code, d.severity, d.range.start.line, d.range.start.character, d.range.end.line,
                  d.range.end.character, d.message.split("\n")[0]) for d in got.diagnostics]
        assert found == [
            ("E401", T.DiagnosticSeverity.Error, 2, 16, 2, 23, "unknown fact 'discrad' in a win condition"),
            ("E101", T.DiagnosticSeverity.Error, 3, 24, 3, 29, "unexpected `three`; expected a number"),
        ]
        assert got.diagnostics[0].message.endswith("hint: did you mean discard?")
        assert all(d.source == "mjrules" for d in got.diagnostics)

        # didChange: fix both, add a warning (a condition that can never hold)
        fixed = TEXT.replace("discrad", "self_drawn and discard").replace("three", "3")
        client.text_document_did_change(T.DidChangeTextDocumentParams(
            text_document=T.VersionedTextDocumentIdentifier(uri=uri, version=2),
            content_changes=[T.TextDocumentContentChangeWholeDocument(text=fixed)]))
        got = await asyncio.wait_for(diagnostics.get(), WAIT)
        assert [(d.code, d.severity, d.range.start.line, d.range.start.character, d.range.end.character)
                for d in got.diagnostics] == [("W201", T.DiagnosticSeverity.Warning, 2, 16, 38)]

        # hover: a rule name (its value and where it comes from), a keyword, a fact
        h = await client.text_document_hover_async(T.HoverParams(text_document=doc, position=T.Position(line=1, character=14)))
        assert h.contents.kind == T.MarkupKind.Markdown
        assert "**fan.大七对**" in h.contents.value and "override fan 大七对 = x4 when pattern 大七对" in h.contents.value
        parent_line = line_of(NANCHANG, "fan 大七对") + 1
        assert f"nanchang.rules:{parent_line}`: `fan 大七对 = x2 when pattern 大七对`" in h.contents.value
        h = await client.text_document_hover_async(T.HoverParams(text_document=doc, position=T.Position(line=1, character=2)))
        assert h.contents.value.startswith("**override** — `override` (docs/language.md)")
        assert "Replaces the declaration with the same path" in h.contents.value
        h = await client.text_document_hover_async(T.HoverParams(text_document=doc, position=T.Position(line=2, character=20)))
        assert h.contents.value == "**fact** `self_drawn` (transfer, win): the winner drew the winning tile (自摸, 杠开 too)"

        # completion: facts after `when`, pattern names after `pattern`, keywords at a line start
        c = await client.text_document_completion_async(T.CompletionParams(text_document=doc,
                                                                          position=T.Position(line=2, character=18)))
        labels = [i.label for i in c.items]
        assert "self_drawn" in labels and "discard" not in labels  # the word typed so far is `se`
        c = await client.text_document_completion_async(T.CompletionParams(text_document=doc,
                                                                          position=T.Position(line=1, character=35)))
        assert {"平胡", "大七对", "小七对", "十三烂", "七星十三烂"} <= {i.label for i in c.items}
        c = await client.text_document_completion_async(T.CompletionParams(text_document=doc,
                                                                          position=T.Position(line=4, character=0)))
        assert {"fan", "meld", "override", "option"} <= {i.label for i in c.items}

        # definition across extends: the overridden fan jumps to the parent's line
        d = await client.text_document_definition_async(T.DefinitionParams(text_document=doc,
                                                                           position=T.Position(line=1, character=14)))
        assert d.uri == NANCHANG.resolve().as_uri() and d.range.start.line == line_of(NANCHANG, "fan 大七对")
        d = await client.text_document_definition_async(T.DefinitionParams(text_document=doc,
                                                                           position=T.Position(line=1, character=35)))
        assert d.uri == NANCHANG.resolve().as_uri() and d.range.start.line == line_of(NANCHANG, "pattern 大七对")
        d = await client.text_document_definition_async(T.DefinitionParams(text_document=doc,
                                                                           position=T.Position(line=0, character=10)))
        assert d.uri == NANCHANG.resolve().as_uri() and d.range.start.line == 0

        # the outline
        syms = await client.text_document_document_symbol_async(T.DocumentSymbolParams(text_document=doc))
        assert [(s.name, s.detail, s.range.start.line) for s in syms] == [
            ("fan 大七对", "override", 1), ("fan 新", "declare", 2), ("meld 新顺", "declare", 3)]

    run(tmp_path, steps)


def test_lsp_on_save_reports_the_option_choices_a_file_breaks(tmp_path):
    """As `mjrules check` does (found by a fresh-clone walk: the editor said fine while `check`
    did not): on save, each other choice of every option is compiled; typing stays fast."""
    text = "extends nanchang\nremove indicator lower\n"
    uri = _file_uri(tmp_path / "nolower.rules", text)

    async def steps(client, diagnostics, result):
        got = await _open(client, diagnostics, uri, text)
        assert [d.code for d in got.diagnostics if d.severity == T.DiagnosticSeverity.Error] == []
        client.text_document_did_save(T.DidSaveTextDocumentParams(text_document=T.TextDocumentIdentifier(uri=uri)))
        got = await asyncio.wait_for(diagnostics.get(), WAIT)
        broken = [d for d in got.diagnostics if "option 下精 = " in d.message]
        assert {d.message.split(" does not compile")[0].split(": ", 1)[1] for d in broken} == {
            "option 下精 = after_deal", "option 下精 = at_end", "option 下精 = hidden_at_end"}
        assert all(d.range.start.line == 0 for d in broken)  # in the parent file: shown at the extends line

    run(tmp_path, steps)


def test_lsp_formatting_over_stdio(tmp_path):
    from engine.lang import fmt

    messy = "extends   nanchang\nfan  新 =  x2   when discard\n"
    want = fmt.format_text(messy)
    assert want != messy
    uri = _file_uri(tmp_path / "messy.rules", messy)

    async def steps(client, diagnostics, result):
        await _open(client, diagnostics, uri, messy)
        edits = await client.text_document_formatting_async(T.DocumentFormattingParams(
            text_document=T.TextDocumentIdentifier(uri=uri), options=T.FormattingOptions(tab_size=4, insert_spaces=True)))
        [edit] = edits
        assert edit.new_text == want
        assert (edit.range.start.line, edit.range.start.character) == (0, 0)

    run(tmp_path, steps)


def test_every_keyword_has_hover_text():
    from engine.lang.syntax import STATEMENT_STARTS as STATEMENT_WORDS
    from engine.tools.lsp import KEYWORD_SECTIONS, keyword_doc, section_of

    assert [k for k in KEYWORD_SECTIONS if section_of(k) is None] == []
    assert all(keyword_doc(k) for k in KEYWORD_SECTIONS)
    assert set(STATEMENT_WORDS) <= set(KEYWORD_SECTIONS)
    assert keyword_doc("liability").startswith("**liability** — Liability (")


def test_lsp_without_pygls_is_a_clear_error(monkeypatch):
    from typer.testing import CliRunner

    from engine.cli import app

    monkeypatch.setitem(sys.modules, "pygls", None)  # import pygls → ImportError
    r = CliRunner().invoke(app, ["lsp"])
    assert r.exit_code == 2
    assert r.output.splitlines() == ["error: `mjrules lsp` needs pygls, which is not installed",
                                     "hint: pip install 'mjrules[lsp]' (from a clone: pip install '.[lsp]')"]
