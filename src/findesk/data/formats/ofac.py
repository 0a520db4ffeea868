"""OFAC sanctions lists: the official SDN CSV, ETH sanctioned-address CSVs, 0xB10C per-asset lists.

Rules this module keeps:
- Pure: bytes/text in, typed records or ``Err`` out; never raises for a bad file.
- SDN CSV (official layout, no header): ent_num, SDN_Name, SDN_Type, Program, Title, Call_Sign,
  Vess_type, Tonnage, GRT, Vess_flag, Vess_owner, Remarks; ``-0-`` means empty; the file ends with
  the DOS end-of-file byte 0x1A, which is not data.
- Digital-currency addresses come from remarks ("Digital Currency Address - ETH 0x…"). OFAC cuts
  remarks at 1,000 characters, so an address touching the cut is dropped rather than guessed at.
- Matching is case-insensitive (EVM addresses carry a checksum in letter case; it is not identity),
  names are compared after folding case and punctuation.
"""

from __future__ import annotations

import csv
import io
import json
import re
from dataclasses import dataclass
from datetime import date
from typing import Any, Literal

from findesk.core.result import Err, ErrorCode, Ok, Result
from findesk.data.formats.etherscan import ADDRESS_RE
from findesk.data.models import SanctionsMatch, Source

SDN_COLUMNS = (
    "ent_num",
    "SDN_Name",
    "SDN_Type",
    "Program",
    "Title",
    "Call_Sign",
    "Vess_type",
    "Tonnage",
    "GRT",
    "Vess_flag",
    "Vess_owner",
    "Remarks",
)
_NULL = "-0-"
_REMARKS_CAP = 1000  # OFAC truncates the Remarks field of sdn.csv at this length
_ADDRESS_RE = re.compile(r"Digital Currency Address - ([A-Za-z0-9]+)\s+([A-Za-z0-9]+)")
_AKA_RE = re.compile(r"a\.k\.a\. '([^']+)'")
# Non-EVM addresses (base58, bech32, Monero …): one token of letters and digits, long, with a digit.
_OTHER_ADDRESS_RE = re.compile(r"^(?=.*\d)[A-Za-z0-9]{25,110}$")

QueryKind = Literal["evm", "address", "name"]


@dataclass(frozen=True, slots=True)
class SdnEntry:
    uid: str
    name: str
    sdn_type: str | None  # "individual", "vessel", "aircraft"; None for entities
    programs: tuple[str, ...]
    remarks: str
    addresses: tuple[tuple[str, str], ...]  # (asset, address) from the remarks
    aliases: tuple[str, ...]  # a.k.a. names from the remarks

    @property
    def program(self) -> str:
        return ", ".join(self.programs)


@dataclass(frozen=True, slots=True)
class ListedAddress:
    address: str
    name: str | None = None
    date_added: date | None = None


def decode(data: bytes) -> str:
    text = data.decode("utf-8") if _is_utf8(data) else data.decode("latin-1")
    return text.rstrip("\x1a")


def _is_utf8(data: bytes) -> bool:
    try:
        data.decode("utf-8")
    except UnicodeDecodeError:
        return False
    return True


def parse_sdn_csv(data: bytes) -> Result[list[SdnEntry]]:
    text = decode(data)
    entries: list[SdnEntry] = []
    try:
        rows = list(csv.reader(io.StringIO(text)))
    except csv.Error as exc:
        return Err(ErrorCode.BAD_RESPONSE, f"The SDN CSV could not be read: {exc}.", "ofac")
    for number, row in enumerate(rows, start=1):
        if not row or (len(row) == 1 and not row[0].strip()):
            continue
        if len(row) != len(SDN_COLUMNS) or not row[0].strip().isdigit():
            return Err(
                ErrorCode.BAD_RESPONSE,
                f"Row {number} of the SDN CSV does not have the official 12-column layout.",
                "ofac",
            )
        remarks = _field(row[11]) or ""
        entries.append(
            SdnEntry(
                uid=row[0].strip(),
                name=row[1].strip(),
                sdn_type=_field(row[2]),
                programs=_programs(row[3]),
                remarks=remarks,
                addresses=remark_addresses(remarks),
                aliases=tuple(_AKA_RE.findall(remarks)),
            )
        )
    if not entries:
        return Err(ErrorCode.BAD_RESPONSE, "The SDN CSV holds no entries.", "ofac")
    return Ok(entries)


def _field(raw: str) -> str | None:
    value = raw.strip()
    return None if value in ("", _NULL) else value


def _programs(raw: str) -> tuple[str, ...]:
    # The official file stores "[A] [B]" with the outer brackets removed: "A] [B".
    value = _field(raw) or ""
    return tuple(p.strip(" []") for p in value.split("] [") if p.strip(" []"))


def remark_addresses(remarks: str) -> tuple[tuple[str, str], ...]:
    out: list[tuple[str, str]] = []
    for match in _ADDRESS_RE.finditer(remarks):
        asset, address = match.group(1).upper(), match.group(2)
        if len(remarks) >= _REMARKS_CAP and match.end() == len(remarks):
            continue  # cut by OFAC's remarks limit: a partial address would match the wrong thing
        if address.lower().startswith("0x") and not ADDRESS_RE.match(address):
            continue
        out.append((asset, address))
    return tuple(out)


def parse_eth_address_csv(text: str) -> Result[list[ListedAddress]]:
    """ultrasoundmoney's list: ``date_added,address,name`` (2024) or ``address,name`` (2026)."""
    reader = csv.DictReader(io.StringIO(text))
    if reader.fieldnames is None or "address" not in reader.fieldnames:
        return Err(ErrorCode.BAD_RESPONSE, "The ETH address list has no address column.", "ofac")
    out: list[ListedAddress] = []
    for row in reader:
        address = (row.get("address") or "").strip()
        if not ADDRESS_RE.match(address):
            return Err(
                ErrorCode.BAD_RESPONSE, f"The ETH address list holds a bad address {address!r}.", "ofac"
            )
        added = (row.get("date_added") or "").strip()
        try:
            day = date.fromisoformat(added) if added else None
        except ValueError:
            return Err(ErrorCode.BAD_RESPONSE, f"The ETH address list holds a bad date {added!r}.", "ofac")
        out.append(
            ListedAddress(address=address, name=(row.get("name") or "").strip() or None, date_added=day)
        )
    return Ok(out)


def parse_address_txt(text: str) -> list[str]:
    """0xB10C ``sanctioned_addresses_<ASSET>.txt``: one address per line."""
    return [line.strip() for line in text.splitlines() if line.strip()]


def parse_address_json(payload: Any) -> Result[list[str]]:
    """0xB10C ``sanctioned_addresses_<ASSET>.json``: a JSON list of addresses."""
    if isinstance(payload, str | bytes):
        try:
            payload = json.loads(payload)
        except ValueError:
            return Err(ErrorCode.BAD_RESPONSE, "The address list is not JSON.", "ofac")
    if not isinstance(payload, list) or not all(isinstance(a, str) for a in payload):
        return Err(ErrorCode.BAD_RESPONSE, "The address list is not a JSON list of strings.", "ofac")
    return Ok([a.strip() for a in payload])


def classify_query(query: str) -> Result[QueryKind]:
    """An EVM address, another chain's address, or a name; a malformed ``0x`` value is invalid."""
    text = query.strip()
    if not text:
        return Err(ErrorCode.INVALID_INPUT, "The sanctions query is empty; give an address or a name.")
    if text[:2].lower() == "0x" and " " not in text:
        if ADDRESS_RE.match(text):
            return Ok("evm")
        return Err(
            ErrorCode.INVALID_INPUT,
            f"{text!r} is not an Ethereum address: it must be 0x followed by 40 hex digits.",
        )
    if _OTHER_ADDRESS_RE.match(text):
        return Ok("address")
    if len(normalize_name(text)) < 3:
        return Err(
            ErrorCode.INVALID_INPUT, f"The name {text!r} is too short to screen; give at least 3 letters."
        )
    return Ok("name")


def normalize_name(text: str) -> str:
    return " ".join(re.sub(r"[^0-9A-Za-z]+", " ", text).upper().split())


def name_matches(query: str, candidate: str) -> bool:
    """Substring of the folded name, or every query word among the name's words (any order)."""
    q, c = normalize_name(query), normalize_name(candidate)
    if not q or not c:
        return False
    if q in c:
        return True
    return set(q.split()) <= set(c.split())


def sdn_name_matches(entries: list[SdnEntry], query: str) -> list[tuple[SdnEntry, str]]:
    """Entries whose name (or an a.k.a. in the remarks) matches ``query``, with the value that matched."""
    out: list[tuple[SdnEntry, str]] = []
    for entry in entries:
        if name_matches(query, entry.name):
            out.append((entry, entry.name))
            continue
        alias = next((a for a in entry.aliases if name_matches(query, a)), None)
        if alias is not None:
            out.append((entry, alias))
    return out


def sdn_address_index(entries: list[SdnEntry]) -> dict[str, dict[str, list[tuple[SdnEntry, str]]]]:
    """asset -> lower-cased address -> the entries listing it (with the address as written)."""
    index: dict[str, dict[str, list[tuple[SdnEntry, str]]]] = {}
    for entry in entries:
        for asset, address in entry.addresses:
            index.setdefault(asset, {}).setdefault(address.lower(), []).append((entry, address))
    return index


def sdn_matches(
    query: str, kind: str, entries: list[SdnEntry], list_name: str, list_date: date, source: Source
) -> list[SanctionsMatch]:
    """SDN entries matching a name (``kind="name"``) or an address, as ``SanctionsMatch`` rows."""
    found: list[tuple[SdnEntry, str, str | None]]
    if kind == "name":
        found = [(entry, value, None) for entry, value in sdn_name_matches(entries, query)]
    else:
        wanted = query.lower()  # letter case of an EVM address is a checksum, not identity
        found = [
            (entry, listed, asset)
            for asset, by_address in sdn_address_index(entries).items()
            for entry, listed in by_address.get(wanted, [])
        ]
    return [
        SanctionsMatch(
            query=query,
            matched_value=value,
            list_name=list_name,
            entity=entry.name,
            entry_id=entry.uid,
            program=entry.program or None,
            asset=asset,
            list_date=list_date,
            source=source,
        )
        for entry, value, asset in found
    ]
