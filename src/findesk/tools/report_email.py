"""Report email: a workflow's report mailed over SMTP, or written as an ``.eml`` (dry run).

Rules:
- The ``Mailer`` service (opened from the ``[email]`` settings) holds the SMTP settings and the default
  folder; a tool never reads settings itself. Nothing here is called by a model: only a workflow's
  deterministic delivery step lists ``send_report_email``.
- Recipients: the call's, else the settings' ``to``. With none and no dry run the delivery is
  ``not_requested`` with how to ask for it; never an error that stops the workflow.
- The ``.eml`` is always composed (so a dry run shows exactly what would be sent) and written when the
  call asks (``dry_run`` or a ``folder``); with ``relative_paths`` (a remote caller's run) its path is
  named relative to the mailer's folder, never as a path on the server. Sending needs ``[email] host``
  and ``sender``. A failed send is a ``failed`` delivery with the reason (never the password), not an
  exception.
"""

from __future__ import annotations

import base64
from pathlib import Path
from typing import Annotated, Literal

from pydantic import BaseModel, ConfigDict, Field

from findesk.core.config import EmailSettings
from findesk.core.mail import Attachment, compose, send, write_eml
from findesk.core.result import Err, Ok, Result
from findesk.tools.args import ToolArgs
from findesk.tools.base import Tool, ToolContext

DRY_RUN_SENDER = "findesk@localhost"
DRY_RUN_RECIPIENT = "dry-run@localhost"  # a dry run with no recipient configured
MAX_HTML_CHARS = 2_000_000


class Mailer:
    """The SMTP settings and the folder reports go to when a run names none."""

    def __init__(self, settings: EmailSettings, folder: Path) -> None:
        self.settings = settings
        self.folder = folder


class EmailArgs(ToolArgs):
    subject: Annotated[str, Field(min_length=1, max_length=300, description="The subject line.")]
    text: Annotated[str, Field(max_length=MAX_HTML_CHARS, description="The plain-text body.")]
    html: Annotated[
        str, Field(max_length=MAX_HTML_CHARS, description="The HTML body (cid:chart for the chart).")
    ]
    chart_png_base64: str | None = Field(None, description="The chart, inline and attached.")
    chart_filename: str = Field("chart.png", description="The chart attachment's file name.")
    to: list[str] = Field(default_factory=list, max_length=50, description="Recipients; empty: [email] to.")
    dry_run: bool = Field(False, description="Write the .eml instead of sending.")
    folder: str | None = Field(None, description="Where the .eml is written (default: the mailer's folder).")
    subfolder: Annotated[
        str | None, Field(pattern=r"^[A-Za-z0-9_-][A-Za-z0-9._-]{0,119}$", description="A folder inside it.")
    ] = None
    relative_paths: bool = Field(
        False,
        description="Name the .eml relative to the mailer's folder (a remote caller's run: no server path).",
    )
    file_stem: Annotated[
        str,
        Field(
            pattern=r"^[A-Za-z0-9_-][A-Za-z0-9._-]{0,119}$", description="The .eml file's name, no suffix."
        ),
    ] = "report"


class Delivery(BaseModel):
    model_config = ConfigDict(extra="forbid")

    status: Literal["sent", "written", "not_requested", "failed"]
    recipients: list[str] = Field(default_factory=list)
    subject: str = ""
    eml_path: str | None = None
    message_id: str | None = None
    server: str | None = None
    reason: str = ""


async def _deliver(args: EmailArgs, ctx: ToolContext) -> Result[Delivery]:
    mailer = ctx.service(Mailer) or Mailer(EmailSettings(), Path.cwd())
    cfg = mailer.settings
    to = list(args.to) or list(cfg.to)
    if not to and not args.dry_run:
        return Ok(
            Delivery(
                status="not_requested",
                subject=args.subject,
                reason="no recipient: pass --email ADDR (or set [email] to), or --dry-run to write the .eml",
            )
        )
    chart = base64.b64decode(args.chart_png_base64) if args.chart_png_base64 else None
    inline: list[Attachment] = []
    attached: list[Attachment] = []
    if chart is not None:  # no history, no chart: the body says what is missing
        inline.append(
            Attachment(filename=args.chart_filename, content=chart, mime_type="image/png", inline_cid="chart")
        )
        attached.append(Attachment(filename=args.chart_filename, content=chart, mime_type="image/png"))
    message = compose(
        subject=args.subject,
        sender=cfg.sender or DRY_RUN_SENDER,
        to=to or [DRY_RUN_RECIPIENT],
        html=args.html,
        text=args.text,
        attachments=attached,
        inline=inline,
    )
    if isinstance(message, Err):
        return Ok(Delivery(status="failed", recipients=to, subject=args.subject, reason=message.reason))
    eml: str | None = None
    if args.dry_run or args.folder or args.subfolder:
        folder = Path(args.folder) if args.folder else mailer.folder
        folder = folder / args.subfolder if args.subfolder else folder
        written = write_eml(message.value, folder / f"{args.file_stem}.eml")
        if isinstance(written, Err):
            reason = "the .eml could not be written" if args.relative_paths else written.reason
            return Ok(Delivery(status="failed", recipients=to, subject=args.subject, reason=reason))
        eml = str(written.value)
        if args.relative_paths:  # the server's disk is not the caller's business
            eml = str(Path(args.subfolder or ".") / f"{args.file_stem}.eml")
    if args.dry_run:
        return Ok(
            Delivery(
                status="written",
                recipients=to,
                subject=args.subject,
                eml_path=eml,
                message_id=str(message.value["Message-ID"]),
                reason="dry run: the message was written, not sent",
            )
        )
    if not cfg.sender:
        return Ok(
            Delivery(
                status="failed",
                recipients=to,
                subject=args.subject,
                eml_path=eml,
                reason="no sender configured: set [email] sender (FINDESK_EMAIL__SENDER)",
            )
        )
    sent = await send(message.value, cfg)
    if isinstance(sent, Err):
        return Ok(
            Delivery(status="failed", recipients=to, subject=args.subject, eml_path=eml, reason=sent.reason)
        )
    refused = f"; refused: {', '.join(sent.value.refused)}" if sent.value.refused else ""
    return Ok(
        Delivery(
            status="sent",
            recipients=sent.value.accepted,
            subject=args.subject,
            eml_path=eml,
            message_id=sent.value.message_id,
            server=sent.value.server,
            reason=f"sent over {sent.value.security} to {sent.value.server}{refused}",
        )
    )


def summarize_delivery(d: Delivery) -> str:
    where = f" ({d.eml_path})" if d.eml_path else ""
    return f"Email {d.status}{where}: {d.subject!r} to {', '.join(d.recipients) or 'nobody'}. {d.reason}"


send_report_email = Tool(
    name="send_report_email",
    description=(
        "Mail a report (HTML body, chart inline and attached), or write its .eml (dry run). It sends the "
        "body it is given as it is: never estimate or add a figure to it."
    ),
    args=EmailArgs,
    fn=_deliver,
    summarize=summarize_delivery,
    timeout_s=60.0,
    local_only=True,  # an open mail relay and files on the server, for whoever can call it
)

TOOLS: tuple[Tool, ...] = (send_report_email,)
