"""findesk: a multi-agent research desk for US markets.

Every figure is computed by code from dated, cited data; the offline snapshot and the live sources
answer through the same typed models.
"""

__version__ = "0.1.0"
