"""The movers report delivered to a real SMTP server on loopback (aiosmtpd started by the test) and parsed
back as the recipient's client would; and the walls around delivery: no sandbox means no program runs."""

from __future__ import annotations

import email
import socket
from collections.abc import Iterator
from email.message import EmailMessage
from email.policy import default
from pathlib import Path
from typing import Any

import pytest
from aiosmtpd.controller import Controller
from movers_kit import DAY, run_movers

from findesk.core.config import EmailSettings, Settings
from findesk.tools import movers as movers_tools_module
from findesk.tools.base import ToolContext
from findesk.tools.report_email import Mailer

PNG = b"\x89PNG\r\n\x1a\n"


class Inbox:
    def __init__(self) -> None:
        self.messages: list[tuple[list[str], bytes]] = []

    async def handle_DATA(self, _server: Any, _session: Any, envelope: Any) -> str:
        self.messages.append((list(envelope.rcpt_tos), bytes(envelope.content)))
        return "250 OK"


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


@pytest.fixture
def inbox() -> Iterator[tuple[Inbox, int]]:
    handler = Inbox()
    port = _free_port()
    controller = Controller(handler, hostname="127.0.0.1", port=port)
    controller.start()
    try:
        yield handler, port
    finally:
        controller.stop()


def test_the_report_is_mailed_to_a_real_smtp_server_with_the_chart_inline_and_attached(
    movers_settings: Settings, movers_tools: ToolContext, inbox: tuple[Inbox, int], tmp_path: Path
) -> None:
    handler, port = inbox
    cfg = EmailSettings(host="127.0.0.1", port=port, security="none", sender="desk@findesk.test", timeout_s=5)
    previous = movers_tools.services.get(Mailer)
    movers_tools.services[Mailer] = Mailer(cfg, tmp_path)
    try:
        run = run_movers(movers_settings, movers_tools, {"date": DAY, "email": "advisor@findesk.test"})
    finally:
        movers_tools.services[Mailer] = previous  # type: ignore[assignment]
    r = run.ok
    assert r.delivery is not None and r.delivery.status == "sent", r.delivery
    assert len(handler.messages) == 1
    rcpt, raw = handler.messages[0]
    assert rcpt == ["advisor@findesk.test"]
    msg: EmailMessage = email.message_from_bytes(raw, policy=default)  # type: ignore[assignment]
    assert str(msg["Subject"]) == f"Movers {DAY}: {r.symbol} +21.775% to $8.78"  # unfolded, no leading space
    text = msg.get_body(("plain",))
    html = msg.get_body(("html",))
    assert text is not None and "Total return over the window" in text.get_content()
    assert html is not None and 'src="cid:chart"' in html.get_content()
    inline = [p for p in msg.walk() if p.get("Content-ID") == "<chart>"]
    attached = [p for p in msg.walk() if p.get_content_disposition() == "attachment"]
    assert len(inline) == 1 and inline[0].get_payload(decode=True).startswith(PNG)
    assert len(attached) == 1 and attached[0].get_payload(decode=True) == inline[0].get_payload(decode=True)


def test_a_failed_send_is_said_in_the_report_and_the_run_still_finishes(
    movers_settings: Settings, movers_tools: ToolContext, tmp_path: Path
) -> None:
    port = _free_port()  # nothing listens there
    cfg = EmailSettings(host="127.0.0.1", port=port, security="none", sender="desk@findesk.test", timeout_s=2)
    previous = movers_tools.services.get(Mailer)
    movers_tools.services[Mailer] = Mailer(cfg, tmp_path)
    try:
        run = run_movers(movers_settings, movers_tools, {"date": DAY, "email": "advisor@findesk.test"})
    finally:
        movers_tools.services[Mailer] = previous  # type: ignore[assignment]
    r = run.ok
    assert r.delivery is not None and r.delivery.status == "failed"
    assert any(w.startswith("email not delivered") for w in r.warnings)
    assert r.metrics is not None  # the analysis stands whatever the mail did


def test_without_a_sandbox_no_program_runs_and_the_metrics_are_codes_own(
    movers_settings: Settings, movers_tools: ToolContext, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    real = movers_tools_module.run_python

    async def no_bwrap(program: str, **kwargs: Any) -> Any:
        return await real(program, **kwargs, bwrap="/nonexistent/bwrap")

    monkeypatch.setattr(movers_tools_module, "run_python", no_bwrap)
    run = run_movers(movers_settings, movers_tools, {"date": DAY, "dry_run": True, "out": str(tmp_path)})
    r = run.ok
    assert r.metrics_check == "code_only" and r.metrics is not None
    assert r.programs[0].run is None
    assert any("bubblewrap" in w and "no analysis program ran" in w for w in r.warnings)


def test_a_bad_recipient_is_refused_before_anything_runs(
    movers_settings: Settings, movers_tools: ToolContext
) -> None:
    run = run_movers(
        movers_settings, movers_tools, {"date": DAY, "email": "a@b.example\r\nBcc: x@evil.example"}
    )
    assert ("email" in str(run.report) and run.events == []) or not hasattr(run.report, "symbol")
