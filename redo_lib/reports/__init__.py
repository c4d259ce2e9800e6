"""Pages for people: offline browser assets (assets), the report across batches (history).

Layer "top".
"""
