"""How the trail is shaped, as options for the Rust core's emitter, and the DDL that changes it.

Committed transactions become trail records in the Rust core (``redo_lib._native.Emitter``,
``crates/redo-core/src/trail/``: trail contract rules 6-17; docs/native.md, "The emitter"), run by
the assemble stage (``batches.assemble_stream``, ``pipeline.assemble_batches``). What stays in Python:

* ``EmitOptions``, the emitter's keywords (``native.Emitter(text, **dataclasses.asdict(options))``),
  ``capture_options``, the capture scope (``OWNER`` and ``OWNER.TABLE`` entries, empty = every
  table of the dictionary; ``-OWNER.TABLE.COLUMN`` for a column left out) as those options, parsed
  by the core, and ``image_options``, the before images asked for
  (``update-befores``, ``full-deletes``);
* ``evolve_dictionary``: DDL (24.1) applied to the dictionary (``dictionary/ddl.py``), each statement
  opening a version from its SCN on. The core calls it back for each DDL it emits (``apply_ddl``);
  the Spark driver runs it over a batch's DDL events before assembly
  (``batch_dictionary.evolve_batch_dictionary``).

Objects the dictionary does not know, the capture scope and the counts they leave (``out_of_scope``,
``unknown_in_scope`` above the dictionary's ``max_object_id``, ``unknown_unclassified_changes``) are
the core's: docs/data-quality.md.

Layer 4: imports layers 0-3.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterable
from dataclasses import dataclass
from typing import Any, Protocol, final

from redo_lib.dictionary import DictionaryHistory
from redo_lib.dictionary.ddl import apply_ddl, ddl_subject
from redo_lib.errors import DictionaryError, RedoError


@final
@dataclass(frozen=True, slots=True, kw_only=True)
class EmitOptions:
    """How images are shaped. Defaults are GoldenGate's defaults (compressed updates, key deletes)."""

    emit_unknown: bool = False  # emit objects the dictionary does not know (schemaless)
    full_deletes: bool = False  # deletes carry every column, not only the key (rule 11)
    # an update's after record is preceded by its before record (B): key and changed columns with
    # the values the undo and the supplemental data hold (rule 10; GoldenGate's GETUPDATEBEFORES)
    update_before_images: bool = False
    # the capture scope: a table is captured when its owner is in include_owners or its
    # "OWNER.TABLE" in include_tables (both empty = every table), and not excluded
    include_owners: frozenset[str] = frozenset()
    exclude_owners: frozenset[str] = frozenset({"SYS", "SYSTEM", "XDB", "AUDSYS", "LBACSYS", "MDSYS"})
    include_tables: frozenset[str] = frozenset()
    exclude_tables: frozenset[str] = frozenset()
    # "OWNER.TABLE.COLUMN": columns left out of the capture scope (never in a record, with the hidden
    # columns that store them; a key column is refused), the capture list's -OWNER.TABLE.COLUMN
    exclude_columns: frozenset[str] = frozenset()
    apply_ddl: bool = True  # DDL (24.1) opens a new dictionary version from its SCN on


def capture_options(capture: Iterable[str] | None) -> dict[str, frozenset[str]]:
    """``EmitOptions`` keywords for a capture scope: ``OWNER`` entries -> ``include_owners``,
    ``OWNER.TABLE`` entries -> ``include_tables``, ``-OWNER.TABLE.COLUMN`` entries ->
    ``exclude_columns`` (a column left out of a captured table; names as the dictionary spells
    them). Empty or ``None``: every table of the dictionary, every column. Raises ``RedoError`` for an
    entry of another form. The rule is the core's (``trail::emit::capture_options``)."""
    from redo_lib.native import native

    try:
        options = native.capture_options(list(capture or ()))
    except ValueError as exc:
        raise RedoError(str(exc)) from exc
    return {key: frozenset(value) for key, value in options.items()}


def excluded_columns(capture: Iterable[str] | None) -> frozenset[str]:
    """The ``OWNER.TABLE.COLUMN`` names a capture list leaves out (its ``-OWNER.TABLE.COLUMN``
    entries): what the mirrors lack (``trail.types.table_types``)."""
    return capture_options(capture)["exclude_columns"]


#: the image options a pipeline can ask for (``REDOTRAIL_IMAGES``, the manifest's ``images``, the
#: CLI's ``--images``): entry -> ``EmitOptions`` field
IMAGE_OPTIONS = {"update-befores": "update_before_images", "full-deletes": "full_deletes"}


def image_options(images: Iterable[str] | None) -> dict[str, bool]:
    """``EmitOptions`` keywords for image entries (``update-befores``, ``full-deletes``); empty or
    ``None``: GoldenGate's defaults (compressed updates, key-only deletes). Raises ``RedoError`` for
    another entry."""
    chosen = {e.strip() for e in images or () if e.strip()}
    unknown = sorted(chosen - IMAGE_OPTIONS.keys())
    if unknown:
        raise RedoError(
            f"image option {', '.join(map(repr, unknown))} is not one of {', '.join(IMAGE_OPTIONS)}"
        )
    return {field: entry in chosen for entry, field in IMAGE_OPTIONS.items()}


class DdlChange(Protocol):
    """What :func:`evolve_dictionary` reads of a DDL: a DDL ``ChangeEvent`` (``assembly.events``),
    or the core's DDL row change (the binding passes a ``SimpleNamespace`` of these four)."""

    # read-only: a frozen ChangeEvent is one
    @property
    def scn(self) -> int: ...
    @property
    def obj(self) -> int: ...
    @property
    def ddl_text(self) -> str: ...
    @property
    def ddl_schema(self) -> str: ...


def _xid(ddl: DdlChange) -> str | None:
    """The DDL's transaction as the core writes an XID (``usn.slot.sqn``), when the change has one
    (a ``ChangeEvent`` does; the core's DDL row change passed by the binding does not)."""
    parts = [getattr(ddl, name, None) for name in ("usn", "slot", "sqn")]
    return None if None in parts else ".".join(map(str, parts))


def evolve_dictionary(
    history: DictionaryHistory,
    ddl_changes: Iterable[DdlChange],
    counters: Counter[str] | None = None,
    problems: list[dict[str, Any]] | None = None,
) -> DictionaryHistory:
    """Apply DDL changes (in SCN order) to a dictionary; each opens a version from its SCN on.

    DDL of other objects than tables (indexes, views, grants) is counted as ``ddl_other``. Table DDL
    that contradicts the dictionary (e.g. a dictionary exported after that SCN) is counted as
    ``ddl_conflicts``, text not understood as ``ddl_unsupported``; both leave the dictionary as it was
    and, for tables of the exported schemas, are listed in ``problems`` (SCN, object, text, why, and
    the transaction's ``xid`` when known): rows after them would be shaped by a guess, so validation
    fails the batch (docs/tables.md), unless the ``SYS.COL$`` rows the DDL's transaction changed
    supersede the text (``batch_dictionary``; docs/dictionary.md, "Columns from COL$"). A DDL the
    dictionary holds already (a DDL transaction open at the end of the previous batch, whose
    dictionary applied it by SCN) is counted as ``ddl_applied_before``."""
    counts = counters if counters is not None else Counter()

    def problem(ddl: DdlChange, kind: str, message: str) -> None:
        if problems is not None:
            found = {"kind": kind, "scn": ddl.scn, "obj": ddl.obj or None, "schema": ddl.ddl_schema,
                     "text": ddl.ddl_text[:1000], "message": message}  # fmt: skip
            xid = _xid(ddl)
            if xid is not None:  # the batch driver matches it with the COL$ rows its transaction changed
                found["xid"] = xid
            problems.append(found)

    owners: set[str] | None = None
    for ddl in ddl_changes:
        subject = ddl_subject(ddl.ddl_text, ddl.ddl_schema)
        if subject.object_type != "TABLE":  # indexes, views, grants, ...: no say in the tables' shape
            counts["ddl_other"] += 1
            continue
        if owners is None:
            owners = {v.owner for v in history}
        captured = subject.owner in owners  # a schema the dictionary was exported for
        try:
            history, effect = apply_ddl(
                history, obj=ddl.obj or None, scn=ddl.scn, text=ddl.ddl_text, schema=ddl.ddl_schema
            )
        except DictionaryError as exc:
            if ddl.obj and any(
                v.obj == ddl.obj and ddl.scn in (v.valid_from_scn, v.valid_to_scn) for v in history
            ):
                counts["ddl_applied_before"] += 1
                continue
            counts["ddl_conflicts"] += 1
            problem(ddl, "conflict", str(exc))
        else:
            counts[f"ddl_{effect.kind}"] += 1
            if effect.kind == "unsupported" and captured:
                problem(ddl, "unsupported", effect.message)
    return history
