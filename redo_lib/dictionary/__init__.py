"""What each Oracle table looked like, as of an SCN (style §6.2, ``dictionary/``).

* ``model``: the frozen values ``TableVersion``, ``ColumnDef``, ``PartitionDef``; type codes; the key
  choice of trail-contract rule 12.
* ``history``: ``DictionaryHistory.lookup(obj, scn)``, versioning by SCN, Redotrail's own JSON, and
  ``SysRows``, its ``sys`` member (the SYS dictionary rows the core follows).
* ``load``: OLR schema checkpoints and Redotrail's own JSON files -> ``DictionaryHistory``.

Layer 2: built on ``errors`` and ``values``; nothing upstream of it is imported.
"""

from redo_lib.dictionary.history import FORMAT_NAME, FORMAT_VERSION, SYS_TABLES, DictionaryHistory, SysRows
from redo_lib.dictionary.load import (
    DictionaryDocument,
    dictionary_document,
    load_dictionary,
    load_olr_checkpoint,
    load_redotrail_json,
)
from redo_lib.dictionary.model import (
    ColumnDef,
    KeyConstraint,
    KeyKind,
    OwnerObject,
    PartitionDef,
    TableVersion,
    TypeCode,
    choose_key,
    normalize_type_name,
    type_code_for_name,
    type_name_for_code,
)

__all__ = [
    "DictionaryDocument",
    "dictionary_document",
    "FORMAT_NAME",
    "FORMAT_VERSION",
    "SYS_TABLES",
    "ColumnDef",
    "DictionaryHistory",
    "KeyConstraint",
    "KeyKind",
    "OwnerObject",
    "PartitionDef",
    "SysRows",
    "TableVersion",
    "TypeCode",
    "choose_key",
    "load_dictionary",
    "load_olr_checkpoint",
    "load_redotrail_json",
    "normalize_type_name",
    "type_code_for_name",
    "type_name_for_code",
]
