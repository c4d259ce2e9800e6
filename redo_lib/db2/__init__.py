"""Db2 LOB manager log records (seed 004): read, write, and attach them to the row they belong to.

- ``records``: the 12-byte LOB manager log record header and the add LOB data / add LOB amount
  record (bytes -> frozen ``LobRecord``), and the information-only delete / non-update records.
- ``strings``: the consolidated out-of-row varying-length string structure of column 65535.
- ``writer``: the inverse of both (model -> bytes), for tests and scenario builders.
- ``lobs``: ``LobAssembler``, the per-transaction state machine that concatenates LOB pieces and
  attaches them to the DMS row record that follows them.

Nothing here reads Oracle redo; the package is a separate input format. See ``docs/db2-lobs.md``.
"""
