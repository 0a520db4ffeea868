"""Balances, mixers and token prices have no live vendor: live mode answers them ``not_configured``
naming what is missing (no live vendor is asked), a chain may not hand them to a live vendor, and a
chain that names the snapshot serves them in either mode."""

from __future__ import annotations

from datetime import date
from pathlib import Path

from findesk.core.config import Settings
from findesk.core.result import Err, ErrorCode, Ok
from findesk.data.context import resolve_context
from findesk.data.registry import build_router
from findesk.data.router import DataRouter
from findesk.data.vendors.base import Category

AS_OF = date(2025, 8, 29)
ADDRESS = "0x817e4317e50ef0e4721d020bd8b5ab775d207d6d"


def _live_router(snapshot_dir: Path, chains: dict[str, list[str]] | None = None) -> DataRouter:
    settings = Settings(snapshot_dir=snapshot_dir, chains=chains or {})
    ctx = resolve_context(settings, mode="live")
    assert isinstance(ctx, Ok) and ctx.value.mode == "live"
    router = build_router(settings, ctx.value)
    assert isinstance(router, Ok), router
    return router.value


async def test_live_mode_says_no_vendor_is_configured_and_calls_no_live_vendor(snapshot_dir: Path) -> None:
    router = _live_router(snapshot_dir)
    for category in (Category.BALANCES, Category.MIXERS, Category.TOKEN_PRICES):
        assert router.chain_names(category) == []
    answers = {
        "balances": await router.eth_balance(ADDRESS, AS_OF),
        "mixers": await router.mixer_transfers(ADDRESS, AS_OF),
        "mixers ": await router.mixer_contracts(AS_OF),
        "token_prices": await router.token_prices("dai", AS_OF),
    }
    for name, got in answers.items():
        assert isinstance(got, Err) and got.code is ErrorCode.NOT_CONFIGURED, name
        assert f"no vendor is configured for {name.strip()}" in got.reason
        assert "does not serve" not in got.reason  # no live vendor was asked
    await router.aclose()


def test_a_chain_may_not_give_them_to_a_live_vendor(snapshot_dir: Path) -> None:
    settings = Settings(snapshot_dir=snapshot_dir, chains={"mixers": ["etherscan"]})
    ctx = resolve_context(settings, mode="live")
    assert isinstance(ctx, Ok)
    wrong = build_router(settings, ctx.value)
    assert isinstance(wrong, Err) and "does not serve mixers" in wrong.reason


async def test_a_chain_naming_the_snapshot_serves_them_in_live_mode(snapshot_dir: Path) -> None:
    chains = {"balances": ["snapshot"], "mixers": ["snapshot"], "token_prices": ["snapshot"]}
    router = _live_router(snapshot_dir, chains)
    assert isinstance(await router.eth_balance("0x6c66149E65c517605e0a2e4F707550ca342f9c1B", AS_OF), Ok)
    assert len((await router.mixer_transfers(ADDRESS, AS_OF)).unwrap()) == 8
    assert isinstance(await router.mixer_contracts(AS_OF), Ok)
    assert isinstance(await router.token_prices("dai", AS_OF), Ok)
    await router.aclose()
