"""EIP-55 address checksums: the letter case of a mixed-case Ethereum address encodes a checksum.

Rules this module keeps:
- Pure and free of third-party code: Keccak-256 (the original Keccak padding, not SHA3-256's, which is why
  ``hashlib.sha3_256`` cannot be used) is implemented here, about 40 lines.
- Case is a checksum, never identity: addresses are compared lower-cased everywhere; this module
  only tells whether a mixed-case spelling is internally consistent. All-lower and all-upper spellings
  carry no checksum and are ``None`` (unknown), not wrong.
"""

from __future__ import annotations

from findesk.data.formats.etherscan import ADDRESS_RE

_MASK = (1 << 64) - 1
_RATE = 136  # bytes per block for Keccak-256 (1600 - 2 * 256 bits)
_RC = (
    0x0000000000000001, 0x0000000000008082, 0x800000000000808A, 0x8000000080008000,
    0x000000000000808B, 0x0000000080000001, 0x8000000080008081, 0x8000000000008009,
    0x000000000000008A, 0x0000000000000088, 0x0000000080008009, 0x000000008000000A,
    0x000000008000808B, 0x800000000000008B, 0x8000000000008089, 0x8000000000008003,
    0x8000000000008002, 0x8000000000000080, 0x000000000000800A, 0x800000008000000A,
    0x8000000080008081, 0x8000000000008080, 0x0000000080000001, 0x8000000080008008,
)  # fmt: skip
# rotation offsets r[x][y] of the rho step
_ROT = (
    (0, 36, 3, 41, 18),
    (1, 44, 10, 45, 2),
    (62, 6, 43, 15, 61),
    (28, 55, 25, 21, 56),
    (27, 20, 39, 8, 14),
)


def _rol(value: int, shift: int) -> int:
    return ((value << shift) | (value >> (64 - shift))) & _MASK if shift else value


def _permute(a: list[int]) -> list[int]:
    for rc in _RC:
        c = [a[x] ^ a[x + 5] ^ a[x + 10] ^ a[x + 15] ^ a[x + 20] for x in range(5)]
        d = [c[(x - 1) % 5] ^ _rol(c[(x + 1) % 5], 1) for x in range(5)]
        a = [a[i] ^ d[i % 5] for i in range(25)]
        b = [0] * 25
        for x in range(5):
            for y in range(5):
                b[y + 5 * ((2 * x + 3 * y) % 5)] = _rol(a[x + 5 * y], _ROT[x][y])
        a = [
            b[i] ^ (~b[(i % 5 + 1) % 5 + 5 * (i // 5)] & b[(i % 5 + 2) % 5 + 5 * (i // 5)]) for i in range(25)
        ]
        a[0] ^= rc
    return a


def keccak256(data: bytes) -> bytes:
    padded = bytearray(data) + b"\x01" + b"\x00" * ((-len(data) - 1) % _RATE)
    padded[-1] |= 0x80
    state = [0] * 25
    for start in range(0, len(padded), _RATE):
        block = padded[start : start + _RATE]
        for i in range(_RATE // 8):
            state[i] ^= int.from_bytes(block[8 * i : 8 * i + 8], "little")
        state = _permute(state)
    return b"".join(lane.to_bytes(8, "little") for lane in state[:4])


def to_checksum(address: str) -> str:
    """The EIP-55 spelling of a ``0x`` + 40-hex address (any case in)."""
    text = address.strip()
    if not ADDRESS_RE.match(text):
        raise ValueError(f"{text[:60]!r} is not an Ethereum address")
    body = text[2:].lower()
    digest = keccak256(body.encode("ascii")).hex()
    return "0x" + "".join(
        ch.upper() if ch.isalpha() and int(digest[i], 16) >= 8 else ch for i, ch in enumerate(body)
    )


def checksum_ok(address: str) -> bool | None:
    """True/False for a mixed-case spelling; None when the spelling carries no checksum (or is no address)."""
    text = address.strip()
    if not ADDRESS_RE.match(text):
        return None
    body = text[2:]
    if body == body.lower() or body == body.upper():
        return None
    return to_checksum(text) == text
