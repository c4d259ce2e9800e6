"""The only I/O in redo_lib: byte sources for archived logs (local files now, S3 later).

Side layer: imports layer 0 only; nothing in layers 1-4 imports it.
"""

from redo_lib.storage.sources import BlockSource, LocalFileSource

__all__ = ["BlockSource", "LocalFileSource"]
