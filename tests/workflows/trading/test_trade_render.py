"""The trading desk's renderers and streamed sections, on a report built by hand (``trade_report_fixture``):
the company and the final decision first, both debates in their recorded order, a REVIEW that cannot be
missed, and hostile strings (markup, terminal escapes, a ``javascript:`` URL) inert in every format.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from datetime import date
from html.parser import HTMLParser
from types import SimpleNamespace
from typing import Any, cast

import pytest
from trade_report_fixture import DAY, ESC, HOSTILE, IMG, JS_URL, hostile_report, review_report, trade_report

from findesk.workflows.spec import RunScope
from findesk.workflows.trading.models import TradeReport
from findesk.workflows.trading.render_html import to_html
from findesk.workflows.trading.render_markdown import WIDTH, to_markdown, to_terminal
from findesk.workflows.trading.stream import SECTIONS, TradeStream

REVIEW = (
    "REVIEW — the model's decision could not be validated: the rating 'STRONG BUY' is not one of the five"
)
# what the web page's section allow-list keeps (static/app.js ALLOWED_TAGS and UNWRAP_TAGS)
PAGE_TAGS = {"p", "ul", "ol", "li", "strong", "em", "code", "a", "span", "h4", "table", "thead", "tbody"}
PAGE_TAGS |= {"tr", "th", "td", "article", "div", "section"}


class _Tags(HTMLParser):
    def __init__(self) -> None:
        super().__init__(convert_charrefs=True)
        self.tags: list[tuple[str, dict[str, str]]] = []
        self.text: list[str] = []

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        self.tags.append((tag, {k: v or "" for k, v in attrs}))

    def handle_data(self, data: str) -> None:
        self.text.append(data)


def _parse(html: str) -> _Tags:
    tree = _Tags()
    tree.feed(html)
    return tree


def _inert_html(html: str) -> None:
    tree = _parse(html)
    names = [t for t, _ in tree.tags]
    assert "script" not in names and "img" not in names and "iframe" not in names
    for _tag, attrs in tree.tags:
        assert not any(k.startswith("on") for k in attrs), attrs
        href = attrs.get("href", "")
        assert not href or href.startswith(("#", "https://", "http://")), href
    assert "\x1b" not in html and "\x07" not in html
    assert "&lt;script&gt;alert(1)&lt;/script&gt;" in html  # shown as text, not dropped


def _in_order(text: str, parts: list[str]) -> bool:
    at = [text.find(p) for p in parts]
    return all(i >= 0 for i in at) and at == sorted(at)


# ---- the first lines and the order of the desk ----


def test_terminal_names_the_company_then_the_final_decision_within_100_columns() -> None:
    text = to_terminal(trade_report())
    lines = text.splitlines()
    first = lines[0]
    for part in ("NVDA", "NVIDIA CORP", "CIK 1045810", "Nasdaq", "2024-05-10"):
        assert part in first
    decision = " ".join(lines[2:4])  # under the title's rule, wrapped to two lines at most
    assert decision.startswith("FINAL DECISION: OVERWEIGHT · 2.28% of capital · long")
    for part in ("entry 898.78", "stop 843.78", "target 981.28", "horizon 20 sessions"):
        assert part in decision
    assert max(len(line) for line in lines) <= WIDTH
    assert _in_order(
        text,
        [
            "Analysts",
            "Market analyst: bullish · score +0.85",
            "Investment debate",
            "Research manager: OVERWEIGHT (net score +0.74)",
            "Trader's plan",
            "Risk debate",
            "Risk manager:",
            "Past lessons used",
            "not personal investment advice",
        ],
    )


def test_each_analyst_shows_stance_score_top_signals_and_summary() -> None:
    text = to_terminal(trade_report())
    market = text[text.index("Market analyst") : text.index("Fundamentals analyst")]
    # the three strongest by |score x weight|: trend 1.5, then macd 0.5 / rsi -0.5 / regime 0.5 by id
    assert _in_order(market, ["market.trend", "market.macd", "market.regime"])
    assert "market.rsi" not in market  # fourth of four: Markdown and HTML list it, the terminal does not
    assert "Uptrend in a risk-on tape" in market
    news = text[text.index("News analyst") : text.index("Social analyst")]
    assert "insider transactions: no data — no insider-transaction source in this data mode" in news
    markdown = to_markdown(trade_report())
    assert "market.rsi (-0.50 × 1.00): RSI(14) 71.2: overbought" in markdown


def test_markdown_and_html_put_the_final_decision_before_the_analysts() -> None:
    r = trade_report()
    markdown = to_markdown(r)
    assert markdown.splitlines()[0].startswith("# NVDA — NVIDIA CORP · CIK 1045810 · Nasdaq")
    assert _in_order(markdown, ["## Final decision — risk manager: OVERWEIGHT", "## Analyst reports"])
    assert "rating **OVERWEIGHT** · position **2.28% of capital** · direction **long**" in markdown
    page = to_html(r)
    assert _in_order(page, ['id="report-header"', 'id="final-decision"', 'id="analysts"', 'id="risk-debate"'])
    assert 'class="rating rating-OVERWEIGHT"' in page


def test_debates_keep_their_recorded_order_in_every_format() -> None:
    r = trade_report()
    # a run whose turns arrived out of the usual order: the renderers show them as recorded, never sorted
    shuffled = [r.investment_debate[i] for i in (3, 0, 2, 1)]
    r = r.model_copy(update={"investment_debate": shuffled})
    arguments = [t.argument for t in shuffled]
    risk = [t.argument for t in r.risk_debate]
    page_text = "".join(_parse(to_html(r)).text)
    for text in (to_terminal(r), to_markdown(r), page_text):
        assert _in_order(text, arguments), arguments
        assert _in_order(text, risk)
    terminal = to_terminal(r)
    assert "Round 2 · Bear · score -0.20" in terminal
    assert "cites market.rsi · rebuts fundamentals.revenue_growth" in terminal
    assert "Round 1 · Conservative · score -0.50 · proposes 1.25% of capital" in terminal
    # the page alternates sides and links each cited signal to the analyst's line
    page = to_html(r)
    sides = re.findall(r'<li class="turn turn-(\w+)"', page)
    assert sides == ["bear", "bull", "bull", "bear", *[t.side for t in r.risk_debate]]
    ids = {a.get("id") for _t, a in _parse(page).tags}
    links = [a["href"][1:] for _t, a in _parse(page).tags if a.get("href", "").startswith("#")]
    assert "signal-market-rsi" in links and all(x in ids for x in links)


# ---- REVIEW ----


def test_a_review_decision_cannot_be_missed() -> None:
    r = review_report()
    terminal = to_terminal(r)
    head = "\n".join(terminal.splitlines()[:6])
    assert REVIEW in head.replace("\n!! ", " ")  # the banner wraps at 100 columns
    assert "FINAL DECISION: REVIEW · 0.00% of capital · flat" in terminal
    assert "HOLD" not in terminal.split("Analysts")[0]
    markdown = to_markdown(r)
    assert _in_order(markdown, [f"> **{REVIEW}**", "## Analyst reports"])
    page = to_html(r)
    assert _in_order(page, ['id="review"', 'id="analysts"'])
    review = _parse(page)
    assert REVIEW in "".join(review.text)
    assert 'class="rating rating-REVIEW"' in page
    # any other rating shows no banner
    assert "could not be validated" not in to_terminal(trade_report())
    assert 'id="review"' not in to_html(trade_report())


# ---- hostile data ----


def test_hostile_strings_are_inert_in_html() -> None:
    page = to_html(hostile_report())
    _inert_html(page)
    assert f'<span class="url">{JS_URL}</span>' in page  # the javascript: URL is text, not a link
    assert 'href="javascript' not in page.lower()
    assert "&quot;&gt;&lt;img src=x onerror=alert(2)&gt;" in page
    assert 'http-equiv="Content-Security-Policy"' in page


def test_hostile_strings_are_inert_in_the_terminal() -> None:
    text = to_terminal(hostile_report(), details=True)
    assert "\x1b" not in text and "\x07" not in text
    assert all(ch == "\n" or ch.isprintable() for ch in text)
    assert HOSTILE in text  # printed as the words it is, never interpreted
    assert max(len(line) for line in text.splitlines()) <= WIDTH


def test_hostile_strings_are_inert_in_markdown() -> None:
    markdown = to_markdown(hostile_report(), details=True)
    assert "\x1b" not in markdown and "\x07" not in markdown
    assert re.search(r"(?<!\\)<(script|img|/script)", markdown) is None  # every "<" of data escaped
    assert "\\<script\\>alert(1)\\</script\\>" in markdown
    assert re.search(r"(?<!\\)\]\(javascript:", markdown) is None  # no Markdown link to it
    assert f"<{JS_URL}>" not in markdown  # never an autolink either
    assert "<https://example.com/nvda>" in to_markdown(trade_report())  # a real URL is linked


def test_the_trace_and_agent_usage_only_with_details() -> None:
    r = trade_report()
    for render in (to_terminal, to_markdown):
        plain, detailed = render(r, False), render(r, True)
        assert "get_price_history" not in plain and "get_price_history" in detailed
        assert "trade_market" in detailed and "$0.00" in detailed
    assert "get_price_history" in to_html(r)  # the page always carries its trace


def test_same_report_same_bytes() -> None:
    assert to_html(trade_report()) == to_html(trade_report())
    assert to_terminal(trade_report(), True) == to_terminal(trade_report(), True)


# ---- streamed sections ----


@dataclass
class _Scope:
    context: Any = field(default_factory=lambda: SimpleNamespace(as_of=DAY))
    sent: list[tuple[str, str, str | None]] = field(default_factory=list)

    def section(self, name: str, html: str, message: str | None = None) -> None:
        assert name in dict(SECTIONS)
        self.sent.append((name, html, message))


def _stream(report: TradeReport) -> tuple[_Scope, TradeStream]:
    scope = _Scope()
    stream = TradeStream(cast(RunScope, scope))
    stream.update(("identity", report.identity))
    for a in (report.news, report.market, report.social, report.fundamentals):  # as they land
        stream.update(("analyst", a))
    for t in report.investment_debate:
        stream.update(("debate", t))
    stream.update(("decision", report.investment_decision))
    stream.update(("plan", report.trader_plan))
    for t in report.risk_debate:
        stream.update(("risk", t))
    stream.update(("final", report.final_decision))
    return scope, stream


def test_sections_stream_as_each_role_lands() -> None:
    r = trade_report()
    scope, stream = _stream(r)
    names = [n for n, _h, _m in scope.sent]
    assert names[0] == "identity" and names[-1] == "final"
    analysts = [(h, m) for n, h, m in scope.sent if n == "analysts"]
    assert [m for _h, m in analysts] == [f"{k} of 4 analysts" for k in (1, 2, 3, 4)]
    # the desk's order whatever the landing order: news landed first, market second
    assert _in_order(analysts[1][0], ["Market analyst", "News analyst"])
    debate = [(h, m) for n, h, m in scope.sent if n == "debate"]
    assert [m for _h, m in debate] == ["1 turn", "2 turns", "3 turns", "4 turns"]
    assert _in_order("".join(_parse(debate[-1][0]).text), [t.argument for t in r.investment_debate])
    assert "cites <code>market.rsi</code> · rebuts <code>fundamentals.revenue_growth</code>" in debate[-1][0]
    risk = [m for n, _h, m in scope.sent if n == "risk"]
    assert len(risk) == 6 and risk[-1] == "6 turns"
    assert scope.sent[-1][2] == "OVERWEIGHT · 2.28% of capital"
    for _name, html, _message in scope.sent:
        assert {t for t, _a in _parse(html).tags} <= PAGE_TAGS
    # the finished report equals what was streamed: nothing is sent again
    stream.finish(r.model_copy(update={"as_of": date(2024, 5, 10)}))
    assert len(scope.sent) == len(names)


def test_finish_resends_only_what_the_report_changed() -> None:
    r = trade_report()
    scope, stream = _stream(r)
    before = len(scope.sent)
    stream.finish(review_report())
    again = scope.sent[before:]
    assert [n for n, _h, _m in again] == ["final"]
    assert again[0][2] == REVIEW and "rating-REVIEW" in again[0][1]


def test_a_resumed_run_still_shows_every_section() -> None:
    scope = _Scope()
    TradeStream(cast(RunScope, scope)).finish(trade_report())
    assert [n for n, _h, _m in scope.sent] == [n for n, _t in SECTIONS]


@pytest.mark.parametrize("chunk", [("analyst", None), ("nonsense", 1), "not a tuple", ("debate",)])
def test_odd_chunks_are_ignored(chunk: Any) -> None:
    scope = _Scope()
    TradeStream(cast(RunScope, scope)).update(chunk)
    assert scope.sent == []


def test_hostile_strings_are_inert_in_streamed_sections() -> None:
    scope, _ = _stream(hostile_report())
    html = "".join(h for _n, h, _m in scope.sent)
    _inert_html(html)
    assert ESC not in html and IMG not in html
