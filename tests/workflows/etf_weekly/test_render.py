"""The weekly ETF report's renderers: the HTML dashboard, its SVG charts, the Markdown and the terminal text.

Built on the hand-made report of ``report_fixture`` (four sectors, eight candidates, a send-back and its
revision); hostile data is planted into copies of it.
"""

from __future__ import annotations

import math
import re
from html.parser import HTMLParser

import pytest
from report_fixture import (
    BAD_TICK,
    FUNDS,
    HOSTILE,
    JS_URL,
    SECTION_IDS,
    SECTORS,
    WEEK_START,
    hostile_report,
    weekly_report,
)

from findesk.agents.roles.etf_weekly.models import SectorGroup
from findesk.analytics.etf.models import PriceSeries
from findesk.core.formatting import price
from findesk.workflows.etf_weekly.charts import beta_alpha_svg, price_svg
from findesk.workflows.etf_weekly.models import EtfWeeklyReport
from findesk.workflows.etf_weekly.render_html import to_html
from findesk.workflows.etf_weekly.render_markdown import to_markdown, to_terminal

LABEL = re.compile(r"beta ([+-]\d+\.\d{2}) \+ alpha ([+-]\d+\.\d{2}) = ([+-]\d+\.\d{2})%")


_BLOCKS = {"p", "li", "td", "th", "dt", "dd", "h1", "h2", "h3", "div", "tr", "figcaption", "br", "header"}


class _Tree(HTMLParser):
    """Every start tag with its attributes, in order, and the text inside each element with an id (a
    space where a block or cell starts or ends, as a reader sees it)."""

    def __init__(self) -> None:
        super().__init__(convert_charrefs=True)
        self.tags: list[tuple[str, dict[str, str]]] = []
        self._open: list[tuple[str, str | None]] = []
        self.text_by_id: dict[str, list[str]] = {}

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        if tag in _BLOCKS:
            self.handle_data(" ")
        found = {k: v or "" for k, v in attrs}
        self.tags.append((tag, found))
        if tag not in ("br", "meta", "rect", "line", "path", "circle"):
            self._open.append((tag, found.get("id")))
            if found.get("id"):
                self.text_by_id[found["id"]] = []

    def handle_startendtag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        self.tags.append((tag, {k: v or "" for k, v in attrs}))

    def handle_endtag(self, tag: str) -> None:
        if tag in _BLOCKS:
            self.handle_data(" ")
        while self._open:
            name, _ = self._open.pop()
            if name == tag:
                break

    def handle_data(self, data: str) -> None:
        for _, anchor in self._open:
            if anchor:
                self.text_by_id[anchor].append(data)

    def text(self, anchor: str) -> str:
        return " ".join("".join(self.text_by_id[anchor]).split())

    def classes(self, cls: str) -> list[dict[str, str]]:
        return [a for _, a in self.tags if cls in a.get("class", "").split()]


def _tree(page: str) -> _Tree:
    tree = _Tree()
    tree.feed(page)
    return tree


@pytest.fixture(scope="module")
def report() -> EtfWeeklyReport:
    return weekly_report()


@pytest.fixture(scope="module")
def page(report: EtfWeeklyReport) -> str:
    return to_html(report)


# ---- the page ----


def test_every_section_renders_with_its_stable_id(page: str) -> None:
    tree = _tree(page)
    ids = [a["id"] for _, a in tree.tags if "id" in a]
    for anchor in SECTION_IDS:
        assert anchor in ids, anchor
    assert len(ids) == len(set(ids)), "duplicate ids"
    assert (
        page.index('id="executive-summary"')
        < page.index('id="sector-themes"')
        < page.index('id="candidates"')
    )
    assert "Quality score 7.4 / 10" in tree.text("executive-summary")


def test_header_says_which_week_data_mode_and_strategy(page: str, report: EtfWeeklyReport) -> None:
    header = _tree(page).text("report-header")
    assert header.startswith("Weekly ETF analyst — week ending 2025-08-29")
    assert "week 2025-08-22 close to 2025-08-29 close" in header
    assert "as of 2025-08-29" in header
    assert "data offline snapshot as of 2025-08-29" in header
    assert f"strategy weekly mean reversion (hash {report.strategy_hash})" in header
    assert "mode model" in header
    assert _tree(page).text("disclaimer") == report.disclaimer


def test_each_sector_shows_its_flag_evidence_drivers_and_sources(page: str, report: EtfWeeklyReport) -> None:
    tree = _tree(page)
    sectors = tree.classes("sector")
    assert [s["id"] for s in sectors] == [
        "sector-semiconductors",
        "sector-clean-energy",
        "sector-biotechnology",
        "sector-china-internet",
    ]
    expected = {"Semiconductors": ("GREEN", "strong"), "Clean Energy": ("YELLOW", "weak")}
    expected |= {"Biotechnology": ("RED", "none"), "China Internet": ("GREEN", "strong")}
    for article, name in zip(sectors, SECTORS, strict=True):
        text = tree.text(article["id"])
        flag, evidence = expected[name]
        assert report.senior.sectors[name].flag == flag
        assert text.startswith(f"{name} {flag} evidence: {evidence}"), text[:80]
        assert report.sector_groups[name].interpretation in text
    semis = tree.text("sector-semiconductors")
    assert "transient Nvidia's data-center revenue missed estimates (sources n1, n2)" in semis
    assert "persistent No H20 sales to China in Nvidia's outlook (sources n4)" in semis
    # the one source without a URL is shown with its snapshot file, not linked
    assert "(news/finance_news/2025-08-28.jsonl)" in semis
    links = [a["href"] for t, a in tree.tags if t == "a" and a.get("href", "").startswith("http")]
    assert "https://www.reuters.com/technology/nvidia-results-2025-08-27/" in links
    biotech = tree.text("sector-biotechnology")
    assert "No sector-specific news found. Unable to identify idiosyncratic catalyst." in biotech
    assert "Sources: none" in biotech
    assert "unexplained alpha: average alpha residual -1.61 pp" in biotech
    for cls in ("flag-GREEN", "flag-YELLOW", "flag-RED", "evidence-strong", "evidence-weak", "evidence-none"):
        assert tree.classes(cls), cls
    assert tree.classes("driver-transient") and tree.classes("driver-persistent")


def test_each_candidate_shows_its_view_profile_and_chart(page: str, report: EtfWeeklyReport) -> None:
    tree = _tree(page)
    symbols = tree.classes("symbol")
    assert [s["id"] for s in symbols] == [f"symbol-{s.lower()}" for s in FUNDS]
    for article in symbols:
        symbol = article["id"].removeprefix("symbol-").upper()
        text = tree.text(article["id"])
        view, profile = report.senior.symbols[symbol], report.symbol_profiles[symbol]
        assert view.key_concern in text and view.bullish[0] in text and view.bearish[0] in text
        assert profile.note in text
        assert f"alpha residual {profile.alpha_residual:+.2f} pp" in text
        assert f"RSI(14) {profile.rsi_14:.1f}" in text
        assert f"volume ratio {profile.volume_ratio:.2f}x" in text
        assert f"signal {profile.signal}" in text
    # the managing director moved XSD from GREEN to YELLOW: the card's flag is YELLOW and says why
    xsd = tree.text("symbol-xsd")
    assert xsd.startswith("XSD YELLOW SPDR S&P Semiconductor ETF")
    assert "Flag adjusted GREEN → YELLOW: Equal-weight small caps" in xsd


def test_every_statement_names_its_agent(page: str) -> None:
    tree = _tree(page)
    assert "— director" in tree.text("executive-summary")
    assert "— quant" in tree.text("market-context") and "— news" in tree.text("market-context")
    assert "— quant" in tree.text("beta-alpha")
    for article in tree.classes("sector"):
        text = tree.text(article["id"])
        for who in ("quant", "news", "senior"):
            assert f"— {who}" in text, (article["id"], who)
    for article in tree.classes("symbol"):
        text = tree.text(article["id"])
        assert "— senior" in text and "— quant" in text, article["id"]
    assert "— director" in tree.text("symbol-xsd")
    for who in ("quant", "news", "senior", "director"):
        assert tree.classes(f"by-{who}"), who


def test_send_back_shows_the_first_version_and_the_revision(page: str, report: EtfWeeklyReport) -> None:
    tree = _tree(page)
    revision = tree.text("revision")
    first = revision.index("First review — managing director (revision 0)")
    before = revision.index("First version — senior analyst (revision 0)")
    after = revision.index("Revision — senior analyst (revision 1)")
    assert first < before < after
    assert "Sent back: Clean Energy, Biotechnology" in revision
    assert "Investors rotated out of biotech into cyclicals." in revision[before:after]
    assert "No sector-specific news found." in revision[after:]
    assert "XBI: flag YELLOW → RED" in revision[after:]
    # the invented first narrative is kept only as the first version, never as the sector's theme
    assert "Investors rotated out of biotech" not in tree.text("sector-themes")
    assert "Revised after the managing director sent this sector back" in tree.text("sector-biotechnology")
    assert "Revised after" not in tree.text("sector-semiconductors")
    plain = report.model_copy(update={"senior_first": None, "director_first": None})
    assert 'id="revision"' not in to_html(plain)
    assert "Revised after" not in to_html(plain)


def test_data_quality_history_agents_and_trace(page: str, report: EtfWeeklyReport) -> None:
    tree = _tree(page)
    quality = tree.text("data-quality")
    assert f"SILJ: {BAD_TICK}" in quality
    assert "396 funds not ranked: leveraged 112, inverse 41, min_avg_dollar_volume 230" in quality
    assert "finance_news ends 2025-08-26" in quality
    history = tree.text("history")
    assert f"2025-08-22 etf-20250822-0001 {report.strategy_hash} 5 2" in history
    assert "XLE +1.25%, KRE -0.80% (1 of 2 reverted)" in history
    agents = tree.text("agents")
    assert "12 model calls · tokens 47,400 in / 8,250 out · cost $0.1967" in agents
    assert "senior model model chain anthropic:claude-sonnet-4-5 2 0 14,800 3,900 $0.1029" in agents
    trace = tree.text("tool-trace")
    assert "4 tool calls, 1 error." in trace
    assert "news search_news no_data" in trace


# ---- safety ----


def test_page_loads_nothing_and_runs_nothing(page: str) -> None:
    tree = _tree(page)
    tags = {t for t, _ in tree.tags}
    assert not tags & {"script", "img", "iframe", "link", "object", "embed", "foreignobject", "image", "use"}
    assert "<script" not in page.lower()
    assert "url(" not in page and "@import" not in page
    for tag, attrs in tree.tags:
        assert "src" not in attrs, (tag, attrs)
        assert not [k for k in attrs if k.startswith("on")], (tag, attrs)
        assert "style" not in attrs, (tag, attrs)
        href = attrs.get("href")
        if href is not None:
            assert tag == "a" and (
                href.startswith(("https://", "http://")) or re.fullmatch(r"#[a-z0-9-]+", href)
            )
    csp = next(a["content"] for t, a in tree.tags if t == "meta" and a.get("http-equiv"))
    assert "default-src 'none'" in csp


def test_hostile_strings_are_escaped_and_never_linked(report: EtfWeeklyReport) -> None:
    bad = hostile_report(report)
    page = to_html(bad)
    tree = _tree(page)
    assert "<script" not in page.lower() and "<img" not in page.lower()
    assert "&lt;script&gt;alert(1)&lt;/script&gt;" in page
    assert "&quot;&gt;&lt;img src=x onerror=alert(2)&gt;" in page
    assert not [a for t, a in tree.tags if "javascript" in a.get("href", "").lower()]
    semis = tree.text("sector-semiconductors")
    assert f"[n1] {HOSTILE} — Reuters" in semis  # the title as text, not a link
    assert f"({JS_URL})" in semis
    assert tree.text("symbol-smh").startswith(f"SMH GREEN {HOSTILE}")
    # a flag outside the vocabulary (validation skipped) gets no class of its own and shows as text
    kinds = {a["class"] for a in tree.classes("flag")}
    assert kinds == {"flag flag-GREEN", "flag flag-YELLOW", "flag flag-RED", "flag flag-unknown"}
    assert "&quot;&gt;&lt;script&gt;alert(3)&lt;/script&gt;" in page
    assert "\x1b" not in page
    markdown = to_markdown(bad, details=True)
    assert HOSTILE not in markdown and "\\<script\\>alert(1)\\</script\\>" in markdown
    assert "](javascript" not in markdown and "<javascript" not in markdown
    assert "\x1b" not in markdown
    terminal = to_terminal(bad, details=True)
    assert "\x1b" not in terminal


# ---- charts ----


def test_a_chart_per_sector_and_per_candidate(page: str, report: EtfWeeklyReport) -> None:
    tree = _tree(page)
    assert len(tree.classes("chart")) == 1 + len(report.charts)
    bars = tree.classes("sector-bar")
    assert [b["data-sector"] for b in bars] == list(SECTORS)
    assert len(tree.classes("chart-price")) == len(FUNDS)
    for symbol in FUNDS:
        start = page.index(f'id="symbol-{symbol.lower()}"')
        end = page.find('<article class="symbol"', start + 1)
        card = page[start : end if end > 0 else len(page)]
        assert card.count('class="chart chart-price"') == 1, symbol
        assert f"<title>{symbol}: close with SMA50, SMA200 and Bollinger bands, 130 sessions" in card
    missing = report.model_copy(update={"charts": {k: v for k, v in report.charts.items() if k != "IBB"}})
    other = _tree(to_html(missing))
    assert len(other.classes("chart-price")) == len(FUNDS) - 1
    assert "No price series for a chart." in other.text("symbol-ibb")


def test_beta_and_alpha_parts_add_up_to_the_sector_average(report: EtfWeeklyReport) -> None:
    svg = beta_alpha_svg(report.sector_groups)
    shown = re.findall(r'class="bar-label">([^<]+)</text>', svg)
    labels = [m.groups() for text in shown if (m := LABEL.fullmatch(text))]
    assert len(labels) == len(SECTORS)
    for (beta, alpha, total), group in zip(labels, report.sector_groups.values(), strict=True):
        assert round(float(beta) + float(alpha), 2) == float(total)
        assert float(total) == round(group.avg_return, 2)
        assert float(alpha) == round(group.avg_alpha_residual, 2)
        assert abs(float(beta) - (group.avg_return - group.avg_alpha_residual)) <= 0.01
    # Semiconductors: the market's part is -3.87 and the alpha part +0.48, drawn on either side of zero
    assert labels[0] == ("-3.87", "+0.48", "-3.39")


def _bar_rects(svg: str, sector: str) -> list[tuple[float, float]]:
    group = svg[svg.index(f'data-sector="{sector}"') :]
    group = group[: group.index("</g>")]
    return [
        (float(x), float(w)) for x, w in re.findall(r'<rect x="([\d.]+)" y="[\d.]+" width="([\d.]+)"', group)
    ]


def test_bars_are_drawn_to_scale_around_the_zero_line(report: EtfWeeklyReport) -> None:
    svg = beta_alpha_svg(report.sector_groups)
    zero = float(re.findall(r'<line x1="([\d.]+)" y1="[\d.]+" x2="\1" y2="[\d.]+" stroke="#5b6675"', svg)[-1])
    (beta_x, beta_w), (alpha_x, alpha_w) = _bar_rects(svg, "Semiconductors")
    assert beta_x + beta_w == pytest.approx(zero, abs=0.11)  # the negative beta part ends at zero
    assert alpha_x == pytest.approx(zero, abs=0.11)  # the positive alpha part starts there
    assert beta_w / alpha_w == pytest.approx(3.87 / 0.48, rel=0.02)
    (b2_x, b2_w), (a2_x, a2_w) = _bar_rects(svg, "China Internet")
    assert a2_x + a2_w == pytest.approx(b2_x, abs=0.11)  # both negative: alpha stacked left of beta
    assert (b2_w + a2_w) / (beta_w + alpha_w) == pytest.approx(5.10 / (3.87 + 0.48), rel=0.02)


def test_price_chart_shades_the_week_and_labels_the_last_close(report: EtfWeeklyReport) -> None:
    series = report.charts["KWEB"]
    svg = price_svg(series, report.week_start, report.week_end)
    for cls in ("bands", "sma200", "sma50", "close", "week"):
        assert f'class="{cls}"' in svg, cls
    week = re.search(r'class="week" x="([\d.]+)" y="\d+" width="([\d.]+)"', svg)
    assert week is not None
    x, width = float(week.group(1)), float(week.group(2))
    first = series.dates.index(WEEK_START)
    n = len(series.dates)
    plot_left, plot_w = 58, 560 - 58 - 70
    assert x == pytest.approx(plot_left + first * plot_w / (n - 1), abs=0.1)
    assert x + width == pytest.approx(plot_left + plot_w, abs=0.2)  # to the last session
    assert f'class="last-close">{price(series.close[-1])}</text>' in svg
    assert svg.count("<path") == 4  # one band area (the bands exist throughout), three lines


def test_charts_survive_gaps_and_odd_values(report: EtfWeeklyReport) -> None:
    series = report.charts["SMH"]
    close = list(series.close)
    close[50] = math.nan
    holes = series.model_copy(update={"close": close, "sma_200": [None] * 60 + list(series.sma_200[60:])})
    svg = price_svg(holes, report.week_start, report.week_end)
    assert "nan" not in svg.lower()
    line = re.search(r'class="close" d="([^"]+)"', svg)
    assert line is not None and line.group(1).count("M") == 2  # the NaN is a gap: the pen lifts over it
    sma200 = re.search(r'class="sma200" d="([^"]+)"', svg)
    assert (
        sma200 is not None and sma200.group(1).count("M") == 1 and sma200.group(1).count("L") == 130 - 60 - 1
    )
    empty = PriceSeries(symbol="ZZZ", dates=[], close=[], sma_50=[], sma_200=[], upper_band=[], lower_band=[])
    assert "not enough price data" in price_svg(empty, report.week_start, report.week_end)
    odd = SectorGroup(sector="X", members=[], avg_return=math.inf, avg_alpha_residual=0.1, interpretation="")
    assert "no figures" in beta_alpha_svg({"X": odd})
    assert "no sectors this week" in beta_alpha_svg({})


def test_same_report_same_bytes(report: EtfWeeklyReport, page: str) -> None:
    assert to_html(weekly_report()) == page
    assert to_markdown(weekly_report(), True) == to_markdown(report, True)


# ---- Markdown and terminal ----


def test_markdown_has_the_same_sections_and_the_trace_only_with_details(report: EtfWeeklyReport) -> None:
    short, full = to_markdown(report), to_markdown(report, details=True)
    headings = [line for line in full.splitlines() if line.startswith("## ")]
    assert headings == [
        "## Executive summary",
        "## Market context",
        "## Beta and alpha by sector",
        "## Sector themes",
        "## Candidates",
        "## Send-back and revision",
        "## Data quality",
        "## History",
        "## Agents",
        "## Tool trace",
    ]
    assert "## Tool trace" not in short
    assert f"> {report.disclaimer}" in short
    assert "| Semiconductors | -3.39% | -3.87% | +0.48 pp | 2.15 |" in short
    assert "### XSD — SPDR S&P Semiconductor ETF · YELLOW (Semiconductors)" in short
    assert "- Flag adjusted GREEN → YELLOW: Equal-weight small caps" in short
    assert "- Evidence: **none**" in short
    assert "<https://www.reuters.com/technology/nvidia-results-2025-08-27/>" in short
    for who in ("quant", "news", "senior", "director"):
        assert f"_— {who}_" in short, who


def test_terminal_text_is_one_line_per_sector_and_candidate(report: EtfWeeklyReport) -> None:
    text = to_terminal(report)
    assert "  GREEN  Semiconductors: beta -3.87 + alpha +0.48 = -3.39% · evidence strong" in text
    assert "  RED    Biotechnology: beta -1.72 + alpha -1.61 = -3.33% · evidence none" in text
    assert "  YELLOW XSD    -3.10% · alpha +0.59 pp · RSI 43.5 · NEUTRAL (director: GREEN → YELLOW)" in text
    assert "Sent back and revised: Clean Energy, Biotechnology" in text
    assert "Tool trace" not in text and "Tool trace:" in to_terminal(report, details=True)
    assert len(text.splitlines()) < 40


def test_a_bare_report_still_renders(report: EtfWeeklyReport) -> None:
    bare = report.model_copy(
        update={
            "sector_groups": {},
            "symbol_profiles": {},
            "news": {},
            "charts": {},
            "overview": None,
            "history": [],
            "agents": [],
            "tool_calls": [],
            "senior_first": None,
            "director_first": None,
            "data_flags": [],
            "excluded": {},
        }
    )
    page = to_html(bare)
    tree = _tree(page)
    assert "News: not searched." in tree.text("sector-semiconductors")  # the senior's view alone
    assert "No earlier week of this strategy." in tree.text("history")
    assert "0 tool calls, 0 errors." in tree.text("tool-trace")
    assert "Not reviewed" not in page  # every view has its senior review
    assert to_markdown(bare, True) and to_terminal(bare, True)
