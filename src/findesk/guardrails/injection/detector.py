"""The injection detector: rules first, then the classifier on each sentence.

Rules this module keeps:
- Pure and total (given the shipped weights); never raises on any ``str``.
- Two channels. ``input`` is a user's own message: orders to drop instructions, jailbreak personas
  and requests for the hidden prompt are flagged; an ordinary question, even an off-topic one, is not
  an attack (the scope check declines it). ``passage`` is third-party text (a filing section, a post,
  a news item, a transcript): there any sentence that speaks to the reader's model — an order about
  "your response", a chat-turn marker, a request unrelated to the document around it — is flagged.
  ``filing`` adds that any question or order to the reader is out of place in a filing; ``speech`` (a
  call transcript) runs the rules only, because people on a call say "you can answer" all the time
  and the classifier, trained on written text, reads that as an order (measured on the snapshot).
- A verdict names its reasons (rule families, or ``classifier``) and the sentence that tripped it,
  clipped, so the audit can say why a passage was quarantined.
- Verdicts on the shipped weights are cached per text, so a filing section screened once per process
  costs nothing the second time.
"""

from __future__ import annotations

from functools import lru_cache
from typing import Literal

from pydantic import BaseModel, ConfigDict

from findesk.guardrails.injection import model, rules
from findesk.guardrails.injection.features import sentences

_CLIP = 200
CACHED_CHARS = 20_000


class Verdict(BaseModel):
    model_config = ConfigDict(frozen=True)

    flagged: bool
    channel: rules.Channel
    reasons: list[str] = []
    score: float = 0.0  # the classifier's highest sentence probability
    excerpt: str | None = None  # the sentence (or matched words) that tripped the detector

    def reason(self) -> str:
        """One line for an audit entry or a refusal."""
        if not self.flagged:
            return "clean"
        where = f': "{self.excerpt}"' if self.excerpt else ""
        return f"{', '.join(self.reasons)} (score {self.score:.2f}){where}"


def _clip(text: str) -> str:
    text = " ".join(text.split())
    return text if len(text) <= _CLIP else text[: _CLIP - 1] + "…"


def screen(text: str, channel: rules.Channel, weights: model.Weights | None = None) -> Verdict:
    """Rules, then the classifier on every sentence; flagged when either finds an instruction."""
    if not isinstance(text, str) or not text.strip():
        return Verdict(flagged=False, channel=channel)
    w = weights or model.shipped()
    threshold = w.input_threshold if channel == "input" else w.passage_threshold
    if channel == "speech":
        threshold = 2.0  # rules only (see the module's rules)
    hits = rules.match(text, channel)
    best, best_sentence = 0.0, ""
    for sentence in sentences(text):
        p = model.score(sentence, w)
        if p > best:
            best, best_sentence = p, sentence
    reasons = [h.family for h in hits]
    if best >= threshold:
        reasons.append("classifier")
    excerpt = _clip(best_sentence) if best >= threshold or not hits else hits[0].excerpt
    return Verdict(
        flagged=bool(reasons),
        channel=channel,
        reasons=reasons,
        score=round(best, 4),
        excerpt=excerpt if reasons else None,
    )


@lru_cache(maxsize=8192)
def _cached(text: str, channel: rules.Channel) -> Verdict:
    return screen(text, channel)


def screen_input(text: str) -> Verdict:
    """A user's message, on the shipped weights."""
    return _cached(text, "input") if isinstance(text, str) else Verdict(flagged=False, channel="input")


def screen_passage(text: str, genre: Literal["passage", "filing", "speech"] = "passage") -> Verdict:
    """A third-party passage (``filing``: from a filing, where a question or an order to the reader is
    itself out of place), on the shipped weights."""
    if not isinstance(text, str):
        return Verdict(flagged=False, channel=genre)
    # the cache holds paragraphs; a huge one-off text is screened without filling it
    return _cached(text, genre) if len(text) <= CACHED_CHARS else screen(text, genre)
