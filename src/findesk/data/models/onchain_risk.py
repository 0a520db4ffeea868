"""On-chain reference data for crypto research and compliance: known mixer contracts, ETH balances,
large token holders, a token's dated price points.

Rules: addresses keep the letter case their source gave (EIP-55 case is a checksum, not identity);
``MixerList.find`` compares them lower-cased. Every model carries its source and the date it describes.
"""

from __future__ import annotations

from datetime import date, datetime
from decimal import Decimal

from pydantic import Field

from findesk.data.models.base import DataModel, Source


class MixerContract(DataModel):
    address: str
    chain_id: int  # 1 = Ethereum mainnet
    mixer: str  # "Tornado Cash"
    kind: str  # "pool", "proxy", "multicall"
    token: str | None = None  # the pool's asset ("eth", "dai")
    denomination: str | None = None  # the pool's fixed deposit size, in whole units of ``token``


class MixerList(DataModel):
    contracts: list[MixerContract] = Field(default_factory=list)
    list_date: date  # the date the list reflects
    source: Source

    def find(self, address: str, chain_id: int = 1) -> MixerContract | None:
        wanted = address.strip().lower()
        return next(
            (c for c in self.contracts if c.chain_id == chain_id and c.address.lower() == wanted), None
        )


class EthBalance(DataModel):
    address: str
    balance_eth: Decimal  # exact, in ETH (not wei)
    observed_at: datetime  # when the balance was read (the recording's time for recorded data)
    source: Source


class TokenHolder(DataModel):
    address: str
    balance: Decimal  # whole units of the token
    label: str | None = None


class TokenHolders(DataModel):
    token: str  # the token's contract address or symbol as asked
    holders: list[TokenHolder] = Field(default_factory=list)
    observed_at: datetime
    source: Source


class TokenPrice(DataModel):
    price: float
    currency: str  # "usd", "eth"
    at: datetime  # the moment the price describes (a recording's time for a spot quote)
    kind: str  # "daily" (CoinGecko history at 00:00 UTC) or "spot"
    source: Source


class TokenPriceHistory(DataModel):
    token_id: str  # CoinGecko id
    points: list[TokenPrice] = Field(default_factory=list)  # oldest first
