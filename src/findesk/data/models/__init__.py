"""Typed data models. Every model that carries data carries its ``source`` and its date(s)."""

from findesk.data.models.base import Source
from findesk.data.models.crypto import OnchainTx, ProtocolTVL, TokenInfo
from findesk.data.models.filings import Fact, Filing, FilingDocument, FilingSection, MaterialEvent
from findesk.data.models.funds import FundProfile, PricePanel
from findesk.data.models.macro import MacroObservation, MacroSeries
from findesk.data.models.market import Company, PriceBar, PriceBars, Quote
from findesk.data.models.news import NewsItem, SocialAuthor, SocialPost
from findesk.data.models.sanctions import SanctionsList, SanctionsMatch, SanctionsScreen
from findesk.data.models.transcripts import EarningsCalendar, EarningsEvent, Transcript

__all__ = [
    "Company",
    "EarningsCalendar",
    "EarningsEvent",
    "Fact",
    "Filing",
    "FilingDocument",
    "FilingSection",
    "FundProfile",
    "MacroObservation",
    "MacroSeries",
    "MaterialEvent",
    "NewsItem",
    "OnchainTx",
    "PriceBar",
    "PriceBars",
    "PricePanel",
    "ProtocolTVL",
    "Quote",
    "SanctionsList",
    "SanctionsMatch",
    "SanctionsScreen",
    "SocialAuthor",
    "SocialPost",
    "Source",
    "TokenInfo",
    "Transcript",
]
