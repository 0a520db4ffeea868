"""Crypto models: on-chain transactions, token info, protocol TVL."""

from __future__ import annotations

from datetime import datetime
from decimal import Decimal

from pydantic import Field

from findesk.data.models.base import DataModel, Source


class OnchainTx(DataModel):
    chain: str  # "ethereum"
    hash: str
    block_number: int
    timestamp: datetime
    from_address: str
    to_address: str | None  # None for contract creation
    value: Decimal  # in the token's (or native coin's) whole units, not wei
    asset: str  # "ETH" or the token symbol
    token_contract: str | None = None
    kind: str = "normal"  # "normal", "internal", "token"
    is_error: bool = False
    source: Source


class TokenInfo(DataModel):
    id: str  # provider id, e.g. "bitcoin"
    symbol: str
    name: str
    price_usd: float | None = None
    market_cap_usd: float | None = None
    volume_24h_usd: float | None = None
    price_as_of: datetime | None = None
    contracts: dict[str, str] = Field(default_factory=dict)  # platform -> contract address
    source: Source


class ProtocolTVL(DataModel):
    protocol: str
    tvl_usd: float
    as_of: datetime
    chain_tvls: dict[str, float] = Field(default_factory=dict)
    source: Source
