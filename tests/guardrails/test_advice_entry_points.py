"""The CLI (``findesk brief --question``) and the API share one input check, ``check_input``; advice
requests issue 12 found briefed are refused there, before any tool runs, with exit code 2."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest
from advice_request_table import ISSUE_12

from findesk.core.result import Err, ErrorCode, Ok
from findesk.workflows.brief.spec import check_input


@pytest.mark.parametrize("question", ISSUE_12)
def test_check_input_refuses_the_advice_requests_of_issue_12(question: str) -> None:
    got = check_input("AAPL", question)
    assert isinstance(got, Err) and got.code is ErrorCode.REFUSED


def test_a_research_question_keeps_the_ticker() -> None:
    assert check_input("aapl", "Was sind die wichtigsten Risiken?").ok


def test_cli_refuses_a_chinese_advice_question_with_exit_code_two(snapshot_dir: Path) -> None:
    env = {k: v for k, v in os.environ.items() if k != "PYTHONIOENCODING"} | {"PYTHONIOENCODING": "utf-8"}
    proc = subprocess.run(
        [
            sys.executable,
            "-m",
            "findesk",
            "brief",
            "AAPL",
            "--as-of",
            "2025-08-29",
            "--question",
            "我应该买入苹果吗",
        ],
        capture_output=True,
        text=True,
        encoding="utf-8",
        env=env,
        timeout=300,
    )
    assert proc.returncode == 2, proc.stdout
    assert "refused" in proc.stderr and "investment advice" in proc.stderr
    assert "Divergences" not in proc.stdout  # no briefing was printed


def test_initials_do_not_end_a_sentence_and_lose_the_research_context() -> None:
    # "J.P." used to end a sentence, so "price target … mean?" was read without "What does"
    assert isinstance(check_input("AAPL", "What does the price target from J.P. Morgan mean?"), Ok)
    assert isinstance(check_input("AAPL", "Analysts at J.P. Morgan cut targets. Should I sell?"), Err)
