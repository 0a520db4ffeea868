"""Hand-written rules for prompt injection and jailbreaks, one family per kind of attack.

Rules this module keeps:
- Pure; never raises. Matching is on folded text (``text_fold.fold``), so look-alike letters,
  full-width forms and invisible characters do not hide a phrase.
- A rule needs an attack's *form* — an order to drop earlier instructions, a persona that is told to
  have no limits, a request for the hidden prompt, an order about "your response" — never a bare
  word: "instructions" in a 10-K ("instructions to Form 10-K") or "ignore" in a post is not a hit.
- Families that only make sense inside retrieved text (orders about the reader's reply, text posing
  as a system or assistant turn) run on passages only: a user may rightly say "in your answer, use
  percentages".
- Each family has a name, which is the reason shown in the audit and in a refusal.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Literal

from findesk.guardrails.text_fold import fold

Channel = Literal["input", "passage", "filing", "speech"]

_PRIOR = (
    r"(?:all |any |the |your |my |these |those |every |of |about )*"
    r"(?:previous |prior |above |earlier |preceding "
    r"|former |original |initial |old |existing |given |system |safety )*"
)
_ORDERS = (
    # not "guidance" or "context": investors ignore a company's previous guidance
    r"(?:instructions?|prompts?|rules?|directions?|directives?|guidelines?|constraints?"
    r"|restrictions?|programming|training)"
)


@dataclass(frozen=True)
class Rule:
    family: str
    pattern: re.Pattern[str]
    channels: tuple[Channel, ...] = ("input", "passage", "filing", "speech")


def _r(family: str, pattern: str, *channels: Channel, speech: bool = True) -> Rule:
    """A rule for ``channels`` (all when none); a passage rule covers filings and, unless ``speech`` is
    False, call transcripts too (people on a call "just say" things and ask to "repeat your instructions")."""
    if not channels:
        channels = ("input", "passage")
    if "passage" in channels:
        channels = (*channels, "filing", *(("speech",) if speech else ()))
    return Rule(family, re.compile(pattern), channels)


RULES: tuple[Rule, ...] = (
    # "Ignore all previous instructions", "forget everything you learned before", "disregard the above"
    _r(
        "instruction_override",
        rf"\b(?:ignore|disregard|forget|set aside|discard|disobey|stop following"
        rf"|(?:do not|don t|dont|never) (?:follow|obey|apply)) {_PRIOR}{_ORDERS}\b(?! of thumb)",
    ),
    _r(
        "instruction_override",
        r"\b(?:ignore|disregard|forget) (?:what|everything|anything|all) (?:you were|you ve been"
        r"|you have been"
        r"|you got|you are) (?:told|given|instructed|taught|programmed)\b",
    ),
    _r(
        "instruction_override",  # "skip" alone is business text ("viewers skip programming")
        r"\b(?:skip|abandon) (?:all |the |your |of )*(?:previous|prior|earlier|above|original|system)"
        r" (?:instructions|prompts|rules|guidelines)\b",
    ),
    _r(
        "instruction_override",
        r"\byour (?:only|new|real|actual|true|sole|main) (?:task|job|goal|instruction|purpose|role|mission)"
        r" (?:now |from now on |here )?is\b",
    ),
    _r(
        "instruction_override",
        r"\b(?:override|bypass|circumvent|disable) (?:all |any |your |the )?(?:previous |prior |system "
        r"|safety |content |ethical )(?:instructions|prompts|filters|guidelines|restrictions|rules"
        r"|programming|polic(?:y|ies))\b",
    ),
    _r(
        "instruction_override",
        r"\b(?:ignore|disregard|forget) (?:everything|anything|all) (?:you|that|i|we|above|before"
        r"|previously|prior)\b",
    ),
    _r(
        "instruction_override",
        # "ignore the above" (and stop there), not "ignore the previous guidance cut"
        r"\b(?:ignore|disregard|forget) (?:the |all )?(?:above|previous|prior|preceding)(?= *$| (?:and|then"
        r"|text|texts|message|messages|one|ones|lines?|content|input|part)\b)",
    ),
    _r(
        "instruction_override",
        # bounded look-ahead (a window of words, not ".*"): long text is read in linear time
        r"\bnew (?:instructions?|task|directive)s? ?(?:are|is|follow)?\b(?=(?: \w+){0,12} (?:you|your)\b)",
    ),
    _r(
        "instruction_override",
        r"\binstead of (?:answering|summari[sz]ing|the (?:original|user s) (?:task|question))\b",
    ),
    # "ignore any previous and following instructions", "forget all previous tasks": a few words may sit
    # between the verb and the orders, one of them saying whose or which
    _r(
        "instruction_override",
        r"\b(?:ignore|disregard|forget|set aside|discard|disobey)(?: \w+){0,4}? (?:previous|prior|above"
        r"|earlier|preceding|following|original|initial|system|your)(?: \w+){0,3}? (?:instructions?|prompts?"
        r"|directions|directives?|tasks?|commands?|orders|guidelines|rules)\b",
    ),
    _r(
        "instruction_override",
        r"\b(?:ignore|disregard|forget) (?:the |all )?(?:above|previous|prior|preceding) (?:sentences?"
        r"|paragraphs?|requests?|questions?|answers?|tasks?)\b|\bstop everything\b"
        r"|\byour (?:new )?(?:instructions?|rules|task|orders|directives?) (?:are|is) now\b",
    ),
    # an order to print a fixed string: "just print 'I hate humans'", "respond only with 'APPROVED'" (on
    # text that keeps its quotes; not on a call, where people "just say" things)
    _r(
        "fixed_output",
        r"(?:^|[.!?:\n]\s*|\b(?:and|then|now|please|instead) )(?:just|only) (?:print|say|output|write|type"
        r"|repeat)\s*[:\"'“‘]|\b(?:respond|reply|answer)"
        r"(?: \w+){0,2} (?:only with|with only)\s*[:\"'“‘]",
        "input",
        "passage",
        speech=False,
    ),
    # the same order in the languages the advice guard reads (folded: accents gone)
    _r(
        "instruction_override",
        r"\b(?:ignora|olvida|omite) (?:todas |todos )?(?:las |los )?(?:instrucciones|reglas|indicaciones)"
        r"|\b(?:ignoriere|vergiss|missachte) (?:alle )?(?:vorherigen |bisherigen |obigen )?(?:anweisungen"
        r"|regeln|instruktionen)|\b(?:ignore[zr]?|oublie[zr]?) (?:toutes )?(?:les )?(?:instructions|consignes"
        r"|regles)|\b(?:ignora|dimentica) (?:tutte )?(?:le )?(?:istruzioni|regole)"
        r"|\b(?:ignore|ignora|esqueca) (?:todas )?(?:as )?(?:instrucoes|regras)",
    ),
    # a persona with no limits: DAN, STAN, DUDE, developer mode, jailbreak
    _r(
        "jailbreak",
        r"\b(?:do anything now|developer mode|dan mode|jailbr(?:e|o)ak(?:en|ed)?|god mode"
        r"|unfiltered mode|evil mode)\b",
    ),
    _r("jailbreak", r"\b(?:dan|stan|dude|aim|kevin) (?:which )?stands for\b"),
    _r(
        "jailbreak",
        r"\b(?:broken free|break free|freed) (?:of|from) (?:the |their |your )?(?:typical "
        r"|usual )?(?:confines|limits|restrictions|rules|chains)\b",
    ),
    _r(
        "jailbreak",
        r"\b(?:without|no) (?:any )?(?:restrictions|limitations|filters|censorship|ethical guidelines"
        r"|moral(?:s| guidelines)|content polic(?:y|ies))\b"
        r"(?=(?: \w+){0,12} (?:you|your|ai|assistant|model)\b)",
    ),
    _r(
        "jailbreak",
        r"\byou (?:are|re) (?:now |going to |about to )?(?:act(?:ing)? as|play(?:ing)? the role of"
        r"|pretend(?:ing)? to be|immerse yourself|be (?:a|an) (?:unrestricted|unfiltered|jailbroken))\b",
    ),
    _r(
        "jailbreak",
        r"\b(?:from now on|for the rest of this conversation),? you (?:are|will|must|shall|should|re"
        r"|have to)\b",
    ),
    _r(
        "jailbreak",
        r"\b(?:pretend|imagine) (?:that )?you (?:are|have|re) (?:not |no longer |an? )?(?:ai|assistant"
        r"|chatbot|language model|bound|restricted|free|unrestricted|evil|human)\b",
    ),
    _r("jailbreak", r"\bstay in character\b|\bbreak(?:ing)? character\b"),
    _r(
        "jailbreak",
        r"\byou are (?:now )?(?:a |an )?(?:new |different |unrestricted |free |uncensored )?(?:ai|assistant"
        r"|chatbot|language model|bot|llm) (?:called|named)\b|\b(?:ai|assistant|model|chatbot|gpt|bot)\b"
        r"(?: \w+){0,6} (?:without|with no) (?:any )?(?:rules|restrictions|limits|limitations|filters"
        r"|guidelines|censorship)\b|\b(?:compliance|safety|filter|content|guard|guardrail|restricted)s?"
        r" mode (?:off|disabled|deactivated)\b|\b(?:disable|turn off|deactivate) (?:the |your )?(?:safety"
        r"|compliance|content filters?|filters?|guardrails?)\b",
    ),
    _r(
        "jailbreak",
        r"\b(?:simulate|emulate) (?:a |an )?(?:unrestricted|unfiltered|jailbroken|evil|rogue) (?:ai"
        r"|assistant|model|chatbot)\b",
    ),
    # asking for the hidden prompt
    # "initial prompt", "first message" are ordinary words in a post; from a user they ask for ours ("your
    # initial instructions"), but "the first instructions the Fed gave banks" is about someone else's
    _r(
        "prompt_extraction",
        r"\byour (?:initial|original|starting|first|internal|base) (?:prompt|message|instructions?"
        r"|directives?)\b|\b(?:initial|original|starting|pre) prompt\b|\bthe (?:initial|original|starting"
        r"|first|internal|base) (?:prompt|message|instructions?|directives?)\b(?! (?:the|of|from|by|that"
        r"|which|to|for|a|an|in|on|at|issued|sent)\b)",
        "input",
    ),
    _r(
        "prompt_extraction",
        r"\b(?:system|hidden|secret|developer) (?:prompt|message|instructions?|directives?)\b"
        r"(?!\s+(?:to form|for form))",
    ),
    _r(
        "prompt_extraction",
        r"\b(?:your (?:system|initial|original|starting|hidden|secret|internal|underlying"
        r"|core) (?:prompt|message|instructions?|configuration|setup|guidelines|rules|directives?)"
        r"|the (?:system|initial|original|starting|hidden|secret) (?:prompt|instructions)\b(?! (?:the|of|from"
        r"|by|that|which|to|for|a|an|in|on|at|issued|sent)\b))",
    ),
    _r(
        "prompt_extraction",
        r"\b(?:instructions?|text|prompt|rules) (?:that )?you (?:were|have been|got|received) (?:given"
        r"|told|provided|instructed)?\b",
    ),
    _r("prompt_extraction", r"\bwhat (?:were|are|was) you (?:told|instructed|programmed|given)\b"),
    _r(
        "prompt_extraction",
        # "repeat the text above", "print everything above verbatim"; not "show me everything above $100"
        r"\b(?:repeat|print|output|show|display|reveal|dump|echo|recite|leak|write out|copy)"
        r" (?:me )?(?:back )?"
        r"(?:the (?:text|words|content|conversation|message|lines)s? (?:above|before this|so far)"
        r"|(?:everything |all )?(?:above|before this|so far)(?= (?:text|message|instructions?|prompt"
        r"|conversation|lines?|verbatim|word|in full|exactly|back|starting|please)\b|$)"
        r"|(?:everything |all )?(?:in full|verbatim|word for word))\b",
    ),
    _r(
        "prompt_extraction",
        r"\b(?:repeat|recite|output|print|echo) (?:this |the )?(?:entire |whole )?(?:conversation|chat"
        r"|dialogue)\b",
    ),
    _r(
        "prompt_extraction",
        r"\b(?:repeat|recite|output|print|echo|show|display|reveal) (?:me )?(?:back )?(?:all "
        r"|everything )?(?:of )?(?:the )?(?:above|previous|preceding|prior|earlier) (?:text|message"
        r"|words|content|conversation|instructions|prompt)s?\b",
    ),
    _r("prompt_extraction", r"\b(?:initiali[sz]ation|init) (?:string|prompt|text)\b"),
    _r(
        "prompt_extraction",
        r"\b(?:what is|whats|tell me|reveal|give me|print|spell|show me|say) (?:the |your )?(?:password"
        r"|secret word|passphrase|secret code|secret key|api keys?|access tokens?)\b"
        r"|\b(?:output|print|show|reveal|list|tell me|repeat|display|dump) (?:me )?(?:all )?(?:of )?your"
        r" (?:rules|instructions|guidelines|prompt|configuration|directives|system message|constraints)\b",
        "input",
        "passage",
        speech=False,
    ),
    _r(
        "prompt_extraction",
        r"\b(?:everything|all|what) (?:you were|you ve been|you have been|you are) (?:configured|programmed"
        r"|set up|initiali[sz]ed|instructed|primed) (?:with|to)\b",
    ),
    _r(
        "prompt_extraction",
        r"\b(?:not supposed to|not allowed to|forbidden to|told not to) (?:tell|say|reveal|share|disclose)\b",
    ),
    _r("prompt_extraction", r"\b(?:my|i was|the) (?:instructions are|instructed to|system prompt is)\b"),
    _r("prompt_extraction", r"\bsystem ?prompt\b|\bsys ?prompt\b"),
    _r(
        "prompt_extraction",
        r"\b(?:maintenance|debug|admin|administrator|root|sudo|diagnostic) (?:mode|override|access)\b",
    ),
    _r("prompt_extraction", r"\bopposite of your (?:instructions|rules|system)\b"),
    # orders about the reader's own reply, inside retrieved text
    _r(
        "reply_manipulation",
        r"\b(?:in|into|within|throughout) your (?:response|reply|answer|output|message|summary)s?\b",
        "passage",
    ),
    _r(
        "reply_manipulation",
        r"\b(?:your|the) (?:response|reply|answer|output|message) s (?:words|letters|text)\b",
        "passage",
    ),
    _r(
        "reply_manipulation",
        r"\b(?:add|append|prepend|attach|insert|include|put)(?: \S+){2,30}? (?:to|in|into|at the (?:end"
        r"|start|beginning) of) your (?:response|reply|answer|output|message)s?\b",
        "passage",
    ),
    _r(
        "reply_manipulation",
        r"\b(?:add|include|insert|append|prepend|integrate|mention|modify|augment|enhance|change"
        r"|rewrite|translate|encode|format|start|begin|end|replace|remove|use|render|write|respond"
        r"|reply|answer|provide|convert|scramble|jumble|rearrange|misspell|group|combine|substitute"
        r"|introduce|anagram|reverse) (?:\w+ ){0,6}?your (?:response|reply|answer|output|message"
        r"|summary)s?\b",
        "passage",
    ),
    _r(
        "reply_manipulation",
        r"\b(?:respond|reply|answer|write) (?:only )?(?:in|with|using) (?:all caps|emoji|emojis|base64"
        r"|rot13|pig latin|reverse|french|spanish|german|russian|japanese|chinese)\b",
        "passage",
    ),
    # a passage that announces its own instructions, or an exfiltration link for the reader's model
    _r(
        "instruction_override",
        r"\b(?:new|updated|revised|real|actual|true) instructions?(?: are| is| follow)? (?:recommend|say|tell"
        r"|write|output|summari[sz]e|respond|reply|answer|ignore|you|from now)\b|\b(?:begin|end"
        r"|start) (?:new |the )?instructions?\b|\binstructions (?:above|below|before this) (?:are|were)"
        r" (?:outdated|void|cancelled|canceled|obsolete|wrong|invalid|superseded)\b|\b(?:ignore|disregard"
        r"|forget) (?:the |all |any |your )?(?:prior|previous|above|earlier|preceding) context\b",
        "passage",
    ),
    _r(
        "exfiltration",
        r"!\[[^\]]*\]\(https?://[^)\s]*(?:\{|%7b|user|question|prompt|conversation|history|chat|secret"
        r"|key|token|session)[^)\s]*\)",
        "passage",
    ),
    _r(
        "reply_manipulation",
        r"\b(?:include|add|insert|put|append|mention)(?: \w+){0,5} (?:in|to|into|at the end of) (?:any|every"
        r"|each|all) (?:summary|summaries|response|responses|answer|answers|reply|replies|output|report)\b"
        r"|\b(?:summari[sz]ers?|ai readers?|(?:ai|language models?|llms?|assistants?) reading this)"
        r" (?:should|must|need to|are to)\b",
        "passage",
    ),
    # retrieved text that speaks to whoever summarizes it, or tells the model what to tell its reader
    _r(
        "addressed_to_model",
        r"\bnote (?:for|to) (?:any |all |the )?(?:automated|ai|llm|language model) ?"
        r"(?:summari[sz]ers?|readers?"
        r"|systems?|assistants?|agents?|models?|tools?|bots?)?\b|\b(?:ai|automated|llm) (?:systems?"
        r"|summari[sz]ers?|readers?|assistants?|agents?|tools?|models?) (?:summari[sz]ing|reading|processing"
        r"|analy[sz]ing|parsing|ingesting) (?:this|these)\b",
        "passage",
    ),
    _r(
        "reply_manipulation",
        r"\bwhen you (?:summari[sz]e|read|process|analy[sz]e|report on|describe) (?:this|these|the above)"
        r"(?: \w+){0,3} (?:say|state|write|report|tell|mention|claim|output|add|include|conclude)\b"
        r"|\btell (?:the |your |all |our |every )?(?:readers?|users?|audience|investors|clients|customers)"
        r" (?:that|to)\b",
        "passage",
    ),
    # text posing as a chat turn or speaking to the model that reads it
    # a sentence end needs its space: "NexTech3D.ai: Detailed Analysis" is a domain name, not a chat turn
    _r(
        "role_markup",
        r"<\|? ?(?:system|assistant|user|im_start|im_end) ?\|?>"
        r"|\[ ?/?(?:system|inst|assistant|admin|developer) ?\]"
        r"|(?:^|[\n.!?] )(?:assistant|chatbot|ai assistant), (?:please|you|ignore|tell|write|say|recommend)\b"
        r"|(?:^|[\n.!?] )(?:system|assistant|ai|user|human|developer) ?(?:message|prompt)? ?:(?= )"
        r"|\bim_(?:start|end)\b|\[/?inst\]|###\s*(?:instruction|system)",
        "passage",
    ),
    _r(
        "addressed_to_model",
        r"\b(?:dear|hey|hello|hi|attention|(?:note|message|instructions?) (?:for|to))"
        r" (?:the |any |all )?(?:ai"
        r"|assistant|chatbot|chat ?gpt|gpt|llm|language model|model|bot|claude|gemini|copilot)s?\b",
    ),
    _r(
        "addressed_to_model",
        r"\b(?:if you are|as) an? (?:ai(?: (?:assistant|model|system|chatbot))?|assistant"
        r"|language model|llm|chatbot)(?: reading this| summari[sz]ing this)? (?=(?:you|reading|must"
        r"|should|i|it|tell|please|ignore|do|always|never|your|respond|reply|answer|say|write|state|output"
        r"|summari[sz]e|recommend|mention|describe|report)\b)",
    ),
    _r(
        "addressed_to_model",
        r"\b(?:ai|llm|gpt|chatbot|model|assistant)s? (?:reading|processing|summari[sz]ing"
        r"|analy[sz]ing) (?:this|these)\b",
    ),
)

# A filing is written to shareholders in the third person: a sentence in it that asks a question or opens
# with an order to its reader ("Explain …", "Write a poem …", "Translate …") is not the filing talking.
# Posts, news and call transcripts ask questions all the time, so this family is for filings only.
_REQUEST_VERBS = (
    "explain|describe|write|draft|compose|develop|provide|translate|tell|list|give|summari[sz]e|show|create"
    "|generate|break down|replace|convert|outline|suggest|name|define|calculate|solve|compare|discuss|rewrite"
    "|render|respond|reply|answer|output|print|repeat|say|ignore|forget|pretend|imagine|act|play|draw|sing"
    "|recite|teach|help me|design|plan|brainstorm|invent|make up|come up with|produce|paraphrase|rephrase"
    "|spell|encode|decode|reverse|insert|include|add|mention|append|modify|change|use|introduce|start"
    "|begin|end|remove|delete|send|email|visit|click|download|install|share|post|tweet|promote|recommend"
    "|encourage|invite|ask|remind|inform|warn|urge|assure|claim|state|announce|declare|greet|thank"
    "|apologi[sz]e|congratulate|praise|insult|mock|joke|criticize|roast|scramble|jumble|rearrange|group"
    "|combine|substitute|capitali[sz]e|shorten|expand|elaborate|clarify|review|evaluate|rate|rank|score"
    "|classify|categori[sz]e|identify|find|search|look up|fetch|retrieve|lookup|check|verify|confirm|prove"
    "|disprove|argue|debate|persuade|convince|please|kindly|can you|could you|would you|will you|do not|don t"
)
# the order's object follows the verb: "Write a short story", "Explain the theory", "Replace vowels with"
_OBJECT = (
    r"(?:the|a|an|me|us|your|my|our|this|these|that|those|every|all|each|any|some|how|why|what|who|when"
    r"|where|which|whether|if|it|them|him|her|vowels?|letters?|words?|spaces?|sentences?|numbers?|symbols?"
    r"|emojis?|one|two|three|five|ten|\d+)"
)
# verbs that are rarely nouns may also take a preposition ("Write about …", "Respond in French"); words
# like "change", "plan", "search", "use" open filing lines as nouns ("Change in fair value …")
_PURE_VERBS = (
    "explain|describe|write|translate|tell|summari[sz]e|respond|reply|talk|speak|ignore|forget|pretend"
    "|imagine|act|elaborate|brainstorm|rephrase|paraphrase"
)
_PREPOSITION = r"(?:about|in|to|with|for|on|into|like|as)"
_REQUEST = re.compile(rf"^(?:(?:{_REQUEST_VERBS}) {_OBJECT}|(?:{_PURE_VERBS}) {_PREPOSITION})\b")
# "Search: In October 2020 …", "Plan to Date Facilities | Severance | …": a label or a table row
_LABEL = re.compile(r"^[•*\-–—\s]*[\w’' ]{1,30}:\s")
_NOT_REQUEST = re.compile(
    r"^(?:see|refer|read|note|for (?:more|additional|further)|please (?:see|refer|read|note|consider"
    r"|review))\b"
)
_HEADING = re.compile(
    r"^(?:[A-Z][\w’'-]*|of|and|the|in|for|to|a|an|on|with|&)(?: (?:[A-Z][\w’'-]*|of|and|the|in|for|to|a"
    r"|an|on|with|&))*[.:]?$"
)
_QUESTION = re.compile(r"\?[\"'”’)\]]*\s*$")


def request_sentences(sentences: list[str]) -> list[str]:
    """The sentences of a filing passage that ask its reader something or order its reader to act."""
    out = []
    for sentence in sentences:
        folded = fold(sentence)
        first = sentence.lstrip(" •*-–—\t\"'“(").split(" ", 1)[0]
        if (
            not folded
            or _NOT_REQUEST.match(folded)
            or _HEADING.match(sentence.strip(" •*-–—\t"))
            or "-" in first
            or "|" in sentence
            or _LABEL.match(sentence)
        ):
            continue
        # an order opens a sentence with a capital; a lower-case opening is a line broken mid-sentence
        if _QUESTION.search(sentence) or (first[:1].isupper() and _REQUEST.match(folded)):
            out.append(sentence)
    return out


# folded text has no punctuation, so patterns see words separated by single spaces; the role markers
# need the colon, so they are matched on a lightly normalized copy instead
_ROLE_FAMILIES = frozenset({"role_markup", "fixed_output", "exfiltration"})
_LIGHT = re.compile(r"\s+")


@dataclass(frozen=True)
class RuleHit:
    family: str
    excerpt: str


def _light(text: str) -> str:
    return _LIGHT.sub(" ", text.casefold())


def match(text: str, channel: Channel) -> list[RuleHit]:
    """Every family that matches, once each, with the words that matched."""
    if not isinstance(text, str) or not text.strip():
        return []
    folded = fold(text)
    light = _light(text)
    hits: dict[str, RuleHit] = {}
    for rule in RULES:
        if channel not in rule.channels or rule.family in hits:
            continue
        found = rule.pattern.search(light if rule.family in _ROLE_FAMILIES else folded)
        if found:
            hits[rule.family] = RuleHit(rule.family, found.group(0).strip()[:80])
    if channel == "filing":
        from findesk.guardrails.injection.features import sentences

        asks = request_sentences(sentences(text))
        if asks:
            hits["request_in_filing"] = RuleHit("request_in_filing", asks[0].strip()[:80])
    return list(hits.values())
