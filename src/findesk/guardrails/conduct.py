"""Requests for help with financial misconduct are refused: evading sanctions or anti-money-laundering
controls, laundering, structuring deposits, trading on inside information, manipulating a market.

Rules this module keeps:
- Pure; never raises; matching is on folded text (``text_fold.fold``).
- A pattern needs the *help* form — a purpose of evading or hiding ("so OFAC can't trace it", "without
  the bank reporting"), or an act of misconduct put to us ("how do I launder", "help me pump") — and
  the asker's own act (first person, or a how-to put to us), never a bare topic or someone else's act:
  "is Tornado Cash sanctioned?", "what is structuring?", "how did Binance evade sanctions?", "how do
  banks detect structuring to avoid CTR reporting?" are research and are answered.
"""

from __future__ import annotations

import re

from findesk.guardrails.text_fold import fold

REFUSAL = (
    "findesk does not help with evading sanctions or anti-money-laundering controls, laundering or "
    "hiding funds, structuring deposits, trading on inside information or manipulating a market. It "
    "can screen an address or a name against the OFAC lists, trace recorded transfers, and explain the "
    "rules with sources; it gives no legal or compliance advice."
)

_PATTERNS = (
    # a purpose of escaping screening or reporting
    r"\b(?:so|so that|without|avoid(?:ing)?|evade|evading|dodge|dodging|bypass(?:ing)?|get(?:ting)? around"
    r"|circumvent(?:ing)?|slip(?:ping)? past|hide|hiding|conceal(?:ing)?|obscure|obscuring|under the radar"
    r"|undetected)\b(?: \w+){0,6} (?:ofac|sanctions?|sanctioned|aml|kyc|compliance|the irs|irs|fincen"
    r"|reporting|a report|reported|a sar|sars|ctr|ctrs|detection|detected|traced|trace|tracing|the bank|"
    r"regulators?|authorities|the sec|law enforcement|the feds)\b",
    r"\b(?:ofac|regulators?|the bank|the irs|authorities|the sec|anyone|they|compliance)(?: \w+){0,3} "
    r"(?:can t|cannot|can not|won t|will not|doesn t|does not|don t|wont|cant) (?:trace|track|see|find"
    r"|detect|notice|flag|report|follow)\b",
    r"\bhow (?:do|can|could|should|would) (?:i|we|you|one|someone)(?: \w+){0,3} (?:launder|wash|clean)\b",
    r"\b(?:launder|laundering) (?:my |our |the |this |some |dirty )?(?:money|funds|crypto|cash|proceeds"
    r"|coins|bitcoin|eth)\b",
    r"\b(?:split|structure|break up|divide)(?: \w+){0,5} (?:deposits?|withdrawals?|transfers?"
    r"|cash)(?: \w+){0,8}"
    r" (?:report|reporting|10 ?000|10k|ctr|flag|flagged|notice|detection)\b",
    r"\b(?:insider|inside|non ?public|confidential) (?:info|information|tip|tips|knowledge"
    r"|news)\b(?: \w+){0,10}"
    r" (?:trade|trading|buy|sell|short|profit|options|make money)\b",
    r"\b(?:trade|trading|buy|sell|short|profit)(?: \w+){0,6} (?:on|using|with) (?:that |this |the |some |my |"
    r"our )?(?:insider|inside|non ?public"
    r"|confidential) (?:info|information|tips?|knowledge)\b",
    r"\bhow (?:do|can|could|should) (?:i|we)(?: \w+){0,3} (?:pump|manipulate|spoof|front ?run"
    r"|wash trade|corner)\b",
    r"\bhelp (?:me|us) (?:\w+ ){0,3}(?:pump|manipulate|spoof|front ?run|wash trade|launder|evade|dodge)\b",
    r"\b(?:pump and dump|pump n dump|pump it|pump (?:the|this|a) (?:stock|coin|token"
    r"|price))\b(?=(?: \w+){0,15} (?:me|i|we|us|our|my)\b)",
    r"\b(?:write|draft|create|generate|make)(?: \w+){0,4} (?:fake|bot|sock ?puppet|misleading|false)"
    r" (?:posts?|reviews?|accounts?|news|rumou?rs?|tweets?|comments?)\b",
    r"\b(?:mix|tumble|mixer|tumbler|tornado cash)\b(?: \w+){0,6} (?:to|so) (?:hide|clean|obscure|break|"
    r"avoid|evade|launder)\b",
    r"\b(?:evade|evading|avoid paying|dodge|dodging|hide income from) (?:taxes|tax|the irs)\b",
)
_RULES = tuple(re.compile(p) for p in _PATTERNS)
# The asker's own act: "I", "we", "my" … or a how-to put to us ("how to launder", "help me", "write …").
# "How did Binance evade sanctions?" and "How do banks detect structuring?" are research about others.
_AGENCY = re.compile(
    r"\b(?:i|we|my|our|me|us|myself|ourselves|im|ive|id)\b|^(?:how to|help|show|teach|tell me how"
    r"|explain how to|give me|write|draft|create|make|generate|best way to|ways to|what s the best way to"
    r"|whats the best way to|is there a way to|can you)\b|\bbest (?:\w+ )?to\b"
)


def misconduct(text: str) -> str | None:
    """The words that ask for help with misconduct (an act of the asker's own), or None."""
    if not isinstance(text, str):
        return None
    folded = fold(text)
    if not _AGENCY.search(folded):
        return None
    for rule in _RULES:
        found = rule.search(folded)
        if found:
            return found.group(0)
    return None
