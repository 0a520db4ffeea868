"""Sanctions screening on the recorded OFAC lists under ``ofac/``.

Rules this store keeps:
- Point in time: a list is visible only from its date (the date in its file name). Every list is a
  full extract of the SDN list at that date, so a delisting shows only as absence: per family
  (SDN CSV, ultrasoundmoney ETH list, 0xB10C per-asset list) only the newest visible list is used.
- Per asset, the dedicated address list is primary (ultrasoundmoney for ETH, 0xB10C for other
  assets); a list older than the newest visible primary list for that asset is superseded and not
  checked, so a 2026 list without Tornado Cash is not contradicted by a 2024 list that still has it.
  Lists newer than the primary one are still checked (they may add designations).
- Names are screened against the newest visible SDN CSV (names and a.k.a. aliases).
- Every answer says which lists were checked, their dates and staleness (days to ``as_of`` against
  the threshold, 7 days by default). No list visible at ``as_of`` is ``no_data``, never "no match".
- The indexes of an SDN list (by name, by address, its per-asset address lists) are built once per
  list, not per screen: a fund trace screens dozens of counterparties in one question.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from datetime import date
from functools import partial

from findesk.core.result import Err, ErrorCode, Ok, Result
from findesk.data.formats import ofac
from findesk.data.models import SanctionsList, SanctionsMatch, SanctionsScreen, Source
from findesk.data.vendors.snapshot.files import Lazy, SnapshotFiles

SDN_LIST = "OFAC SDN"
ETH_LIST = "ETH sanctioned addresses (ultrasoundmoney)"
B10C_LIST = "OFAC digital currency addresses (0xB10C)"

_DATED = re.compile(r"(\d{4}-\d{2}-\d{2})")


@dataclass(frozen=True, slots=True)
class _AddressList:
    family: str  # SDN_LIST, ETH_LIST or B10C_LIST
    asset: str
    list_date: date
    rel: str
    primary: bool
    # lower-cased address -> (address as listed, entity name if the list names one)
    addresses: dict[str, tuple[str, str | None]]

    @property
    def name(self) -> str:
        return f"{self.family} {self.asset}" if self.family == B10C_LIST else self.family


@dataclass(frozen=True, slots=True)
class _SdnView:
    """One SDN extract with the indexes every screen needs."""

    day: date
    rel: str
    entries: list[ofac.SdnEntry]
    by_name: dict[str, ofac.SdnEntry]
    by_address: dict[str, dict[str, list[tuple[ofac.SdnEntry, str]]]]
    address_lists: list[_AddressList]  # per asset, as a list family of its own


class SanctionsStore:
    def __init__(self, files: SnapshotFiles, stale_days: int = 7) -> None:
        self.files = files
        self.stale_days = stale_days
        self._sdn: dict[date, tuple[str, Lazy[_SdnView]]] = {}
        self._address_lists = Lazy(self._load_address_lists)
        base = files.path("ofac")
        for path in sorted(base.glob("sdn_*.csv")):
            day = _date_in(path.name)
            if day is not None:
                rel = f"ofac/{path.name}"
                self._sdn[day] = (rel, Lazy(partial(self._load_sdn, day, rel)))

    # -- loading ---------------------------------------------------------------------------------

    def _load_sdn(self, day: date, rel: str) -> _SdnView:
        parsed = ofac.parse_sdn_csv(self.files.path(rel).read_bytes())
        if isinstance(parsed, Err):
            raise ValueError(f"{rel}: {parsed.reason}")
        entries = parsed.value
        by_address = ofac.sdn_address_index(entries)
        lists = [
            _AddressList(
                SDN_LIST, asset, day, rel, False, {k: (v[0][1], v[0][0].name) for k, v in listed.items()}
            )
            for asset, listed in by_address.items()
        ]
        by_name = {ofac.normalize_name(e.name): e for e in entries}
        return _SdnView(day, rel, entries, by_name, by_address, lists)

    def _load_address_lists(self) -> list[_AddressList]:
        out: list[_AddressList] = []
        base = self.files.path("ofac")
        for path in sorted(base.glob("eth_sanctioned_addresses_*.csv")):
            day = _date_in(path.name)
            if day is None:
                continue
            parsed = ofac.parse_eth_address_csv(path.read_text(encoding="utf-8"))
            if isinstance(parsed, Err):
                raise ValueError(f"ofac/{path.name}: {parsed.reason}")
            addresses = {a.address.lower(): (a.address, a.name) for a in parsed.value}
            out.append(_AddressList(ETH_LIST, "ETH", day, f"ofac/{path.name}", True, addresses))
        for folder in sorted(base.glob("digital_currency_addresses_*")):
            day = _date_in(folder.name)
            if day is None or not folder.is_dir():
                continue
            for path in sorted(folder.glob("sanctioned_addresses_*.txt")):
                asset = path.stem.removeprefix("sanctioned_addresses_").upper()
                listed = ofac.parse_address_txt(path.read_text(encoding="utf-8"))
                rel = f"ofac/{folder.name}/{path.name}"
                primary = asset != "ETH"  # ETH has its own dedicated, named list family
                out.append(
                    _AddressList(B10C_LIST, asset, day, rel, primary, {a.lower(): (a, None) for a in listed})
                )
        return out

    def _sdn_at(self, as_of: date) -> _SdnView | None:
        days = [d for d in self._sdn if d <= as_of]
        if not days:
            return None
        return self._sdn[max(days)][1].get()

    # -- screening -------------------------------------------------------------------------------

    def screen(self, query: str, as_of: date) -> Result[SanctionsScreen]:
        kind = ofac.classify_query(query)
        if isinstance(kind, Err):
            return Err(kind.code, kind.reason, "snapshot")
        text = query.strip()
        sdn = self._sdn_at(as_of)
        if kind.value == "name":
            if sdn is None:
                return self._nothing_visible(as_of, "name")
            return Ok(self._screen_name(text, as_of, sdn))
        lists = self._lists_for(as_of, sdn, evm=kind.value == "evm")
        if not lists:
            return self._nothing_visible(as_of, "address")
        return Ok(self._screen_address(text, as_of, lists, sdn))

    def _nothing_visible(self, as_of: date, what: str) -> Err:
        dates = sorted(self._sdn) + sorted(a.list_date for a in self._address_lists.get())
        oldest = f" (the oldest is dated {min(dates).isoformat()})" if dates else ""
        return Err(
            ErrorCode.NO_DATA,
            f"The snapshot holds no sanctions list for {what} screening dated on or before "
            f"{as_of.isoformat()}{oldest}; it cannot say whether this is sanctioned.",
            "snapshot",
        )

    def _screen_name(self, query: str, as_of: date, sdn: _SdnView) -> SanctionsScreen:
        matches = ofac.sdn_matches(query, "name", sdn.entries, SDN_LIST, sdn.day, self.files.source(sdn.rel))
        return SanctionsScreen(
            query=query, matches=matches, lists_checked=[self._checked(SDN_LIST, sdn.day, sdn.rel, as_of)]
        )

    def _lists_for(self, as_of: date, sdn: _SdnView | None, *, evm: bool) -> list[_AddressList]:
        candidates = [a for a in self._address_lists.get() if a.list_date <= as_of]
        if sdn is not None:
            candidates += sdn.address_lists
        newest: dict[tuple[str, str], _AddressList] = {}
        for lst in candidates:
            key = (lst.family, lst.asset)
            if key not in newest or lst.list_date > newest[key].list_date:
                newest[key] = lst
        primary_date: dict[str, date] = {}
        for lst in newest.values():
            if lst.primary:
                primary_date[lst.asset] = max(lst.list_date, primary_date.get(lst.asset, lst.list_date))
        chosen = [
            lst
            for lst in newest.values()
            if lst.list_date >= primary_date.get(lst.asset, lst.list_date)
            and any(_is_evm(a) == evm for a in lst.addresses)
        ]
        return sorted(chosen, key=lambda lst: (lst.asset != "ETH", lst.asset, lst.family))

    def _screen_address(
        self,
        query: str,
        as_of: date,
        lists: list[_AddressList],
        sdn: _SdnView | None,
    ) -> SanctionsScreen:
        wanted = query.lower()  # see formats.ofac: letter case is a checksum, not identity
        sdn_by_name = sdn.by_name if sdn else {}
        sdn_by_address = sdn.by_address if sdn else {}
        matches: list[SanctionsMatch] = []
        checked: dict[tuple[str, date, str], SanctionsList] = {}
        for lst in lists:
            checked.setdefault(
                (lst.family, lst.list_date, lst.rel), self._checked(lst.name, lst.list_date, lst.rel, as_of)
            )
            hit = lst.addresses.get(wanted)
            if hit is None:
                continue
            listed, entity = hit
            entry = sdn_by_name.get(ofac.normalize_name(entity)) if entity else None
            note = None
            if entry is None:
                # The list names no SDN entry: look the address up in the SDN remarks instead.
                found = sdn_by_address.get(lst.asset, {}).get(wanted) or [
                    e for per_asset in sdn_by_address.values() for e in per_asset.get(wanted, [])
                ]
                if found:
                    entry = found[0][0]
            if entry is not None and sdn is not None and lst.family != SDN_LIST:
                note = f"entity details from {SDN_LIST} {sdn.day.isoformat()} ({sdn.rel})"
            matches.append(
                SanctionsMatch(
                    query=query,
                    matched_value=listed,
                    list_name=lst.name,
                    entity=entity or (entry.name if entry else None),
                    entry_id=entry.uid if entry else None,
                    program=(entry.program or None) if entry else None,
                    asset=lst.asset,
                    list_date=lst.list_date,
                    source=self.files.source(lst.rel, note),
                )
            )
        return SanctionsScreen(query=query, matches=matches, lists_checked=list(checked.values()))

    def _checked(self, name: str, list_date: date, rel: str, as_of: date) -> SanctionsList:
        age = (as_of - list_date).days
        return SanctionsList(
            name=name,
            list_date=list_date,
            stale_days=age,
            stale=age > self.stale_days,
            source=Source(vendor="snapshot", ref=rel),
        )


def _date_in(name: str) -> date | None:
    found = _DATED.search(name)
    if found is None:
        return None
    try:
        return date.fromisoformat(found.group(1))
    except ValueError:
        return None


def _is_evm(address: str) -> bool:
    return address.lower().startswith("0x")
