"""The client's question answered from the briefing's own evidence, or said to be outside it.

Rules:
- Pure: the question and the finished briefing come in; nothing is looked up again, nothing invented.
- A question is matched to the briefing's topics by words (English plus the common words of Spanish,
  German, French, Italian, Portuguese and Chinese), on the text as ``guardrails.text_fold`` folds it
  for the advice check (so look-alike spellings match alike); each matched topic points to its section and
  repeats that section's evidence with its footnote numbers, in the section's own words.
- A topic whose section has no evidence says so ("the briefing has no risk factors for F: …"), and a
  question matching no topic gets an explicit "not addressed by this briefing", with what the briefing
  does cover. Social evidence is always labelled UNVERIFIED.
- Advice requests never reach this module: the input guard refuses them before any tool is called.
"""

from __future__ import annotations

import re
from collections.abc import Callable

from findesk.guardrails.text_fold import fold
from findesk.workflows.brief.models import AnswerPoint, Briefing, ClientAnswer, SectionName, section_title
from findesk.workflows.brief.render_markdown import (
    exact,
    filing_head,
    key_figure_lines,
    quote_lines,
    window_line,
)

_MAX_POINTS = 3


_Extract = Callable[[Briefing], list[AnswerPoint]]


def _words(listed: str) -> re.Pattern[str]:
    """Whole-word (or, for CJK, substring) alternatives separated by "|", matched on the folded
    question."""
    alternatives = [fold(a) for a in listed.split("|")]  # the question is folded: "8-K" reads "8 k"
    latin = [a for a in alternatives if a.isascii()]
    other = [a for a in alternatives if not a.isascii()]
    parts = [rf"\b(?:{'|'.join(re.escape(a) for a in latin)})\b"] if latin else []
    parts += [re.escape(a) for a in other]
    return re.compile("|".join(parts))


def _risks(b: Briefing) -> list[AnswerPoint]:
    return [
        AnswerPoint(section="risks", text=r.title or r.claim, citations=[r.citation])
        for r in b.risks.risks[:_MAX_POINTS]
    ]


def _key_lines(b: Briefing, first: int, last: int | None) -> list[AnswerPoint]:
    """Key-figure lines ``first:last`` (comparisons, then P/E, yield, next earnings, latest release)."""
    k = b.business.key_figures
    if k is None or k.missing:
        return []
    lines = key_figure_lines(k, details=False)
    return [AnswerPoint(section="business", text=t, citations=c) for t, c in lines[first:last]]


def _figures(b: Briefing) -> list[AnswerPoint]:
    k = b.business.key_figures
    if k is not None and not k.missing:
        return _key_lines(b, 0, len(k.comparisons))
    points = []
    for f in b.business.facts[: _MAX_POINTS + 1]:
        period = f"{f.period_start.isoformat()}..{f.period_end.isoformat()}" if f.period_start else ""
        filed = f"{f.form or 'filing'} filed {f.filed.isoformat()}"
        text = f"{f.metric} {exact(f.value)} {f.unit} ({period}, {filed})".replace(" (, ", " (")
        points.append(AnswerPoint(section="business", text=text, citations=[f.citation]))
    return points


def _valuation(b: Briefing) -> list[AnswerPoint]:
    k = b.business.key_figures
    n = len(k.comparisons) if k is not None else 0
    return [p for p in _key_lines(b, n, n + 2) if p.text.startswith(("Trailing P/E", "Dividend yield"))]


def _earnings_dates(b: Briefing) -> list[AnswerPoint]:
    return [
        p
        for p in _key_lines(b, 0, None)
        if p.text.startswith(("Next earnings date", "Latest earnings release"))
    ]


def _business(b: Briefing) -> list[AnswerPoint]:
    return [
        AnswerPoint(section="business", text=f.claim, citations=[f.citation])
        for f in b.business.findings[:_MAX_POINTS]
    ]


def _quote(b: Briefing) -> list[AnswerPoint]:
    # the Snapshot's own lines: an adjusted level stays labelled as one, never a close
    return [AnswerPoint(section="snapshot", text=line) for line in quote_lines(b)[:2]]


def _events(b: Briefing) -> list[AnswerPoint]:
    return [
        AnswerPoint(section="events", text=filing_head(f), citations=[f.citation])
        for f in b.events.filings[:_MAX_POINTS]
    ]


def _social(b: Briefing) -> list[AnswerPoint]:
    r = b.social.report
    if not r.posts:
        return []
    themes = ", ".join(t.theme for t in r.themes[:3]) or "none"
    return [AnswerPoint(section="social", text=f"[UNVERIFIED] {window_line(r)}; themes: {themes}")]


def _divergences(b: Briefing) -> list[AnswerPoint]:
    return [
        AnswerPoint(
            section="divergences",
            text=f"[UNVERIFIED claim] {d.claim.text} — {d.official.statement}",
            citations=list(d.official.citations[:2]),
        )
        for d in b.divergences.divergences[:_MAX_POINTS]
    ]


# (topic, section, words, evidence): the most specific first, since a matched topic's words are
# removed before the next topic is tried; the order is also the order points are listed in
_TOPICS: tuple[tuple[str, SectionName, re.Pattern[str], _Extract], ...] = (
    (
        "risk factors",
        "risks",
        _words(
            "risk|risks|risky|threat|threats|danger|exposure|exposed|headwind|headwinds|worry|worries|"
            "concern|concerns|downside|riesgo|riesgos|risiko|risiken|risque|risques|rischio|rischi|"
            "risco|riscos|风险"
        ),
        _risks,
    ),
    (
        "valuation and dividends",
        "business",
        _words(
            "p e|pe|price to earnings|valuation|multiple|multiples|dividend|dividends|yield|payout|"
            "dividendo|dividendos|dividende|dividenden|rendimiento|rendite|股息|市盈率|分红"
        ),
        _valuation,
    ),
    (
        "earnings dates",
        "business",
        _words(
            "earnings date|next earnings|earnings call|report date|next report|when do they report|"
            "when will they report|when does it report|earnings release|fecha de resultados|"
            "quartalszahlen|publication des resultats|财报日期"
        ),
        _earnings_dates,
    ),
    (
        "reported figures",
        "business",
        _words(
            "revenue|revenues|sales|earnings|eps|profit|profits|income|growth|grew|grow|margin|"
            "margins|results|quarter|quarterly|annual|fiscal|ingresos|ventas|beneficio|ganancias|"
            "umsatz|gewinn|ergebnis|chiffre|benefice|resultats|ricavi|utile|receita|lucro|收入|营收|利润|盈利|"
            "财报|业绩"
        ),
        _figures,
    ),
    (
        "business",
        "business",
        _words(
            "business|businesses|products|product|services|segment|segments|company|do|does|make|"
            "makes|sell|sells|negocio|empresa|geschaft|unternehmen|entreprise|activite|azienda|"
            "negocio|业务|公司|产品"
        ),
        _business,
    ),
    (
        "the quote",
        "snapshot",
        _words(
            "price|prices|stock|shares|share|trading|traded|volume|close|closed|market cap|"
            "capitalization|valuation|precio|accion|acciones|kurs|aktie|cours|action|prezzo|preco|股价|"
            "价格|市值"
        ),
        _quote,
    ),
    (
        "filings and events",
        "events",
        _words(
            "filing|filings|filed|8-k|10-k|10-q|sec|announce|announced|announcement|event|events|ceo|"
            "cfo|executive|executives|director|directors|board|acquisition|acquire|merger|buyback|"
            "dividend|split|management|news|anuncio|ankundigung|annonce|公告|文件"
        ),
        _events,
    ),
    (
        "social posts",
        "social",
        _words(
            "reddit|social|sentiment|posts|post|buzz|rumor|rumors|rumour|rumours|stocktwits|twitter|"
            "chatter|retail|hype|pump|people saying|redes|rumores|geruchte|stimmung|rumeur|rumeurs|社交|"
            "传言|情绪"
        ),
        _social,
    ),
    (
        "claims checked against filings",
        "divergences",
        _words(
            "true|accurate|verify|verified|contradict|contradicted|claim|claims|divergence|"
            "divergences|fact check|mislead|misleading|cierto|verdad|stimmt|wahr|vrai|vero|verdade|真的|"
            "属实"
        ),
        _divergences,
    ),
)

_COVERS = (
    "this briefing covers the quote, what the company does and its reported revenue and EPS, recent "
    "filings, the 10-K's leading risk factors, social posts (unverified) and claims checked against filings"
)


def answer_question(question: str | None, b: Briefing) -> ClientAnswer | None:
    """Where the briefing answers ``question`` (with its footnotes), or that it does not."""
    if question is None or not question.strip():
        return None
    folded = fold(question)
    topics: list[str] = []
    points: list[AnswerPoint] = []
    empty: list[str] = []
    matched = []
    for topic, section, words, extract in _TOPICS:
        if words.search(folded):
            # a specific topic's words are used up: "next earnings date" is not also a figures question
            folded = words.sub(" ", folded)
            matched.append((topic, section, extract))
    if len(matched) > 1:  # "what does the company say about risk" is about risk, not the business line
        matched = [m for m in matched if m[0] != "business"]
    for topic, section, extract in matched:
        topics.append(topic)
        found = extract(b)
        if found:
            points.extend(found)
        else:
            empty.append(f"{section_title(section)} has no {topic} for {b.symbol}")
    clean = " ".join(question.split())
    if not topics:
        return ClientAnswer(
            question=clean,
            addressed=False,
            note=f"Not addressed by this briefing: {_COVERS}. Answer it from other sources.",
        )
    where = ", ".join(dict.fromkeys(section_title(p.section) for p in points))
    if not points:
        note = "Not addressed by this briefing: " + "; ".join(empty) + "."
    else:
        note = (
            f"The briefing's evidence on {', '.join(topics)} is in {where}"
            + (f"; {'; '.join(empty)}" if empty else "")
            + ". It answers only from that evidence; anything else needs other sources."
        )
    return ClientAnswer(question=clean, addressed=bool(points), topics=topics, points=points, note=note)
