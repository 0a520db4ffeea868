"""Report email: compose a message, write it as a ``.eml`` file (dry run), or send it over SMTP.

Rules:
- The structure is fixed: ``multipart/mixed`` { ``multipart/alternative`` { text/plain,
  ``multipart/related`` { text/html, inline images (``Content-ID``, ``Content-Disposition: inline``,
  referenced from the HTML as ``cid:<inline_cid>``) } }, attachments }; a layer with nothing to hold
  is left out. The images belong to the HTML they illustrate (RFC 2387, and the only nesting the
  stdlib ``EmailMessage`` API builds), so a plain-text reader is not handed orphan images.
  ``Message-ID`` and ``Date`` are always set; non-ASCII subjects, names and filenames are encoded.
- Everything that ends up in a header is checked first (the attack surface is header injection): no
  CR, LF or other control character in the subject, an address, a filename, a MIME type or a
  Content-ID; every address is one plain ``local@domain`` (optionally ``Name <local@domain>``) that
  the stdlib address parser accepts whole; at most ``MAX_RECIPIENTS`` recipients and
  ``MAX_ATTACHMENT_BYTES`` of attachments and inline images. A bad value is ``invalid_input``
  naming the field. ``send`` checks again whatever message it is given (one built elsewhere, under a
  permissive policy, may carry a raw line break): an unfolded line break in any header is refused.
- ``send`` never downgrades: ``starttls`` refuses to go on when the server does not offer STARTTLS,
  certificates are verified (``ca_file`` adds a CA to the system ones), and the login is sent over
  plaintext only when ``security = "none"`` is configured explicitly. Nothing is sent while no host
  is configured (``not_configured``, saying how to set one).
- Errors are data: compose, write and send return ``Err`` (never raise) for anything outside the
  caller's control, with a reason that says what happened and what to do, and that never contains
  the password (every reason is scrubbed of it, plain and base64).
- Sending uses the stdlib ``smtplib`` in a worker thread (no extra dependency at run time); every
  socket operation is bounded by ``timeout_s``.
- Core layer: imports only from ``findesk.core`` (and ``EmailSettings`` only for type checking, so
  importing this module does not load the settings machinery).
"""

from __future__ import annotations

import asyncio
import base64
import contextlib
import copy
import os
import re
import smtplib
import socket
import ssl
import tempfile
from collections.abc import Sequence
from dataclasses import dataclass
from datetime import UTC, datetime
from email import policy
from email.errors import HeaderParseError
from email.headerregistry import Address
from email.message import EmailMessage
from email.utils import format_datetime, getaddresses, make_msgid, parseaddr
from pathlib import Path
from typing import TYPE_CHECKING, Any, Literal

from pydantic import BaseModel, ConfigDict, Field

from findesk.core.result import Err, ErrorCode, Ok, Result

if TYPE_CHECKING:
    from findesk.core.config import EmailSettings

MAX_RECIPIENTS = 50
MAX_ATTACHMENT_BYTES = 10 * 1024 * 1024  # attachments and inline images together
MAX_SUBJECT_CHARS = 998  # the line length limit of RFC 5322

# a control character (CR, LF, NUL, ...) in a header value would start a new header or end them all
_CONTROL = re.compile(r"[\x00-\x1f\x7f]")
_LABEL = r"[A-Za-z0-9](?:[A-Za-z0-9-]{0,61}[A-Za-z0-9])?"
_DOMAIN = re.compile(rf"{_LABEL}(?:\.{_LABEL})*")
_LOCAL = re.compile(r"[A-Za-z0-9!#$%&'*+/=?^_`{|}~-]+(?:\.[A-Za-z0-9!#$%&'*+/=?^_`{|}~-]+)*")
_MIME_TYPE = re.compile(r"[A-Za-z0-9][A-Za-z0-9!#$&^_.+-]{0,126}/[A-Za-z0-9][A-Za-z0-9!#$&^_.+-]{0,126}")
_CID = re.compile(r"[A-Za-z0-9._@-]{1,128}")
_BAD_FILENAME = re.compile(r"[\x00-\x1f\x7f/\\]")


class Attachment(BaseModel):
    """A file carried by the message; with ``inline_cid`` it is an inline image of the HTML body,
    referenced there as ``cid:<inline_cid>``."""

    model_config = ConfigDict(frozen=True)

    filename: str
    content: bytes
    mime_type: str = "application/octet-stream"
    inline_cid: str | None = None


class SentMail(BaseModel):
    """What the server accepted: ``refused`` maps each recipient it refused to its answer."""

    accepted: list[str]
    refused: dict[str, str] = Field(default_factory=dict)
    server: str  # host:port
    security: Literal["starttls", "ssl", "none"]
    message_id: str


def _invalid(field: str, problem: str) -> Err:
    return Err(ErrorCode.INVALID_INPUT, f"{field}: {problem}", source="mail", details={"field": field})


def check_address(addr: str, *, field: str = "address") -> Result[str]:
    """``addr`` (``local@domain`` or ``Name <local@domain>``) checked and normalised, or
    ``invalid_input`` naming ``field``. Exactly one address; ASCII ``local@domain`` (no SMTPUTF8);
    the display name may be any text without control characters."""
    if not isinstance(addr, str) or not addr.strip():
        return _invalid(field, "an address is required")
    if _CONTROL.search(addr):
        return _invalid(field, f"{addr!r} contains a line break or control character (header injection)")
    text = addr.strip()
    if len(text) > 320:
        return _invalid(field, "the address is longer than 320 characters")
    if len(getaddresses([text])) != 1:
        return _invalid(field, f"{text!r} is not exactly one address (give one address per entry)")
    name, spec = parseaddr(text)
    # the parser skips what it cannot read: only accept text it read whole
    if not spec or not (text == spec or text.endswith(f"<{spec}>")):
        return _invalid(field, f"{text!r} is not an address like name@example.com")
    local, at, domain = spec.rpartition("@")
    if not at or not _LOCAL.fullmatch(local) or not _DOMAIN.fullmatch(domain) or len(local) > 64:
        return _invalid(field, f"{text!r} is not an address like name@example.com (ASCII only)")
    try:
        parsed = Address(display_name=name, addr_spec=spec)
    except (ValueError, IndexError, HeaderParseError) as exc:
        return _invalid(field, f"{text!r} is not a valid address: {exc}")
    return Ok(str(parsed))


def _check_recipients(to: list[str], field: str = "to") -> Result[list[str]]:
    if not to:
        return _invalid(field, "at least one recipient is required")
    if len(to) > MAX_RECIPIENTS:
        return _invalid(field, f"{len(to)} recipients; at most {MAX_RECIPIENTS} are allowed")
    out: list[str] = []
    for i, addr in enumerate(to):
        checked = check_address(addr, field=f"{field}[{i}]")
        if isinstance(checked, Err):
            return checked
        if checked.value.lower() not in (o.lower() for o in out):
            out.append(checked.value)
    return Ok(out)


def _check_attachment(item: Attachment, field: str, *, inline: bool) -> Err | None:
    if not item.filename.strip() or len(item.filename) > 255:
        return _invalid(f"{field}.filename", "a filename of 1 to 255 characters is required")
    if _BAD_FILENAME.search(item.filename):
        return _invalid(
            f"{field}.filename",
            f"{item.filename!r} contains a line break, control character or path separator",
        )
    if not _MIME_TYPE.fullmatch(item.mime_type):
        return _invalid(f"{field}.mime_type", f"{item.mime_type!r} is not a MIME type like image/png")
    if inline:
        if item.inline_cid is None:
            return _invalid(f"{field}.inline_cid", "an inline image needs a Content-ID (inline_cid)")
        if not _CID.fullmatch(item.inline_cid):
            return _invalid(
                f"{field}.inline_cid",
                f"{item.inline_cid!r} is not a Content-ID of 1 to 128 letters, digits and ._@-",
            )
        if not item.mime_type.lower().startswith("image/"):
            return _invalid(f"{field}.mime_type", f"an inline part must be an image, not {item.mime_type}")
    return None


def compose(
    *,
    subject: str,
    sender: str,
    to: list[str],
    html: str,
    text: str,
    attachments: Sequence[Attachment] = (),
    inline: Sequence[Attachment] = (),
    date: datetime | None = None,
    message_id_domain: str = "findesk.local",
) -> Result[EmailMessage]:
    """The report as one message (see the module rules for its structure), or ``invalid_input``
    naming the field that would be unsafe or wrong."""
    if not subject.strip():
        return _invalid("subject", "a subject is required")
    if _CONTROL.search(subject):
        return _invalid("subject", "contains a line break or control character (header injection)")
    if len(subject) > MAX_SUBJECT_CHARS:
        return _invalid("subject", f"longer than {MAX_SUBJECT_CHARS} characters")
    from_addr = check_address(sender, field="sender")
    if isinstance(from_addr, Err):
        return from_addr
    recipients = _check_recipients(to)
    if isinstance(recipients, Err):
        return recipients
    if not _DOMAIN.fullmatch(message_id_domain):
        return _invalid("message_id_domain", f"{message_id_domain!r} is not a domain name")
    if date is not None and date.utcoffset() is None:
        return _invalid("date", "must be timezone-aware (a naive time would be read as the server's zone)")
    cids: set[str] = set()
    for i, item in enumerate(inline):
        problem = _check_attachment(item, f"inline[{i}]", inline=True)
        if problem is not None:
            return problem
        assert item.inline_cid is not None
        if item.inline_cid.lower() in cids:
            return _invalid(f"inline[{i}].inline_cid", f"{item.inline_cid!r} is used twice")
        cids.add(item.inline_cid.lower())
    for i, item in enumerate(attachments):
        problem = _check_attachment(item, f"attachments[{i}]", inline=False)
        if problem is not None:
            return problem
    total = sum(len(a.content) for a in (*attachments, *inline))
    if total > MAX_ATTACHMENT_BYTES:
        return _invalid(
            "attachments",
            f"{total:,} bytes of attachments and inline images; at most {MAX_ATTACHMENT_BYTES:,} are allowed",
        )

    msg = EmailMessage(policy=policy.default)
    msg["Subject"] = subject
    msg["From"] = from_addr.value
    msg["To"] = ", ".join(recipients.value)
    msg["Date"] = format_datetime(date or datetime.now(UTC))
    msg["Message-ID"] = make_msgid(domain=message_id_domain)
    msg.set_content(text, subtype="plain", cte="quoted-printable")
    msg.add_alternative(html, subtype="html", cte="quoted-printable")
    html_part = msg.get_body(("html",))
    assert isinstance(html_part, EmailMessage)
    for item in inline:  # the first one turns the HTML part into related { html, image }
        maintype, _, subtype = item.mime_type.partition("/")
        html_part.add_related(
            item.content,
            maintype=maintype,
            subtype=subtype,
            cid=f"<{item.inline_cid}>",
            disposition="inline",
            filename=item.filename,
        )
    for item in attachments:  # the first one wraps everything so far in multipart/mixed
        maintype, _, subtype = item.mime_type.partition("/")
        msg.add_attachment(item.content, maintype=maintype, subtype=subtype, filename=item.filename)
    return Ok(msg)


def write_eml(message: EmailMessage, path: Path) -> Result[Path]:
    """``message`` as an ``.eml`` file (CRLF line ends, as it would go over SMTP), written atomically:
    a reader sees the old file or the whole new one, never a part."""
    try:
        data = message.as_bytes(policy=policy.SMTP)
    except (ValueError, TypeError, LookupError) as exc:
        return Err(ErrorCode.INVALID_INPUT, f"the message cannot be serialised: {exc}", source="mail")
    tmp: str | None = None
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
        fd, tmp = tempfile.mkstemp(prefix=f".{path.name}.", suffix=".tmp", dir=path.parent)
        with os.fdopen(fd, "wb") as fh:
            fh.write(data)
            fh.flush()
            os.fsync(fh.fileno())
        Path(tmp).replace(path)
        tmp = None
    except OSError as exc:
        return Err(ErrorCode.UNAVAILABLE, f"cannot write the message to {path}: {exc}", source="mail")
    finally:
        if tmp is not None:
            with contextlib.suppress(OSError):
                Path(tmp).unlink()
    return Ok(path)


@dataclass(frozen=True, slots=True)
class _Envelope:
    sender: str
    recipients: list[str]
    data: bytes
    message_id: str


_ADDRESS_HEADERS = ("from", "to", "cc", "bcc", "sender", "reply-to")
# folding (a line break, whitespace, then more text) continues a header; any other break starts a new one
_FOLD = re.compile(r"\r?\n[ \t]+(?=\S)")


def _envelope(message: EmailMessage) -> Result[_Envelope]:
    """Envelope sender and recipients (To, Cc, Bcc) of ``message``, checked, and its bytes without Bcc.
    ``message`` may come from anywhere (a permissive policy lets raw header values through), so its
    headers are checked for injected lines before anything is parsed out of them."""
    for name, raw in message.raw_items():
        unfolded = _FOLD.sub(" ", str(raw))
        # addresses: no control character at all; other headers may hold tabs
        if _CONTROL.search(unfolded if name.lower() in _ADDRESS_HEADERS else unfolded.replace("\t", " ")):
            return _invalid(
                f"message.{name}", "contains a line break or control character (header injection)"
            )
    senders = getaddresses([str(v) for v in message.get_all("From", [])])
    if len(senders) != 1:
        return _invalid("message.From", "the message needs exactly one From address")
    sender = check_address(senders[0][1], field="message.From")
    if isinstance(sender, Err):
        return sender
    headers = [str(v) for name in ("To", "Cc", "Bcc") for v in message.get_all(name, [])]
    recipients = _check_recipients([spec for _, spec in getaddresses(headers)], field="message.To")
    if isinstance(recipients, Err):
        return recipients
    outgoing = message
    if "Bcc" in message:
        outgoing = copy.copy(message)  # shallow: deleting a header rebuilds the copy's own list
        del outgoing["Bcc"]
    try:
        data = outgoing.as_bytes(policy=policy.SMTP)
    except (ValueError, TypeError, LookupError) as exc:
        return Err(ErrorCode.INVALID_INPUT, f"the message cannot be serialised: {exc}", source="mail")
    message_id = str(message.get("Message-ID", "")).strip()
    return Ok(_Envelope(sender=sender.value, recipients=recipients.value, data=data, message_id=message_id))


def _local_hostname() -> str:
    """The EHLO name: this machine's name when it is a plain host name, without a DNS lookup
    (``socket.getfqdn`` can stall for the resolver's whole timeout on a machine without DNS)."""
    name = socket.gethostname()
    return name if _DOMAIN.fullmatch(name or "") else "localhost"


def _reply(code: int, msg: bytes | str) -> str:
    text = msg.decode("utf-8", "replace") if isinstance(msg, bytes) else str(msg)
    return f"{code} {' '.join(text.split())}".strip()


class _StopError(Exception):
    """An ``Err`` raised inside the worker thread and returned by ``send``."""

    def __init__(self, err: Err) -> None:
        super().__init__(err.reason)
        self.err = err


def _deliver(envelope: _Envelope, settings: EmailSettings, context: ssl.SSLContext) -> SentMail:
    host = settings.host
    assert host is not None
    where = f"{host}:{settings.port}"
    smtp: smtplib.SMTP
    if settings.security == "ssl":
        smtp = smtplib.SMTP_SSL(
            host, settings.port, local_hostname=_local_hostname(), timeout=settings.timeout_s, context=context
        )
    else:
        smtp = smtplib.SMTP(host, settings.port, local_hostname=_local_hostname(), timeout=settings.timeout_s)
    with smtp:
        smtp.ehlo()
        if settings.security == "starttls":
            if not smtp.has_extn("starttls"):
                raise _StopError(
                    Err(
                        ErrorCode.UNAVAILABLE,
                        f"the SMTP server at {where} does not offer STARTTLS, so nothing was sent "
                        "(findesk never falls back to plaintext); use its TLS port with "
                        '[email] security = "ssl", or security = "none" for a trusted local relay',
                        source="mail",
                    )
                )
            smtp.starttls(context=context)
            smtp.ehlo()
        if settings.username:
            if settings.password is None:
                raise _StopError(
                    Err(
                        ErrorCode.NOT_CONFIGURED,
                        "[email] username is set but no password: set [email] password "
                        "(or FINDESK_EMAIL__PASSWORD)",
                        source="mail",
                    )
                )
            smtp.login(settings.username, settings.password.get_secret_value())
        refused_raw = smtp.sendmail(envelope.sender, envelope.recipients, envelope.data)
    refused = {addr: _reply(code, msg) for addr, (code, msg) in refused_raw.items()}
    return SentMail(
        accepted=[r for r in envelope.recipients if r not in refused],
        refused=refused,
        server=where,
        security=settings.security,
        message_id=envelope.message_id,
    )


def _explain(exc: BaseException, settings: EmailSettings) -> Err:
    """A failed delivery as an ``Err`` a person can act on."""
    where = f"{settings.host}:{settings.port}"

    def err(code: ErrorCode, reason: str) -> Err:
        return Err(code, reason, source="mail", details={"server": where})

    if isinstance(exc, _StopError):
        return exc.err
    if isinstance(exc, smtplib.SMTPAuthenticationError):
        return err(
            ErrorCode.UNAUTHORIZED,
            f"the SMTP server at {where} refused the login of {settings.username!r} "
            f"({_reply(exc.smtp_code, exc.smtp_error)}): check [email] username and password",
        )
    if isinstance(exc, smtplib.SMTPNotSupportedError):
        return err(
            ErrorCode.NOT_CONFIGURED,
            f"the SMTP server at {where} does not support what was asked ({exc}); if it takes no "
            "login, leave [email] username unset",
        )
    if isinstance(exc, smtplib.SMTPRecipientsRefused):
        refused = {addr: _reply(code, msg) for addr, (code, msg) in exc.recipients.items()}
        listed = "; ".join(f"{addr}: {answer}" for addr, answer in refused.items())
        return Err(
            ErrorCode.INVALID_INPUT,
            f"the SMTP server at {where} refused every recipient, nothing was sent ({listed})",
            source="mail",
            details={"server": where, "refused": refused},
        )
    if isinstance(exc, smtplib.SMTPSenderRefused):
        return err(
            ErrorCode.INVALID_INPUT,
            f"the SMTP server at {where} refused the sender {exc.sender!r} "
            f"({_reply(exc.smtp_code, exc.smtp_error)}): is [email] sender an address this login may use?",
        )
    if isinstance(exc, smtplib.SMTPResponseException):
        return err(
            ErrorCode.UNAVAILABLE,
            f"the SMTP server at {where} answered {_reply(exc.smtp_code, exc.smtp_error)}",
        )
    if isinstance(exc, smtplib.SMTPServerDisconnected):
        return err(ErrorCode.UNAVAILABLE, f"the SMTP server at {where} closed the connection ({exc})")
    if isinstance(exc, smtplib.SMTPException):
        return err(ErrorCode.UNAVAILABLE, f"SMTP with {where} failed: {exc}")
    if isinstance(exc, ssl.SSLCertVerificationError):
        return err(
            ErrorCode.UNAVAILABLE,
            f"the TLS certificate of {where} could not be verified ({exc.verify_message}); if the "
            "relay uses a private CA, point [email] ca_file at it",
        )
    if isinstance(exc, ssl.SSLError):
        return err(
            ErrorCode.UNAVAILABLE,
            f"the TLS handshake with {where} failed ({exc.reason or exc}); is [email] security right for "
            'this port ("ssl" is usually port 465, "starttls" port 587)?',
        )
    if isinstance(exc, TimeoutError):
        return err(
            ErrorCode.TIMEOUT,
            f"the SMTP server at {where} did not answer within {settings.timeout_s:g} s",
        )
    if isinstance(exc, ConnectionRefusedError):
        return err(
            ErrorCode.UNAVAILABLE,
            f"connection to the SMTP server at {where} was refused: is it running, and are [email] "
            "host and port right?",
        )
    if isinstance(exc, socket.gaierror):
        return err(ErrorCode.UNAVAILABLE, f"cannot resolve the SMTP host {settings.host!r}: {exc}")
    if isinstance(exc, OSError):
        return err(ErrorCode.UNAVAILABLE, f"cannot reach the SMTP server at {where}: {exc}")
    return err(ErrorCode.UNAVAILABLE, f"sending through {where} failed: {type(exc).__name__}: {exc}")


def _scrubbed(err: Err, settings: EmailSettings) -> Err:
    """``err`` with every form of the password that could appear in a server's answer masked."""
    if settings.password is None:
        return err
    secret = settings.password.get_secret_value()
    if not secret:
        return err
    user = settings.username or ""
    forms = {
        secret,
        base64.b64encode(secret.encode()).decode(),
        base64.b64encode(f"\0{user}\0{secret}".encode()).decode(),
    }

    def clean(text: str) -> str:
        for form in sorted(forms, key=len, reverse=True):
            text = text.replace(form, "***")
        return text

    details: dict[str, Any] = {}
    for key, value in err.details.items():
        if isinstance(value, str):
            value = clean(value)
        elif isinstance(value, dict):
            value = {k: clean(v) if isinstance(v, str) else v for k, v in value.items()}
        details[key] = value
    return Err(err.code, clean(err.reason), err.source, details)


async def send(message: EmailMessage, settings: EmailSettings) -> Result[SentMail]:
    """Deliver ``message`` through the configured SMTP server (see the module rules); the envelope
    recipients are its To, Cc and Bcc addresses, and Bcc is not sent. Never raises for a failed
    delivery: ``Ok(SentMail)`` lists the recipients the server accepted and any it refused."""
    if not settings.host:
        return Err(
            ErrorCode.NOT_CONFIGURED,
            'no SMTP server is configured: set [email] host (and port, security = "starttls" | "ssl" | '
            '"none", username, password, sender) in findesk.toml, or FINDESK_EMAIL__HOST, '
            "FINDESK_EMAIL__PORT, FINDESK_EMAIL__USERNAME, FINDESK_EMAIL__PASSWORD in the environment",
            source="mail",
        )
    envelope = _envelope(message)
    if isinstance(envelope, Err):
        return envelope
    try:
        context = ssl.create_default_context()
        if settings.ca_file is not None:
            context.load_verify_locations(cafile=str(settings.ca_file))
    except (OSError, ssl.SSLError) as exc:
        return Err(
            ErrorCode.NOT_CONFIGURED,
            f"cannot load [email] ca_file {settings.ca_file}: {exc}",
            source="mail",
        )
    try:
        sent = await asyncio.to_thread(_deliver, envelope.value, settings, context)
    except Exception as exc:  # every failure of a delivery is data, see _explain
        return _scrubbed(_explain(exc, settings), settings)
    return Ok(sent)
