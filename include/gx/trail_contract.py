"""The trail-contract expectation suite, declared as data (style 6.7): ``spark_jobs/validate.py``
turns each entry into a Great Expectations 1.x expectation run on the batch's trail (Spark).

Every entry names its numbered rule of ``shared/docs/trail-contract.md`` (``rule``, ``title``); the
validator copies both into the expectation's ``meta`` and ``description``, so a failing check in the
Data Docs and in ``report/summary.json`` points at a contract rule. Two kinds of entries:

* ``"expectation"``: a standard GX expectation class name with its ``kwargs``; a string kwarg
  ``"$name"`` is a parameter the validator fills from the batch (``rolled_back_xids``).
* ``"sql"``: the name of ``include/gx/sql/<sql>.sql``, run as an ``UnexpectedRowsExpectation``
  (per-transaction and cross-record rules; GX supports it on Spark, not on pandas). ``{batch}`` is
  GX's placeholder for the batch, which is the trail's one pass, ``include/gx/features.sql``: each
  record's scalar columns, the names of its image's columns, its DDL fields and its place in its
  transaction (position, records, neighbours), so no rule orders the trail again; ``$source_table``, ``$counts``, ``$declared_columns``,
  ``$lob_issues``, ``$unknown_in_scope``, ``$ddl_counts``, ``$ddl_problems`` and ``$unsupported`` are
  filled by the validator (``OWNER.TABLE`` of a record; counts.json as rows; declared insert columns;
  counts.json's unresolved LOBs, unknown objects in scope, DDL records, DDL left unapplied and
  captured tables the decoder cannot read as rows).
  Every query returns the offending rows as ``trail_seq, xid, problem, detail`` (``detail`` JSON);
  the checks of one rule share a query (one Spark job instead of several).

Optional keys: ``remedy`` (what to do when the check fails: in the expectation's ``meta``,
description and notes, so the Data Docs and ``summary.json`` say it) and ``batch_note`` (a parameter
holding a sentence about the batch, appended to the description: the capture scope's counts).

Rules 3, 4, 5 and 16 are about what the decoder reads from the redo and are checked by the
reference tests, not here: the trail alone cannot show a missing undo vector or a mis-rendered value.
Rule 17 is checked as far as the trail and counts.json show it (a LOB value left unresolved); that
the pieces were stitched in the right order is the reference tests' business.
"""

SUITE_NAME = "trail_contract"

# Columns shown, with the checked column, for the sample rows of a failed standard expectation.
SAMPLE_COLUMNS = ["trail_seq", "xid", "op", "owner", "table"]

SQL_PARAMETERS = {
    # OWNER.TABLE as counts.json names tables (no owner: the bare name, e.g. OBJ_14)
    "source_table": "CASE WHEN coalesce(owner, '') = '' THEN `table` ELSE concat(owner, '.', `table`) END",
}

EXPECTATIONS = [
    # -- what enters the trail --------------------------------------------------------------------
    {"name": "no_rolled_back_transaction", "rule": 1,
     "title": "No record of a rolled-back transaction (counts.json rolled_back_xids)",
     "expectation": "ExpectColumnValuesToNotBeInSet",
     "kwargs": {"column": "xid", "value_set": "$rolled_back_xids"}},
    {"name": "reconcile", "rule": 2,
     "title": "counts.json reconciles: its trail counts are the trail's, decoded = trail + cancelled",
     "sql": "reconcile"},
    # Rule 2 (only the net changes, all of them, appear) rather than rule 1: reconcile accepts a change
    # left out of the trail as "out of scope", and this guards that term. An object the dictionary does
    # not know, created after its export, may be a captured table: its changes are not provably out
    # of scope, so they would be lost silently; one the export lists for a captured owner but does
    # not describe is a captured table the dictionary lacks.
    {"name": "known_objects_in_scope", "rule": 2,
     "title": "No change to an object of a captured owner that the dictionary does not describe, or to "
              "one created after its export (counts.json unknown_in_scope: object id, name, reason, "
              "changes, first SCN)",
     "sql": "known_objects_in_scope",
     "remedy": "refresh the dictionary: re-run include/sql/export_dictionary.sql for the captured owners, "
               "point REDOTRAIL_DICTIONARY at the new file, then re-run the batch",
     "batch_note": "scope_note"},
    # Rule 2 as well: a captured table whose changes the redo holds in a form the decoder cannot read
    # (counts.json unsupported) would lose them silently; they are never rendered (never garbage).
    {"name": "unsupported_changes", "rule": 2,
     "title": "No captured table whose changes the decoder cannot read: encrypted tablespace, OLTP or "
              "HCC compression, index-organized table, a column of a type it cannot render (XMLTYPE, "
              "JSON as OSON, object types, VARRAY, nested tables, ANYDATA, BFILE) (counts.json "
              "unsupported: table, column, changes, reason)",
     "sql": "unsupported_changes",
     "remedy": "exclude the table from the capture scope (REDOTRAIL_CAPTURE, the manifest's capture), or for a "
               "column of a type the decoder cannot render leave only that column out (-OWNER.TABLE.COLUMN), "
               "and re-run the batch; or change its storage on the source (decrypt the tablespace, ALTER TABLE "
               "... NOCOMPRESS and MOVE, a heap table instead of the IOT) and capture it from then on"},
    # -- order and grouping -----------------------------------------------------------------------
    {"name": "commit_order", "rule": 6,
     "title": "Transactions in commit order (commit SCN ascending, ties by thread); trail_seq 0..n-1",
     "sql": "commit_order"},
    {"name": "transaction_grouping", "rule": 7,
     "title": "The records of a transaction are contiguous, in redo order",
     "sql": "transaction_grouping"},
    {"name": "trans_ind_values", "rule": 8,
     "title": "TransInd is 0, 1, 2 or 3",
     "expectation": "ExpectColumnValuesToBeInSet",
     "kwargs": {"column": "trans_ind", "value_set": [0, 1, 2, 3]}},
    {"name": "trans_ind_sequence", "rule": 8,
     "title": "TransInd: 0 first, 1 middle, 2 last, or a lone 3, in every transaction",
     "sql": "trans_ind"},
    # -- each record ------------------------------------------------------------------------------
    {"name": "io_type_values", "rule": 9,
     "title": "IOType is 3, 5, 10, 15, 115 or 160",
     "expectation": "ExpectColumnValuesToBeInSet",
     "kwargs": {"column": "io_type", "value_set": [3, 5, 10, 15, 115, 160]}},
    {"name": "operation_values", "rule": 9,
     "title": "Operation is INSERT, UPDATE, DELETE, PK_UPDATE or DDL",
     "expectation": "ExpectColumnValuesToBeInSet",
     "kwargs": {"column": "op", "value_set": ["INSERT", "UPDATE", "DELETE", "PK_UPDATE", "DDL"]}},
    {"name": "ddl_records", "rule": 9,
     "title": "DDL records (IOType 160) carry their statement, object and position, alone in their "
              "transaction, as counts.json counts them; no table DDL left unapplied (counts.json ddl_problems)",
     "sql": "ddl_records",
     "remedy": "a DDL the dictionary could not follow: check its text in the sample rows; if the dictionary "
               "is older or newer than the redo, re-export it (include/sql/export_dictionary.sql) at an SCN "
               "before the batch, point REDOTRAIL_DICTIONARY at it, then re-run the batch"},
    {"name": "operation_types", "rule": 9,
     "title": "IOType, BeforeAfter and operation agree (5/A insert, 15/A|B update, 115/A|B PK update, "
              "3/B delete)",
     "sql": "operation_types"},
    {"name": "before_after_values", "rule": 10,
     "title": "BeforeAfter is A or B",
     "expectation": "ExpectColumnValuesToBeInSet",
     "kwargs": {"column": "before_after", "value_set": ["A", "B"]}},
    {"name": "before_images", "rule": 10,
     "title": "An update's before record (B) just precedes its after record (A); every update has one "
              "with the image option update-befores, none without it",
     "sql": "before_images"},
    {"name": "full_deletes", "rule": 11,
     "title": "With the image option full-deletes, a delete carries every column of its table (an "
              "out-of-row LOB's old value, not in the redo, aside: counted)",
     "sql": "full_deletes"},
    {"name": "inserts_complete", "rule": 11,
     "title": "An insert carries every column of its table",
     "sql": "inserts_complete"},
    {"name": "keys_present", "rule": 12,
     "title": "Updates and deletes carry their key columns (an update whose redo lacks its key: its ROWID, "
              "as counts.json rowid_keyed counts)",
     "remedy": "log the table's key: ALTER TABLE <owner>.<table> ADD SUPPLEMENTAL LOG DATA (PRIMARY KEY) "
               "COLUMNS (GoldenGate: ADD TRANDATA), from the next batch on",
     "sql": "keys_present"},
    {"name": "tokens", "rule": 13,
     "title": "Token R on every record; L and 6 on the first record of a transaction only; one commit each",
     "sql": "tokens"},
    {"name": "rowid_form", "rule": 13,
     "title": "ROWID is an 18-character Oracle ROWID (empty on a DDL record: no row)",
     "sql": "rowid_form"},
    {"name": "xid_form", "rule": 13,
     "title": "Transaction id written usn.slot.sqn in decimal",
     "expectation": "ExpectColumnValuesToMatchRegex",
     "kwargs": {"column": "xid", "regex": "^[0-9]+\\.[0-9]+\\.[0-9]+$"}},
    {"name": "op_time_present", "rule": 14,
     "title": "Every record carries the time of its change",
     "expectation": "ExpectColumnValuesToNotBeNull",
     "kwargs": {"column": "op_time"}},
    {"name": "commit_time_present", "rule": 14,
     "title": "Every record carries its transaction's commit time",
     "expectation": "ExpectColumnValuesToNotBeNull",
     "kwargs": {"column": "commit_time"}},
    {"name": "position_thread", "rule": 15,
     "title": "Position: redo thread present",
     "expectation": "ExpectColumnValuesToNotBeNull",
     "kwargs": {"column": "thread"}},
    {"name": "position_sequence", "rule": 15,
     "title": "Position: log sequence present",
     "expectation": "ExpectColumnValuesToNotBeNull",
     "kwargs": {"column": "sequence"}},
    {"name": "position_rba", "rule": 15,
     "title": "Position: RBA present",
     "expectation": "ExpectColumnValuesToNotBeNull",
     "kwargs": {"column": "rba"}},
    {"name": "position_rba_form", "rule": 15,
     "title": "Position: RBA written 0xSEQ.BLOCK.OFFSET",
     "expectation": "ExpectColumnValuesToMatchRegex",
     "kwargs": {"column": "rba", "regex": "^0x[0-9a-f]+\\.[0-9a-f]+\\.[0-9a-f]+$"}},
    # -- values -----------------------------------------------------------------------------------
    {"name": "lobs_complete", "rule": 17,
     "title": "LOB values complete: described LOB columns are in the image, none left unresolved",
     "sql": "lobs_complete"},
]  # fmt: skip
