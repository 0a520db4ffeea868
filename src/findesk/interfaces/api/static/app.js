/*
 * findesk desk page: pick a workflow, run it (a POST answered with server-sent events) or replay a recorded
 * run, and show each event as it arrives.
 *
 * How the page is organised (a router and a view registry; no framework, no build step):
 * - The URL hash is the route: "#/brief/AAPL" (the briefing, ticker filled in), "#/run/<workflow>" (any
 *   workflow GET /v1/workflows lists, e.g. "#/run/agents.quote_filings"), "#/runs/<run_id>" (a recorded run,
 *   replayed in its workflow's view). Any other hash ("#source-3", a footnote link) is not a route and is
 *   left to the browser. The picker (#workflow) lists GET /v1/workflows and only changes the hash.
 * - VIEWS maps a workflow name to its view; every workflow not in it gets GenericView, which builds its
 *   form from the workflow's input_schema and its section boxes from its sections list. So a new workflow
 *   needs no change here. A workflow that wants its own look adds a view object with exactly the members
 *   of VIEW_MEMBERS (top-level functions, elements of its own listed in `panels`) and one line in VIEWS.
 * - The event handlers, the trace, warnings, status, notices and model output are shared by every view;
 *   the handlers hand a section, the done result and failures to `state.view`.
 *
 * Rules this file keeps:
 * - Never builds markup from strings: no innerHTML, outerHTML, insertAdjacentHTML, document.write or eval.
 *   Text goes in with textContent / text nodes: workflow titles, descriptions, input schemas, results,
 *   errors and trace summaries are all text. The one exception, a `section` event's html (sanitized by the
 *   server), goes in only through a view's `section` method as `sanitize_html(s.html)`, which parses it
 *   inert with DOMParser and copies it through an allow-list walker (defence in depth). The walker keeps
 *   links to absolute http(s) URLs, and ids and "#id" links only of the form source-N (footnotes).
 * - A run's HTML report (GET /v1/runs/<id>/report.html, for a workflow whose listing's formats name "html")
 *   is never fetched into or inserted into this page: `open_report` asks POST /v1/runs/<id>/report-link
 *   (with the key) for a signed link that opens that run's report for a minute, checks it is such a link on
 *   this origin, and opens it in a tab of its own (noopener: the tab gets no handle on this page). The tab
 *   is a plain navigation, so the report's own CSP header holds there (its inline styles, no script,
 *   nothing fetched), never this page's.
 * - Text shown is text as given, less explicit bidi embeddings, overrides and isolates (U+202A–U+202E,
 *   U+2066–U+2069): left open in an author's name or a headline they reorder the rest of the line, so a date
 *   or a URL would read reversed. `str` and the sanitizer's text nodes drop them; every string goes through one.
 * - Anything read back from localStorage is untrusted: a history entry keeps only string fields and a run id
 *   the router accepts, and an entry that is not such an object is skipped, so no stored value breaks the page.
 * - A request refused or a run that fails leaves no section "waiting…": each says it was not produced and why.
 * - The Warnings panel ends with the briefing's own warnings, so its count is the audit's.
 * - Talks only to this origin (/v1/...); loads nothing from anywhere else.
 * - The API key lives in sessionStorage only; the history lives in localStorage only and is never sent.
 * - Every event kind has exactly one handler in HANDLERS: `function on_<kind>(d, ev)` reads the payload
 *   only as `d.<field>` (never passes `d` on whole), and the briefing's done result is read only inside
 *   `function show_briefing(r)` as `r.<field>`. tests/interfaces/api/test_page_contract.py parses this
 *   shape and checks every read against the server's event registry and the Briefing model, so keep it:
 *   top-level `function name(args) {` ... closing `}` at the start of a line; views as
 *   `const NameView = Object.freeze({` with one `member: value,` a line.
 * - A failure (network, HTTP error, bad frame, a handler that throws) becomes a visible message; the page
 *   never stays stuck with the button disabled.
 */
"use strict";

const SECTION_NAMES = ["snapshot", "business", "events", "risks", "social", "divergences", "audit"];
const HISTORY_KEY = "findesk.history";
const HISTORY_MAX = 50;
const API_KEY_KEY = "findesk.api_key";
const QUESTION_MAX = 2000;
const TICKER_RE = /^[A-Z0-9.\-]{1,15}$/;
const MODEL_OUTPUT_MAX = 50000; // characters kept in #model-output; a runaway stream must not freeze the tab
const CELL_MAX = 300; // characters of arguments or summary shown in a trace cell (the full text is in its title)
const BRIEF = "brief"; // the workflow VIEWS.brief shows; the page opens on it
const WORKFLOW_RE = /^[A-Za-z0-9_.\-]{1,200}$/;
const RUN_ID_RE = /^[0-9a-f]{4,64}$/;
const DATE_RE = /^[0-9]{4}-[0-9]{2}-[0-9]{2}$/;
const MODES = ["auto", "deterministic", "model"];
const KIND_LABELS = { workflow: "Workflows", plugin: "Plug-in workflows", agent: "Single agents" };
const RESULT_MAX = 200000; // characters of a done result's JSON shown in #run-result
const TEXTAREA_MIN = 200; // a string field allowed more characters than this gets a text area
// What every view object has: its elements, a noun for messages, and what the router and handlers call.
const VIEW_MEMBERS = ["noun", "panels", "prepare", "reset", "prefill", "fill", "section", "done", "missing", "title"];

// Section html allow-list (the server already sanitized it; this is the second fence).
const ALLOWED_TAGS = new Set([
  "p", "ul", "ol", "li", "strong", "em", "code", "pre", "blockquote", "a", "span", "br",
  "table", "thead", "tbody", "tr", "th", "td", "details", "summary", "s", "h4", "h5", "h6", "hr",
]);
// Harmless wrappers: the element goes, its text stays. Any element in neither set is dropped with its content.
const UNWRAP_TAGS = new Set([
  "div", "section", "article", "header", "footer", "main", "aside", "nav", "h1", "h2", "h3", "h4", "h5", "h6",
  "b", "i", "u", "s", "small", "sub", "sup", "mark", "abbr", "cite", "q", "dfn", "kbd", "samp", "var",
  "time", "del", "ins", "font", "center", "label", "dl", "dt", "dd", "figure", "figcaption", "caption",
  "tfoot", "colgroup", "hr", "wbr", "bdi", "bdo", "big", "tt", "nobr",
]);
const SAFE_CLASS_RE = /^[A-Za-z0-9_-]{1,40}$/;
// The one kind of id and same-page link kept from section html: "[n]" markers and their source entries.
const SOURCE_ID_RE = /^source-[0-9]{1,4}$/;
const LINK_REL = "noopener noreferrer nofollow";
const MAX_DEPTH = 40;
const PNG_DATA_RE = /^data:image\/png;base64,[A-Za-z0-9+/]+={0,2}$/;
const CHART_MAX = 3000000; // characters of one chart's data URL
const ECHO_MAX = 80; // characters of a bad route echoed back in its error message
const HTML_FORMAT = "html"; // a listing's formats name it when GET /v1/runs/<id>/report.html serves the run
// The one kind of address open_report opens: this origin's report of one run, with its ticket.
const REPORT_LINK_RE = /^\/v1\/runs\/[0-9a-f]{4,64}\/report\.html\?ticket=[0-9A-Za-z._-]{1,200}$/;

const state = {
  running: false,
  replaying: false,
  controller: null, // AbortController of the live run
  started_at: 0,
  finished: false, // a done or error event arrived
  shown_result: false, // the view showed a done result (a replay falls back to the run's saved result)
  briefing: null, // {symbol, as_of, headline, run_id} of the shown briefing
  request: null, // the body of the live run's POST, for its history entry
  calls: new Map(), // "event:<tool_call event id>" and "call:<agent>/<call_id>" -> trace row entry
  agents: new Map(), // agent name -> its agent_start trace row entry
  tool_calls: 0,
  tool_errors: 0,
  warnings: 0,
  model_chars: 0,
  notices: new Set(),
  view: null, // the view shown: an entry of VIEWS, or GenericView (set by activate)
  workflow: BRIEF, // the name of the workflow shown
  meta: null, // its entry of GET /v1/workflows, when listed
  workflows: new Map(), // name -> entry of GET /v1/workflows (see workflow_meta)
  catalog: Promise.resolve(false), // the listing's load; resolves true when it loaded
  fields: [], // the generic form's fields (field_specs of the workflow's input schema)
  boxes: new Map(), // the generic view's section boxes by section name
  route: "", // the route shown (route_key), so returning to it after a footnote jump does nothing
  route_pending: false, // the hash changed during a run: the route is applied when the run ends
  idle: {}, // texts index.html starts with (restored when a view is shown afresh)
  report_run: "", // the run whose HTML report #run-report opens ("" while there is none)
  report_failed: false, // #error shows why the report could not be opened (cleared by the next try)
};

// ---------------------------------------------------------------- small DOM helpers (text only)

function $(id) {
  return document.getElementById(id);
}

function el(tag, text, cls) {
  const node = document.createElement(tag);
  if (text !== undefined && text !== null) node.textContent = str(text);
  if (cls) node.className = cls;
  return node;
}

function str(value) {
  // Total: an object whose toString is not a function (JSON can hold {"toString": 1}) must not throw.
  let text;
  try {
    text = value === undefined || value === null ? "" : String(value);
  } catch (err) {
    text = "";
  }
  // Explicit bidi embeddings, overrides and isolates (see the rules above). The pattern stays inside this
  // function: tests/interfaces/api/test_page_contract.py runs `str` on its own in node.
  return text.replace(/[\u202A-\u202E\u2066-\u2069]/g, "");
}

function first_line(value) {
  return str(value).split("\n", 1)[0];
}

function clip(text, max) {
  return text.length > max ? text.slice(0, max - 1) + "…" : text;
}

function plural(n, word) {
  return n.toLocaleString("en-US") + " " + word + (n === 1 ? "" : "s");
}

function fmt_ms(value) {
  const n = Number(value);
  return Number.isFinite(n) ? Math.round(n).toLocaleString("en-US") : "";
}

function fmt_cost(value) {
  const n = Number(value);
  return Number.isFinite(n) && n > 0 ? "$" + n.toFixed(4) : "";
}

function fmt_tokens(input, output, cached) {
  const parts = [];
  if (Number(input) > 0) parts.push("in " + Number(input).toLocaleString("en-US"));
  if (Number(output) > 0) parts.push("out " + Number(output).toLocaleString("en-US"));
  if (Number(cached) > 0) parts.push("cached " + Number(cached).toLocaleString("en-US"));
  return parts.length ? parts.join(" / ") + " tokens" : "";
}

function compact_json(value) {
  try {
    return JSON.stringify(value === undefined ? {} : value);
  } catch (err) {
    return "(arguments not shown)";
  }
}

function set_status(text) {
  $("status").textContent = text;
}

function notice(text) {
  // Page-level notices are shown once each: a stream of unknown events must not flood the page.
  if (state.notices.has(text)) return;
  state.notices.add(text);
  $("notices").appendChild(el("li", text));
}

function show_error(code, message) {
  const box = $("error");
  box.replaceChildren(el("strong", str(code) || "error"), document.createTextNode(": " + str(message)));
  box.hidden = false;
}

// ---------------------------------------------------------------- sanitizing a section's html

function sanitize_html(html) {
  // DOMParser documents are inert: scripts never run, nothing loads. We still copy only what we allow.
  const doc = new DOMParser().parseFromString(html, "text/html");
  const out = document.createDocumentFragment();
  copy_children(doc.body, out, 0);
  return out;
}

function copy_children(src, dst, depth) {
  for (const child of Array.from(src.childNodes)) copy_node(child, dst, depth);
}

function copy_node(node, dst, depth) {
  if (node.nodeType === Node.TEXT_NODE) {
    dst.appendChild(document.createTextNode(str(node.data)));
    return;
  }
  // Comments, processing instructions and anything outside the HTML namespace (svg, math) are dropped.
  if (node.nodeType !== Node.ELEMENT_NODE || node.namespaceURI !== document.documentElement.namespaceURI) return;
  const tag = node.localName;
  if (depth >= MAX_DEPTH) {
    dst.appendChild(document.createTextNode(str(node.textContent)));
    return;
  }
  if (UNWRAP_TAGS.has(tag)) {
    copy_children(node, dst, depth + 1);
    return;
  }
  if (tag === "img") {
    const chart = chart_image(node); // only a PNG drawn by the server, inline; every other image is dropped
    if (chart) dst.appendChild(chart);
    return;
  }
  if (!ALLOWED_TAGS.has(tag)) return; // script, style, iframe, object, form, input, template…
  const copy = document.createElement(tag);
  copy_attributes(node, copy, tag);
  copy_children(node, copy, depth + 1);
  dst.appendChild(copy);
}

function copy_attributes(src, dst, tag) {
  const classes = str(src.getAttribute("class")).split(/\s+/).filter((c) => SAFE_CLASS_RE.test(c));
  if (classes.length) dst.className = classes.join(" ");
  if (src.hasAttribute("title")) dst.title = clip(str(src.getAttribute("title")), 500);
  if (tag === "details" && src.hasAttribute("open")) dst.open = true;
  if (SOURCE_ID_RE.test(str(src.getAttribute("id")))) dst.id = str(src.getAttribute("id"));
  if (tag === "a") {
    const raw = str(src.getAttribute("href"));
    if (raw.charAt(0) === "#" && SOURCE_ID_RE.test(raw.slice(1))) {
      dst.setAttribute("href", raw); // a footnote: stays on this page, in this tab
      return;
    }
    const href = safe_href(raw);
    if (href) {
      dst.href = href;
      dst.rel = LINK_REL;
      dst.target = "_blank";
    }
  }
}

function chart_image(node) {
  // A chart of the research desk: data:image/png;base64 only (no URL is ever fetched), a fresh element
  // with no attribute of the original but its alt text.
  const src = str(node.getAttribute("src"));
  if (src.length > CHART_MAX || !PNG_DATA_RE.test(src)) return null;
  const img = document.createElement("img");
  img.src = src;
  img.alt = clip(str(node.getAttribute("alt")), 200);
  img.className = "chart";
  return img;
}

function safe_href(raw) {
  // Only absolute http(s) URLs become links; relative, javascript:, data: and the rest stay plain text.
  let url;
  try {
    url = new URL(str(raw).trim());
  } catch (err) {
    return "";
  }
  return url.protocol === "http:" || url.protocol === "https:" ? url.href : "";
}

// ---------------------------------------------------------------- the trace table

function trace_row(agent, step, detail, status) {
  const cells = {
    agent: el("td", agent),
    step: el("td", step),
    detail: el("td", detail, "detail"),
    status: el("td", status),
    latency: el("td", "", "num"),
    cached: el("td", ""),
    summary: el("td", ""),
  };
  cells.detail.title = detail;
  const row = el("tr");
  for (const cell of Object.values(cells)) row.appendChild(cell);
  $("trace-body").appendChild(row);
  return { row: row, cells: cells };
}

function mark_failed(entry, status) {
  entry.row.classList.add("err");
  entry.cells.status.textContent = status;
}

function close_pending(status) {
  // Calls and agents still "running…" when the run ends never reported back: say so instead.
  for (const entry of new Set([...state.calls.values(), ...state.agents.values()])) {
    entry.cells.status.textContent = status;
  }
  state.calls = new Map();
  state.agents = new Map();
}

function update_trace_count() {
  $("trace-count").textContent = plural(state.tool_calls, "tool call") + ", " + plural(state.tool_errors, "error");
}

function agent_label(ev) {
  return str(ev && ev.agent) || "desk";
}

function call_key(ev, call_id) {
  // Call ids are unique per agent only (two agents may both issue "pb1-company").
  return "call:" + agent_label(ev) + "/" + call_id;
}

// ---------------------------------------------------------------- event handlers (one per kind)

function on_token(d, ev) {
  if (state.model_chars >= MODEL_OUTPUT_MAX) return;
  const text = str(d.text).slice(0, MODEL_OUTPUT_MAX - state.model_chars);
  state.model_chars += text.length;
  const out = $("model-output");
  out.appendChild(document.createTextNode(text));
  if (state.model_chars >= MODEL_OUTPUT_MAX) out.appendChild(document.createTextNode("\n… (output cut here)"));
}

function on_tool_call(d, ev) {
  const agent = agent_label(ev);
  const detail = str(d.name) + " " + clip(compact_json(d.arguments), CELL_MAX);
  const entry = trace_row(agent, d.prefetch ? "tool (prefetch)" : "tool", detail, "running…");
  entry.cells.detail.title = str(d.name) + " " + compact_json(d.arguments);
  entry.keys = ["event:" + str(ev.id), call_key(ev, str(d.call_id))];
  for (const key of entry.keys) state.calls.set(key, entry);
  state.tool_calls += 1;
  update_trace_count();
  set_status(agent + ": " + str(d.name) + "…");
}

function on_tool_result(d, ev) {
  // The result's parent is its call event; the (agent, call id) pair is the fallback.
  let entry = state.calls.get("event:" + str(ev.parent_id)) || state.calls.get(call_key(ev, str(d.call_id)));
  if (entry) {
    for (const key of entry.keys) state.calls.delete(key);
  } else {
    // A result without its call (a partial log): show it on a row of its own rather than lose it.
    entry = trace_row(agent_label(ev), "tool", str(d.name), "");
    state.tool_calls += 1;
  }
  if (d.ok) {
    entry.cells.status.textContent = "ok";
  } else {
    mark_failed(entry, str(d.error_code) || "error");
    state.tool_errors += 1;
  }
  entry.cells.latency.textContent = fmt_ms(d.latency_ms);
  entry.cells.cached.textContent = d.cached ? "cached" : "";
  const summary = first_line(d.summary) + (d.truncated ? " (truncated)" : "");
  entry.cells.summary.textContent = clip(summary, CELL_MAX);
  entry.cells.summary.title = summary;
  update_trace_count();
}

function on_llm_call(d, ev) {
  const attempt = Number(d.attempt) > 1 ? " (attempt " + Number(d.attempt) + ")" : "";
  const entry = trace_row(agent_label(ev), "model", str(d.provider) + " " + str(d.model) + attempt, "ok");
  if (!d.ok) mark_failed(entry, str(d.error_code) || "error");
  entry.cells.latency.textContent = fmt_ms(d.latency_ms);
  entry.cells.cached.textContent = Number(d.cached_tokens) > 0 ? "prompt cache" : "";
  const usage = [fmt_tokens(d.input_tokens, d.output_tokens, d.cached_tokens), fmt_cost(d.cost_usd)];
  if (!d.ok && d.error) usage.push(first_line(d.error));
  entry.cells.summary.textContent = usage.filter(Boolean).join(", ");
  set_status(agent_label(ev) + ": waiting for " + str(d.model) + "…");
}

function on_agent_start(d, ev) {
  const reason = d.mode_reason ? " — " + str(d.mode_reason) : "";
  const entry = trace_row(str(d.agent), "agent start", "mode: " + str(d.mode) + reason, "running…");
  entry.row.classList.add("agent-row");
  state.agents.set(str(d.agent), entry);
  set_status(str(d.agent) + ": started (" + str(d.mode) + ")");
}

function on_agent_end(d, ev) {
  const fell_back = d.fell_back ? ", fell back to deterministic" : "";
  const entry = trace_row(str(d.agent), "agent end", "mode: " + str(d.mode) + fell_back, "ok");
  entry.row.classList.add("agent-row");
  if (!d.ok) mark_failed(entry, "failed");
  const started = state.agents.get(str(d.agent));
  if (started) started.cells.status.textContent = d.ok ? "finished" : "failed";
  state.agents.delete(str(d.agent));
  entry.cells.latency.textContent = fmt_ms(d.latency_ms);
  const usage = [
    plural(Number(d.tool_calls) || 0, "tool call"),
    Number(d.iterations) > 0 ? plural(Number(d.iterations), "model turn") : "",
    fmt_tokens(d.input_tokens, d.output_tokens, 0),
    fmt_cost(d.cost_usd),
    first_line(d.summary),
  ].filter(Boolean).join(", ");
  entry.cells.summary.textContent = clip(usage, CELL_MAX);
  entry.cells.summary.title = usage;
  set_status(str(d.agent) + ": finished");
}

function on_warning(d, ev) {
  const item = el("li");
  item.appendChild(el("strong", str(d.code)));
  item.appendChild(document.createTextNode(": " + str(d.message)));
  $("warnings").appendChild(item);
  state.warnings += 1;
  $("warning-count").textContent = "(" + state.warnings.toLocaleString("en-US") + ")";
}


function on_section(d, ev) {
  // The view inserts `html` only through sanitize_html; name, title and message are text.
  const s = {
    name: str(d.name),
    title: str(d.title),
    index: Number(d.index) || 0,
    html: str(d.html),
    message: str(d.message),
  };
  const total = state.view.section(s);
  set_status(s.title + " ready (" + str(d.index) + " of " + total + ")");
}

function on_done(d, ev) {
  state.finished = true;
  state.view.done(d.result, str(d.summary), str(ev.run_id));
  state.view.missing("not sent by the server for this run");
  close_pending("no result");
  const seconds = (performance.now() - state.started_at) / 1000;
  set_status(state.replaying ? "replayed run " + str(ev.run_id) : "done in " + seconds.toFixed(1) + " s");
}

function on_error(d, ev) {
  state.finished = true;
  show_error(d.code, d.message);
  state.view.missing("not produced: the run failed (" + (str(d.code) || "error") + ")");
  close_pending("stopped");
  set_status("stopped: " + str(d.code));
}

const HANDLERS = Object.freeze({
  token: on_token,
  tool_call: on_tool_call,
  tool_result: on_tool_result,
  llm_call: on_llm_call,
  agent_start: on_agent_start,
  agent_end: on_agent_end,
  warning: on_warning,
  section: on_section,
  done: on_done,
  error: on_error,
});

window.findesk = { handled: Object.keys(HANDLERS) };

// ---------------------------------------------------------------- the briefing header and sections

function show_briefing(r) {
  $("data-line").textContent = str(r.data_line);
  $("headline").textContent = str(r.headline) || str(r.symbol) + " briefing";
  $("summary").textContent = str(r.summary); // the data line above states the date
  if (str(r.disclaimer)) $("disclaimer").textContent = str(r.disclaimer);
  state.briefing = {
    symbol: str(r.symbol),
    as_of: str(r.as_of),
    headline: str(r.headline),
    run_id: str(r.audit && r.audit.run_id),
  };
  // The briefing's own warnings replace the ones streamed: the panel and the audit say the same count.
  show_warnings(r.audit && Array.isArray(r.audit.warnings) ? r.audit.warnings : []);
  show_question(r.question, Array.isArray(r.sources) ? r.sources : []);
}

// A section's title as its box shows it (index.html, refreshed by each section event).
function section_title(name) {
  const box = SECTION_NAMES.includes(name) ? $("section-" + name) : null;
  const h2 = box && box.querySelector("h2");
  return (h2 && h2.textContent) || name;
}

// The client's question and where the briefing answers it; [n] links to the source list entry.
function show_question(answer, sources) {
  const box = $("client-question");
  if (!answer || typeof answer !== "object") {
    box.hidden = true;
    return;
  }
  const rows = (Array.isArray(answer.points) ? answer.points : []).map((point) => {
    const li = el("li");
    li.appendChild(el("strong", section_title(str(point.section))));
    li.appendChild(document.createTextNode(": " + str(point.text)));
    for (const key of Array.isArray(point.citations) ? point.citations : []) {
      const n = sources.findIndex((s) => s && s.key === key) + 1;
      if (n < 1) continue;
      const a = el("a", "[" + n + "]", "cite");
      a.href = "#source-" + n;
      li.append(" ", a);
    }
    return li;
  });
  $("client-question-text").textContent = "“" + str(answer.question) + "”";
  $("client-question-points").replaceChildren(...rows);
  const note = $("client-question-note");
  note.textContent = str(answer.note);
  note.className = answer.addressed ? "muted" : "message";
  box.hidden = false;
}

function show_warnings(messages) {
  $("warnings").replaceChildren(...messages.map((m) => el("li", str(m))));
  state.warnings = messages.length;
  $("warning-count").textContent = "(" + state.warnings.toLocaleString("en-US") + ")";
}

function section_box(name, title) {
  let box = SECTION_NAMES.includes(name) ? $("section-" + name) : null;
  if (!box) {
    notice("The server sent a section this page does not know: " + (name || "(no name)"));
    box = el("section", null, "brief-section");
    box.appendChild(el("h2", title || name));
    box.appendChild(el("div", null, "section-body"));
    $("sections").appendChild(box);
  }
  if (title) box.querySelector("h2").textContent = title;
  return box;
}

function mark_missing_sections(why) {
  for (const name of SECTION_NAMES) {
    const box = $("section-" + name);
    if (box.dataset.state !== "waiting") continue;
    box.dataset.state = "missing";
    box.querySelector(".section-body").replaceChildren(el("p", why, "muted"));
  }
}


function brief_prepare(meta) {
  // index.html holds the briefing's form and boxes: nothing to build.
}

function brief_reset(idle) {
  $("data-line").textContent = "";
  $("headline").textContent = idle ? state.idle.headline : "Working…";
  $("summary").textContent = idle ? state.idle.summary : "";
  $("client-question").hidden = true;
  for (const name of SECTION_NAMES) {
    const box = $("section-" + name);
    box.dataset.state = "waiting";
    box.querySelector(".section-body").replaceChildren(el("p", "waiting…", "muted"));
  }
  for (const extra of Array.from($("sections").children)) {
    if (!SECTION_NAMES.includes(extra.id.replace(/^section-/, ""))) extra.remove();
  }
  state.briefing = null;
}

function brief_prefill(arg) {
  // "#/brief/AAPL": the ticker, ready to run (a route never starts a run by itself).
  $("ticker").value = str(arg).trim().toUpperCase().slice(0, 15);
}

function brief_fill(inputs, as_of) {
  $("ticker").value = str(inputs.ticker);
  $("as-of").value = str(as_of || inputs.as_of);
  $("question").value = str(inputs.question);
  update_question_count();
}

function brief_section(s) {
  const box = section_box(s.name, s.title);
  const body = box.querySelector(".section-body");
  body.replaceChildren(sanitize_html(s.html));
  if (!body.hasChildNodes()) body.appendChild(el("p", s.message || "Nothing to show.", "message"));
  box.dataset.state = "ready";
  return SECTION_NAMES.length;
}

function brief_done(result, summary, run_id) {
  if (result && typeof result === "object") {
    show_briefing(result);
    state.shown_result = true;
  } else if (summary) {
    $("summary").textContent = summary;
  }
  // Saved the moment the briefing is complete, not when the connection closes.
  if (!state.replaying && state.request && state.briefing) remember(state.request, state.briefing);
}

function brief_title(text) {
  $("headline").textContent = text;
}

// The briefing: its own form (#brief-form) and report (#brief-view) in index.html, POST /v1/brief.
const BriefView = Object.freeze({
  noun: "briefing",
  panels: ["brief-form", "brief-view"],
  prepare: brief_prepare,
  reset: brief_reset,
  prefill: brief_prefill,
  fill: brief_fill,
  section: brief_section,
  done: brief_done,
  missing: mark_missing_sections,
  title: brief_title,
});


// ---------------------------------------------------------------- the generic view (any other workflow)

function field_specs(schema) {
  // The input model's JSON schema (pydantic's) as form fields, in the schema's order. Only the top level
  // becomes a form: a field of any other shape (an object, a list, a reference) is edited as JSON.
  const root = schema && typeof schema === "object" ? schema : {};
  const props = root.properties && typeof root.properties === "object" ? root.properties : {};
  const required = new Set(Array.isArray(root.required) ? root.required.map(str) : []);
  return Object.keys(props).map((key, i) => {
    const prop = props[key] && typeof props[key] === "object" ? props[key] : {};
    const base = without_null(prop);
    const kind = field_kind(base);
    return {
      key: key,
      id: "wf-field-" + i,
      label: str(prop.title || base.title) || key,
      help: str(prop.description || base.description),
      required: required.has(key),
      kind: kind,
      options: kind === "choice" ? base.enum.map(str) : [],
      max_length: whole(base.maxLength),
      min_length: whole(base.minLength),
      minimum: finite(base.minimum),
      maximum: finite(base.maximum),
      initial: prop.default === undefined ? base.default : prop.default,
    };
  });
}

function without_null(prop) {
  // pydantic's "X | None" is anyOf [X, null]: the field is an X that may be left empty.
  const options = Array.isArray(prop.anyOf) ? prop.anyOf : Array.isArray(prop.oneOf) ? prop.oneOf : null;
  if (!options) return prop;
  const real = options.filter((o) => o && typeof o === "object" && o.type !== "null");
  return real.length === 1 ? real[0] : {};
}

function field_kind(p) {
  if (Array.isArray(p.enum) && p.enum.length && p.enum.every((v) => typeof v === "string")) return "choice";
  const types = (Array.isArray(p.type) ? p.type : [p.type]).filter((t) => t !== "null");
  if (types.length !== 1) return "json";
  if (types[0] === "string") {
    if (p.format === "date") return "date";
    return whole(p.maxLength) > TEXTAREA_MIN ? "textarea" : "text";
  }
  if (types[0] === "integer" || types[0] === "number" || types[0] === "boolean") return types[0];
  return "json";
}

function whole(value) {
  return Number.isInteger(value) && value >= 0 ? value : null;
}

function finite(value) {
  return typeof value === "number" && Number.isFinite(value) ? value : null;
}

function field_value(spec, raw, checked) {
  // What the form sends for one field: {value}, {skip: true} (an optional field left empty) or {error}.
  if (spec.kind === "boolean") return { value: Boolean(checked) };
  const text = spec.kind === "json" || spec.kind === "textarea" ? str(raw) : str(raw).trim();
  if (text.trim() === "") return spec.required ? { error: spec.label + " is required." } : { skip: true };
  if (spec.kind === "integer" || spec.kind === "number") {
    const n = Number(text);
    if (!Number.isFinite(n) || (spec.kind === "integer" && !Number.isInteger(n))) {
      return { error: spec.label + (spec.kind === "integer" ? " must be a whole number." : " must be a number.") };
    }
    if (spec.minimum !== null && n < spec.minimum) return { error: spec.label + " must be at least " + spec.minimum + "." };
    if (spec.maximum !== null && n > spec.maximum) return { error: spec.label + " must be at most " + spec.maximum + "." };
    return { value: n };
  }
  if (spec.kind === "json") {
    try {
      return { value: JSON.parse(text) };
    } catch (err) {
      return { error: spec.label + " must be JSON (" + str(err && err.message) + ")." };
    }
  }
  if (spec.kind === "date" && !DATE_RE.test(text)) return { error: spec.label + " must be a date (YYYY-MM-DD)." };
  if (spec.kind === "choice" && !spec.options.includes(text)) {
    return { error: spec.label + " must be one of: " + spec.options.join(", ") + "." };
  }
  if (spec.max_length !== null && text.length > spec.max_length) {
    return { error: spec.label + " is longer than " + plural(spec.max_length, "character") + "." };
  }
  if (spec.min_length !== null && text.length < spec.min_length) {
    return { error: spec.label + " needs at least " + plural(spec.min_length, "character") + "." };
  }
  return { value: text };
}

function option(value, text) {
  const node = el("option", text);
  node.value = value;
  return node;
}

function make_control(spec) {
  if (spec.kind === "choice") {
    const select = el("select");
    if (!spec.required) select.appendChild(option("", "(none)"));
    for (const value of spec.options) select.appendChild(option(value, value));
    return select;
  }
  if (spec.kind === "textarea" || spec.kind === "json") {
    const area = el("textarea", null, spec.kind === "json" ? "json-input" : "");
    area.rows = spec.kind === "json" ? 5 : 3;
    area.spellcheck = spec.kind !== "json";
    if (spec.max_length !== null) area.maxLength = spec.max_length;
    return area;
  }
  const input = el("input");
  const types = { boolean: "checkbox", date: "date", integer: "number", number: "number" };
  input.type = types[spec.kind] || "text";
  input.autocomplete = "off";
  if (spec.kind === "text") {
    input.spellcheck = false;
    if (spec.max_length !== null) input.maxLength = spec.max_length;
  }
  if (spec.kind === "integer" || spec.kind === "number") {
    input.step = spec.kind === "integer" ? "1" : "any";
    if (spec.minimum !== null) input.min = String(spec.minimum);
    if (spec.maximum !== null) input.max = String(spec.maximum);
  }
  return input;
}

function sentence(text) {
  const trimmed = str(text).trim();
  return trimmed && !/[.!?)]$/.test(trimmed) ? trimmed + "." : trimmed;
}

function field_hint(spec) {
  if (spec.kind === "json") return "Enter JSON.";
  if (spec.max_length !== null && spec.kind !== "choice") return "Up to " + plural(spec.max_length, "character") + ".";
  return "";
}

function set_control(spec, control, value) {
  if (spec.kind === "boolean") control.checked = Boolean(value);
  else if (spec.kind === "json") control.value = value === undefined ? "" : JSON.stringify(value, null, 2);
  else control.value = str(value);
}

function field_control(spec) {
  // One labelled control: the schema's title as its label, a required mark, its description as a hint.
  const wrap = el("div", null, spec.kind === "boolean" ? "field field-check" : "field");
  const label = el("label", spec.label);
  label.htmlFor = spec.id;
  if (spec.required && spec.kind !== "boolean") {
    const mark = el("span", "*", "required-mark");
    mark.setAttribute("aria-hidden", "true");
    label.append(" ", mark);
  } else if (spec.kind !== "boolean") {
    label.append(" ", el("span", "(optional)", "optional"));
  }
  const control = make_control(spec);
  control.id = spec.id;
  if (spec.required && spec.kind !== "boolean") control.required = true;
  if (spec.kind === "boolean") wrap.append(control, label);
  else wrap.append(label, control);
  const hint = [sentence(spec.help), field_hint(spec)].filter(Boolean).join(" ");
  if (hint) {
    const help = el("p", hint, "help");
    help.id = spec.id + "-help";
    control.setAttribute("aria-describedby", help.id);
    wrap.appendChild(help);
  }
  if (spec.initial !== undefined && spec.initial !== null) set_control(spec, control, spec.initial);
  return wrap;
}

function generic_prepare(meta) {
  // The form of the workflow shown (state.workflow; `meta` is its listing entry, null when not listed).
  $("run-form-title").textContent = meta ? meta.title : state.workflow;
  // The picker's hint already describes a listed workflow.
  $("run-form-description").textContent = meta ? "" : "This server does not list this workflow.";
  state.fields = field_specs(meta ? meta.schema : null);
  $("run-fields").replaceChildren(...state.fields.map(field_control));
  if (!state.fields.length) $("run-fields").appendChild(el("p", "This workflow takes no input.", "help"));
}

function generic_box(name, title) {
  // A section box, waiting, after the others (its title is text; its body is filled by generic_section).
  const box = el("section", null, "brief-section");
  box.dataset.state = "waiting";
  box.appendChild(el("h2", title || name));
  box.appendChild(el("div", null, "section-body")).appendChild(el("p", "waiting…", "muted"));
  state.boxes.set(name, box);
  $("run-sections").appendChild(box);
  return box;
}

function generic_reset(idle) {
  const title = state.meta ? state.meta.title : state.workflow;
  $("run-data-line").textContent = "";
  $("run-headline").textContent = idle ? title : "Working…";
  $("run-summary").textContent = idle ? "Fill in the form and run it: its sections and result appear here." : "";
  $("run-result").textContent = idle ? "No result yet." : "waiting…";
  offer_report("");
  $("run-sections").replaceChildren();
  state.boxes = new Map();
  // The listing's sections, in order, wait for their `section` events.
  for (const s of state.meta ? state.meta.sections : []) generic_box(s.name, s.title);
}

function generic_prefill(arg) {
  // "#/run/<workflow>/<text>": the text goes in the first field (a route never starts a run by itself).
  const spec = state.fields[0];
  if (spec && spec.kind !== "boolean") set_control(spec, $(spec.id), arg);
}

function generic_fill(inputs, as_of) {
  for (const spec of state.fields) {
    if (Object.prototype.hasOwnProperty.call(inputs, spec.key)) set_control(spec, $(spec.id), inputs[spec.key]);
  }
  if (as_of) $("run-as-of").value = as_of;
}

function generic_section(s) {
  const box = state.boxes.get(s.name) || generic_box(s.name, s.title);
  if (s.title) box.querySelector("h2").textContent = s.title;
  const body = box.querySelector(".section-body");
  body.replaceChildren(sanitize_html(s.html));
  if (!body.hasChildNodes()) body.appendChild(el("p", s.message || "Nothing to show.", "message"));
  box.dataset.state = "ready";
  return state.boxes.size;
}

function pretty_json(value) {
  let text;
  try {
    text = JSON.stringify(value === undefined ? null : value, null, 2);
  } catch (err) {
    text = "(the result could not be shown: " + str(err && err.message) + ")";
  }
  return clip(str(text), RESULT_MAX);
}

function generic_done(result, summary, run_id) {
  // The headline (the done event's summary), the report's own summary, and the report as JSON, all text.
  const report = result && typeof result === "object" && !Array.isArray(result) ? result : {};
  const title = state.meta ? state.meta.title : state.workflow;
  const text = (value) => (typeof value === "string" ? value : "");
  const headline = summary || text(report.headline) || text(report.summary) || title + ": done";
  $("run-headline").textContent = headline;
  $("run-summary").textContent = text(report.summary) !== headline ? text(report.summary) : "";
  const line = [text(report.data_line) || text(report.data_mode), run_id ? "run " + run_id : ""];
  $("run-data-line").textContent = line.filter(Boolean).join(" · ");
  $("run-result").textContent = pretty_json(result);
  // The report's warnings join the streamed ones (each once).
  const shown = Array.from($("warnings").children, (li) => str(li.textContent));
  for (const warning of Array.isArray(report.warnings) ? report.warnings : []) {
    const message = str(warning);
    if (!message || shown.some((t) => t === message || t.endsWith(": " + message))) continue;
    $("warnings").appendChild(el("li", message));
    shown.push(message);
    state.warnings += 1;
  }
  $("warning-count").textContent = "(" + state.warnings.toLocaleString("en-US") + ")";
  state.shown_result = true;
  if (state.meta && state.meta.formats.includes(HTML_FORMAT)) offer_report(str(run_id));
  if (!state.replaying && state.request && run_id) remember_run(run_id, headline);
  if (!state.replaying) render_past_runs();
}

function offer_report(run_id) {
  // #run-report opens `run_id`'s HTML report; "" (or anything that is not a run id) hides it.
  state.report_run = RUN_ID_RE.test(run_id) ? run_id : "";
  $("run-report-actions").hidden = !state.report_run;
}

async function open_report() {
  // A tab cannot send the key: the key buys a short-lived signed link (POST .../report-link), and the tab
  // opens that link itself, so the report loads under its own CSP. Its markup never passes through here.
  const run_id = state.report_run;
  if (!run_id) return;
  const button = $("run-report");
  if (state.report_failed) {
    $("error").hidden = true;
    state.report_failed = false;
  }
  button.disabled = true;
  set_status("opening the report of run " + run_id + "…");
  try {
    const response = await fetch("/v1/runs/" + encodeURIComponent(run_id) + "/report-link", {
      method: "POST",
      headers: auth_headers(),
      cache: "no-store",
      credentials: "same-origin",
    });
    if (!response.ok) {
      const failure = await http_failure(response);
      show_error(failure.code, "The report could not be opened: " + failure.message);
      state.report_failed = true;
      set_status("no report: " + failure.code);
      return;
    }
    const link = await response.json().catch(() => null); // not JSON: said below as a bad response
    const url = link && typeof link === "object" ? str(link.url) : "";
    if (!REPORT_LINK_RE.test(url)) {
      show_error("bad_response", "The server answered with something that is not a report link.");
      state.report_failed = true;
      set_status("no report: bad_response");
      return;
    }
    window.open(url, "_blank", "noopener");
    set_status("opened the report of run " + run_id + " in a new tab");
  } catch (err) {
    show_error("network", "Could not open the report: " + str(err && err.message));
    state.report_failed = true;
    set_status("no report: network error");
  } finally {
    button.disabled = false;
  }
}

function generic_missing(why) {
  for (const box of state.boxes.values()) {
    if (box.dataset.state !== "waiting") continue;
    box.dataset.state = "missing";
    box.querySelector(".section-body").replaceChildren(el("p", why, "muted"));
  }
  if (!state.shown_result) $("run-result").textContent = "No result: " + why + ".";
}

function generic_title(text) {
  $("run-headline").textContent = text;
}

function read_run_form() {
  const input = {};
  for (const spec of state.fields) {
    const control = $(spec.id);
    control.removeAttribute("aria-invalid");
    const got = field_value(spec, control.value, control.checked);
    if (got.error) {
      control.setAttribute("aria-invalid", "true");
      return { error: got.error, control: control };
    }
    if (!got.skip) input[spec.key] = got.value;
  }
  const mode = $("run-mode").value;
  const body = { input: input, mode: MODES.includes(mode) ? mode : "auto" };
  const as_of = $("run-as-of").value;
  if (as_of) body.as_of = as_of;
  return { body: body };
}

async function start_generic(event) {
  event.preventDefault();
  if (state.running) return;
  const form = read_run_form();
  if (form.error) {
    show_error("invalid_input", form.error);
    form.control.focus();
    return;
  }
  const name = state.workflow;
  set_route(route_hash(name, ""));
  await run_stream("/v1/runs/" + encodeURIComponent(name), form.body, state.meta ? state.meta.title : name);
}

// Every other workflow: a form from its input schema (#run-form), its sections, trace and result (#run-view).
const GenericView = Object.freeze({
  noun: "run",
  panels: ["run-form", "run-view"],
  prepare: generic_prepare,
  reset: generic_reset,
  prefill: generic_prefill,
  fill: generic_fill,
  section: generic_section,
  done: generic_done,
  missing: generic_missing,
  title: generic_title,
});

// ---------------------------------------------------------------- the view registry and the router

// A workflow's own view; any workflow not named here is shown by GenericView.
const VIEWS = Object.freeze({
  brief: BriefView,
});

window.findesk.views = Object.keys(VIEWS);

function view_for(workflow) {
  return Object.prototype.hasOwnProperty.call(VIEWS, workflow) ? VIEWS[workflow] : GenericView;
}

function decode_part(part) {
  try {
    return decodeURIComponent(part);
  } catch (err) {
    return part;
  }
}

function parse_route(hash) {
  // {kind: "workflow", workflow, arg} or {kind: "run", run_id}; null when the hash is not a route.
  const raw = str(hash);
  if (raw === "" || raw === "#" || raw === "#/") return { kind: "workflow", workflow: BRIEF, arg: "" };
  if (raw.slice(0, 2) !== "#/") return null;
  const parts = raw.slice(2).split("/").map(decode_part);
  if (parts[0] === "runs") return { kind: "run", run_id: parts[1] || "" };
  if (parts[0] === "run") return { kind: "workflow", workflow: parts[1] || "", arg: parts.slice(2).join("/") };
  return { kind: "workflow", workflow: parts[0], arg: parts.slice(1).join("/") };
}

function route_key(route) {
  return route.kind === "run" ? "run:" + route.run_id : "workflow:" + route.workflow + "/" + route.arg;
}

function route_hash(workflow, arg) {
  const tail = arg ? "/" + encodeURIComponent(arg) : "";
  return (workflow === BRIEF ? "#/brief" : "#/run/" + encodeURIComponent(workflow)) + tail;
}

function set_route(hash) {
  // The address bar names what is shown (a reload comes back to it), without a hashchange.
  if (window.location.hash !== hash) window.history.replaceState(null, "", hash);
  const route = parse_route(hash);
  state.route = route ? route_key(route) : "";
}

async function apply_route() {
  const route = parse_route(window.location.hash);
  if (route === null) return; // a footnote jump, not a route
  if (state.running) {
    state.route_pending = true; // shown when the run ends; a run is never swapped out under its stream
    return;
  }
  const key = route_key(route);
  if (key === state.route) return;
  state.route = key;
  if (route.kind === "run") {
    if (RUN_ID_RE.test(route.run_id)) await replay_run(route.run_id, null);
    else show_error("not_found", "“" + clip(str(route.run_id), ECHO_MAX) + "” is not a run id.");
    return;
  }
  await open_workflow(route.workflow, route.arg);
}

async function open_workflow(name, arg) {
  let problem = "";
  if (name !== BRIEF) {
    const shown = clip(str(name), ECHO_MAX);
    const valid = WORKFLOW_RE.test(name);
    const listed = valid && (await state.catalog);
    if (!valid) problem = "“" + shown + "” is not a workflow name (letters, digits, “_”, “.” and “-”).";
    else if (!listed) problem = "The list of workflows could not be loaded, so “" + shown + "” cannot be shown.";
    else if (!state.workflows.has(name)) problem = "This server has no workflow “" + shown + "”.";
    if (state.running) return;
    if (problem) {
      name = BRIEF;
      arg = "";
      set_route(route_hash(BRIEF, ""));
    }
  }
  if (name !== state.workflow) {
    activate(name);
    reset_shared();
    state.view.reset(true);
    set_status("Ready.");
  }
  if (arg) state.view.prefill(arg);
  if (problem) show_error("not_found", problem);
}

function activate(name) {
  // Make `name`'s view the one shown: its panels visible, every other view's hidden, its form built.
  const view = view_for(name);
  state.workflow = name;
  state.meta = state.workflows.get(name) || null;
  state.view = view;
  for (const other of [...Object.values(VIEWS), GenericView]) {
    for (const id of other.panels) $(id).hidden = other !== view;
  }
  view.prepare(state.meta);
  sync_picker();
  render_past_runs();
  document.title = name === BRIEF ? state.idle.title : "findesk · " + (state.meta ? state.meta.title : name);
}

function pick_workflow() {
  // The picker only changes the hash; the router does the rest (so Back returns to the previous workflow).
  window.location.hash = route_hash($("workflow").value, "");
}

// ---------------------------------------------------------------- the workflow list (GET /v1/workflows)

function workflow_meta(raw) {
  // One entry of the listing as the page keeps it; every string in it is shown as text.
  if (!raw || typeof raw !== "object") return null;
  const name = str(raw.name);
  if (!WORKFLOW_RE.test(name)) return null;
  const sections = (Array.isArray(raw.sections) ? raw.sections : [])
    .filter((s) => s && typeof s === "object" && str(s.name))
    .map((s) => ({ name: str(s.name), title: str(s.title) || str(s.name) }));
  return {
    name: name,
    title: str(raw.title) || name,
    description: str(raw.description),
    kind: Object.prototype.hasOwnProperty.call(KIND_LABELS, str(raw.kind)) ? str(raw.kind) : "workflow",
    schema: raw.input_schema && typeof raw.input_schema === "object" ? raw.input_schema : {},
    sections: sections,
    formats: (Array.isArray(raw.formats) ? raw.formats : []).map((f) => str(f)),
  };
}

async function load_catalog() {
  let body;
  try {
    const response = await fetch("/v1/workflows", {
      headers: auth_headers(),
      cache: "no-store",
      credentials: "same-origin",
    });
    if (!response.ok) {
      let why = "HTTP " + response.status;
      try {
        const error = await response.json();
        if (error && error.error && typeof error.error === "object") why = str(error.error.message) || why;
      } catch (err) {
        // Not JSON: the status is all we have.
      }
      notice("The list of workflows is not available (" + why + "): only the briefing can run from this page.");
      return false;
    }
    body = await response.json();
  } catch (err) {
    notice("Could not load the list of workflows: " + str(err && err.message));
    return false;
  }
  const list = Array.isArray(body) ? body : body && Array.isArray(body.workflows) ? body.workflows : [];
  state.workflows = new Map();
  for (const raw of list) {
    const meta = workflow_meta(raw);
    if (meta && !state.workflows.has(meta.name)) state.workflows.set(meta.name, meta);
  }
  render_picker();
  return true;
}

function render_picker() {
  // Grouped by kind (workflows, plug-ins, single agents), each option the workflow's title as text.
  const groups = new Map();
  for (const kind of Object.keys(KIND_LABELS)) {
    const group = el("optgroup");
    group.label = KIND_LABELS[kind];
    groups.set(kind, group);
  }
  for (const meta of state.workflows.values()) groups.get(meta.kind).appendChild(option(meta.name, meta.title));
  const select = $("workflow");
  select.replaceChildren(...Array.from(groups.values()).filter((g) => g.children.length));
  sync_picker();
}

function sync_picker() {
  const select = $("workflow");
  const name = state.workflow;
  if (!Array.from(select.options).some((o) => o.value === name)) {
    select.prepend(option(name, name === BRIEF ? state.idle.brief_option : name));
  }
  select.value = name;
  const help = state.meta ? state.meta.description : name === BRIEF ? state.idle.workflow_help : "";
  $("workflow-help").textContent = help;
}

// ---------------------------------------------------------------- dispatch and the SSE reader

function dispatch(ev, frame_kind) {
  const d = ev && typeof ev === "object" ? ev.data : null;
  const kind = d && typeof d === "object" && typeof d.type === "string" ? d.type : str(frame_kind);
  if (!Object.prototype.hasOwnProperty.call(HANDLERS, kind)) {
    notice("The server sent an event this page does not know: " + (kind || "(no type)"));
    return;
  }
  if (frame_kind && frame_kind !== kind) {
    notice("An SSE frame said “" + frame_kind + "” but carried “" + kind + "”.");
  }
  try {
    HANDLERS[kind](d || {}, ev || {});
  } catch (err) {
    notice("The page could not show a " + kind + " event: " + str(err && err.message));
  }
}

function sse_parser(on_frame) {
  // Server-sent events framing: "field: value" lines, ":" comments (keep-alive pings), blank line ends
  // a frame; several data lines join with "\n". Chunks may split a frame (or a CRLF) anywhere.
  let buffer = "";
  let frame = { event: "", id: "", data: [] };

  function line(text) {
    if (text === "") {
      if (frame.data.length) on_frame(frame);
      frame = { event: "", id: "", data: [] };
      return;
    }
    if (text.charAt(0) === ":") return;
    const colon = text.indexOf(":");
    const field = colon < 0 ? text : text.slice(0, colon);
    let value = colon < 0 ? "" : text.slice(colon + 1);
    if (value.charAt(0) === " ") value = value.slice(1);
    if (field === "event") frame.event = value;
    else if (field === "data") frame.data.push(value);
    else if (field === "id") frame.id = value;
  }

  function push(chunk) {
    buffer += chunk;
    let start = 0;
    for (;;) {
      const cr = buffer.indexOf("\r", start);
      const lf = buffer.indexOf("\n", start);
      if (cr < 0 && lf < 0) break;
      let end;
      let next;
      if (cr >= 0 && (lf < 0 || cr < lf)) {
        if (cr === buffer.length - 1) break; // a CR at the end may be the first half of a CRLF
        end = cr;
        next = buffer.charAt(cr + 1) === "\n" ? cr + 2 : cr + 1;
      } else {
        end = lf;
        next = lf + 1;
      }
      line(buffer.slice(start, end));
      start = next;
    }
    buffer = buffer.slice(start);
  }

  function finish() {
    // The stream closed: a last line without its newline, or a frame without its blank line, still counts.
    if (buffer !== "") line(buffer.replace(/\r$/, ""));
    buffer = "";
    line("");
  }

  return { push: push, finish: finish };
}

function on_frame(frame) {
  let ev;
  try {
    ev = JSON.parse(frame.data.join("\n"));
  } catch (err) {
    notice("The server sent a frame the page could not read (" + (frame.event || "no event name") + ").");
    return;
  }
  dispatch(ev, frame.event);
}

async function read_stream(response) {
  const reader = response.body.getReader();
  const decoder = new TextDecoder("utf-8");
  const parser = sse_parser(on_frame);
  for (;;) {
    const step = await reader.read();
    if (step.done) break;
    parser.push(decoder.decode(step.value, { stream: true }));
  }
  parser.push(decoder.decode());
  parser.finish();
}

// ---------------------------------------------------------------- HTTP

function auth_headers() {
  const key = $("api-key").value.trim();
  return key ? { Authorization: "Bearer " + key } : {};
}

async function http_failure(response) {
  // {code, message} of a refused request: the JSON error body's, else the status line's.
  let code = "http_" + response.status;
  let message = response.statusText || "The server refused the request.";
  try {
    const body = await response.json();
    if (body && body.error && typeof body.error === "object") {
      code = str(body.error.code) || code;
      message = str(body.error.message) || message;
    }
  } catch (err) {
    // Not JSON (a proxy page, say): the status line is all we have.
  }
  const retry = response.headers.get("Retry-After");
  if (response.status === 429 && retry) message += " Try again in " + retry + " s.";
  return { code: code, message: message };
}

async function show_http_error(response) {
  const failure = await http_failure(response);
  const code = failure.code;
  show_error(code, failure.message);
  set_status("stopped: " + code);
  // The request never became a run: no section will come, and each says why instead of "waiting…".
  state.view.missing("not produced: the server refused the request (" + code + ")");
}

async function get_json(url) {
  const response = await fetch(url, { headers: auth_headers(), cache: "no-store", credentials: "same-origin" });
  if (!response.ok) {
    await show_http_error(response);
    return null;
  }
  return response.json();
}


// ---------------------------------------------------------------- a live run (any view)

function reset_shared() {
  // The panels every view shares: error, trace, warnings, model output and the run's counters.
  $("error").hidden = true;
  $("error").replaceChildren();
  $("trace-body").replaceChildren();
  $("warnings").replaceChildren();
  $("warning-count").textContent = "(0)";
  $("model-output").replaceChildren();
  state.finished = false;
  state.shown_result = false;
  state.calls = new Map();
  state.agents = new Map();
  state.tool_calls = 0;
  state.tool_errors = 0;
  state.warnings = 0;
  state.model_chars = 0;
  update_trace_count();
}

function reset_view() {
  // A run (or a replay) starts in the view shown: the shared panels emptied, the view's boxes waiting.
  reset_shared();
  state.view.reset(false);
}

function read_form() {
  const ticker_input = $("ticker");
  const ticker = ticker_input.value.trim().toUpperCase();
  ticker_input.value = ticker;
  if (!TICKER_RE.test(ticker)) {
    return { error: "Enter a ticker of 1–15 letters, digits, “.” or “-” (for example AAPL or BRK-B)." };
  }
  const body = { ticker: ticker };
  const as_of = $("as-of").value;
  if (as_of) body.as_of = as_of;
  const question = $("question").value.trim();
  if (question.length > QUESTION_MAX) return { error: "The question is longer than 2,000 characters." };
  if (question) body.question = question;
  return { body: body };
}

function set_running(running) {
  state.running = running;
  $("run").disabled = running;
  $("run-start").disabled = running;
  $("workflow").disabled = running;
  $("stop").hidden = !(running && !state.replaying);
  $("run-stop").hidden = !(running && !state.replaying);
  for (const button of document.querySelectorAll("#history button, #past-runs button")) button.disabled = running;
  document.body.classList.toggle("busy", running);
  if (!running && state.route_pending) {
    state.route_pending = false;
    apply_route();
  }
}

async function run_stream(url, body, label) {
  // POST `body` to `url` and show its event stream in the view shown.
  reset_view();
  const noun = state.view.noun;
  state.replaying = false;
  state.request = body;
  state.controller = new AbortController();
  state.started_at = performance.now();
  set_running(true);
  set_status("starting " + label + "…");
  try {
    const headers = Object.assign({ "Content-Type": "application/json", Accept: "text/event-stream" }, auth_headers());
    const response = await fetch(url, {
      method: "POST",
      headers: headers,
      body: JSON.stringify(body),
      cache: "no-store",
      credentials: "same-origin",
      signal: state.controller.signal,
    });
    const type = str(response.headers.get("Content-Type"));
    if (!response.ok || !type.includes("text/event-stream")) {
      state.view.title("No " + noun);
      await show_http_error(response);
      return;
    }
    await read_stream(response);
    if (!state.finished) {
      show_error("stream_ended", "The connection closed before the " + noun + " finished.");
      state.view.missing("not received: the connection closed");
      close_pending("no result");
      set_status("stopped: the connection closed");
    }
  } catch (err) {
    if (err && err.name === "AbortError") {
      show_error("stopped", "You stopped this " + noun + ".");
      state.view.missing("not received: stopped");
      close_pending("stopped");
      set_status("stopped");
    } else {
      show_error("network", "Could not reach the server: " + str(err && err.message));
      state.view.missing("not produced: the server could not be reached");
      close_pending("no result");
      set_status("stopped: network error");
    }
  } finally {
    state.controller = null;
    set_running(false);
  }
}

async function start_run(event) {
  // The briefing's form: POST /v1/brief.
  event.preventDefault();
  if (state.running) return;
  const form = read_form();
  if (form.error) {
    show_error("invalid_input", form.error);
    $("ticker").focus();
    return;
  }
  set_route(route_hash(BRIEF, form.body.ticker));
  await run_stream("/v1/brief", form.body, form.body.ticker);
}

function stop_run() {
  if (state.controller) state.controller.abort();
}

// ---------------------------------------------------------------- replaying a recorded run

function opening_of(events) {
  // The run's opening event (top-level agent_start): the workflow's name and the inputs it ran on.
  for (const ev of events) {
    const payload = ev && typeof ev === "object" && ev.data && typeof ev.data === "object" ? ev.data : null;
    if (payload && !ev.parent_id && payload.type === "agent_start") {
      const inputs = payload.inputs && typeof payload.inputs === "object" ? payload.inputs : {};
      return { workflow: str(payload.agent), inputs: inputs };
    }
  }
  return { workflow: "", inputs: {} };
}

async function replay_run(run_id, item) {
  // A recorded run in its workflow's view: GET /v1/runs/{id} names the workflow, its events replay.
  if (state.running) return;
  if (item && item.workflow !== state.workflow) {
    await state.catalog;
    activate(item.workflow);
  }
  reset_view();
  state.replaying = true;
  state.started_at = performance.now();
  set_running(true);
  if (item) state.view.fill(item.inputs, item.as_of);
  set_status("loading run " + run_id + "…");
  try {
    const id = encodeURIComponent(run_id);
    const run = await get_json("/v1/runs/" + id);
    const log = run ? await get_json("/v1/runs/" + id + "/events") : null;
    if (!run || !log) {
      state.view.title("Run not available");
      return;
    }
    const events = Array.isArray(log.events) ? log.events : [];
    const opening = opening_of(events);
    let workflow = str(run.workflow) || opening.workflow || (run.briefing ? BRIEF : state.workflow);
    if (!WORKFLOW_RE.test(workflow)) workflow = state.workflow;
    if (workflow !== state.workflow) {
      await state.catalog;
      activate(workflow);
      reset_view();
    }
    if (!item) state.view.fill(opening.inputs, "");
    for (const ev of events) dispatch(ev, "");
    const saved = run.result && typeof run.result === "object" ? run.result : run.briefing;
    if (!state.shown_result && saved && typeof saved === "object") state.view.done(saved, "", run_id);
    state.view.missing("not in this run's saved events");
    close_pending("no result");
    if (!state.shown_result && !state.finished) state.view.title("This run has no " + state.view.noun);
    set_status("replayed run " + run_id + " (" + plural(events.length, "event") + ")");
  } catch (err) {
    show_error("network", "Could not load the run: " + str(err && err.message));
    state.view.missing("not loaded: the server could not be reached");
    set_status("stopped: network error");
  } finally {
    state.replaying = false;
    set_running(false);
  }
}

// ---------------------------------------------------------------- history (this browser only)

function load_history() {
  let raw;
  try {
    raw = JSON.parse(window.localStorage.getItem(HISTORY_KEY) || "[]");
  } catch (err) {
    return []; // not JSON (or nested past the parser's depth): nothing this page wrote
  }
  if (!Array.isArray(raw)) return [];
  // Only strings are read back: a number, list or object in a field shows as nothing, not "[object Object]".
  const text = (value) => (typeof value === "string" ? str(value) : "");
  const out = [];
  for (const item of raw) {
    if (out.length >= HISTORY_MAX) break;
    if (!item || typeof item !== "object" || Array.isArray(item) || !RUN_ID_RE.test(text(item.run_id))) continue;
    const workflow = WORKFLOW_RE.test(text(item.workflow)) ? text(item.workflow) : BRIEF; // older entries: briefings
    const inputs = item.inputs && typeof item.inputs === "object" && !Array.isArray(item.inputs) ? item.inputs : {};
    out.push({
      workflow: workflow,
      label: text(item.label),
      inputs: workflow === BRIEF ? { ticker: text(item.ticker), question: text(item.question) } : inputs,
      ticker: text(item.ticker),
      as_of: text(item.as_of),
      question: text(item.question),
      run_id: text(item.run_id),
      headline: text(item.headline),
      at: text(item.at),
    });
  }
  return out;
}

function save_history(items) {
  try {
    window.localStorage.setItem(HISTORY_KEY, JSON.stringify(items.slice(0, HISTORY_MAX)));
  } catch (err) {
    notice("This browser would not save the history (storage full or disabled).");
  }
}

function store_entry(entry) {
  const items = load_history().filter((item) => item.run_id !== entry.run_id);
  items.unshift(entry);
  save_history(items);
  render_history();
}

function remember(body, briefing) {
  if (!briefing.run_id) return;
  store_entry({
    workflow: BRIEF,
    ticker: body.ticker,
    as_of: body.as_of || briefing.as_of,
    question: body.question || "",
    run_id: briefing.run_id,
    headline: briefing.headline,
    at: new Date().toISOString(),
  });
}

function input_summary(inputs) {
  // "AAPL, 2025-08-29": the text and number inputs, for the history entry's title (a checkbox's
  // true/false says nothing about what was asked).
  const values = Object.values(inputs || {}).filter((v) => ["string", "number"].includes(typeof v));
  return clip(values.map(String).join(", "), 80);
}

function remember_run(run_id, headline) {
  const body = state.request || {};
  const title = state.meta ? state.meta.title : state.workflow;
  const summary = input_summary(body.input);
  store_entry({
    workflow: state.workflow,
    label: title + (summary ? " · " + summary : ""),
    inputs: body.input || {},
    as_of: str(body.as_of),
    run_id: run_id,
    headline: headline,
    at: new Date().toISOString(),
  });
}

function render_history() {
  const list = $("history");
  const items = load_history();
  list.replaceChildren();
  if (!items.length) {
    list.appendChild(el("li", "No runs yet.", "muted"));
    return;
  }
  for (const item of items) {
    const button = el("button", null, "history-item");
    button.type = "button";
    button.disabled = state.running;
    const title = item.workflow === BRIEF ? item.ticker : item.label || item.workflow;
    button.appendChild(el("span", title + (item.as_of ? " · " + item.as_of : ""), "history-title"));
    button.appendChild(el("span", item.headline || "(no headline)", "history-headline"));
    if (item.question) button.appendChild(el("span", "“" + clip(item.question, 120) + "”", "history-question"));
    const when = new Date(item.at);
    const at = Number.isNaN(when.getTime())
      ? item.at
      : when.toLocaleString(undefined, { dateStyle: "medium", timeStyle: "short" });
    button.appendChild(el("span", at, "history-at"));
    button.addEventListener("click", () => replay(item));
    list.appendChild(el("li")).appendChild(button);
  }
}

function clear_history() {
  try {
    window.localStorage.removeItem(HISTORY_KEY);
  } catch (err) {
    // Storage disabled: there is nothing saved to clear.
  }
  render_history();
}

// ---------------------------------------------------------------- past reports (the server's audit log)

async function render_past_runs() {
  // GET /v1/runs?workflow=<shown workflow>: the runs the audit log holds for it (a key sees its own),
  // each a button that replays the run here, where "Open report (HTML)" opens its report.
  const list = $("past-runs");
  const workflow = state.workflow;
  if (!WORKFLOW_RE.test(str(workflow))) return;
  // not get_json: a list that cannot load (no key yet) is said in the list, never as the page's error
  let got = null;
  let why = "The list could not be loaded.";
  try {
    const url = "/v1/runs?limit=20&workflow=" + encodeURIComponent(workflow);
    const response = await fetch(url, { headers: auth_headers(), cache: "no-store", credentials: "same-origin" });
    if (response.ok) got = await response.json();
    else if (response.status === 401) why = "Enter an API key to list this server's runs.";
  } catch (err) {
    got = null; // offline or refused: the message above
  }
  if (workflow !== state.workflow) return; // the view changed while the list loaded
  list.replaceChildren();
  const runs = got && Array.isArray(got.runs) ? got.runs : [];
  const shown = runs.filter((run) => run && typeof run === "object" && RUN_ID_RE.test(str(run.run_id)));
  if (!shown.length) {
    list.appendChild(el("li", got ? "No recorded runs of this workflow." : why, "muted"));
    return;
  }
  for (const run of shown) {
    const button = el("button", null, "history-item");
    button.type = "button";
    button.disabled = state.running;
    button.appendChild(el("span", clip(str(run.title || workflow), 120), "history-title"));
    button.appendChild(el("span", str(run.status) + (run.error ? " · " + clip(str(run.error), 120) : ""), "history-headline"));
    const when = new Date(str(run.started_at));
    const at = Number.isNaN(when.getTime()) ? "" : when.toLocaleString(undefined, { dateStyle: "medium", timeStyle: "short" });
    button.appendChild(el("span", at, "history-at"));
    button.addEventListener("click", () => replay({ run_id: str(run.run_id) }));
    list.appendChild(el("li")).appendChild(button);
  }
}

async function replay(item) {
  // A history entry: its run, replayed in its workflow's view; the address bar gets the run's route.
  if (state.running) return;
  set_route("#/runs/" + encodeURIComponent(item.run_id));
  await replay_run(item.run_id, item);
}

// ---------------------------------------------------------------- start-up

function update_question_count() {
  $("question-count").textContent = $("question").value.length.toLocaleString("en-US") + " / 2,000";
}

async function check_registry() {
  // The server's list of event kinds against ours: a kind we cannot show, or one we wait for in vain,
  // is said on the page rather than silently ignored.
  let body;
  try {
    const response = await fetch("/v1/events/registry", {
      headers: auth_headers(),
      cache: "no-store",
      credentials: "same-origin",
    });
    if (!response.ok) return;
    body = await response.json();
  } catch (err) {
    return;
  }
  const types = body && typeof body.types === "object" && body.types ? Object.keys(body.types) : [];
  for (const kind of types) {
    if (!Object.prototype.hasOwnProperty.call(HANDLERS, kind)) {
      notice("The server can send “" + kind + "” events, which this page does not show yet.");
    }
  }
  for (const kind of Object.keys(HANDLERS)) {
    if (types.length && !types.includes(kind)) {
      notice("This page expects “" + kind + "” events the server no longer sends.");
    }
  }
}

function check_views() {
  // A view added to VIEWS without every member would fail only when its workflow runs: say so at start-up.
  for (const [name, view] of Object.entries(VIEWS)) {
    const missing = VIEW_MEMBERS.filter((m) => !Object.prototype.hasOwnProperty.call(view, m));
    if (missing.length) notice("The page's view for “" + name + "” lacks " + missing.join(", ") + ".");
  }
}

function init() {
  const key_input = $("api-key");
  try {
    key_input.value = window.sessionStorage.getItem(API_KEY_KEY) || "";
  } catch (err) {
    // Session storage disabled: the key is simply not remembered.
  }
  key_input.addEventListener("input", () => {
    try {
      if (key_input.value) window.sessionStorage.setItem(API_KEY_KEY, key_input.value);
      else window.sessionStorage.removeItem(API_KEY_KEY);
    } catch (err) {
      // Not remembered; the field still works for this page.
    }
  });
  const ticker = $("ticker");
  ticker.addEventListener("change", () => {
    ticker.value = ticker.value.trim().toUpperCase();
  });
  $("question").addEventListener("input", update_question_count);
  $("desk").addEventListener("submit", (event) => event.preventDefault()); // Enter in the key field
  $("brief-form").addEventListener("submit", start_run);
  $("stop").addEventListener("click", stop_run);
  $("clear-history").addEventListener("click", clear_history);
  $("refresh-past-runs").addEventListener("click", render_past_runs);
  $("run-form").addEventListener("submit", start_generic);
  $("run-stop").addEventListener("click", stop_run);
  $("run-report").addEventListener("click", open_report);
  $("workflow").addEventListener("change", pick_workflow);
  key_input.addEventListener("change", () => {
    // A server that wants a key for its listing: try again with the key entered.
    state.catalog = state.catalog.then((listed) => listed || load_catalog());
  });
  window.addEventListener("hashchange", apply_route);
  const today = new Date().toISOString().slice(0, 10);
  $("as-of").max = today;
  $("run-as-of").max = today;
  state.idle = {
    title: document.title,
    headline: $("headline").textContent,
    summary: $("summary").textContent,
    workflow_help: $("workflow-help").textContent,
    brief_option: $("workflow").options[0].textContent,
  };
  check_views();
  activate(BRIEF);
  update_question_count();
  update_trace_count();
  render_history();
  check_registry();
  state.catalog = load_catalog();
  apply_route();
}

init();
