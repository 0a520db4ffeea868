"""Data layer: typed models, vendors behind one router, and the shared HTTP client.

Vendors never know about agents; every answer is point in time (``as_of``) and carries its source.
"""
