"""`mjrules lsp`: a language server for rule files over stdio (pygls, the ``lsp`` extra).

What it offers (docs/cli.md, "The language server"):

- diagnostics as you type: the errors and warnings of ``mjrules check`` (:mod:`engine.lang.lint`);
- hover: a keyword's section of docs/language.md, a fact's meaning (:mod:`engine.lang.facts`),
  a rule name's resolved declaration and the ``file:line`` it comes from (parents included);
- completion: keywords, facts, meld/pattern/fan/… names, flow policies and their words,
  option choices;
- go to definition, across ``extends`` (``override fan 大七对`` jumps to the parent's line);
- the document outline; formatting through ``engine.lang.fmt.format_text`` (as ``mjrules fmt``).

The analysis (:class:`Analysis`) is plain Python over the compiler, so it is also what the
tests check through a real stdio pipe. Every document is untrusted text: the compiler bounds
the work, and no request raises out of the server (a failure answers "nothing").
"""
from __future__ import annotations

import re
from dataclasses import dataclass, field
from functools import lru_cache
from pathlib import Path
from typing import Any
from urllib.parse import unquote, urlparse

from engine.errors import MjError, RuleError
from engine.lang import facts as F
from engine.lang import flow as FLOW
from engine.lang.choices import option_choice_errors
from engine.lang.compiler import SECTIONS, Checked, check_text, compile_ruleset, statement_chunks
from engine.lang.lint import Diagnostic, diagnose
from engine.lang.resources import data_dir
from engine.lang.syntax import STATEMENT_STARTS, strip_comment

SERVER_NAME = "mjrules"

_WORD = re.compile(r"[^\W\d]\w*|[正副]")

# keyword → the heading of docs/language.md that explains it (or the start of that heading)
KEYWORD_SECTIONS: dict[str, str] = {
    "ruleset": "`ruleset` — the header", "extends": "`extends`", "source": "`source`", "override": "`override`",
    "remove": "`remove`", "option": "`option`", "set": "`set`", "suit": "`suit`", "honours": "`honours`", "table": "`table`",
    "meld": "`meld`", "pattern": "`pattern`", "indicator": "`indicator`", "jing": "精 — the 精 settlement",
    "fan": "`fan`", "payment": "`payment`", "factor": "`factor`", "exhaustive": "`exhaustive`", "flow": "`flow`",
    **dict.fromkeys(("ranks", "cyclic", "copies"), "`suit`"),
    **dict.fromkeys(("chow", "pung", "kong", "pair", "run", "distinct", "same", "declared", "in"), "`meld`"),
    **dict.fromkeys(("sets", "of", "pairs", "rotten", "gap", "concealed", "natural", "quads", "as", "only", "one", "plus"), "`pattern`"),
    **dict.fromkeys(("top", "dice", "stack", "under", "left", "right", "previous", "wild", "hidden", "picked", "seat", "settle", "after", "deal", "at", "end", "head", "tail", "with", "kongs"), "`indicator`"),
    **dict.fromkeys(("正", "副", "main", "next"), "Tile values"),
    **dict.fromkeys(("exposed", "added"), "Kong points"),
    "score": "Score formula",
    **dict.fromkeys(("each", "per", "points"), "Kong bonus"),
    **dict.fromkeys(("liability", "claimed", "first"), "Liability"),
    **dict.fromkeys(("when", "instead", "all", "except", "fixed", "from", "else", "discarder", "others", "dealer"), "`fan`"),
    **dict.fromkeys(("on", "win", "adders"), "`factor`"),
    "pays": "`exhaustive`",
    **dict.fromkeys(("paid", "by"), "`payment`"),
    "most": "`factor`",
    "no": "`fan`",
    **dict.fromkeys(("count", "discarded"), "Discarded 精"),
    **dict.fromkeys(("and", "or", "not"), "Expressions"),
}
# kinds searched for a bare name, in this order
_NAME_KINDS = ["pattern", "fan", "meld", "indicator", "jing", "factor", "payment", "suit", "honours", "exhaustive",
               "flow", "table"]
_MAX_HOVER_LINES = 40  # of a docs section shown on hover


# ---- the reference, for hover ------------------------------------------------------------------


@lru_cache(maxsize=1)
def reference_sections() -> dict[str, str]:
    """docs/language.md (shipped in the package) as heading → its markdown, up to the next heading."""
    try:
        text = (data_dir("docs") / "language.md").read_text(encoding="utf-8")
    except (OSError, RuntimeError):
        return {}
    out: dict[str, str] = {}
    heading: str | None = None
    body: list[str] = []
    for row in text.split("\n"):
        m = re.match(r"^#{2,4} (.+)$", row)
        if m:
            if heading:
                out[heading] = "\n".join(body).strip()
            heading, body = m.group(1).strip(), []
        elif heading:
            body.append(row)
    if heading:
        out[heading] = "\n".join(body).strip()
    return out


def section_of(word: str) -> str | None:
    """The heading of docs/language.md that explains keyword ``word`` (None: not a keyword)."""
    want = KEYWORD_SECTIONS.get(word)
    if want is None:
        return None
    sections = reference_sections()
    return want if want in sections else next((h for h in sections if h.startswith(want + " ")), None)


def keyword_doc(word: str) -> str | None:
    """Markdown for a keyword: its section of the language reference (cut to a screen)."""
    heading = section_of(word)
    body = reference_sections().get(heading or "")
    if body is None:
        return None
    rows = body.split("\n")
    cut = rows[:_MAX_HOVER_LINES] + (["…"] if len(rows) > _MAX_HOVER_LINES else [])
    return f"**{word}** — {heading} (docs/language.md)\n\n" + "\n".join(cut)


def fact_doc(name: str) -> str | None:
    """Markdown for a fact: its meaning and the contexts it may be used in."""
    if name not in F.FACTS:
        return None
    contexts, meaning = F.FACTS[name]
    return f"**fact** `{name}` ({', '.join(sorted(contexts))}): {meaning}"


# ---- one document, analysed ---------------------------------------------------------------------


@dataclass
class Symbol:
    """A declaration a name can refer to: ``kind``, ``name``, where it is written, its text."""

    kind: str
    name: str
    file: str
    line: int  # 1-based
    column: int
    text: str = ""
    op: str = "declare"


@dataclass
class Analysis:
    """What the server knows of one document: its diagnostics, its own statements, and the
    declarations of its parent chain (each path → the declarations in the order they apply)."""

    file: str
    text: str
    checked: Checked
    diagnostics: list[Diagnostic]
    symbols: dict[str, list[Symbol]] = field(default_factory=dict)
    options: dict[str, list[str]] = field(default_factory=dict)
    parent_file: str | None = None

    def lookup(self, kind: str | None, name: str) -> list[Symbol]:
        kinds = [kind] if kind else _NAME_KINDS
        for k in kinds:
            if f"{k}.{name}" in self.symbols:
                return self.symbols[f"{k}.{name}"]
        return []


def analyse(text: str, file: str, base_dir: Path | None = None) -> Analysis:
    """Check ``text`` (as the file ``file``) and gather its symbols and its parents'.

    Never raises for bad text: the errors are in ``diagnostics``."""
    base = base_dir or (Path(file).parent if Path(file).is_absolute() else Path.cwd())
    try:
        checked = check_text(text, file, None, base)
    except RuleError as exc:  # an option error cannot come without options; kept total anyway
        from engine.lang.compiler import ParsedFile

        checked = Checked(None, [exc], ParsedFile(file=file, text=text))
    a = Analysis(file, checked.parsed.text, checked, diagnose(checked, file))
    pf = checked.parsed
    if pf.extends:
        try:
            from engine.lang.resources import resolve_ruleset_path

            parent_path = resolve_ruleset_path(pf.extends[0], base)
            parent = compile_ruleset(parent_path)
        except MjError:
            parent = None
        if parent is not None:
            a.parent_file = str(parent_path)
            for kind, section in SECTIONS.items():
                decls = getattr(parent, section)
                for d in decls.values():
                    if d.kind == kind or (kind == "payment" and d.kind in ("payment", "base")):
                        _add(a, Symbol(kind, d.name, d.origin.file, d.origin.line, d.origin.column,
                                       _source_line(d.origin.file, d.origin.line)))
            if parent.base is not None:
                b = parent.base
                _add(a, Symbol("payment", "base", b.origin.file, b.origin.line, b.origin.column,
                               _source_line(b.origin.file, b.origin.line)))
            for o in parent.options.values():
                a.options[o.name] = list(o.choices)
    rows = a.text.split("\n")
    for st in pf.stmts:
        _add(a, Symbol(st.kind, st.name, file, st.location.line, st.location.column,
                       strip_comment(rows[st.location.line - 1]).strip() if st.location.line <= len(rows) else "", st.op))
    for opt in pf.options:
        a.options[opt.name] = list(opt.choices)
        for stmts in opt.choices.values():
            for st in stmts:
                _add(a, Symbol(st.kind, st.name, file, st.location.line, st.location.column,
                               strip_comment(rows[st.location.line - 1]).strip() if st.location.line <= len(rows) else "", st.op))
    return a


def _add(a: Analysis, s: Symbol) -> None:
    a.symbols.setdefault(f"{s.kind}.{s.name}", []).append(s)


@lru_cache(maxsize=64)
def _file_rows(path: str) -> tuple[str, ...]:
    try:
        return tuple(Path(path).read_text(encoding="utf-8").split("\n"))
    except (OSError, ValueError):
        return ()


def _source_line(path: str, line: int) -> str:
    rows = _file_rows(path)
    return strip_comment(rows[line - 1]).strip() if 1 <= line <= len(rows) else ""


# ---- what is under the cursor -----------------------------------------------------------------------


@dataclass
class Word:
    """The word at a position (0-based line, character index) and the words before it."""

    text: str
    line: int
    start: int
    end: int
    before: list[str]  # the words before it on its line, nearest last


def word_at(text: str, line: int, char: int) -> Word | None:
    """The word of the rule language at 0-based ``line``/``char`` (a Python character index)."""
    rows = text.split("\n")
    if not 0 <= line < len(rows):
        return None
    row = rows[line].split("#", 1)[0] if "#" in rows[line] else rows[line]
    for m in _WORD.finditer(row):
        if m.start() <= char <= m.end():
            before = _WORD.findall(row[: m.start()])
            return Word(m.group(), line, m.start(), m.end(), before)
    return None


def _target(a: Analysis, w: Word) -> tuple[str | None, str]:
    """The kind a name is of, from the word before it (``fan 大七对``, ``override fan 大七对``,
    ``when pattern 大七对``, ``liability [over] NAME``); None: any kind."""
    prev = w.before[-1] if w.before else None
    if prev in SECTIONS:
        return prev, w.text
    if prev == "liability" or (prev == "over" and w.before[-2:-1] == ["liability"]):  # liability [over] FORMULA
        return "jing", w.text
    return None, w.text


def hover(a: Analysis, line: int, char: int) -> str | None:
    """Markdown for the word at the position, or None."""
    w = word_at(a.text, line, char)
    if w is None:
        return None
    kind, name = _target(a, w)
    syms = a.lookup(kind, name) if (kind or name not in KEYWORD_SECTIONS) else []
    if syms and not (kind is None and name in F.FACTS):
        return _rule_doc(a, syms)
    if name in FLOW.POLICIES and "flow" in w.before:
        policy = FLOW.POLICIES[name]
        params = "\n".join(f"- `{k}`: {p.doc}" + (f" ({' / '.join(p.words)})" if p.words else "")
                           for k, p in policy.params.items())
        return f"**flow policy** `{name}`: {policy.doc}\n\n{params}"
    return fact_doc(name) or keyword_doc(name) or (f"**option** `{name}`: choices {', '.join(a.options[name])}"
                                                   if name in a.options else None)


def _rule_doc(a: Analysis, syms: list[Symbol]) -> str:
    last = syms[-1]
    out = [f"**{last.kind}.{last.name}**", "", f"```rules\n{last.text}\n```", f"from `{last.file}:{last.line}`"]
    for s in reversed(syms[:-1]):
        out.append(f"- {'overrides' if last.op == 'override' else 'also'} `{s.file}:{s.line}`: `{s.text}`")
    return "\n".join(out)


def definition(a: Analysis, line: int, char: int) -> Symbol | None:
    """Where the name at the position is declared: for a name being overridden or removed, the
    declaration it replaces (a parent's); else the declaration that applies."""
    w = word_at(a.text, line, char)
    if w is None:
        return None
    if w.before == ["extends"] and a.parent_file:
        return Symbol("ruleset", w.text, a.parent_file, 1, 1)
    kind, name = _target(a, w)
    syms = a.lookup(kind, name)
    if not syms:
        return None
    here = next((i for i, s in enumerate(syms) if s.file == a.file and s.line == line + 1), None)
    if here is not None:
        if syms[here].op in ("override", "remove") and here > 0:
            return syms[here - 1]
        return syms[here]
    return syms[-1]


def completions(a: Analysis, line: int, char: int) -> list[tuple[str, str]]:
    """``(label, kind)`` candidates at the position; kind is keyword, fact, a declaration kind,
    flow, or option."""
    rows = a.text.split("\n")
    row = rows[line][:char] if 0 <= line < len(rows) else ""
    words = _WORD.findall(row.split("#", 1)[0])
    if row.rstrip() != row or not row or not re.search(r"\w$", row):
        last = None  # the cursor starts a new word
    else:
        last = words.pop() if words else None
    prev = words[-1] if words else None

    def names(kind: str) -> list[tuple[str, str]]:
        return [(k.split(".", 1)[1], kind) for k in a.symbols if k.startswith(kind + ".")]

    if not words:
        out = [(w, "keyword") for w in STATEMENT_STARTS]
    elif prev in ("override", "remove"):
        out = [(w, "keyword") for w in SECTIONS]
    elif len(words) == 2 and words[0] in ("override", "remove") and prev in SECTIONS:
        out = names(prev)
    elif prev == "pattern" and len(words) > 1:
        out = names("pattern")
    elif prev in ("of",) and "sets" in words or re.search(r"/\s*$", row) and "sets" in words:
        out = names("meld") + [(k, "keyword") for k in ("chow", "pung", "kong")]
    elif prev == "instead" or (prev == "of" and "instead" in words) or "instead" in words:
        out = names("fan") + [("all", "keyword"), ("except", "keyword")]
    elif words[0] == "flow" and "=" in row and "(" not in row:
        out = [(p, "flow") for p in FLOW.POLICIES]
    elif words[0] == "flow" and "(" in row:
        policy = FLOW.POLICIES.get(row.split("=", 1)[1].split("(", 1)[0].strip())
        out = [(f"{k}:", "flow") for k in (policy.params if policy else {})]
        if policy:
            out += [(w, "flow") for p in policy.params.values() for w in p.words]
    elif words[0] == "set" and "=" not in row:
        out = [(name, "option") for name in a.options]
    elif words[0] == "set" and len(words) > 1:
        out = [(c, "option") for c in a.options.get(words[1], [])]
    elif words[0] == "option" or any(w == "option" for w in words):
        out = [(c, "option") for cs in a.options.values() for c in cs]
    elif "when" in words or prev in ("when", "and", "or", "not", "score"):
        out = [(f, "fact") for f in F.FACTS] + [(k, "keyword") for k in ("pattern", "and", "or", "not")]
    else:
        out = [(w, "keyword") for w in KEYWORD_SECTIONS]
        out += [(k.split(".", 1)[1], k.split(".", 1)[0]) for k in a.symbols]
    if words and words[0] == "option":
        out += [(c, "option") for cs in a.options.values() for c in cs]
    if last:
        out = [c for c in out if c[0].startswith(last)] or out
    seen, uniq = set(), []
    for c in out:
        if c[0] not in seen:
            seen.add(c[0])
            uniq.append(c)
    return uniq


def outline(a: Analysis) -> list[dict[str, Any]]:
    """The document's statements: ``{"name", "detail", "line", "end_line", "children"}``
    (1-based lines), options with their choices' statements as children."""
    pf = a.checked.parsed
    ends: dict[int, int] = {}
    chunks = statement_chunks(a.text)
    for start, chunk in chunks:
        body = chunk.rstrip().split("\n")
        ends[start] = start + len(body) - 1
    out: list[dict[str, Any]] = []
    for st in pf.stmts:
        out.append({"name": f"{st.kind} {st.name}", "detail": st.op, "line": st.location.line,
                    "end_line": ends.get(st.location.line, st.location.line), "children": []})
    for opt in pf.options:
        kids = [{"name": f"{st.kind} {st.name}", "detail": f"{st.op} (choice {value})", "line": st.location.line,
                 "end_line": st.location.line, "children": []}
                for value, stmts in opt.choices.items() for st in stmts]
        out.append({"name": f"option {opt.name}", "detail": f"default {opt.default}; choices {', '.join(opt.choices)}",
                    "line": opt.location.line, "end_line": ends.get(opt.location.line, opt.location.line),
                    "children": kids})
    out.sort(key=lambda s: s["line"])
    return out


def formatted(text: str) -> str | None:
    """The text formatted by ``engine.lang.fmt.format_text`` (None: the text does not parse)."""
    from engine.lang.fmt import format_text

    try:
        return format_text(text)
    except MjError:
        return None


def uri_to_path(uri: str) -> str | None:
    """A ``file://`` URI as a local path (None for other schemes)."""
    p = urlparse(uri)
    return unquote(p.path) if p.scheme == "file" else None


def path_to_uri(path: str) -> str:
    """A local path as a ``file://`` URI."""
    return Path(path).resolve().as_uri() if Path(path).is_absolute() else path


# ---- the server ------------------------------------------------------------------------------------


def _units(row: str, chars: int) -> int:
    """Characters → UTF-16 code units (LSP positions) on ``row``."""
    return len(row[:chars].encode("utf-16-le")) // 2


def _chars(row: str, units: int) -> int:
    """UTF-16 code units → characters on ``row``."""
    n = 0
    for i, ch in enumerate(row):
        if n >= units:
            return i
        n += 2 if ord(ch) > 0xFFFF else 1
    return len(row)


def make_server() -> Any:
    """The pygls server with every feature registered. Raises ImportError without pygls."""
    from lsprotocol import types as T
    from pygls.lsp.server import LanguageServer

    server = LanguageServer(SERVER_NAME, "v1", text_document_sync_kind=T.TextDocumentSyncKind.Full)
    cache: dict[str, tuple[int | None, Analysis]] = {}

    def doc_analysis(uri: str) -> tuple[Any, Analysis]:
        doc = server.workspace.get_text_document(uri)
        hit = cache.get(uri)
        if hit is not None and hit[0] == doc.version and hit[1].text == doc.source.removeprefix("\ufeff"):
            return doc, hit[1]
        path = uri_to_path(uri)
        a = analyse(doc.source, path or uri, Path(path).parent if path else Path.cwd())
        cache[uri] = (doc.version, a)
        return doc, a

    def rng(rows: list[str], line: int, col: int, end_line: int, end_col: int) -> T.Range:
        def pos(ln: int, c: int) -> T.Position:
            row = rows[ln - 1] if 1 <= ln <= len(rows) else ""
            return T.Position(line=max(ln - 1, 0), character=_units(row, max(c - 1, 0)))
        return T.Range(start=pos(line, col), end=pos(end_line, end_col))

    def publish(uri: str, every_choice: bool = False) -> None:
        """Send the document's diagnostics; ``every_choice`` (on save: it compiles the file once
        per option choice) adds the choices that do not compile, as ``mjrules check`` does."""
        try:
            doc, a = doc_analysis(uri)
            found = list(a.diagnostics)
            if every_choice and not a.checked.errors:
                path = uri_to_path(uri)
                found += option_choice_errors(a.checked, a.file, Path(path).parent if path else Path.cwd(), {})
        except Exception:  # a bug of ours must not take the editor's server down
            return
        rows = a.text.split("\n")
        diags = []
        for d in found:
            if d.file == a.file:
                r = rng(rows, d.line, d.column, d.end_line, d.end_column)
                message = d.message + (f"\nhint: {d.hint}" if d.hint else "")
            else:  # in a parent file: shown at the extends line
                ext = a.checked.parsed.extends
                line = ext[1].line if ext else 1
                r = rng(rows, line, 1, line, len(rows[line - 1]) + 1 if line <= len(rows) else 1)
                message = f"{d.file}:{d.line}:{d.column}: {d.message}"
            diags.append(T.Diagnostic(
                range=r, message=message, code=d.code, source=SERVER_NAME,
                severity=T.DiagnosticSeverity.Error if d.severity == "error" else T.DiagnosticSeverity.Warning,
                related_information=[T.DiagnosticRelatedInformation(
                    location=T.Location(uri=path_to_uri(loc.file), range=rng([], loc.line, loc.column, loc.line,
                                                                             loc.column)),
                    message=what) for what, loc in d.related if Path(loc.file).is_absolute()] or None))
        server.text_document_publish_diagnostics(T.PublishDiagnosticsParams(uri=uri, diagnostics=diags,
                                                                            version=doc.version))

    @server.feature(T.TEXT_DOCUMENT_DID_OPEN)
    def did_open(ls: LanguageServer, params: T.DidOpenTextDocumentParams) -> None:
        publish(params.text_document.uri)

    @server.feature(T.TEXT_DOCUMENT_DID_CHANGE)
    def did_change(ls: LanguageServer, params: T.DidChangeTextDocumentParams) -> None:
        publish(params.text_document.uri)

    @server.feature(T.TEXT_DOCUMENT_DID_SAVE)
    def did_save(ls: LanguageServer, params: T.DidSaveTextDocumentParams) -> None:
        publish(params.text_document.uri, every_choice=True)

    @server.feature(T.TEXT_DOCUMENT_DID_CLOSE)
    def did_close(ls: LanguageServer, params: T.DidCloseTextDocumentParams) -> None:
        cache.pop(params.text_document.uri, None)

    def at(uri: str, position: T.Position) -> tuple[Analysis, int, int]:
        _, a = doc_analysis(uri)
        rows = a.text.split("\n")
        row = rows[position.line] if 0 <= position.line < len(rows) else ""
        return a, position.line, _chars(row, position.character)

    @server.feature(T.TEXT_DOCUMENT_HOVER)
    def on_hover(ls: LanguageServer, params: T.HoverParams) -> T.Hover | None:
        a, line, char = at(params.text_document.uri, params.position)
        text = hover(a, line, char)
        if text is None:
            return None
        return T.Hover(contents=T.MarkupContent(kind=T.MarkupKind.Markdown, value=text))

    kinds = {"keyword": T.CompletionItemKind.Keyword, "fact": T.CompletionItemKind.Variable,
             "flow": T.CompletionItemKind.EnumMember, "option": T.CompletionItemKind.Value}

    @server.feature(T.TEXT_DOCUMENT_COMPLETION, T.CompletionOptions(trigger_characters=[" ", "/", "("]))
    def on_completion(ls: LanguageServer, params: T.CompletionParams) -> T.CompletionList:
        a, line, char = at(params.text_document.uri, params.position)
        items = [T.CompletionItem(label=label, kind=kinds.get(kind, T.CompletionItemKind.Reference), detail=kind)
                 for label, kind in completions(a, line, char)]
        return T.CompletionList(is_incomplete=False, items=items)

    @server.feature(T.TEXT_DOCUMENT_DEFINITION)
    def on_definition(ls: LanguageServer, params: T.DefinitionParams) -> T.Location | None:
        a, line, char = at(params.text_document.uri, params.position)
        s = definition(a, line, char)
        if s is None:
            return None
        uri = params.text_document.uri if s.file == a.file else path_to_uri(s.file)
        rows = a.text.split("\n") if s.file == a.file else list(_file_rows(s.file))
        return T.Location(uri=uri, range=rng(rows, s.line, s.column, s.line, s.column))

    symbol_kinds = {"fan": T.SymbolKind.Function, "pattern": T.SymbolKind.Struct, "meld": T.SymbolKind.Class,
                    "option": T.SymbolKind.Enum, "flow": T.SymbolKind.Event, "table": T.SymbolKind.Constant}

    @server.feature(T.TEXT_DOCUMENT_DOCUMENT_SYMBOL)
    def on_symbols(ls: LanguageServer, params: T.DocumentSymbolParams) -> list[T.DocumentSymbol]:
        _, a = doc_analysis(params.text_document.uri)
        rows = a.text.split("\n")

        def sym(s: dict[str, Any]) -> T.DocumentSymbol:
            end_col = len(rows[s["end_line"] - 1]) + 1 if s["end_line"] <= len(rows) else 1
            r = rng(rows, s["line"], 1, s["end_line"], end_col)
            return T.DocumentSymbol(name=s["name"], detail=s["detail"], range=r, selection_range=r,
                                    kind=symbol_kinds.get(s["name"].split()[0], T.SymbolKind.Field),
                                    children=[sym(c) for c in s["children"]])
        return [sym(s) for s in outline(a)]

    @server.feature(T.TEXT_DOCUMENT_FORMATTING)
    def on_format(ls: LanguageServer, params: T.DocumentFormattingParams) -> list[T.TextEdit]:
        doc = server.workspace.get_text_document(params.text_document.uri)
        new = formatted(doc.source)
        if new is None or new == doc.source:
            return []
        rows = doc.source.split("\n")
        end = T.Position(line=len(rows) - 1, character=_units(rows[-1], len(rows[-1])))
        return [T.TextEdit(range=T.Range(start=T.Position(line=0, character=0), end=end), new_text=new)]

    return server


def serve() -> None:
    """Run the server on stdin/stdout until the client says exit. Raises ImportError without pygls."""
    make_server().start_io()


__all__ = ["analyse", "completions", "definition", "hover", "outline", "formatted", "serve", "make_server",
           "reference_sections"]
