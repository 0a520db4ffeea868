"""Report email against a real SMTP server (aiosmtpd on 127.0.0.1, a CA and certificate made here):
the composed message reads back whole (bodies, inline chart by Content-ID, attachment bytes), it is
delivered over STARTTLS and implicit TLS with a login, and every failure (wrong password, nothing
listening, no STARTTLS, header injection, no host) is an ``Err`` that says why and never shows the
password. Every test talks to 127.0.0.1 only and is bounded by a few seconds."""

from __future__ import annotations

import asyncio
import datetime as dt
import email
import ipaddress
import json
import socket
import ssl
from collections.abc import Iterator
from dataclasses import dataclass, field
from email import policy
from email.message import EmailMessage
from pathlib import Path
from typing import Any

import pytest
from aiosmtpd.controller import Controller
from aiosmtpd.smtp import SMTP, AuthResult, Envelope, LoginPassword, Session
from cryptography import x509
from cryptography.hazmat.primitives import hashes, serialization
from cryptography.hazmat.primitives.asymmetric import ec
from cryptography.x509.oid import ExtendedKeyUsageOID, NameOID

from findesk.core.config import EmailSettings, Settings, masked_settings
from findesk.core.mail import (
    MAX_RECIPIENTS,
    Attachment,
    SentMail,
    check_address,
    compose,
    send,
    write_eml,
)
from findesk.core.result import Err, ErrorCode, Ok, Result

USER = "desk"
PASSWORD = "s3cret-Pa55w0rd!"
WRONG_PASSWORD = "not-the-Pa55w0rd?"
PNG = b"\x89PNG\r\n\x1a\n" + bytes(range(256)) * 4  # the bytes matter, not the picture
PDF = b"%PDF-1.7\n" + bytes(range(255, -1, -1)) * 40 + b"\n%%EOF\n"
HTML = '<html><body><h1>Weekly desk</h1><p>SPY closed up.</p><img src="cid:chart-spy"></body></html>'
TEXT = "Weekly desk\n\nSPY closed up. (The chart is in the HTML version.)\n"
SUBJECT = "Weekly desk — SPY & QQQ, été 2025 ☀"
SEND_BOUND_S = 10.0  # no test waits longer than this for a delivery


# ---------------------------------------------------------------------------------------------------
# a CA and a server certificate for 127.0.0.1 / localhost, made once per module


@dataclass(frozen=True)
class Certs:
    ca_file: Path
    cert_file: Path
    key_file: Path


def _name(common_name: str) -> x509.Name:
    return x509.Name([x509.NameAttribute(NameOID.COMMON_NAME, common_name)])


@pytest.fixture(scope="module")
def certs(tmp_path_factory: pytest.TempPathFactory) -> Certs:
    folder = tmp_path_factory.mktemp("tls")
    now = dt.datetime.now(dt.UTC)
    ca_key = ec.generate_private_key(ec.SECP256R1())
    ca_cert = (
        x509.CertificateBuilder()
        .subject_name(_name("findesk test CA"))
        .issuer_name(_name("findesk test CA"))
        .public_key(ca_key.public_key())
        .serial_number(x509.random_serial_number())
        .not_valid_before(now - dt.timedelta(minutes=5))
        .not_valid_after(now + dt.timedelta(days=1))
        .add_extension(x509.BasicConstraints(ca=True, path_length=0), critical=True)
        .add_extension(
            x509.KeyUsage(
                digital_signature=False,
                content_commitment=False,
                key_encipherment=False,
                data_encipherment=False,
                key_agreement=False,
                key_cert_sign=True,
                crl_sign=True,
                encipher_only=False,
                decipher_only=False,
            ),
            critical=True,
        )
        .add_extension(x509.SubjectKeyIdentifier.from_public_key(ca_key.public_key()), critical=False)
        .sign(ca_key, hashes.SHA256())
    )
    key = ec.generate_private_key(ec.SECP256R1())
    cert = (
        x509.CertificateBuilder()
        .subject_name(_name("localhost"))
        .issuer_name(ca_cert.subject)
        .public_key(key.public_key())
        .serial_number(x509.random_serial_number())
        .not_valid_before(now - dt.timedelta(minutes=5))
        .not_valid_after(now + dt.timedelta(days=1))
        .add_extension(
            x509.SubjectAlternativeName(
                [x509.DNSName("localhost"), x509.IPAddress(ipaddress.ip_address("127.0.0.1"))]
            ),
            critical=False,
        )
        .add_extension(x509.BasicConstraints(ca=False, path_length=None), critical=True)
        .add_extension(x509.ExtendedKeyUsage([ExtendedKeyUsageOID.SERVER_AUTH]), critical=False)
        .add_extension(x509.SubjectKeyIdentifier.from_public_key(key.public_key()), critical=False)
        .add_extension(
            x509.AuthorityKeyIdentifier.from_issuer_public_key(ca_key.public_key()), critical=False
        )
        .sign(ca_key, hashes.SHA256())
    )
    out = Certs(folder / "ca.pem", folder / "server.pem", folder / "server.key")
    out.ca_file.write_bytes(ca_cert.public_bytes(serialization.Encoding.PEM))
    out.cert_file.write_bytes(cert.public_bytes(serialization.Encoding.PEM))
    out.key_file.write_bytes(
        key.private_bytes(
            serialization.Encoding.PEM,
            serialization.PrivateFormat.PKCS8,
            serialization.NoEncryption(),
        )
    )
    return out


def _server_tls(certs: Certs) -> ssl.SSLContext:
    context = ssl.create_default_context(ssl.Purpose.CLIENT_AUTH)
    context.load_cert_chain(certs.cert_file, certs.key_file)
    return context


# ---------------------------------------------------------------------------------------------------
# the SMTP server


@dataclass
class Received:
    mail_from: str
    rcpt_tos: list[str]
    content: bytes

    def message(self) -> EmailMessage:
        parsed = email.message_from_bytes(self.content, policy=policy.default)
        assert isinstance(parsed, EmailMessage)
        return parsed


@dataclass
class Handler:
    """Keeps what it receives; refuses recipients at ``refuse.example.com``."""

    received: list[Received] = field(default_factory=list)

    async def handle_RCPT(
        self, server: SMTP, session: Session, envelope: Envelope, address: str, rcpt_options: list[str]
    ) -> str:
        if address.endswith("@refuse.example.com"):
            return "550 5.1.1 no such mailbox here"
        envelope.rcpt_tos.append(address)
        return "250 OK"

    async def handle_DATA(self, server: SMTP, session: Session, envelope: Envelope) -> str:
        content = envelope.original_content or envelope.content
        assert isinstance(content, bytes)
        self.received.append(Received(str(envelope.mail_from), list(envelope.rcpt_tos), content))
        return "250 Message accepted for delivery"


@dataclass
class Authenticator:
    """Accepts ``USER`` / ``PASSWORD`` and remembers every attempt."""

    attempts: list[tuple[str, str]] = field(default_factory=list)

    def __call__(
        self, server: SMTP, session: Session, envelope: Envelope, mechanism: str, auth_data: Any
    ) -> AuthResult:
        assert isinstance(auth_data, LoginPassword)
        login, password = auth_data.login.decode(), auth_data.password.decode()
        self.attempts.append((mechanism, login))
        # handled=False: the server answers 535 itself (the default, True, leaves the client waiting)
        return AuthResult(success=(login, password) == (USER, PASSWORD), handled=False)


@dataclass
class Server:
    port: int
    handler: Handler
    auth: Authenticator

    def settings(self, **overrides: Any) -> EmailSettings:
        values: dict[str, Any] = {
            "host": "127.0.0.1",
            "port": self.port,
            "username": USER,
            "password": PASSWORD,
            "sender": "desk@example.com",
            "timeout_s": 5,
            **overrides,
        }
        return EmailSettings(**values)


def _free_port() -> int:
    """A port nothing listens on right now (``Controller(port=0)`` cannot tell which one it got)."""
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as sock:
        sock.bind(("127.0.0.1", 0))
        port: int = sock.getsockname()[1]
        return port


def _serve(**smtp_kwargs: Any) -> Iterator[Server]:
    handler, auth = Handler(), Authenticator()
    port = _free_port()
    controller = Controller(
        handler,
        hostname="127.0.0.1",
        port=port,
        server_hostname="localhost",  # else the banner name is looked up with socket.getfqdn()
        ready_timeout=5.0,
        authenticator=auth,
        **smtp_kwargs,
    )
    controller.start()
    try:
        yield Server(port, handler, auth)
    finally:
        controller.stop()


@pytest.fixture
def starttls_server(certs: Certs) -> Iterator[Server]:
    """Plain port that offers STARTTLS and offers AUTH only after it."""
    yield from _serve(tls_context=_server_tls(certs), auth_require_tls=True)


@pytest.fixture
def tls_server(certs: Certs) -> Iterator[Server]:
    """Implicit TLS from the first byte (port 465 style); AUTH on that already encrypted session."""
    yield from _serve(ssl_context=_server_tls(certs), auth_require_tls=False)


@pytest.fixture
def plain_server() -> Iterator[Server]:
    """No TLS at all: offers neither STARTTLS nor (so) AUTH."""
    yield from _serve(auth_require_tls=True)


async def _send(message: EmailMessage, settings: EmailSettings) -> Result[SentMail]:
    return await asyncio.wait_for(send(message, settings), timeout=SEND_BOUND_S)


# ---------------------------------------------------------------------------------------------------
# the message


def _report(**overrides: Any) -> Result[EmailMessage]:
    values: dict[str, Any] = {
        "subject": SUBJECT,
        "sender": "Findesk Desk <desk@example.com>",
        "to": ["Ana Analyst <ana@example.com>", "bo@example.org"],
        "html": HTML,
        "text": TEXT,
        "inline": [
            Attachment(filename="spy-chart.png", content=PNG, mime_type="image/png", inline_cid="chart-spy")
        ],
        "attachments": [Attachment(filename="rapport hebdo é.pdf", content=PDF, mime_type="application/pdf")],
        "date": dt.datetime(2025, 8, 29, 17, 30, tzinfo=dt.UTC),
        "message_id_domain": "desk.example.com",
        **overrides,
    }
    return compose(**values)


def _check_report(parsed: EmailMessage) -> None:
    """The composed report, read back from bytes, holds everything it was given."""
    assert parsed["Subject"] == SUBJECT
    assert parsed["From"].addresses[0].addr_spec == "desk@example.com"
    assert parsed["From"].addresses[0].display_name == "Findesk Desk"
    assert [a.addr_spec for a in parsed["To"].addresses] == ["ana@example.com", "bo@example.org"]
    assert parsed["Message-ID"].startswith("<") and parsed["Message-ID"].endswith("@desk.example.com>")
    assert parsed["Date"].datetime == dt.datetime(2025, 8, 29, 17, 30, tzinfo=dt.UTC)
    assert parsed.get_content_type() == "multipart/mixed"

    text_part = parsed.get_body(("plain",))
    html_part = parsed.get_body(("html",))
    assert text_part is not None and html_part is not None
    # parsed from wire bytes, decoded quoted-printable keeps the CRLF line ends
    assert text_part.get_content().replace("\r\n", "\n") == TEXT
    assert html_part.get_content().strip() == HTML

    images = [p for p in parsed.walk() if p.get_content_type() == "image/png"]
    assert len(images) == 1
    chart = images[0]
    assert chart["Content-ID"] == "<chart-spy>"
    assert chart.get_content_disposition() == "inline"
    assert chart.get_content() == PNG
    assert "cid:chart-spy" in html_part.get_content()  # the HTML shows that very part
    related = next(p for p in parsed.walk() if p.get_content_type() == "multipart/related")
    assert chart in list(related.iter_parts())

    attachments = list(parsed.iter_attachments())
    assert len(attachments) == 1
    assert attachments[0].get_filename() == "rapport hebdo é.pdf"
    assert attachments[0].get_content_type() == "application/pdf"
    assert attachments[0].get_content() == PDF


def test_compose_and_write_eml_read_back_whole(tmp_path: Path) -> None:
    message = _report().unwrap()
    out = write_eml(message, tmp_path / "out" / "report.eml")
    assert out == Ok(tmp_path / "out" / "report.eml")
    raw = out.unwrap().read_bytes()
    assert b"\r\n" in raw and b"\n" not in raw.replace(b"\r\n", b"")  # CRLF throughout, as sent
    assert raw.isascii()  # non-ASCII subject and filename are encoded
    assert [p.name for p in (tmp_path / "out").iterdir()] == ["report.eml"]  # no temp file left
    parsed = email.message_from_bytes(raw, policy=policy.default)
    assert isinstance(parsed, EmailMessage)
    _check_report(parsed)


def test_write_eml_replaces_an_old_file_and_reports_an_unwritable_path(tmp_path: Path) -> None:
    target = tmp_path / "report.eml"
    target.write_bytes(b"old")
    assert isinstance(write_eml(_report().unwrap(), target), Ok)
    assert target.read_bytes().startswith(b"Subject:")
    blocker = tmp_path / "file"
    blocker.write_text("not a folder")
    failed = write_eml(_report().unwrap(), blocker / "report.eml")
    assert isinstance(failed, Err) and failed.code is ErrorCode.UNAVAILABLE
    assert "cannot write" in failed.reason


@pytest.mark.parametrize(
    ("overrides", "field"),
    [
        ({"subject": "Report\r\nBcc: victim@example.net"}, "subject"),
        ({"subject": "Report\nX-Injected: yes"}, "subject"),
        ({"to": ["ana@example.com\r\nBcc: victim@example.net"]}, "to[0]"),
        ({"to": ["ok@example.com", "ana@example.com\nCc: victim@example.net"]}, "to[1]"),
        ({"to": ["ana@example.com, victim@example.net"]}, "to[0]"),
        ({"to": ["alice@example.org)<bob@example.org>"]}, "to[0]"),
        ({"sender": "desk@example.com\r\nReply-To: evil@example.net"}, "sender"),
        (
            {"attachments": [Attachment(filename="a.pdf\r\nX-Evil: 1", content=b"x")]},
            "attachments[0].filename",
        ),
        ({"attachments": [Attachment(filename="../../etc/passwd", content=b"x")]}, "attachments[0].filename"),
        ({"attachments": [Attachment(filename="a.bin", content=b"x", mime_type="a/b\r\nX: y")]}, "mime_type"),
        (
            {
                "inline": [
                    Attachment(filename="c.png", content=PNG, mime_type="image/png", inline_cid="a>\r\n")
                ]
            },
            "inline[0].inline_cid",
        ),
        ({"inline": [Attachment(filename="c.png", content=PNG, mime_type="image/png")]}, "inline_cid"),
        ({"to": []}, "to"),
        ({"to": [f"r{i}@example.com" for i in range(MAX_RECIPIENTS + 1)]}, "to"),
        (
            {"attachments": [Attachment(filename="big.bin", content=b"\0" * (10 * 1024 * 1024 + 1))]},
            "attachments",
        ),
        ({"date": dt.datetime(2025, 8, 29, 17, 30)}, "date"),
    ],
)
def test_unsafe_or_wrong_input_is_invalid_input_naming_the_field(
    overrides: dict[str, Any], field: str
) -> None:
    result = _report(**overrides)
    assert isinstance(result, Err), result
    assert result.code is ErrorCode.INVALID_INPUT
    assert field in result.reason


def test_check_address_normalises_one_address_and_refuses_the_rest() -> None:
    assert check_address(" ana@example.com ") == Ok("ana@example.com")
    assert check_address("Zoë Ö <zoe@example.com>") == Ok("Zoë Ö <zoe@example.com>")
    for bad in ("", "ana", "ana@", "@example.com", "a@b@example.com", "<ana@example.com", "ana@exa mple.com"):
        assert isinstance(check_address(bad), Err), bad


# ---------------------------------------------------------------------------------------------------
# delivery


async def test_delivery_over_starttls_with_login(starttls_server: Server, certs: Certs) -> None:
    message = _report(to=["Ana Analyst <ana@example.com>", "bo@example.org"]).unwrap()
    message["Bcc"] = "hidden@example.net"
    result = await _send(message, starttls_server.settings(security="starttls", ca_file=certs.ca_file))
    assert isinstance(result, Ok), result
    sent = result.value
    assert sent.accepted == ["ana@example.com", "bo@example.org", "hidden@example.net"]
    assert sent.refused == {}
    assert sent.server == f"127.0.0.1:{starttls_server.port}"
    assert sent.security == "starttls"
    assert sent.message_id == message["Message-ID"]
    assert [user for _, user in starttls_server.auth.attempts] == [USER]

    [got] = starttls_server.handler.received
    assert got.mail_from == "desk@example.com"
    assert got.rcpt_tos == ["ana@example.com", "bo@example.org", "hidden@example.net"]
    assert b"hidden@example.net" not in got.content  # Bcc is envelope only
    received = got.message()
    del received["Bcc"]
    _check_report(received)
    assert received["Message-ID"] == message["Message-ID"]


async def test_delivery_over_implicit_tls_with_login(tls_server: Server, certs: Certs) -> None:
    message = _report().unwrap()
    result = await _send(message, tls_server.settings(security="ssl", ca_file=certs.ca_file))
    assert isinstance(result, Ok), result
    assert result.value.security == "ssl"
    assert tls_server.auth.attempts and tls_server.auth.attempts[0][1] == USER
    [got] = tls_server.handler.received
    _check_report(got.message())


async def test_a_refused_recipient_is_reported_and_the_rest_delivered(
    starttls_server: Server, certs: Certs
) -> None:
    message = _report(to=["ana@example.com", "ghost@refuse.example.com"]).unwrap()
    result = await _send(message, starttls_server.settings(ca_file=certs.ca_file))
    assert isinstance(result, Ok), result
    assert result.value.accepted == ["ana@example.com"]
    assert list(result.value.refused) == ["ghost@refuse.example.com"]
    assert "550" in result.value.refused["ghost@refuse.example.com"]
    every = await _send(
        _report(to=["ghost@refuse.example.com"]).unwrap(), starttls_server.settings(ca_file=certs.ca_file)
    )
    assert isinstance(every, Err) and every.code is ErrorCode.INVALID_INPUT
    assert "refused every recipient" in every.reason and "ghost@refuse.example.com" in every.reason


async def test_wrong_password_is_unauthorized_and_never_shows_the_password(
    starttls_server: Server, certs: Certs
) -> None:
    settings = starttls_server.settings(password=WRONG_PASSWORD, ca_file=certs.ca_file)
    result = await _send(_report().unwrap(), settings)
    assert isinstance(result, Err), result
    assert result.code is ErrorCode.UNAUTHORIZED
    assert "refused the login" in result.reason and USER in result.reason and "535" in result.reason
    shown = json.dumps(result.to_dict()) + result.message() + repr(result)
    assert WRONG_PASSWORD not in shown and PASSWORD not in shown
    assert starttls_server.handler.received == []


async def test_an_untrusted_certificate_is_refused(starttls_server: Server) -> None:
    result = await _send(_report().unwrap(), starttls_server.settings())  # no ca_file: self-made CA
    assert isinstance(result, Err), result
    assert result.code is ErrorCode.UNAVAILABLE
    assert "could not be verified" in result.reason and "ca_file" in result.reason
    assert starttls_server.auth.attempts == [] and starttls_server.handler.received == []


async def test_no_server_listening_is_a_connection_error() -> None:
    port = _free_port()  # bound, then closed: nothing listens there
    settings = EmailSettings(host="127.0.0.1", port=port, username=USER, password=PASSWORD, timeout_s=3)
    result = await _send(_report().unwrap(), settings)
    assert isinstance(result, Err), result
    assert result.code is ErrorCode.UNAVAILABLE
    assert "refused" in result.reason and f"127.0.0.1:{port}" in result.reason
    assert PASSWORD not in result.reason


async def test_no_starttls_offered_means_nothing_sent_and_no_plaintext_login(plain_server: Server) -> None:
    result = await _send(_report().unwrap(), plain_server.settings(security="starttls"))
    assert isinstance(result, Err), result
    assert result.code is ErrorCode.UNAVAILABLE
    assert "does not offer STARTTLS" in result.reason
    assert plain_server.auth.attempts == []
    assert plain_server.handler.received == []


async def test_security_none_without_login_delivers_to_a_plain_relay(plain_server: Server) -> None:
    settings = plain_server.settings(security="none", username=None, password=None)
    result = await _send(_report().unwrap(), settings)
    assert isinstance(result, Ok), result
    _check_report(plain_server.handler.received[0].message())


async def test_no_host_configured_is_not_configured_and_says_how() -> None:
    result = await _send(_report().unwrap(), EmailSettings())
    assert isinstance(result, Err)
    assert result.code is ErrorCode.NOT_CONFIGURED
    assert "[email] host" in result.reason and "FINDESK_EMAIL__HOST" in result.reason


@pytest.mark.parametrize(
    ("header", "value"),
    [
        ("To", "ana@example.com\r\nBcc: victim@example.net"),
        ("To", "ana@example.com\nBcc: victim@example.net"),
        ("Subject", "Weekly\r\nBcc: victim@example.net"),
    ],
)
async def test_a_message_built_elsewhere_with_an_injected_header_is_not_sent(
    starttls_server: Server, certs: Certs, header: str, value: str
) -> None:
    message = EmailMessage(policy=policy.compat32)  # compat32 lets a raw header value through unchecked
    message["From"] = "desk@example.com"
    message["To"] = "ana@example.com"
    del message[header]
    message[header] = value
    message.set_payload("hi")
    result = await _send(message, starttls_server.settings(ca_file=certs.ca_file))
    assert isinstance(result, Err), result
    assert result.code is ErrorCode.INVALID_INPUT and f"message.{header}" in result.reason
    assert starttls_server.auth.attempts == [] and starttls_server.handler.received == []


# ---------------------------------------------------------------------------------------------------
# settings


def test_email_settings_from_env_and_masked(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("FINDESK_EMAIL__HOST", "smtp.example.com")
    monkeypatch.setenv("FINDESK_EMAIL__PORT", "465")
    monkeypatch.setenv("FINDESK_EMAIL__SECURITY", "ssl")
    monkeypatch.setenv("FINDESK_EMAIL__USERNAME", USER)
    monkeypatch.setenv("FINDESK_EMAIL__PASSWORD", PASSWORD)
    monkeypatch.setenv("FINDESK_EMAIL__TO", '["ana@example.com", "bo@example.org"]')
    settings = Settings()
    assert settings.email.host == "smtp.example.com" and settings.email.port == 465
    assert settings.email.security == "ssl" and settings.email.to == ["ana@example.com", "bo@example.org"]
    assert settings.email.password is not None and settings.email.password.get_secret_value() == PASSWORD
    shown = masked_settings(settings)
    assert shown["email"]["password"] == "***"
    assert shown["email"]["username"] == USER and shown["email"]["host"] == "smtp.example.com"
    assert PASSWORD not in json.dumps(shown) and PASSWORD not in repr(settings)


@pytest.mark.parametrize(
    "overrides",
    [{"port": 0}, {"port": 70000}, {"timeout_s": 0}, {"timeout_s": float("nan")}, {"security": "tls"}],
)
def test_nonsense_email_numbers_are_refused(overrides: dict[str, Any]) -> None:
    with pytest.raises(ValueError):
        EmailSettings(**overrides)
