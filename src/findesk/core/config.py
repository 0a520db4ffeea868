"""Configuration: ``FINDESK_*`` environment variables, then an optional TOML file, then defaults.

Rules:
- Secrets are ``SecretStr`` and are never printed; ``masked_settings`` is what ``config show`` prints:
  every secret field, every credential-named field and the password (or key-named query value) of
  every URL is ``***``, the rest of the value stays readable.
- The config file is ``$FINDESK_CONFIG`` if set (it must be a file), else ``./findesk.toml``, else
  ``~/.config/findesk/config.toml``; a missing default file is not an error, a folder in its place is.
- The snapshot directory defaults to ``../shared/snapshot`` (relative to the working directory or to
  the source checkout) when that folder exists; ``snapshot_search_paths`` says where that was.
- Numbers that only make sense one way round (timeouts, sizes, rates, counts) are validated, and so
  are NaN and infinity: a nonsense value is ``invalid_input`` naming the setting, never a client
  that waits forever or not at all.
"""

from __future__ import annotations

import difflib
import os
import re
from collections.abc import Mapping
from datetime import date
from pathlib import Path
from typing import Annotated, Any, Literal
from urllib.parse import parse_qsl, urlencode, urlsplit, urlunsplit

from pydantic import BaseModel, ConfigDict, Field, SecretStr, ValidationError, field_validator
from pydantic_settings import (
    BaseSettings,
    PydanticBaseSettingsSource,
    SettingsConfigDict,
    TomlConfigSettingsSource,
)

from findesk.core.result import Err, ErrorCode, Ok, Result, validation_reason

DataMode = Literal["auto", "snapshot", "live"]


Rate = Annotated[float, Field(ge=0)]  # requests per second; 0 = no limit
Freshness = Annotated[float, Field(ge=0)]


class HttpSettings(BaseModel):
    model_config = ConfigDict(allow_inf_nan=False)

    # the whole of one attempt (connect, headers, every byte of the body), not each read
    timeout_s: float = Field(10.0, gt=0, le=600)
    retries: int = Field(2, ge=0, le=10)  # retries after the first attempt, on timeout/429/5xx
    backoff_base_s: float = Field(0.5, ge=0)
    backoff_max_s: float = Field(8.0, ge=0)
    breaker_failures: int = Field(3, ge=1)  # consecutive failures that open a host's circuit
    breaker_cooldown_s: float = Field(60.0, ge=0)
    # a body over this many bytes (after decompression) is refused, read no further; the largest
    # live answers (SEC company facts of a large filer, a long 10-K) are tens of MB
    max_response_bytes: int = Field(100 * 1024 * 1024, gt=0)
    max_redirects: int = Field(5, ge=0, le=20)
    # requests per second per host; hosts not listed get ``default_rps``
    rate_limits: dict[str, Rate] = Field(
        default_factory=lambda: {
            "www.sec.gov": 10.0,
            "data.sec.gov": 10.0,
            "efts.sec.gov": 10.0,
            "www.reddit.com": 1.0,
            "api.stocktwits.com": 3.0,
            "api.coingecko.com": 0.5,
        }
    )
    default_rps: Rate = 5.0
    # cache freshness per source class, seconds; None = keep indefinitely
    freshness: dict[str, Freshness | None] = Field(
        default_factory=lambda: {
            "quote": 60.0,
            "news": 300.0,
            "social": 300.0,
            "filings": None,
            "facts": 3600.0,
            "submissions": 600.0,
            "macro": 3600.0,
            "crypto": 60.0,
            "sanctions": 86400.0,
            "default": 300.0,
        }
    )


Tier = Literal["quick", "mid", "deep"]


class ModelPrice(BaseModel):
    """US dollars per million tokens."""

    input: float = Field(ge=0)
    output: float = Field(ge=0)
    cache_read: float | None = Field(None, ge=0)  # defaults to the provider's usual discount
    cache_write: float | None = Field(None, ge=0)


class CompatibleServer(BaseModel):
    """An OpenAI-compatible server (Ollama, vLLM, llama.cpp, OpenRouter), named in model specs."""

    base_url: str
    api_key: SecretStr | None = None  # local servers usually need none


class LlmSettings(BaseModel):
    """Model providers. A model spec is ``provider:model``: ``anthropic:…``, ``openai:…``, or the
    name of an entry in ``servers`` (``ollama:llama3.1``)."""

    anthropic_api_key: SecretStr | None = None  # falls back to $ANTHROPIC_API_KEY
    openai_api_key: SecretStr | None = None  # falls back to $OPENAI_API_KEY
    anthropic_base_url: str | None = None
    openai_base_url: str | None = None
    servers: dict[str, CompatibleServer] = Field(default_factory=dict)
    # each tier is a fallback chain: the first configured model is tried first
    tiers: dict[Tier, list[str]] = Field(
        default_factory=lambda: {  # type: ignore[arg-type]  # literal keys; mypy widens them to str
            "quick": ["anthropic:claude-haiku-4-5", "openai:gpt-5.4-mini"],
            "mid": ["anthropic:claude-sonnet-5-5", "openai:gpt-5.4"],
            "deep": ["anthropic:claude-opus-5-5", "anthropic:claude-sonnet-5-5", "openai:gpt-5.4"],
        }
    )
    role_tiers: dict[str, Tier] = Field(default_factory=dict)  # per-role override of its tier
    max_retries: int = Field(3, ge=0, le=10)  # retries per model on 429 / 529 / overloaded
    backoff_base_s: float = Field(1.0, ge=0)
    backoff_max_s: float = Field(20.0, ge=0)
    timeout_s: float = Field(120.0, gt=0)
    budget_usd: float = Field(1.0, gt=0)  # default dollar budget per agent run
    # hard cap on a run's model tokens (input + output, every call of the run): the token ledger's limit
    run_token_limit: int = Field(250_000, ge=1_000)
    prices: dict[str, ModelPrice] = Field(default_factory=dict)  # overrides the built-in table


class ApiTier(BaseModel):
    """What one API key may do: requests per minute (every ``/v1`` call) and dollars of model cost per
    UTC day (briefings are refused once it is spent, and a run's model budget is capped to what is left)."""

    rpm: int = Field(ge=1)
    daily_cost_usd: float = Field(ge=0)


class ApiSettings(BaseModel):
    """``findesk serve``: where it listens and who may call it."""

    host: str = "127.0.0.1"
    port: int = Field(8000, ge=0, le=65535)
    # None: keys are required unless the server is bound to loopback; True/False forces it
    require_keys: bool | None = None
    tiers: dict[str, ApiTier] = Field(
        default_factory=lambda: {
            "free": ApiTier(rpm=10, daily_cost_usd=1.0),
            "pro": ApiTier(rpm=60, daily_cost_usd=25.0),
            "team": ApiTier(rpm=300, daily_cost_usd=250.0),
        }
    )
    default_tier: str = "free"  # tier of ``findesk keys create`` without --tier
    max_concurrent_runs: int = Field(200, ge=1)  # briefings running at once in one process
    # worker processes that run briefings (their analytics are CPU-bound and would block the server's
    # event loop); None: one per CPU core, at most 8; 0: run in the server process
    workers: int | None = Field(None, ge=0, le=64)


class EmailSettings(BaseModel):
    """``[email]``: the SMTP relay that sends reports (``findesk.core.mail``). Nothing is sent while
    ``host`` is unset. The login is only ever sent over TLS unless ``security = "none"`` says so."""

    model_config = ConfigDict(allow_inf_nan=False)

    host: str | None = None
    port: int = Field(587, ge=1, le=65535)
    # starttls: plain connection upgraded with STARTTLS (refused if the server does not offer it);
    # ssl: TLS from the first byte (usually port 465); none: no encryption at all (a local relay only)
    security: Literal["starttls", "ssl", "none"] = "starttls"
    username: str | None = None  # no login when unset
    password: SecretStr | None = None
    sender: str | None = None  # the From address
    to: list[str] = Field(default_factory=list)  # default recipients
    timeout_s: float = Field(20.0, gt=0, le=600)  # each connect / command, not the whole delivery
    ca_file: Path | None = None  # an extra CA bundle to trust (a private relay's own certificate)


class MoversSettings(BaseModel):
    """``[movers]``: the floors of the movers analyzer's gainers screen (the day's top NASDAQ gainer)."""

    model_config = ConfigDict(allow_inf_nan=False, extra="forbid")

    min_price: float = Field(5.0, ge=0)  # USD close that session
    min_volume: int = Field(100_000, ge=0)  # shares that session
    min_market_cap_usd: float | None = Field(300e6, ge=0)  # latest month-end; None: no floor


class SandboxSettings(BaseModel):
    """``[sandbox]``: limits for Python run in the sandbox (model-written or reviewed analysis code)."""

    model_config = ConfigDict(allow_inf_nan=False, extra="forbid")

    cpu_seconds: int = Field(10, ge=1, le=120)
    memory_mb: int = Field(512, ge=128, le=8192)
    processes: int = Field(16, ge=1, le=256)
    wall_seconds: float = Field(15.0, gt=0, le=300)
    output_bytes: int = Field(20_000, ge=100, le=10_000_000)


class TelemetrySettings(BaseModel):
    """``[telemetry]``: every run exported as OpenTelemetry spans over OTLP/HTTP (``core.events.otel``),
    for Langfuse, Jaeger, Grafana Tempo or any collector. Off while ``otlp_endpoint`` is unset; needs the
    ``findesk[otel]`` extra."""

    model_config = ConfigDict(allow_inf_nan=False, extra="forbid")

    # the full traces URL, e.g. http://127.0.0.1:4318/v1/traces (Jaeger, a collector) or
    # https://cloud.langfuse.com/api/public/otel/v1/traces
    otlp_endpoint: str | None = None
    headers: dict[str, SecretStr] = Field(default_factory=dict)  # e.g. {"Authorization": "Basic ..."}
    service_name: str = Field("findesk", min_length=1)
    timeout_s: float = Field(5.0, gt=0, le=60)  # one export request, retries included
    # how long a process that ends waits for its last spans; a collector that is down costs no more
    flush_timeout_s: float = Field(2.0, ge=0, le=30)

    @field_validator("otlp_endpoint")
    @classmethod
    def _http_url(cls, value: str | None) -> str | None:
        # a typo here would otherwise cost every run's trace, with only a warning to show for it
        if value is not None and not re.fullmatch(r"https?://[^/\s]+(/\S*)?", value.strip()):
            raise ValueError(f"{value!r} is not an http(s) URL such as http://127.0.0.1:4318/v1/traces")
        return value.strip() if value is not None else None


class ExecutorSettings(BaseModel):
    """``[executor]``: where batch fan-outs (backtests, scan-to-trade desk runs, index encoding) run:
    ``local`` (a process pool on this machine) or ``ray`` (a Ray cluster; ``findesk.core.executor``)."""

    model_config = ConfigDict(extra="forbid")

    kind: Literal["local", "ray"] = "local"
    # ray: "HOST:PORT" of a running head (``ray start --head``), or "local" (None) for a private one
    address: str | None = None
    # a private local Ray's shared-memory object store (Ray's default is 30 % of RAM)
    object_store_mb: int = Field(256, ge=64, le=65536)


def _config_file() -> Path | None:
    explicit = os.environ.get("FINDESK_CONFIG")
    if explicit:
        return Path(explicit)
    for candidate in (Path("findesk.toml"), Path.home() / ".config" / "findesk" / "config.toml"):
        if candidate.exists():  # a folder in its place is reported by ``load_settings``, not skipped
            return candidate
    return None


# <repo>/src/findesk/core/config.py -> <repo>: a source checkout finds ``../shared`` beside itself
_CHECKOUT = Path(__file__).resolve().parents[3]


def snapshot_search_paths() -> list[Path]:
    """Where a snapshot is looked for when ``snapshot_dir`` is not set, in order."""
    found: list[Path] = []
    for base in (Path.cwd(), _CHECKOUT):
        candidate = (base / ".." / "shared" / "snapshot").resolve()
        if candidate not in found:
            found.append(candidate)
    return found


class Settings(BaseSettings):
    model_config = SettingsConfigDict(
        env_prefix="FINDESK_", env_nested_delimiter="__", extra="forbid", validate_default=True
    )

    mode: DataMode = "auto"
    snapshot_dir: Path | None = None
    as_of: date | None = None  # fixed as-of date; defaults per mode (see ``findesk.data.context``)
    cache_dir: Path = Field(default_factory=lambda: Path.home() / ".cache" / "findesk")
    # durable state: the audit log of every run (SQLite file by default, any SQLAlchemy URL allowed)
    state_dir: Path = Field(default_factory=lambda: Path.home() / ".local" / "share" / "findesk")
    audit_url: str | None = None  # default: sqlite:///<state_dir>/audit.sqlite3
    # the snapshot's price and listing column indexes (~250 MB, keyed by each source file's path, size
    # and mtime, written atomically): one folder may serve several cache dirs, processes and servers
    snapshot_index_dir: Path | None = None  # default: <cache_dir>/snapshot
    index_dir: Path | None = None  # the retrieval index; default: <cache_dir>/retrieval
    # the retrieval index on PostgreSQL (postgresql://…, shared by several servers); replaces index_dir
    retrieval_url: str | None = None

    sec_user_agent: str | None = None  # "Name email@example.com", required by SEC for live calls
    fred_api_key: SecretStr | None = None
    newsapi_api_key: SecretStr | None = None
    etherscan_api_key: SecretStr | None = None
    dune_api_key: SecretStr | None = None
    # a saved Dune query whose result rows are token_address, token_symbol, address, balance[, label]
    dune_holders_query_id: int | None = None

    http: HttpSettings = Field(default_factory=HttpSettings)
    # vendor chains per data category, e.g. {"quote": ["yahoo", "snapshot"]}; unset categories use
    # the defaults of the data mode
    chains: dict[str, list[str]] = Field(default_factory=dict)
    sanctions_stale_days: int = 7
    llm: LlmSettings = Field(default_factory=LlmSettings)
    api: ApiSettings = Field(default_factory=ApiSettings)
    email: EmailSettings = Field(default_factory=EmailSettings)
    movers: MoversSettings = Field(default_factory=MoversSettings)
    sandbox: SandboxSettings = Field(default_factory=SandboxSettings)
    executor: ExecutorSettings = Field(default_factory=ExecutorSettings)
    telemetry: TelemetrySettings = Field(default_factory=TelemetrySettings)

    @classmethod
    def settings_customise_sources(
        cls,
        settings_cls: type[BaseSettings],
        init_settings: PydanticBaseSettingsSource,
        env_settings: PydanticBaseSettingsSource,
        dotenv_settings: PydanticBaseSettingsSource,
        file_secret_settings: PydanticBaseSettingsSource,
    ) -> tuple[PydanticBaseSettingsSource, ...]:
        sources: list[PydanticBaseSettingsSource] = [init_settings, env_settings]
        path = _config_file()
        if path is not None:
            sources.append(TomlConfigSettingsSource(settings_cls, toml_file=path))
        return tuple(sources)

    def resolved_audit_url(self) -> str:
        return self.audit_url or f"sqlite:///{self.state_dir / 'audit.sqlite3'}"

    def resolved_index_dir(self) -> Path:
        """Where ``findesk index build`` writes and ``findesk search`` reads: derived data, so a cache."""
        return self.index_dir or self.cache_dir / "retrieval"

    def index_target(self) -> Path | str:
        """Where the retrieval index lives: ``retrieval_url`` when set, else the directory."""
        return self.retrieval_url or self.resolved_index_dir()

    def resolved_snapshot_dir(self) -> Path | None:
        """The configured snapshot directory, or ``../shared/snapshot`` when it exists."""
        if self.snapshot_dir is not None:
            return self.snapshot_dir
        for candidate in snapshot_search_paths():
            if (candidate / "snapshot.json").is_file():
                return candidate
        return None


def load_settings(**overrides: Any) -> Result[Settings]:
    """Load settings; a bad value or a missing explicit config file is ``invalid_input``."""
    explicit = os.environ.get("FINDESK_CONFIG")
    if explicit and not Path(explicit).exists():
        return Err(ErrorCode.INVALID_INPUT, f"FINDESK_CONFIG points to {explicit}, which does not exist")
    path = _config_file()
    if path is not None and path.is_dir():
        named = "FINDESK_CONFIG points to" if explicit else "the config file"
        return Err(
            ErrorCode.INVALID_INPUT,
            f"{named} {path}, which is a folder, not a TOML file; "
            f"point FINDESK_CONFIG at a file such as {path / 'findesk.toml'}",
        )
    unknown = unknown_env_setting(os.environ)
    if unknown is not None:
        return Err(ErrorCode.INVALID_INPUT, unknown)
    try:
        return Ok(Settings(**overrides))
    except ValidationError as exc:
        return Err(ErrorCode.INVALID_INPUT, f"invalid setting {validation_reason(exc, limit=1)}")
    except (OSError, ValueError) as exc:  # unreadable or malformed TOML
        return Err(ErrorCode.INVALID_INPUT, f"could not read the config file: {exc}")


# FINDESK_* variables that are not settings: read by the code that needs them
_NOT_SETTINGS = {"FINDESK_CONFIG", "FINDESK_DEBUG", "FINDESK_WORKFLOWS"}
_TEST_HOOKS = "FINDESK_TEST_"


def unknown_env_setting(environ: Mapping[str, str]) -> str | None:
    """Why the first ``FINDESK_*`` variable that names no setting is refused, or ``None``.

    pydantic-settings skips such a variable without a word, so a misspelt ``FINDESK_AUDITURL`` on one of
    several servers would quietly give that server a private SQLite file, and its own rate limits.
    Names are checked down through nested sections; below a free-form mapping (``llm.servers``,
    ``api.tiers``) any key is allowed.
    """
    for name in sorted(environ):
        if not name.startswith("FINDESK_") or name in _NOT_SETTINGS or name.startswith(_TEST_HOOKS):
            continue
        model: type[BaseModel] | None = Settings
        for part in name.removeprefix("FINDESK_").lower().split("__"):
            if model is None:
                break  # inside a mapping: free keys
            fields = model.model_fields
            if part not in fields:
                near = difflib.get_close_matches(part, list(fields), n=1)
                hint = f" (did you mean {name.rsplit(part.upper(), 1)[0]}{near[0].upper()}?)" if near else ""
                return f"{name} is not a findesk setting{hint}; `findesk config show` lists them"
            annotation = fields[part].annotation
            model = annotation if isinstance(annotation, type) and issubclass(annotation, BaseModel) else None
    return None


def masked_settings(settings: Settings) -> dict[str, Any]:
    """The effective settings as plain data, with every credential masked (see the module rules)."""
    data: dict[str, Any] = _masked(settings.model_dump(mode="json"))
    data["snapshot_dir (resolved)"] = str(settings.resolved_snapshot_dir() or "not found")
    data["config_file"] = str(_config_file() or "none")
    return data


MASK = "***"
# a field or query parameter named like this holds a credential (``fred_api_key``, ``apikey``, ``token``)
SECRET_NAME = re.compile(
    r"(^|[_-])(api)?key$|token$|secret$|passw(or)?d$|^sig(nature)?$|^auth|credential", re.I
)


def _masked(value: Any, name: str = "") -> Any:
    if isinstance(value, dict):
        return {k: _masked(v, str(k)) for k, v in value.items()}
    if isinstance(value, list):
        return [_masked(v, name) for v in value]
    if not isinstance(value, str) or not value:
        return value
    if SECRET_NAME.search(name):
        return MASK
    return mask_url(value) if "://" in value else value


def mask_url(url: str) -> str:
    """``url`` with its password and credential-named query values as ``***``; the scheme, user,
    host, port, path and other parameters stay readable (which database, which server)."""
    try:
        parts = urlsplit(url)
        netloc = parts.netloc
        if "@" in netloc:
            userinfo, _, hostport = netloc.rpartition("@")
            user, has_password, _ = userinfo.partition(":")
            netloc = f"{user}:{MASK}@{hostport}" if has_password else f"{MASK}@{hostport}"
        query = parts.query
        if query:
            pairs = parse_qsl(query, keep_blank_values=True)
            if any(SECRET_NAME.search(k) for k, _ in pairs):
                query = urlencode([(k, MASK if SECRET_NAME.search(k) else v) for k, v in pairs], safe="*")
        if (netloc, query) == (parts.netloc, parts.query):
            return url  # rebuilding could drop a slash of ``sqlite:////abs/path``
        return urlunsplit((parts.scheme, netloc, parts.path, query, parts.fragment))
    except ValueError:  # not parseable as a URL: show nothing of it rather than risk a secret
        return MASK
