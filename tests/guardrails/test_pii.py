"""PII redaction: what a user of the desk might paste (emails, phones, cards, SSNs, accounts, wallet
keys, seed phrases) is removed and named; the desk's own figures and identifiers are left alone."""

from __future__ import annotations

import statistics
import time

import pytest
from mnemonic import Mnemonic

from findesk.guardrails.pii import TOKENS, PiiHit, PiiKind, redact, removal_warnings, scrub_output

# Public test vectors (BIP32/BIP39/Bitcoin wiki), not anyone's keys.
WIF_UNCOMPRESSED = "5HueCGU8rMjxEXxiPuD5BDku4MkFqeZyd4dZ1jvhTVqvbTLvyTJ"
WIF_COMPRESSED = "KwDiBf89QgGbjEhKnhXJuH7LrciVrZi3qYjgd9M7rFU73sVHnoWn"
XPRV = (
    "xprv9s21ZrQH143K3QTDL4LXw2F7HEK3wJUD2nW2nRk4stbPy6cq3jPPqjiChkVvvNKmPGJxWUtg6LnF5kejMRNNU3TGtRBeJgk33yu"
    "GBxrMPHi"
)
HEX_KEY = "0x4c0883a69102937d6231471b5dbb6204fe5129617082792ae468d01a3f362318"
SEED_12 = "abandon abandon abandon abandon abandon abandon abandon abandon abandon abandon abandon about"


def _phrase(words: int) -> str:
    """A checksum-valid BIP39 phrase of ``words`` words from fixed entropy."""
    return str(Mnemonic("english").to_mnemonic(bytes(range(7, 7 + words * 4 // 3))))


def _removed(text: str, value: str, token: str, kind: str) -> None:
    r = redact(text)
    assert value not in r.text, r.text
    assert token in r.text
    assert r.kinds == [kind]
    assert any(text[h.start : h.end] == value for h in r.found)  # the span points at the original value


# ---- what is removed ------------------------------------------------------------------------------


def test_an_email_and_a_card_in_a_research_question_are_removed_and_the_question_still_reads() -> None:
    r = redact("My email is jane.doe@example.com and my card 4111 1111 1111 1111 — what is AAPL's P/E?")
    assert r.text == "My email is [email removed] and my card [card number removed] — what is AAPL's P/E?"
    assert r.kinds == ["card_number", "email"]


@pytest.mark.parametrize(
    "phone",
    [
        "(212) 555-0187",
        "212-555-0187",
        "+1 212 555 0187",
        "212.555.0187",
        "+44 20 7946 0958",
        "1-800-555-0199",
    ],
)
def test_phone_numbers_in_us_and_international_formats_are_removed(phone: str) -> None:
    _removed(
        f"You can reach me on {phone} after the close; how did MSFT trade today?",
        phone,
        "[phone removed]",
        "phone",
    )


def test_a_phone_written_with_spaces_only_is_removed_when_the_sentence_says_it_is_a_phone() -> None:
    _removed("Call me at 212 555 0187 about NVDA's Q2.", "212 555 0187", "[phone removed]", "phone")


@pytest.mark.parametrize(
    "card",
    [
        "4111 1111 1111 1111",
        "5555-5555-5555-4444",
        "378282246310005",
        "3782 822463 10005",
        "4111111111111111",
    ],
)
def test_luhn_valid_card_numbers_are_removed_with_or_without_separators(card: str) -> None:
    _removed(
        f"I paid the data vendor with {card}, can you check AAPL's margin?",
        card,
        "[card number removed]",
        "card_number",
    )


@pytest.mark.parametrize(
    "text, ssn",
    [
        ("My SSN is 123-45-6789 — does that matter for a Roth IRA?", "123-45-6789"),
        ("Client file: 123 45 6789, wants the TSLA 10-K summary.", "123 45 6789"),
        ("Her social security number is 123456789, what's her tax bracket?", "123456789"),
        ("SSN: 078051120", "078051120"),
    ],
)
def test_ssns_are_removed_and_a_bare_nine_digit_run_only_next_to_the_word_ssn(text: str, ssn: str) -> None:
    _removed(text, ssn, "[SSN removed]", "ssn")


@pytest.mark.parametrize(
    "text, account",
    [
        ("Send the report fee to IBAN GB82 WEST 1234 5698 7654 32 please.", "GB82 WEST 1234 5698 7654 32"),
        ("My German IBAN DE89370400440532013000 is on file.", "DE89370400440532013000"),
        ("My account number is 12345678, can you pull AAPL's dividend history?", "12345678"),
        ("Routing 021000021 for the wire.", "021000021"),
        ("Use acct no. 987654321 for the fee.", "987654321"),
        ("ACCOUNT #: 00123456", "00123456"),
    ],
)
def test_bank_account_numbers_and_valid_ibans_are_removed(text: str, account: str) -> None:
    _removed(text, account, "[account number removed]", "account_number")


@pytest.mark.parametrize(
    "text, key",
    [
        (f"My private key is {HEX_KEY}, is ETH up today?", HEX_KEY),
        (f"secret: {HEX_KEY[2:]}", HEX_KEY[2:]),
        (f"Imported {WIF_UNCOMPRESSED} into the wallet", WIF_UNCOMPRESSED),
        (f"Imported {WIF_COMPRESSED} into the wallet", WIF_COMPRESSED),
        (f"My xpub is fine but here is the {XPRV} too", XPRV),
    ],
)
def test_wallet_private_keys_are_removed(text: str, key: str) -> None:
    _removed(text, key, "[private key removed]", "private_key")


@pytest.mark.parametrize("words", [12, 15, 18, 21, 24])
def test_seed_phrases_of_every_bip39_length_are_removed(words: int) -> None:
    phrase = _phrase(words)
    assert len(phrase.split()) == words
    _removed(
        f"I wrote down {phrase}. Is BTC above its 200-day average?",
        phrase,
        "[seed phrase removed]",
        "seed_phrase",
    )


def test_a_seed_phrase_separated_by_commas_and_newlines_is_removed() -> None:
    phrase = ",\n".join(SEED_12.split())
    _removed(f"backup:\n{phrase}\nthanks", phrase, "[seed phrase removed]", "seed_phrase")


def test_a_longer_word_list_run_right_after_the_word_seed_is_removed() -> None:
    # 13 words is no BIP39 length and its checksum is not checked: the word "seed" before it is enough
    run = "legal winner thank year wave sausage worth useful legal winner thank yellow zoo"
    r = redact(f"my recovery phrase is: {run}")
    assert r.text == "my recovery phrase is: [seed phrase removed]"


def test_a_valid_seed_phrase_with_a_stray_word_list_word_next_to_it_is_removed() -> None:
    r = redact(f"cash {SEED_12} please")
    assert (
        r.text == "cash [seed phrase removed] please"
    )  # "cash" is a word-list word; the checksum picks the 12


SEED_WORDS = _phrase(12).split()


@pytest.mark.parametrize(
    "phrase",
    [
        " ".join(f"{n}. {w}" for n, w in enumerate(SEED_WORDS, 1)),
        "\n".join(f"{n}) {w}" for n, w in enumerate(SEED_WORDS, 1)),
        " ".join(f"{n} - {w}" for n, w in enumerate(SEED_WORDS, 1)),
        "\n".join(f"{n}. {w}" for n, w in enumerate(SEED_WORDS, 1)),
        "-".join(SEED_WORDS),
    ],
)
def test_numbered_and_hyphen_joined_seed_phrases_are_removed_with_their_numbers(phrase: str) -> None:
    r = redact(f"Seed:\n{phrase}\nIs BTC up?")
    assert r.text == "Seed:\n[seed phrase removed]\nIs BTC up?"
    assert r.kinds == ["seed_phrase"]


def test_a_numbered_run_of_13_words_right_after_recovery_words_is_removed() -> None:
    numbered = " ".join(f"{n}. {w}" for n, w in enumerate([*SEED_WORDS, "zoo"], 1))
    assert redact(f"recovery words: {numbered}").text == "recovery words: [seed phrase removed]"


@pytest.mark.parametrize(
    "text",
    [
        f"My wallet key: {HEX_KEY[2:]}",
        f"the wallet key {HEX_KEY} is on a sticky note",
        f"signing key: {HEX_KEY}",
        f"Here is the key: {HEX_KEY} for my ETH account",
        f"ethereum wallet, key={HEX_KEY[2:]}",
        f"private-key {HEX_KEY}",
        f"pk: {HEX_KEY}",
        f"PK:{HEX_KEY[2:]}",
    ],
)
def test_hex_private_keys_introduced_by_wallet_signing_key_or_pk_labels_are_removed(text: str) -> None:
    key = HEX_KEY if HEX_KEY in text else HEX_KEY[2:]
    _removed(text, key, "[private key removed]", "private_key")


@pytest.mark.parametrize(
    "text",
    [
        f"Cache key: {HEX_KEY[2:]} expired.",  # "key:" with no wallet word is a cache or API key
        f"My wallet public key: {HEX_KEY[2:]}",
        f"My wallet sent transaction {HEX_KEY} to the exchange.",
        f"Row pk 7 points at transaction {HEX_KEY}.",  # "pk" not labelling the hex
    ],
)
def test_a_64_hex_near_key_or_wallet_words_that_do_not_label_it_a_private_key_is_kept(text: str) -> None:
    assert redact(text).found == []


@pytest.mark.parametrize(
    "text, value, kind",
    [
        ("My SSN is 123.45.6789, what's my bracket?", "123.45.6789", "ssn"),
        ("Social security no. 078.05.1120 on file.", "078.05.1120", "ssn"),
        ("Paid with 4111.1111.1111.1111 last week.", "4111.1111.1111.1111", "card_number"),
        ("Card 5555.5555.5555.4444, expiry 09/27.", "5555.5555.5555.4444", "card_number"),
    ],
)
def test_ssns_and_card_numbers_written_with_dots_are_removed(text: str, value: str, kind: PiiKind) -> None:
    _removed(text, value, TOKENS[kind], kind)


@pytest.mark.parametrize(
    "text",
    [
        "Build 123.45.6789 of the model shipped with the 10-Q.",  # no SSN word: it reads as a number
        "SSN is 666.45.6789 per the form.",  # area 666 is never issued
        "SSN is 123.00.6789 per the form.",  # group 00 is never issued
        "Card 4111.1111.1111.1112 fails the Luhn check.",
    ],
)
def test_dotted_numbers_that_are_not_an_ssn_or_a_valid_card_are_kept(text: str) -> None:
    assert redact(text).found == []


def test_hits_name_the_kind_and_span_but_never_hold_the_value() -> None:
    text = "Email jane.doe@example.com, SSN 123-45-6789."
    r = redact(text)
    assert r.found == [PiiHit(kind="email", start=6, end=26), PiiHit(kind="ssn", start=32, end=43)]
    dumped = r.model_dump_json()
    assert "jane.doe" not in dumped and "6789" not in dumped


def test_kinds_are_sorted_and_distinct() -> None:
    r = redact("a@b.co and c@d.org, card 4111 1111 1111 1111, and e@f.net")
    assert len(r.found) == 4 and r.kinds == ["card_number", "email"]


def test_scrub_output_says_how_many_of_each_kind_it_removed() -> None:
    text, warnings = scrub_output("Contact jane@example.com or john@example.org, card 5555 5555 5555 4444.")
    assert text == "Contact [email removed] or [email removed], card [card number removed]."
    assert warnings == ["removed 2 email addresses from the output", "removed 1 card number from the output"]
    assert scrub_output("AAPL closed at $232.14.") == ("AAPL closed at $232.14.", [])
    assert removal_warnings(["ssn"]) == ["removed 1 SSN from the output"]


def test_odd_input_gives_empty_text_and_no_hits() -> None:
    assert redact(None).text == "" and redact(None).found == []  # type: ignore[arg-type]
    assert redact("").found == []


# ---- what is kept ---------------------------------------------------------------------------------

# Apple Inc., Form 10-K for the fiscal year ended September 28, 2024 (cover page, Item 5, Item 7).
TEN_K = (
    "Commission File Number: 001-36743 Apple Inc. California 94-2404110 (I.R.S. Employer Identification "
    "No.) The aggregate market value of the voting and non-voting stock held by non-affiliates of the "
    "Registrant, as of March 29, 2024, the last business day of the Registrant's most recently completed "
    "second fiscal quarter, was approximately $2,628,553,000,000. 15,115,823,000 shares of common stock "
    "were issued and outstanding as of October 18, 2024. Common Stock, $0.00001 par value per share AAPL; "
    "0.875% Notes due 2025. The following table shows net sales by reportable segment for 2024, 2023 and "
    "2022 (dollars in millions): 2024 Change 2023 Change 2022 Americas $ 167,045 3 % $ 162,560 (4) % "
    "$ 169,658 Europe 101,328 7 % 94,294 (1) % 95,118 Greater China 66,952 (8) % 72,559 (2) % 74,200 "
    "Japan 25,052 3 % 24,257 (7) % 25,977 Rest of Asia Pacific 30,658 4 % 29,615 1 % 29,375 Total net "
    "sales $ 391,035 2 % $ 383,285 (3) % $ 394,328. As of September 28, 2024, the Company was authorized "
    "by the Board to purchase up to $110 billion of the Company's common stock under a share repurchase "
    "program announced on May 2, 2024, of which $20.9 billion had been utilized. During 2024, the Company "
    "repurchased $95.0 billion of its common stock and paid dividends and dividend equivalents of $15.2 "
    "billion, including under plans complying with Rule 10b5-1 under the Exchange Act (§240.10D-1(b))."
)


def test_a_passage_from_a_real_10k_full_of_numbers_comes_back_unchanged() -> None:
    r = redact(TEN_K)
    assert r.text == TEN_K and r.found == []


@pytest.mark.parametrize(
    "text",
    [
        "AAPL (CIK 0000320193) filed its 10-K on 2024-11-01, accession 0000320193-24-000123.",
        "Revenue was $1,234,567.89 on 12/31/2024, up 4.5% from 2023; 15,115,823,000 shares outstanding.",
        "Compare FRED series DGS10, CPIAUCSL and T10Y2Y for 2022 through 2024.",
        "Vitalik's address 0x742d35Cc6634C0532925a3b844Bc454e4438f44e received 1,000 ETH.",
        "Send to bc1qar0srrr7xfkvy5l643lydnw9re59gtzzwf5mdq or 1A1zP1eP5QGefi2DMPTfTL5SLmv7DivfNa or "
        "3J98t1WpEZ73CNmQviecrnyiWrnqRhWNLy.",
        f"Transaction {HEX_KEY} confirmed in block 19,000,000.",
        "Segment revenue in millions by quarter: 934 812 1205, a record.",
        "Units shipped rose to 212-555-1870 thousand in fiscal 2024.",
        "Revenue by segment was 212-555-0187 across the three reporting units, the 10-K says.",
        "Years 2024 2023 2022 2021 all show growth; the 2024 total was 3910350000000.",
        "The wallet moved 46172570907217142 wei to the exchange.",
        "Apple's account of 2024 results: net sales of 391035 million.",
        "Accounts receivable rose to 33410 while the current account deficit hit 212345.",
    ],
)
def test_the_desks_figures_and_identifiers_are_kept(text: str) -> None:
    r = redact(text)
    assert (r.text, r.found) == (text, [])


@pytest.mark.parametrize(
    "text",
    [
        "Card 4111 1111 1111 1112 fails the Luhn check.",
        "Not SSNs: 000-12-3456, 666-12-3456, 900-12-3456, 123-00-4567, 123-45-0000.",
        "Order 123456789 shipped on time, per the 8-K.",
        "GB82 WEST 1234 5698 7654 33 has a bad IBAN checksum.",
        " ".join(["abandon"] * 11),
        " ".join(["abandon"] * 13),  # no seed word before it, and no 12 of it have a valid checksum
        f"{WIF_UNCOMPRESSED}x is not a key",
        " ".join(f"{n}. {w}" for n, w in enumerate(SEED_WORDS[:11], 1)),  # numbered, but one word short
        "-".join(SEED_WORDS[:11]),
        # twelve numbered items, but "revenue" is no word-list word: two short runs, not a phrase
        " ".join(f"{n}. {w}" for n, w in enumerate([*SEED_WORDS[:5], "revenue", *SEED_WORDS[6:]], 1)),
    ],
)
def test_lookalikes_that_fail_the_checks_are_kept(text: str) -> None:
    assert redact(text).found == []


# ---- speed ----------------------------------------------------------------------------------------


def test_a_2000_character_question_is_redacted_in_well_under_a_millisecond() -> None:
    question = (
        "My email is jane.doe@example.com. Compare AAPL and MSFT revenue for 2023 and 2024: AAPL reported "
        "$391,035 million and $383,285 million, MSFT $245,122 million; what drove the 4.5% change? "
    )
    question = (question * 12)[:2000]
    redact(question)  # the word list loads on first use
    runs = []
    for _ in range(30):
        t = time.perf_counter()
        redact(question)
        runs.append(time.perf_counter() - t)
    assert statistics.median(runs) < 0.001
