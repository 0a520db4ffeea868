"""An object-typed input field that also accepts its JSON text: the CLI passes every option as text
(``--strategy '{"prep": …}'``, ``--params '{"plan": …}'``), the HTTP API and Python pass objects.

Rules: text that is not JSON is refused naming the field ("params is not a JSON object: …"); anything
else goes on to the field's own validation unchanged.
"""

from __future__ import annotations

import json
from typing import Annotated, Any, TypeVar

from pydantic import BeforeValidator, ValidationInfo

T = TypeVar("T")


def _from_text(value: Any, info: ValidationInfo) -> Any:
    if isinstance(value, str):
        try:
            return json.loads(value)
        except json.JSONDecodeError as exc:
            raise ValueError(f"{info.field_name} is not a JSON object: {exc.msg}") from exc
    return value


ObjectOrText = Annotated[T, BeforeValidator(_from_text)]
