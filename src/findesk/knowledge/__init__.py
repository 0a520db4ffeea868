"""Knowledge layer: Item-aware filing sections (``filings``); later RAG indexes and memory.

Rule: this layer imports only from ``findesk.core`` and ``findesk.data``, never from the layers above.
"""
