"""The crypto specialist: token info and dated prices, ETH balances and transactions, DeFi TVL and
large-holder queries, every figure cited.

Rules:
- Bounded playbook: at most ``MAX_TOKENS`` tokens, ``MAX_ADDRESSES`` addresses and ``MAX_PROTOCOLS``
  protocols; every call runs concurrently in one stage. Addresses come from the routed subjects and
  from the question text (``0x`` + 40 hex digits), like the compliance specialist's.
- A price finding states the moment the price describes and its currency, as the tool returned them;
  a token with no USD price says so and gives the newest recorded quote in the currency it has.
- Large holders are asked only when the question is about holders ("holder", "whale"); offline that
  is Dune's honest no_data, passed on as "data unavailable" with its reason.
- A failed call is a warning ``data unavailable: <what>: <why>``, never a finding.
"""

from __future__ import annotations

import re
from datetime import date
from typing import Any

from findesk.agents.role import Outcomes, PlannedCall, outcome_value
from findesk.agents.roles.research import compliance
from findesk.agents.roles.research.findings import Citation, Finding, SpecialistInput, SpecialistReport
from findesk.agents.roles.research.market_findings import unavailable
from findesk.agents.roles.research.specialist import specialist_role, specialist_task
from findesk.data.models import OnchainTx, ProtocolTVL, TokenInfo
from findesk.data.models.onchain_risk import EthBalance, TokenHolders, TokenPriceHistory
from findesk.tools.summaries import compact, money, when

AGENT = "crypto"
MAX_TOKENS = 4
MAX_ADDRESSES = 3
MAX_PROTOCOLS = 3
TXS_SHOWN = 10
STALE_DAYS = 7  # a recorded price older than this at the as-of date says how old it is
HOLDERS_ASKED = re.compile(r"\b(holders?|whales?|top wallets?)\b", re.IGNORECASE)


def tokens(inputs: SpecialistInput) -> list[str]:
    return list(dict.fromkeys(t.strip().lower() for t in inputs.subjects.tokens if t.strip()))[:MAX_TOKENS]


def addresses(inputs: SpecialistInput) -> list[str]:
    return compliance.addresses(inputs)[0][:MAX_ADDRESSES]


def protocols(inputs: SpecialistInput) -> list[str]:
    return list(dict.fromkeys(p.strip().lower() for p in inputs.subjects.protocols if p.strip()))[
        :MAX_PROTOCOLS
    ]


def _stage_one(inputs: SpecialistInput, _: Outcomes) -> list[PlannedCall]:
    calls: list[PlannedCall] = []
    holders = bool(HOLDERS_ASKED.search(inputs.question))
    for t in tokens(inputs):
        calls += [
            PlannedCall(f"token:{t}", "get_token", {"token_id": t[:80]}),
            PlannedCall(f"prices:{t}", "get_token_prices", {"token_id": t[:80]}),
        ]
        if holders:
            calls.append(PlannedCall(f"holders:{t}", "get_large_holders", {"token": t[:80]}))
    for a in addresses(inputs):
        calls += [
            PlannedCall(f"balance:{a}", "get_eth_balance", {"address": a[:100]}),
            PlannedCall(f"txs:{a}", "get_onchain_txs", {"address": a[:100], "limit": TXS_SHOWN}),
        ]
    calls += [PlannedCall(f"tvl:{p}", "get_protocol_tvl", {"protocol": p[:80]}) for p in protocols(inputs)]
    return calls


def _cite(tool: str, *sources: str) -> list[Citation]:
    return [Citation(agent=AGENT, tool=tool, source=s) for s in dict.fromkeys(sources)]


def _age(at: date, as_of: date) -> str:
    """How old a recorded figure is at the as-of date, when that matters to the reader (over a week)."""
    days = (as_of - at).days
    return f" ({days:,} days before the as-of date {as_of.isoformat()})" if days > STALE_DAYS else ""


def token_findings(t: TokenInfo, prices: TokenPriceHistory | None, as_of: date) -> list[Finding]:
    symbol = t.symbol.upper()
    out: list[Finding] = []
    if t.price_usd is not None and t.price_as_of is not None:
        out.append(
            Finding(
                text=f"{t.name} ({symbol}) was priced at {money(t.price_usd)} USD as of "
                f"{when(t.price_as_of)}{_age(t.price_as_of.date(), as_of)}.",
                citations=_cite("get_token", t.source.cite()),
                quantity=f"{symbol} price USD",
                value=t.price_usd,
                unit="USD",
                observed=t.price_as_of.date(),
            )
        )
    else:
        out.append(
            Finding(
                text=f"{t.name} ({symbol}, CoinGecko id {t.id}): no USD price with a known time in the data.",
                citations=_cite("get_token", t.source.cite()),
            )
        )
    if t.market_cap_usd is not None:
        out.append(
            Finding(
                text=f"{t.name} market cap: {compact(t.market_cap_usd)} USD"
                + (f" as of {when(t.price_as_of)}." if t.price_as_of else " (no date in the data)."),
                citations=_cite("get_token", t.source.cite()),
                quantity=f"{symbol} market cap USD",
                value=t.market_cap_usd,
                unit="USD",
                observed=t.price_as_of.date() if t.price_as_of else None,
            )
        )
    for p in (prices.points if prices else [])[-3:]:
        if p.currency == "usd" and t.price_usd is not None and p.price == t.price_usd:
            continue  # the same point get_token already reported
        out.append(
            Finding(
                text=f"{t.name} ({symbol}) recorded {p.kind} price: {money(p.price)} {p.currency.upper()} at "
                f"{when(p.at)}{_age(p.at.date(), as_of)}.",
                citations=_cite("get_token_prices", p.source.cite()),
                quantity=f"{symbol} price {p.currency.upper()}",
                value=p.price,
                unit=p.currency.upper(),
                observed=p.at.date(),
            )
        )
    return out


def balance_finding(b: EthBalance) -> Finding:
    return Finding(
        text=f"{b.address} held {b.balance_eth:f} ETH when read at {when(b.observed_at)}.",
        citations=_cite("get_eth_balance", b.source.cite()),
        quantity=f"{b.address} ETH balance",
        value=float(b.balance_eth),
        unit="ETH",
        observed=b.observed_at.date(),
    )


def txs_finding(address: str, txs: list[OnchainTx]) -> Finding:
    newest, oldest = txs[0], txs[-1]
    return Finding(
        text=(
            f"{address}: the {len(txs)} newest recorded transactions run from {when(oldest.timestamp)} to "
            f"{when(newest.timestamp)}; the newest moved {newest.value:f} {newest.asset} "
            f"({newest.from_address} -> {newest.to_address or 'contract creation'})."
        ),
        citations=_cite("get_onchain_txs", *sorted({t.source.cite() for t in txs})),
    )


def tvl_finding(p: ProtocolTVL) -> Finding:
    return Finding(
        text=f"{p.protocol} total value locked: {compact(p.tvl_usd)} USD as of {when(p.as_of)}.",
        citations=_cite("get_protocol_tvl", p.source.cite()),
        quantity=f"{p.protocol} TVL USD",
        value=p.tvl_usd,
        unit="USD",
        observed=p.as_of.date(),
    )


def holders_finding(h: TokenHolders) -> Finding:
    top = h.holders[0] if h.holders else None
    text = f"Largest holders of {h.token} as of {when(h.observed_at)}: {len(h.holders)} returned" + (
        f"; the largest, {top.address}, holds {top.balance:f}." if top else "."
    )
    return Finding(text=text, citations=_cite("get_large_holders", h.source.cite()))


def compose(inputs: SpecialistInput, outcomes: Outcomes) -> SpecialistReport:
    findings: list[Finding] = []
    warnings: list[str] = []
    data: dict[str, Any] = {"tokens": {}, "balances": {}, "tvl": {}}
    for t in tokens(inputs):
        info: TokenInfo | None = outcome_value(outcomes, f"token:{t}")
        prices: TokenPriceHistory | None = outcome_value(outcomes, f"prices:{t}")
        if info is not None:
            findings += token_findings(info, prices, inputs.as_of)
            data["tokens"][info.id] = {
                "price_usd": info.price_usd,
                "price_as_of": info.price_as_of.isoformat() if info.price_as_of else None,
                "points": [p.model_dump(mode="json", exclude={"source"}) for p in prices.points]
                if prices
                else [],
            }
        else:
            warnings.append(unavailable(outcomes, f"token:{t}", f"token {t}"))
        if info is not None and prices is None:
            warnings.append(unavailable(outcomes, f"prices:{t}", f"recorded prices of {t}"))
        if f"holders:{t}" in outcomes:
            held: TokenHolders | None = outcome_value(outcomes, f"holders:{t}")
            if held is not None:
                findings.append(holders_finding(held))
            else:
                warnings.append(unavailable(outcomes, f"holders:{t}", f"large holders of {t}"))
    for a in addresses(inputs):
        balance: EthBalance | None = outcome_value(outcomes, f"balance:{a}")
        if balance is not None:
            findings.append(balance_finding(balance))
            data["balances"][a] = {
                "eth": f"{balance.balance_eth:f}",
                "read_at": balance.observed_at.isoformat(),
            }
        else:
            warnings.append(unavailable(outcomes, f"balance:{a}", f"ETH balance of {a}"))
        txs: list[OnchainTx] | None = outcome_value(outcomes, f"txs:{a}")
        if txs:
            findings.append(txs_finding(a, txs))
        elif txs is not None:
            warnings.append(f"data unavailable: no transactions of {a} are recorded up to the as-of date")
        else:
            warnings.append(unavailable(outcomes, f"txs:{a}", f"transactions of {a}"))
    for p in protocols(inputs):
        tvl: ProtocolTVL | None = outcome_value(outcomes, f"tvl:{p}")
        if tvl is not None:
            findings.append(tvl_finding(tvl))
            data["tvl"][p] = tvl.tvl_usd
        else:
            warnings.append(unavailable(outcomes, f"tvl:{p}", f"TVL of {p}"))
    if not (tokens(inputs) or addresses(inputs) or protocols(inputs)):
        warnings.append("data unavailable: the question names no token, address or protocol")
    return SpecialistReport(
        agent="crypto", findings=findings, data=data, warnings=list(dict.fromkeys(warnings))
    )


SYSTEM_PROMPT = (
    "You are the crypto specialist of a research desk. Report token prices with the time each price is "
    "from and its currency, recorded price points, ETH balances with when they were read, recent "
    "transactions, DeFi TVL and large holders when asked. Every number comes from a tool result and every "
    "finding cites it; say 'data unavailable' with the reason instead of estimating. Research framing "
    "only: no advice."
)


def _task(inputs: SpecialistInput) -> str:
    return specialist_task(
        inputs,
        f"Tokens: {', '.join(tokens(inputs)) or '-'}; addresses: {', '.join(addresses(inputs)) or '-'}; "
        f"protocols: {', '.join(protocols(inputs)) or '-'}",
    )


ROLE = specialist_role(
    name="research_crypto",
    description="Crypto specialist: dated token prices, ETH balances and transactions, TVL, holders; cited.",
    system_prompt=SYSTEM_PROMPT,
    tools=(
        "get_token",
        "get_token_prices",
        "get_eth_balance",
        "get_onchain_txs",
        "get_protocol_tvl",
        "get_large_holders",
    ),
    stage=_stage_one,
    compose=compose,
    task=_task,
    max_tool_calls_per_turn=10,
)
