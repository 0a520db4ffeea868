"""Guardrails: pure checks on what goes into and comes out of a workflow (no I/O).

Modules: ``advice`` (advice requests refused on input; recommendations, price targets and
allocations caught on output), ``advice_patterns`` with the per-language tables ``advice_lang_en``,
``advice_lang_eu`` and ``advice_lang_cjk`` (what counts as an advice request), ``text_fold`` (NFKC,
case, accents and look-alike letters folded before matching), ``number_trace`` (every number in a
text traced to the run's data).
"""
