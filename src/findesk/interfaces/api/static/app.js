/*
 * findesk advisor briefing page: POST /v1/brief, read the SSE stream, show each event as it arrives.
 *
 * Rules this file keeps:
 * - Never builds markup from strings: no innerHTML, outerHTML, insertAdjacentHTML, document.write or eval.
 *   Text goes in with textContent / text nodes. The one exception, a section's server-sanitized html, is
 *   parsed inert with DOMParser and copied through an allow-list walker (defence in depth). The walker
 *   keeps links to absolute http(s) URLs, and ids and "#id" links only of the form source-N (footnotes).
 * - A request refused or a run that fails leaves no section "waiting…": each says it was not produced and why.
 * - The Warnings panel ends with the briefing's own warnings, so its count is the audit's.
 * - Talks only to this origin (/v1/...); loads nothing from anywhere else.
 * - The API key lives in sessionStorage only; the history lives in localStorage only and is never sent.
 * - Every event kind has exactly one handler in HANDLERS: `function on_<kind>(d, ev)` reads the payload
 *   only as `d.<field>` (never passes `d` on whole), and the done result is read only inside
 *   `function show_briefing(r)` as `r.<field>`. tests/interfaces/api/test_page_contract.py parses this
 *   shape and checks every read against the server's event registry and the Briefing model, so keep it:
 *   top-level `function name(args) {` ... closing `}` at the start of a line.
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

const state = {
  running: false,
  replaying: false,
  controller: null, // AbortController of the live run
  started_at: 0,
  finished: false, // a done or error event arrived
  briefing: null, // {symbol, as_of, headline, run_id} of the shown briefing
  request: null, // the body of the live run's POST, for its history entry
  calls: new Map(), // "event:<tool_call event id>" and "call:<agent>/<call_id>" -> trace row entry
  agents: new Map(), // agent name -> its agent_start trace row entry
  tool_calls: 0,
  tool_errors: 0,
  warnings: 0,
  model_chars: 0,
  notices: new Set(),
};

// ---------------------------------------------------------------- small DOM helpers (text only)

function $(id) {
  return document.getElementById(id);
}

function el(tag, text, cls) {
  const node = document.createElement(tag);
  if (text !== undefined && text !== null) node.textContent = String(text);
  if (cls) node.className = cls;
  return node;
}

function str(value) {
  return value === undefined || value === null ? "" : String(value);
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
    dst.appendChild(document.createTextNode(node.data));
    return;
  }
  // Comments, processing instructions and anything outside the HTML namespace (svg, math) are dropped.
  if (node.nodeType !== Node.ELEMENT_NODE || node.namespaceURI !== document.documentElement.namespaceURI) return;
  const tag = node.localName;
  if (depth >= MAX_DEPTH) {
    dst.appendChild(document.createTextNode(node.textContent || ""));
    return;
  }
  if (UNWRAP_TAGS.has(tag)) {
    copy_children(node, dst, depth + 1);
    return;
  }
  if (!ALLOWED_TAGS.has(tag)) return; // script, style, iframe, img, object, form, input, template…
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
  const box = section_box(str(d.name), str(d.title));
  const body = box.querySelector(".section-body");
  body.replaceChildren(sanitize_html(str(d.html)));
  if (!body.hasChildNodes()) body.appendChild(el("p", str(d.message) || "Nothing to show.", "message"));
  box.dataset.state = "ready";
  set_status(str(d.title) + " ready (" + str(d.index) + " of " + SECTION_NAMES.length + ")");
}

function on_done(d, ev) {
  state.finished = true;
  if (d.result && typeof d.result === "object") {
    show_briefing(d.result);
  } else if (d.summary) {
    $("summary").textContent = str(d.summary);
  }
  mark_missing_sections("not sent by the server for this run");
  close_pending("no result");
  // Saved the moment the briefing is complete, not when the connection closes.
  if (!state.replaying && state.request && state.briefing) remember(state.request, state.briefing);
  const seconds = (performance.now() - state.started_at) / 1000;
  set_status(state.replaying ? "replayed run " + str(ev.run_id) : "done in " + seconds.toFixed(1) + " s");
}

function on_error(d, ev) {
  state.finished = true;
  show_error(d.code, d.message);
  mark_missing_sections("not produced: the run failed (" + (str(d.code) || "error") + ")");
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

function reset_view() {
  $("error").hidden = true;
  $("error").replaceChildren();
  $("data-line").textContent = "";
  $("headline").textContent = "Working…";
  $("summary").textContent = "";
  $("client-question").hidden = true;
  for (const name of SECTION_NAMES) {
    const box = $("section-" + name);
    box.dataset.state = "waiting";
    box.querySelector(".section-body").replaceChildren(el("p", "waiting…", "muted"));
  }
  for (const extra of Array.from($("sections").children)) {
    if (!SECTION_NAMES.includes(extra.id.replace(/^section-/, ""))) extra.remove();
  }
  $("trace-body").replaceChildren();
  $("warnings").replaceChildren();
  $("warning-count").textContent = "(0)";
  $("model-output").replaceChildren();
  state.finished = false;
  state.briefing = null;
  state.calls = new Map();
  state.agents = new Map();
  state.tool_calls = 0;
  state.tool_errors = 0;
  state.warnings = 0;
  state.model_chars = 0;
  update_trace_count();
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

async function show_http_error(response) {
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
  show_error(code, message);
  set_status("stopped: " + code);
  // The request never became a run: no section will come, and each says why instead of "waiting…".
  mark_missing_sections("not produced: the server refused the request (" + code + ")");
}

async function get_json(url) {
  const response = await fetch(url, { headers: auth_headers(), cache: "no-store", credentials: "same-origin" });
  if (!response.ok) {
    await show_http_error(response);
    return null;
  }
  return response.json();
}

// ---------------------------------------------------------------- a live run

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
  $("stop").hidden = !(running && !state.replaying);
  for (const button of document.querySelectorAll("#history button")) button.disabled = running;
  document.body.classList.toggle("busy", running);
}

async function start_run(event) {
  event.preventDefault();
  if (state.running) return;
  const form = read_form();
  if (form.error) {
    show_error("invalid_input", form.error);
    $("ticker").focus();
    return;
  }
  reset_view();
  state.replaying = false;
  state.request = form.body;
  state.controller = new AbortController();
  state.started_at = performance.now();
  set_running(true);
  set_status("starting " + form.body.ticker + "…");
  try {
    const headers = Object.assign({ "Content-Type": "application/json", Accept: "text/event-stream" }, auth_headers());
    const response = await fetch("/v1/brief", {
      method: "POST",
      headers: headers,
      body: JSON.stringify(form.body),
      cache: "no-store",
      credentials: "same-origin",
      signal: state.controller.signal,
    });
    const type = str(response.headers.get("Content-Type"));
    if (!response.ok || !type.includes("text/event-stream")) {
      $("headline").textContent = "No briefing";
      await show_http_error(response);
      return;
    }
    await read_stream(response);
    if (!state.finished) {
      show_error("stream_ended", "The connection closed before the briefing finished.");
      mark_missing_sections("not received: the connection closed");
      close_pending("no result");
      set_status("stopped: the connection closed");
    }
  } catch (err) {
    if (err && err.name === "AbortError") {
      show_error("stopped", "You stopped this briefing.");
      mark_missing_sections("not received: stopped");
      close_pending("stopped");
      set_status("stopped");
    } else {
      show_error("network", "Could not reach the server: " + str(err && err.message));
      mark_missing_sections("not produced: the server could not be reached");
      close_pending("no result");
      set_status("stopped: network error");
    }
  } finally {
    state.controller = null;
    set_running(false);
  }
}

function stop_run() {
  if (state.controller) state.controller.abort();
}

// ---------------------------------------------------------------- history (this browser only)

function load_history() {
  let raw;
  try {
    raw = JSON.parse(window.localStorage.getItem(HISTORY_KEY) || "[]");
  } catch (err) {
    return [];
  }
  if (!Array.isArray(raw)) return [];
  const out = [];
  for (const item of raw) {
    if (!item || typeof item !== "object" || !item.run_id) continue;
    out.push({
      ticker: str(item.ticker),
      as_of: str(item.as_of),
      question: str(item.question),
      run_id: str(item.run_id),
      headline: str(item.headline),
      at: str(item.at),
    });
  }
  return out.slice(0, HISTORY_MAX);
}

function save_history(items) {
  try {
    window.localStorage.setItem(HISTORY_KEY, JSON.stringify(items.slice(0, HISTORY_MAX)));
  } catch (err) {
    notice("This browser would not save the history (storage full or disabled).");
  }
}

function remember(body, briefing) {
  if (!briefing.run_id) return;
  const entry = {
    ticker: body.ticker,
    as_of: body.as_of || briefing.as_of,
    question: body.question || "",
    run_id: briefing.run_id,
    headline: briefing.headline,
    at: new Date().toISOString(),
  };
  const items = load_history().filter((item) => item.run_id !== entry.run_id);
  items.unshift(entry);
  save_history(items);
  render_history();
}

function render_history() {
  const list = $("history");
  const items = load_history();
  list.replaceChildren();
  if (!items.length) {
    list.appendChild(el("li", "No briefings yet.", "muted"));
    return;
  }
  for (const item of items) {
    const button = el("button", null, "history-item");
    button.type = "button";
    button.disabled = state.running;
    button.appendChild(el("span", item.ticker + (item.as_of ? " · " + item.as_of : ""), "history-title"));
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

async function replay(item) {
  if (state.running) return;
  reset_view();
  state.replaying = true;
  state.started_at = performance.now();
  set_running(true);
  $("ticker").value = item.ticker;
  $("as-of").value = item.as_of;
  $("question").value = item.question;
  update_question_count();
  set_status("loading run " + item.run_id + "…");
  try {
    const id = encodeURIComponent(item.run_id);
    const run = await get_json("/v1/runs/" + id);
    const log = run ? await get_json("/v1/runs/" + id + "/events") : null;
    if (!run || !log) {
      $("headline").textContent = "Run not available";
      return;
    }
    const events = Array.isArray(log.events) ? log.events : [];
    for (const ev of events) dispatch(ev, "");
    if (!state.briefing && run.briefing && typeof run.briefing === "object") show_briefing(run.briefing);
    mark_missing_sections("not in this run's saved events");
    close_pending("no result");
    if (!state.briefing && !state.finished) $("headline").textContent = "This run has no briefing";
    set_status("replayed run " + item.run_id + " (" + plural(events.length, "event") + ")");
  } catch (err) {
    show_error("network", "Could not load the run: " + str(err && err.message));
    mark_missing_sections("not loaded: the server could not be reached");
    set_status("stopped: network error");
  } finally {
    state.replaying = false;
    set_running(false);
  }
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
  $("brief-form").addEventListener("submit", start_run);
  $("stop").addEventListener("click", stop_run);
  $("clear-history").addEventListener("click", clear_history);
  $("as-of").max = new Date().toISOString().slice(0, 10);
  update_question_count();
  update_trace_count();
  render_history();
  check_registry();
}

init();
