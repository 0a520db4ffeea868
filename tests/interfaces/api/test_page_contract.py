"""The web page (``interfaces/api/static``) against the server's event contract, checked without a browser.

Rules these tests keep:
- The event registry (``findesk.core.events.event_registry``) and the ``Briefing`` model are the truth; the
  page must handle exactly the registry's kinds and read only fields that exist.
- The checker is itself tested on broken copies of app.js, so a drifting page makes these tests fail.
- The assets load nothing from outside and build no markup from strings (the server's CSP is the other fence).

The regexes rely on this shape of app.js (its header comment asks to keep it):
- ``const HANDLERS = Object.freeze({`` then one ``kind: on_kind,`` per line, then ``});``
- each handler is a top-level ``function on_<kind>(d, ev) {`` whose body ends at the first line that is
  exactly ``}``; inside it the payload is used only as ``d.<field>`` (never passed on whole or indexed);
- the done result is read only inside ``function show_briefing(r) {`` as ``r.<field>[.<field>…]``, and
  each dotted chain must resolve through the pydantic models (``r.audit.run_id``);
- views are ``const <Name>View = Object.freeze({`` with one ``member: value,`` per line, then ``});``;
  ``VIEWS`` maps workflow names to them the same way, and ``VIEW_MEMBERS`` lists the members every view has;
- the only markup the page inserts is a section event's html, through ``sanitize_html(s.html)`` inside a
  view's ``section`` function (``check_html_sinks``).
String literals and comments are blanked before reads are collected, so prose never counts as a read.
"""

from __future__ import annotations

import json
import re
import shutil
import subprocess
import types
from html.parser import HTMLParser
from pathlib import Path
from typing import Any, Union, get_args, get_origin

import pytest
from pydantic import BaseModel

import findesk
from findesk.core.events import event_registry
from findesk.core.events.model import EVENT_TYPES
from findesk.core.result import Err
from findesk.workflows import registry
from findesk.workflows.brief.models import DISCLAIMER, SECTION_NAMES, SECTION_TITLES, Briefing

STATIC = Path(findesk.__file__).parent / "interfaces" / "api" / "static"
Registry = dict[str, dict[str, list[str]]]

_HANDLERS_RE = re.compile(r"^const HANDLERS = (?:Object\.freeze\()?\{\n(?P<body>.*?)^\}\)?;$", re.M | re.S)
_ENTRY_RE = re.compile(r"^\s*(?P<kind>\w+): (?P<fn>\w+),?$")
# Strings and comments, matched together so a "//" inside a string is not taken for a comment.
_STRING_OR_COMMENT_RE = re.compile(r"\"(?:\\.|[^\"\\\n])*\"|'(?:\\.|[^'\\\n])*'|//[^\n]*|/\*.*?\*/", re.S)
_D_READ_RE = re.compile(r"(?<![\w$.])d\.([A-Za-z_$][\w$]*)")
_R_READ_RE = re.compile(r"(?<![\w$.])r((?:\.[A-Za-z_$][\w$]*)+)")
_FUNCTION_RE = re.compile(r"^(?:async )?function (\w+)\(([^)]*)\) \{\n(.*?)^\}$", re.M | re.S)
_FROZEN_RE = r"^const {name} = Object\.freeze\(\{{\n(?P<body>.*?)^\}}\);$"
_MEMBER_RE = re.compile(r"^\s*(?P<key>\w+): (?P<value>.+?),$")


def _blank_strings_and_comments(js: str) -> str:
    """Comments removed, string literals emptied: what is left is code."""
    return _STRING_OR_COMMENT_RE.sub(lambda m: "" if m.group(0).startswith("/") else '""', js)


def function_body(js: str, name: str, params: str) -> str | None:
    """The body of a top-level ``function name(params) {`` up to the first line that is exactly ``}``."""
    m = re.search(
        rf"^function {re.escape(name)}\({re.escape(params)}\) \{{\n(?P<body>.*?)^\}}$", js, re.M | re.S
    )
    return m.group("body") if m else None


def handlers_map(js: str) -> tuple[dict[str, str], list[str]]:
    """``HANDLERS`` as {kind: function name}, plus the lines that do not fit the expected shape."""
    m = _HANDLERS_RE.search(js)
    if m is None:
        return {}, ["app.js has no `const HANDLERS = Object.freeze({ … });` block"]
    out: dict[str, str] = {}
    odd: list[str] = []
    for line in m.group("body").splitlines():
        if not line.strip():
            continue
        entry = _ENTRY_RE.match(line)
        if entry is None:
            odd.append(f"HANDLERS line not in `kind: on_kind,` form: {line.strip()!r}")
        else:
            out[entry["kind"]] = entry["fn"]
    return out, odd


def _model_of(annotation: Any) -> type[BaseModel] | None:
    """The pydantic model behind a field's annotation (``X`` or ``X | None``), else None."""
    if isinstance(annotation, type) and issubclass(annotation, BaseModel):
        return annotation
    if get_origin(annotation) in (Union, types.UnionType):
        models = [m for a in get_args(annotation) if (m := _model_of(a)) is not None]
        return models[0] if len(models) == 1 else None
    return None


def _resolve(model: type[BaseModel], chain: list[str]) -> str | None:
    """None when ``r.<chain>`` names a real field path of ``model``; else why not."""
    current: type[BaseModel] | None = model
    for i, part in enumerate(chain):
        path = "r." + ".".join(chain[: i + 1])
        if current is None:
            return f"{path}: {chain[i - 1]} is not an object with fields"
        if part not in current.model_fields:
            return f"show_briefing reads {path}, not a field of {current.__name__}"
        current = _model_of(current.model_fields[part].annotation)
    return None


def check_page(js: str, registry: Registry, result_model: type[BaseModel]) -> list[str]:
    """Every way app.js disagrees with the event registry and the done result's model (empty = agrees)."""
    problems: list[str] = []
    handlers, odd = handlers_map(js)
    problems += odd
    for kind in sorted(set(registry) - set(handlers)):
        problems.append(f"event kind {kind!r} has no handler in HANDLERS")
    for kind in sorted(set(handlers) - set(registry)):
        problems.append(f"HANDLERS has {kind!r}, a kind the server never sends")
    if "window.findesk = { handled: Object.keys(HANDLERS) };" not in js:
        problems.append("window.findesk = { handled: Object.keys(HANDLERS) } is missing")
    for kind, fn in sorted(handlers.items()):
        if fn != f"on_{kind}":
            problems.append(f"HANDLERS maps {kind!r} to {fn}, expected on_{kind}")
        body = function_body(js, fn, "d, ev")
        if body is None:
            problems.append(f"no top-level `function {fn}(d, ev) {{` in app.js")
            continue
        code = _blank_strings_and_comments(body)
        fields = set(registry.get(kind, {}).get("fields", []))
        for field in _D_READ_RE.findall(code):
            if field not in fields:
                problems.append(f"{fn} reads d.{field}, not a field of {kind!r} ({sorted(fields)})")
        if re.search(r"(?<![\w$.])d(?![\w$]|\.[A-Za-z_$])", code):
            problems.append(f"{fn} uses d other than as d.<field> (passed on, indexed or destructured)")
    body = function_body(js, "show_briefing", "r")
    if body is None:
        problems.append("no top-level `function show_briefing(r) {` in app.js")
    else:
        code = _blank_strings_and_comments(body)
        for chain in _R_READ_RE.findall(code):
            why = _resolve(result_model, chain.lstrip(".").split("."))
            if why:
                problems.append(why)
        if re.search(r"(?<![\w$.])r(?![\w$]|\.[A-Za-z_$])", code):
            problems.append("show_briefing uses r other than as r.<field>")
    return problems


def top_level_functions(js: str) -> dict[str, tuple[str, str]]:
    """Every top-level ``function name(params) {`` … ``}`` of app.js: {name: (params, body)}."""
    return {m[1]: (m[2], m[3]) for m in _FUNCTION_RE.finditer(js)}


def frozen_object(js: str, name: str) -> dict[str, str] | None:
    """``const name = Object.freeze({ key: value, … });`` as {key: value source}; None when absent."""
    m = re.search(_FROZEN_RE.format(name=re.escape(name)), js, re.M | re.S)
    if m is None:
        return None
    return {e["key"]: e["value"] for line in m["body"].splitlines() if (e := _MEMBER_RE.match(line))}


def views_map(js: str) -> dict[str, dict[str, str]]:
    """Every view object of app.js (``const <Name>View = Object.freeze({``) by name, as its members."""
    names = re.findall(r"^const (\w+View) = Object\.freeze\(\{$", js, re.M)
    return {name: frozen_object(js, name) or {} for name in names}


def _calls(code: str, fn: str) -> list[str]:
    """The argument text of every call ``fn(…)`` in ``code`` (nested parentheses included)."""
    out = []
    for m in re.finditer(rf"(?<![\w$.]){re.escape(fn)}\(", code):
        depth, i = 1, m.end()
        while i < len(code) and depth:
            depth += {"(": 1, ")": -1}.get(code[i], 0)
            i += 1
        out.append(code[m.end() : i - 1].strip())
    return out


def check_html_sinks(js: str) -> list[str]:
    """Every way app.js could insert markup other than a section event's html (empty = none).

    Only ``sanitize_html`` parses markup (DOMParser); it is called only by a view's ``section`` function,
    and only on ``s.html`` (the section event's html, which ``on_section`` puts there); ``on_section``
    takes ``html`` from ``d.html`` and nothing else."""
    problems: list[str] = []
    functions = top_level_functions(js)
    section_fns = {members.get("section") for members in views_map(js).values()} - {None}
    if not section_fns:
        problems.append("no view has a section member")
    outside = _blank_strings_and_comments(_FUNCTION_RE.sub("", js))
    if re.search(r"DOMParser|parseFromString|\bsanitize_html\(", outside):
        problems.append("markup is parsed or inserted outside any function")
    for name, (params, body) in sorted(functions.items()):
        code = _blank_strings_and_comments(body)
        if name == "sanitize_html":
            continue
        if re.search(r"DOMParser|parseFromString", code):
            problems.append(f"{name} parses markup (only sanitize_html may)")
        for arg in _calls(code, "sanitize_html"):
            if name not in section_fns:
                problems.append(f"{name} inserts html (only a view's section function may)")
            elif arg != "s.html" or params != "s":
                problems.append(
                    f"{name} passes {arg} to sanitize_html (only s.html, the section event's html)"
                )
    on_section = _blank_strings_and_comments(functions.get("on_section", ("", ""))[1])
    if re.findall(r"(?<![\w$.])html: ([^,\n]+)", on_section) != ["str(d.html)"]:
        problems.append("on_section must hand the views html: str(d.html), and nothing else as html")
    return problems


@pytest.fixture(scope="module")
def app_js() -> str:
    return (STATIC / "app.js").read_text(encoding="utf-8")


@pytest.fixture(scope="module")
def index_html() -> str:
    return (STATIC / "index.html").read_text(encoding="utf-8")


@pytest.fixture(scope="module")
def app_css() -> str:
    return (STATIC / "app.css").read_text(encoding="utf-8")


# ---------------------------------------------------------------- 1–3: the page matches the contract


def test_handlers_cover_exactly_the_registry_kinds(app_js: str) -> None:
    handlers, odd = handlers_map(app_js)
    assert odd == []
    assert set(handlers) == set(event_registry()) == set(EVENT_TYPES)


def test_page_reads_only_fields_the_server_sends(app_js: str) -> None:
    assert check_page(app_js, event_registry(), Briefing) == []


def test_handlers_and_show_briefing_really_read_fields(app_js: str) -> None:
    """The checker is not vacuous: the handlers it checks do read payload and result fields."""
    section = _blank_strings_and_comments(function_body(app_js, "on_section", "d, ev") or "")
    assert {"name", "title", "html"} <= set(_D_READ_RE.findall(section))
    tool_result = _blank_strings_and_comments(function_body(app_js, "on_tool_result", "d, ev") or "")
    assert {"call_id", "ok", "error_code", "latency_ms", "cached", "summary"} <= set(
        _D_READ_RE.findall(tool_result)
    )
    shown = _blank_strings_and_comments(function_body(app_js, "show_briefing", "r") or "")
    assert {".headline", ".summary", ".disclaimer", ".audit.run_id"} <= set(_R_READ_RE.findall(shown))


# ---------------------------------------------------------------- 4: the checker catches drift


def _mutate(js: str, old: str, new: str) -> str:
    assert old in js, f"app.js no longer contains {old!r}; update this test's mutation"
    return js.replace(old, new, 1)


def test_checker_reports_a_missing_handler_and_an_unknown_field(app_js: str) -> None:
    broken = _mutate(app_js, "  warning: on_warning,\n", "")
    broken = _mutate(
        broken, "function on_token(d, ev) {\n", "function on_token(d, ev) {\n  const x = d.no_such_field;\n"
    )
    problems = check_page(broken, event_registry(), Briefing)
    assert any("'warning' has no handler" in p for p in problems), problems
    assert any("on_token reads d.no_such_field" in p for p in problems), problems


def test_checker_reports_a_handler_for_a_kind_the_server_never_sends(app_js: str) -> None:
    broken = _mutate(app_js, "  error: on_error,\n", "  error: on_error,\n  gossip: on_gossip,\n")
    broken += "\nfunction on_gossip(d, ev) {\n  return d.text;\n}\n"
    problems = check_page(broken, event_registry(), Briefing)
    assert any("'gossip', a kind the server never sends" in p for p in problems), problems


def test_checker_reports_payloads_passed_on_whole(app_js: str) -> None:
    broken = _mutate(app_js, "function on_warning(d, ev) {\n", "function on_warning(d, ev) {\n  helper(d);\n")
    problems = check_page(broken, event_registry(), Briefing)
    assert any("on_warning uses d other than as d.<field>" in p for p in problems), problems


def test_checker_resolves_result_reads_through_the_models(app_js: str) -> None:
    broken = _mutate(
        app_js,
        "function show_briefing(r) {\n",
        "function show_briefing(r) {\n  r.verdict;\n  r.audit.no_such;\n",
    )
    broken = _mutate(
        broken, "function show_briefing(r) {\n", "function show_briefing(r) {\n  r.symbol.length;\n"
    )
    problems = check_page(broken, event_registry(), Briefing)
    assert "show_briefing reads r.verdict, not a field of Briefing" in problems
    assert "show_briefing reads r.audit.no_such, not a field of AuditSection" in problems
    assert "r.symbol.length: symbol is not an object with fields" in problems


def test_reads_inside_strings_and_comments_do_not_count() -> None:
    js = (
        "const HANDLERS = Object.freeze({\n  token: on_token,\n});\n"
        "window.findesk = { handled: Object.keys(HANDLERS) };\n"
        'function on_token(d, ev) {\n  // d.secret in a comment\n  show("d.nope", d.text);\n}\n'
        "function show_briefing(r) {\n  return r.headline;\n}\n"
    )
    registry = {"token": {"fields": ["type", "text"], "required": ["type", "text"]}}
    assert check_page(js, registry, Briefing) == []


# ---------------------------------------------------------- 5: nothing from outside, no markup from strings


class _Tags(HTMLParser):
    def __init__(self) -> None:
        super().__init__(convert_charrefs=True)
        self.tags: list[tuple[str, dict[str, str]]] = []
        self.script_text: list[str] = []
        self._in: list[str] = []
        self.text_by_id: dict[str, list[str]] = {}
        self._open_ids: list[tuple[str, str]] = []

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        a = {k: v or "" for k, v in attrs}
        self.tags.append((tag, a))
        if tag in ("script", "style"):
            self._in.append(tag)
        if "id" in a and tag not in ("input", "br", "meta", "link"):
            self._open_ids.append((tag, a["id"]))
            self.text_by_id[a["id"]] = []

    def handle_endtag(self, tag: str) -> None:
        if self._in and self._in[-1] == tag:
            self._in.pop()
        if self._open_ids and self._open_ids[-1][0] == tag:
            self._open_ids.pop()

    def handle_data(self, data: str) -> None:
        if self._in and data.strip():
            self.script_text.append(data)
        for _, open_id in self._open_ids:
            self.text_by_id[open_id].append(data)


def _parse(html: str) -> _Tags:
    p = _Tags()
    p.feed(html)
    p.close()
    return p


def test_index_html_has_nothing_inline_and_loads_only_static_paths(index_html: str) -> None:
    page = _parse(index_html)
    assert page.script_text == [], "inline script or style content"
    assert not any(tag == "style" for tag, _ in page.tags)
    for tag, attrs in page.tags:
        assert "style" not in attrs, f"style attribute on <{tag}>"
        assert not [a for a in attrs if a.startswith("on")], f"event handler attribute on <{tag}>"
        for name in ("src", "href", "action", "formaction"):
            if name in attrs and (tag, attrs) != (
                "link",
                {"rel": "icon", "href": "data:,"},
            ):  # no favicon fetch
                assert attrs[name].startswith("/static/"), f"<{tag} {name}={attrs[name]!r}>"
        if tag == "script":
            assert attrs.get("src", "").startswith("/static/"), "a script without a /static/ src"
    assert ("script", {"src": "/static/app.js", "defer": ""}) in page.tags
    assert ("link", {"rel": "stylesheet", "href": "/static/app.css"}) in page.tags
    assert not re.search(r"(?:https?:)?//", index_html)


def test_app_css_fetches_nothing(app_css: str) -> None:
    code = re.sub(r"/\*.*?\*/", "", app_css, flags=re.S)
    assert code.count("{") == code.count("}") > 50, "comment stripping ate the stylesheet"
    assert not re.search(r"https?:|//|url\(|@import|@font-face|expression\(", code, re.I)


def test_app_js_builds_no_markup_from_strings_and_calls_only_this_origin(app_js: str) -> None:
    code = re.sub(r"//[^\n]*|/\*.*?\*/", "", app_js, flags=re.S)  # app.js has no "//" inside its strings
    assert not re.search(r"https?://", app_js)
    for banned in (
        r"innerHTML",
        r"outerHTML",
        r"insertAdjacentHTML",
        r"document\.write",
        r"\beval\s*\(",
        r"new Function",
        r"setTimeout\(\s*[\"'`]",
        r"\.setAttribute\(\s*[\"']on",
        r"\.style\b",
        r"createContextualFragment",
        r"srcdoc",
    ):
        assert not re.search(banned, code), banned
    assert not re.search(r"[\"'`]//", code), "protocol-relative URL"
    targets = re.findall(r"\b(?:fetch|get_json)\(\s*([^,)]+)", code)
    assert targets, "no fetch calls found: the regex is stale"
    for target in targets:
        assert target == "url" or target.startswith('"/v1/'), f"fetch target {target}"
    # The key is never written to localStorage; the history never leaves the browser.
    for line in code.splitlines():
        if "API_KEY_KEY" in line:
            assert "localStorage" not in line, line
    assert "sessionStorage.setItem(API_KEY_KEY" in code
    assert 'const HISTORY_KEY = "findesk.history";' in code


# ---------------------------------------------------------------- the page's skeleton matches the briefing


def test_index_html_has_every_element_app_js_uses(app_js: str, index_html: str) -> None:
    ids = {a["id"] for _, a in _parse(index_html).tags if "id" in a}
    used = set(re.findall(r'\$\("([\w-]+)"\)', app_js))
    assert used, "no $(...) lookups found: the regex is stale"
    assert used - {f"section-{n}" for n in SECTION_NAMES} <= ids, sorted(used - ids)


def test_form_controls_are_labelled_and_constrained(index_html: str) -> None:
    tags = _parse(index_html).tags
    by_id = {a["id"]: (t, a) for t, a in tags if "id" in a}
    labelled = {a["for"] for t, a in tags if t == "label" and "for" in a}
    for control in ("ticker", "as-of", "question", "api-key"):
        assert control in labelled, control
        assert "name" not in by_id[control][1], f"#{control} has a name: a native submit would send it"
    assert by_id["api-key"][1]["type"] == "password"
    assert by_id["as-of"][1]["type"] == "date"
    assert by_id["question"][1]["maxlength"] == "2000"
    assert by_id["run"][1]["type"] == "submit"
    assert by_id["status"][1]["aria-live"] == "polite"
    for needed in (
        "headline",
        "summary",
        "trace",
        "trace-count",
        "warnings",
        "notices",
        "model-output",
        "error",
        "history",
        "clear-history",
    ):
        assert needed in by_id, needed


def test_sections_are_listed_in_briefing_order_with_their_titles(app_js: str, index_html: str) -> None:
    page = _parse(index_html)
    sections = [a for t, a in page.tags if t == "section" and a.get("id", "").startswith("section-")]
    names = list(SECTION_NAMES)
    assert [s["id"] for s in sections] == [f"section-{n}" for n in names]
    assert all(s["data-state"] == "waiting" for s in sections)
    titles = [" ".join(" ".join(page.text_by_id[f"section-{n}"]).split()) for n in names]
    assert titles == [f"{title} waiting…" for title in SECTION_TITLES]
    assert f"const SECTION_NAMES = {json.dumps(names)};".replace('","', '", "') in app_js


def test_disclaimer_is_shown_before_any_briefing(index_html: str) -> None:
    text = " ".join("".join(_parse(index_html).text_by_id["disclaimer"]).split())
    assert text == DISCLAIMER


# ---------------------------------------------------------------- the SSE reader (run in node when present)

_SSE_HARNESS = """
%s
const runs = [];
for (const chunks of JSON.parse(process.argv[1])) {
  const frames = [];
  const p = sse_parser((f) => frames.push({event: f.event, id: f.id, data: f.data.join("\\n")}));
  for (const chunk of chunks) p.push(chunk);
  p.finish();
  runs.push(frames);
}
process.stdout.write(JSON.stringify(runs));
"""


def _run_sse_parser(js: str, runs: list[list[str]]) -> list[list[dict[str, str]]]:
    """The frames app.js's ``sse_parser`` yields for each list of chunks (one node process for all)."""
    node = shutil.which("node")
    if node is None:
        pytest.skip("node is not installed")
    body = function_body(js, "sse_parser", "on_frame")
    assert body is not None
    source = _SSE_HARNESS % f"function sse_parser(on_frame) {{\n{body}}}\n"
    proc = subprocess.run([node, "-e", source, json.dumps(runs)], capture_output=True, text=True, timeout=60)
    assert proc.returncode == 0, proc.stderr
    out: list[list[dict[str, str]]] = json.loads(proc.stdout)
    return out


def test_sse_parser_handles_split_frames_pings_and_multiline_data(app_js: str) -> None:
    stream = (
        ": ping\n\n"
        'event: section\nid: 3\ndata: {"a":\ndata: 1}\n\n'
        ": keep-alive\r\n"
        "event: done\r\nid: 4\r\ndata: {}\r\n\r\n"
        "data: tail-without-blank-line"
    )
    expected = [
        {"event": "section", "id": "3", "data": '{"a":\n1}'},
        {"event": "done", "id": "4", "data": "{}"},
        {"event": "", "id": "", "data": "tail-without-blank-line"},
    ]
    # Whole, one character at a time, and cut at every point (including between a CR and its LF).
    runs = [[stream], list(stream)] + [[stream[:cut], stream[cut:]] for cut in range(1, len(stream))]
    results = _run_sse_parser(app_js, runs)
    for chunks, frames in zip(runs, results, strict=True):
        assert frames == expected, chunks


# ---------------------------------------------------------------- the router and the view registry


def _view_members(js: str) -> list[str]:
    m = re.search(r"^const VIEW_MEMBERS = (\[.*?\]);$", js, re.M)
    assert m is not None, "app.js has no `const VIEW_MEMBERS = [...]`"
    members: list[str] = json.loads(m[1])
    return members


def test_the_view_registry_maps_brief_and_every_other_workflow_gets_the_generic_view(app_js: str) -> None:
    views = frozen_object(app_js, "VIEWS")
    assert views == {"brief": "BriefView"}
    code = _blank_strings_and_comments(top_level_functions(app_js)["view_for"][1])
    assert "hasOwnProperty.call(VIEWS, workflow) ? VIEWS[workflow] : GenericView" in code
    assert "window.findesk.views = Object.keys(VIEWS);" in app_js
    assert set(views_map(app_js)) == {"BriefView", "GenericView"}


def test_every_view_has_every_member_its_functions_exist_and_its_panels_are_its_own(
    app_js: str, index_html: str
) -> None:
    members = _view_members(app_js)
    functions = top_level_functions(app_js)
    ids = {a["id"] for _, a in _parse(index_html).tags if "id" in a}
    hidden = {a["id"] for _, a in _parse(index_html).tags if "id" in a and "hidden" in a}
    seen_panels: set[str] = set()
    for name, view in views_map(app_js).items():
        assert list(view) == members, name
        assert re.fullmatch(r'"\w+"', view["noun"]), (name, view["noun"])
        panels = json.loads(view["panels"])
        assert panels and set(panels) <= ids, (name, panels)
        assert not set(panels) & seen_panels, f"{name} shares a panel with another view"
        seen_panels |= set(panels)
        # the briefing is the view the page opens on; every other view starts hidden
        assert bool(set(panels) & hidden) == (name != "BriefView"), name
        for member in members[2:]:
            assert view[member] in functions, f"{name}.{member} = {view[member]} is not a top-level function"
    # the router and handlers call only members every view has
    called = set(re.findall(r"state\.view\.(\w+)\(", _blank_strings_and_comments(app_js)))
    assert called and called <= set(members), sorted(called - set(members))
    # and the handlers that hand events to a view are handlers of registry kinds
    handlers, _ = handlers_map(app_js)
    for kind in ("section", "done", "error"):
        body = function_body(app_js, f"on_{kind}", "d, ev") or ""
        assert "state.view." in body, kind
    assert {"section", "done", "error"} <= set(handlers) <= set(event_registry())


def test_every_event_kind_the_page_names_is_in_the_registry(app_js: str) -> None:
    # an event's kind compared in code (`payload.type === "agent_start"`), typeof checks aside
    compared = re.findall(r"(typeof )?[\w$.]+\.type === \"(\w+)\"", app_js)
    named = {kind for typeof, kind in compared if not typeof} | set(handlers_map(app_js)[0])
    assert "agent_start" in named  # the replay's opening event
    assert named <= set(event_registry()), sorted(named - set(event_registry()))


def test_only_a_views_section_function_inserts_html_and_only_the_section_events(app_js: str) -> None:
    assert check_html_sinks(app_js) == []
    sections = {v["section"] for v in views_map(app_js).values()}
    assert sections == {"brief_section", "generic_section"}
    for fn in sections:
        assert _calls(_blank_strings_and_comments(function_body(app_js, fn, "s") or ""), "sanitize_html") == [
            "s.html"
        ]


def test_the_html_checker_catches_other_markup(app_js: str) -> None:
    broken = _mutate(
        app_js,
        '  $("run-headline").textContent = headline;\n',
        '  $("run-headline").replaceChildren(sanitize_html(str(report.summary)));\n',
    )
    assert "generic_done inserts html (only a view's section function may)" in check_html_sinks(broken)
    anchor = "  const box = state.boxes.get(s.name) || generic_box(s.name, s.title);\n"
    broken = _mutate(app_js, anchor, anchor + "  box.appendChild(sanitize_html(s.title));\n")
    assert "generic_section passes s.title to sanitize_html (only s.html, the section event's html)" in (
        check_html_sinks(broken)
    )
    broken = _mutate(
        app_js,
        "function generic_done(result, summary, run_id) {\n",
        "function generic_done(result, summary, run_id) {\n  new DOMParser();\n",
    )
    assert "generic_done parses markup (only sanitize_html may)" in check_html_sinks(broken)
    broken = _mutate(app_js, "    html: str(d.html),\n", "    html: str(d.message),\n")
    assert "on_section must hand the views html: str(d.html), and nothing else as html" in check_html_sinks(
        broken
    )


def test_the_generic_form_and_view_are_labelled_and_send_nothing_natively(
    app_js: str, index_html: str
) -> None:
    tags = _parse(index_html).tags
    by_id = {a["id"]: (t, a) for t, a in tags if "id" in a}
    labelled = {a["for"] for t, a in tags if t == "label" and "for" in a}
    for control in ("workflow", "run-as-of", "run-mode"):
        assert control in labelled, control
    for tag, attrs in tags:
        if tag in ("input", "select", "textarea"):
            assert "name" not in attrs, f"<{tag} id={attrs.get('id')}> has a name"
    code = _blank_strings_and_comments(app_js)
    assert not re.search(r"\.name\s*=[^=]|setAttribute\(\s*\"name\"", code), "a generated control gets a name"
    assert by_id["run-start"][1]["type"] == "submit"
    assert by_id["run-as-of"][1]["type"] == "date"
    assert [
        v for t, a in tags if t == "option" and (v := a.get("value")) in ("auto", "deterministic", "model")
    ] == [
        "auto",
        "deterministic",
        "model",
    ]
    for form in ("desk", "brief-form", "run-form"):
        assert by_id[form][0] == "form" and "novalidate" in by_id[form][1], form
    assert by_id["run-result"][0] == "pre"  # the result is text, laid out as JSON
    assert "hidden" in by_id["run-view"][1] and "hidden" in by_id["run-form"][1]


# ------------------------------------------------- the form and route functions (run in node when present)

_PURE_FUNCTIONS = (
    ("str", "value"),
    ("clip", "text, max"),
    ("plural", "n, word"),
    ("whole", "value"),
    ("finite", "value"),
    ("without_null", "prop"),
    ("field_kind", "p"),
    ("field_specs", "schema"),
    ("field_value", "spec, raw, checked"),
    ("decode_part", "part"),
    ("parse_route", "hash"),
    ("route_key", "route"),
    ("route_hash", "workflow, arg"),
)
_PURE_CONSTS = ("BRIEF", "DATE_RE", "TEXTAREA_MIN")

_PURE_HARNESS = """
%s
const cases = JSON.parse(process.argv[1]);
const spec_of = (schema, key) => field_specs(schema).find((s) => s.key === key);
process.stdout.write(JSON.stringify({
  specs: cases.schemas.map(field_specs),
  values: cases.values.map(([schema, key, raw, checked]) => field_value(spec_of(schema, key), raw, checked)),
  routes: cases.hashes.map(parse_route),
  hashes: cases.routes.map(([workflow, arg]) => route_hash(workflow, arg)),
}));
"""


def _run_pure(js: str, cases: dict[str, Any]) -> dict[str, Any]:
    node = shutil.which("node")
    if node is None:
        pytest.skip("node is not installed")
    parts = []
    for const in _PURE_CONSTS:
        m = re.search(rf"^const {const} = .*;", js, re.M)
        assert m is not None, const
        parts.append(m[0])
    for name, params in _PURE_FUNCTIONS:
        body = function_body(js, name, params)
        assert body is not None, name
        parts.append(f"function {name}({params}) {{\n{body}}}\n")
    source = _PURE_HARNESS % "\n".join(parts)
    proc = subprocess.run([node, "-e", source, json.dumps(cases)], capture_output=True, text=True, timeout=60)
    assert proc.returncode == 0, proc.stderr
    out: dict[str, Any] = json.loads(proc.stdout)
    return out


SAMPLE_SCHEMA: dict[str, Any] = {
    "type": "object",
    "required": ["symbol", "count"],
    "properties": {
        "symbol": {"type": "string", "title": "Symbol", "description": "US ticker", "maxLength": 10},
        "count": {"type": "integer", "minimum": 1, "maximum": 5, "default": 2},
        "ratio": {"anyOf": [{"type": "number"}, {"type": "null"}], "default": None},
        "flag": {"type": "boolean", "default": False},
        "day": {"anyOf": [{"type": "string", "format": "date"}, {"type": "null"}]},
        "tone": {"enum": ["plain", "loud"], "type": "string"},
        "note": {"type": "string", "maxLength": 2000},
        "nested": {"$ref": "#/$defs/Thing"},
        "items": {"type": "array", "items": {"type": "string"}},
    },
}


def test_form_fields_follow_the_input_schemas(app_js: str) -> None:
    schemas = [SAMPLE_SCHEMA]
    names = ["brief", "agents.quote_filings", "agents.social", "agents.coordinator"]
    for name in names:
        spec = registry.load(name)
        assert not isinstance(spec, Err), spec
        schemas.append(spec.value.input_model.model_json_schema())
    out = _run_pure(app_js, {"schemas": schemas, "values": [], "hashes": [], "routes": []})
    sample, brief, quote, social, coordinator = out["specs"]
    kinds = {f["key"]: f["kind"] for f in sample}
    assert kinds == {
        "symbol": "text",
        "count": "integer",
        "ratio": "number",
        "flag": "boolean",
        "day": "date",
        "tone": "choice",
        "note": "textarea",
        "nested": "json",
        "items": "json",
    }
    first = sample[0]
    assert (first["id"], first["label"], first["help"], first["required"], first["max_length"]) == (
        "wf-field-0",
        "Symbol",
        "US ticker",
        True,
        10,
    )
    count = sample[1]
    assert (count["label"], count["minimum"], count["maximum"], count["initial"]) == ("count", 1, 5, 2)
    assert sample[5]["options"] == ["plain", "loud"]
    assert [(f["key"], f["kind"], f["required"]) for f in brief] == [
        ("ticker", "text", True),
        ("question", "text", False),
    ]
    assert [(f["key"], f["kind"], f["required"]) for f in quote] == [("symbol", "text", True)]
    assert [(f["key"], f["kind"]) for f in social] == [("symbol", "text"), ("as_of", "date")]
    assert {f["kind"] for f in coordinator if f["key"] in ("official", "social", "divergences")} == {"json"}


def test_form_values_are_typed_and_checked_before_sending(app_js: str) -> None:
    s = SAMPLE_SCHEMA
    cases = [
        [s, "symbol", "  AAPL ", False],
        [s, "symbol", "", False],
        [s, "symbol", "TOOLONGTICKER", False],
        [s, "count", "3", False],
        [s, "count", "2.5", False],
        [s, "count", "9", False],
        [s, "ratio", "", False],
        [s, "ratio", "0.25", False],
        [s, "flag", "", True],
        [s, "day", "2025-08-29", False],
        [s, "day", "29/08/2025", False],
        [s, "tone", "loud", False],
        [s, "tone", "shouty", False],
        [s, "nested", '{"a": [1, "<b>"]}', False],
        [s, "nested", "{nope", False],
        [s, "note", "<img src=x onerror=alert(1)>", False],
    ]
    out = _run_pure(app_js, {"schemas": [], "values": cases, "hashes": [], "routes": []})["values"]
    assert out[0] == {"value": "AAPL"}
    assert out[1] == {"error": "Symbol is required."}
    assert out[2] == {"error": "Symbol is longer than 10 characters."}
    assert out[3] == {"value": 3}
    assert out[4] == {"error": "count must be a whole number."}
    assert out[5] == {"error": "count must be at most 5."}
    assert out[6] == {"skip": True}
    assert out[7] == {"value": 0.25}
    assert out[8] == {"value": True}
    assert out[9] == {"value": "2025-08-29"}
    assert out[10] == {"error": "day must be a date (YYYY-MM-DD)."}
    assert out[11] == {"value": "loud"}
    assert out[12] == {"error": "tone must be one of: plain, loud."}
    assert out[13] == {"value": {"a": [1, "<b>"]}}
    assert out[14]["error"].startswith("nested must be JSON (")
    assert out[15] == {"value": "<img src=x onerror=alert(1)>"}  # sent as typed: the server decides


def test_the_hash_names_the_route_and_footnotes_are_not_routes(app_js: str) -> None:
    hashes = [
        "",
        "#",
        "#/brief",
        "#/brief/AAPL",
        "#/run/agents.quote_filings",
        "#/run/agents.quote_filings/AAPL",
        "#/runs/1a20cb6509280fdc5",
        "#/agents.official",
        "#source-3",
        "#/run/a%2Fb",
    ]
    routes = [["brief", ""], ["brief", "BRK-B"], ["agents.quote_filings", ""], ["x y", "a/b"]]
    out = _run_pure(app_js, {"schemas": [], "values": [], "hashes": hashes, "routes": routes})
    wf = "workflow"
    assert out["routes"] == [
        {"kind": wf, "workflow": "brief", "arg": ""},
        {"kind": wf, "workflow": "brief", "arg": ""},
        {"kind": wf, "workflow": "brief", "arg": ""},
        {"kind": wf, "workflow": "brief", "arg": "AAPL"},
        {"kind": wf, "workflow": "agents.quote_filings", "arg": ""},
        {"kind": wf, "workflow": "agents.quote_filings", "arg": "AAPL"},
        {"kind": "run", "run_id": "1a20cb6509280fdc5"},
        {"kind": wf, "workflow": "agents.official", "arg": ""},
        None,
        {"kind": wf, "workflow": "a/b", "arg": ""},
    ]
    assert out["hashes"] == ["#/brief", "#/brief/BRK-B", "#/run/agents.quote_filings", "#/run/x%20y/a%2Fb"]
