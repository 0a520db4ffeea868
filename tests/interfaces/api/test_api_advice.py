"""``POST /v1/brief`` refuses advice requests in any supported language with the same check as the
CLI (``check_input``): a 400 ``refused`` that says what the desk does instead, and no run started."""

from __future__ import annotations

import pytest
from api_kit import MakeApi, brief

ADVICE = [
    "我应该买入苹果吗",
    "¿Debería comprar acciones de Apple?",
    "Soll ich Apple kaufen?",
    "Should my client trim the position?",
    "Would it be wise to load up before earnings?",
    "Is this a good entry point?",
    "What price would you pay for it?",
    "Dois-je acheter des actions Apple ?",
    "アップル株を買うべきですか？",
]


@pytest.mark.parametrize("question", ADVICE)
def test_advice_questions_are_refused_before_any_run(make_api: MakeApi, question: str) -> None:
    client = make_api()
    status, frames, error = brief(client, {"ticker": "AAPL", "as_of": "2025-08-29", "question": question})
    assert status == 400 and frames == []
    assert error["error"]["code"] == "refused"
    message = error["error"]["message"]
    assert "does not give investment advice" in message and "cited briefing" in message
    services = client.app.state.services  # type: ignore[attr-defined]
    assert services.audit.list_runs() == []


def test_a_research_question_in_spanish_is_briefed(make_api: MakeApi) -> None:
    client = make_api()
    question = "¿Por qué los analistas recortaron sus precios objetivo?"
    status, frames, _ = brief(client, {"ticker": "AAPL", "as_of": "2025-08-29", "question": question})
    assert status == 200
    assert [f.event for f in frames][-1] == "done"
