"""Settings, data mode and as-of resolution, chain configuration."""

from __future__ import annotations

from datetime import date
from pathlib import Path

import pytest

from findesk.core.config import Settings, load_settings, masked_settings
from findesk.core.result import Err, ErrorCode, Ok
from findesk.data.context import resolve_context
from findesk.data.registry import build_router, effective_chains
from findesk.data.vendors.base import Category


def test_snapshot_mode_defaults_to_snapshot_as_of(snapshot_dir: Path) -> None:
    ctx = resolve_context(Settings(snapshot_dir=snapshot_dir))
    assert isinstance(ctx, Ok)
    assert ctx.value.mode == "snapshot"
    assert ctx.value.as_of == date(2025, 8, 29)
    assert ctx.value.describe() == "offline snapshot as of 2025-08-29"


def test_live_flag_overrides_and_says_live(snapshot_dir: Path) -> None:
    ctx = resolve_context(Settings(snapshot_dir=snapshot_dir), mode="live")
    assert isinstance(ctx, Ok)
    assert ctx.value.mode == "live" and ctx.value.describe() == "live"
    past = resolve_context(Settings(snapshot_dir=snapshot_dir), mode="live", as_of="2024-05-10")
    assert isinstance(past, Ok) and past.value.describe() == "live, as of 2024-05-10"


def test_missing_snapshot_dir_is_a_clear_error(tmp_path: Path) -> None:
    got = resolve_context(Settings(snapshot_dir=tmp_path / "nope"), mode="snapshot")
    assert isinstance(got, Err) and got.code is ErrorCode.NOT_CONFIGURED
    assert "FINDESK_SNAPSHOT_DIR" in got.reason


@pytest.mark.parametrize("bad", ["2025-02-30", "yesterday", "2999-01-01", "29/08/2025"])
def test_bad_as_of_dates_are_rejected(snapshot_dir: Path, bad: str) -> None:
    got = resolve_context(Settings(snapshot_dir=snapshot_dir), as_of=bad)
    assert isinstance(got, Err) and got.code is ErrorCode.INVALID_INPUT


def test_env_and_toml_config(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    cfg = tmp_path / "findesk.toml"
    cfg.write_text('sec_user_agent = "Jane Doe jane@example.com"\n[chains]\nquote = ["yahoo", "snapshot"]\n')
    monkeypatch.setenv("FINDESK_CONFIG", str(cfg))
    monkeypatch.setenv("FINDESK_NEWSAPI_API_KEY", "abcdef1234567890")
    settings = load_settings()
    assert isinstance(settings, Ok)
    assert settings.value.sec_user_agent == "Jane Doe jane@example.com"
    assert settings.value.chains["quote"] == ["yahoo", "snapshot"]
    shown = masked_settings(settings.value)
    assert shown["newsapi_api_key"] == "***"
    assert "abcdef1234567890" not in str(shown)


def test_missing_explicit_config_file(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    monkeypatch.setenv("FINDESK_CONFIG", str(tmp_path / "missing.toml"))
    got = load_settings()
    assert isinstance(got, Err) and got.code is ErrorCode.INVALID_INPUT


def test_bad_setting_value_is_invalid_input(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("FINDESK_MODE", "sometimes")
    got = load_settings()
    assert isinstance(got, Err) and got.code is ErrorCode.INVALID_INPUT and "mode" in got.reason


def test_chain_overrides_are_validated(snapshot_dir: Path) -> None:
    ctx = resolve_context(Settings(snapshot_dir=snapshot_dir))
    assert isinstance(ctx, Ok)
    good = effective_chains(Settings(chains={"quote": ["yahoo", "snapshot"]}), ctx.value)
    assert isinstance(good, Ok) and good.value[Category.QUOTE] == ["yahoo", "snapshot"]
    assert good.value[Category.FILINGS] == ["snapshot"]
    bad_vendor = effective_chains(Settings(chains={"quote": ["bloomberg"]}), ctx.value)
    assert isinstance(bad_vendor, Err) and "bloomberg" in bad_vendor.reason
    bad_cat = effective_chains(Settings(chains={"quotes": ["yahoo"]}), ctx.value)
    assert isinstance(bad_cat, Err) and "quotes" in bad_cat.reason
    wrong_job = build_router(Settings(chains={"macro": ["yahoo"]}), ctx.value)
    assert isinstance(wrong_job, Err) and "does not serve macro" in wrong_job.reason


def test_live_mode_can_fall_back_to_the_snapshot_when_a_chain_says_so(snapshot_dir: Path) -> None:
    settings = Settings(snapshot_dir=snapshot_dir, chains={"transcripts": ["snapshot"]})
    ctx = resolve_context(settings, mode="live")
    assert isinstance(ctx, Ok) and ctx.value.mode == "live"
    router = build_router(settings, ctx.value)
    assert isinstance(router, Ok)
    assert router.value.chain_names(Category.TRANSCRIPTS) == ["snapshot"]
    assert router.value.chain_names(Category.QUOTE) == ["yahoo"]
