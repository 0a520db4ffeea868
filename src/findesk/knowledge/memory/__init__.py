"""Memory of the research desk: session turns (follow-ups resolve against them), long-term facts per
user (holdings, followed assets, themes; visible and deletable), and procedural templates in YAML.

Rules: the store (``store.MemoryStore``) is the only code that reads or writes memory's tables; the
rules that find facts (``facts``), resolve follow-ups (``followup``) and match templates
(``templates``) are pure and never touch it.
"""

from findesk.knowledge.memory.facts import extract_facts, instructs, vet
from findesk.knowledge.memory.followup import Resolution, merge_subjects, resolve_followup
from findesk.knowledge.memory.models import Fact, FactsAdded, NewFact, SubjectMap, Turn
from findesk.knowledge.memory.store import MemoryStore

__all__ = [
    "Fact",
    "FactsAdded",
    "MemoryStore",
    "NewFact",
    "Resolution",
    "SubjectMap",
    "Turn",
    "extract_facts",
    "instructs",
    "merge_subjects",
    "resolve_followup",
    "vet",
]
