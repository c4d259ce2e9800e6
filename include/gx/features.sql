-- The trail contract's one pass over a batch's trail (spark_jobs/validate.py): every record once,
-- narrowed to what the rules read, with its place in its transaction computed once for all of them.
-- The result is the batch Great Expectations validates ({batch} in include/gx/sql/*.sql); each rule
-- then filters or aggregates these rows instead of reading the trail and ordering it again.
--
-- What it keeps: the trail's scalar columns the rules and the column expectations check; the column
-- NAMES of a record's image and before image (`names`, `before_names`: Parquet then reads the names,
-- never the values, which are most of a trail's bytes); tokens, key and LOB columns; a DDL record's
-- OPERATION, OBJECT_TYPE and DDL_TEXT (from {ddl}: the trail's DDL records alone, a filtered read
-- joined by broadcast, so no value of a row change is read). And per transaction (one shuffle by
-- xid, one sort by trail_seq):
--   position, records        the record's place (1..n) and the transaction's record count
--   first_seq, last_seq      the transaction's lowest and highest trail_seq
--   previous_*, next_*       the neighbouring records' op, before_after, rowid, rba (previous: scn;
--                            next: trail_seq)
--   min_commit_scn, max_commit_scn, min_commit_time, max_commit_time, last_change_scn (max scn)
-- $source_table is OWNER.TABLE as counts.json names tables. Every expression is deterministic:
-- Spark's cache answers a query of the cached batch only then (first_value, for one, is not).
WITH narrow AS (
  SELECT t.trail_seq, t.xid, t.op, t.io_type, t.trans_ind, t.before_after, t.owner, t.`table`,
         t.rowid, t.rba, t.scn, t.commit_scn, t.commit_time, t.op_time, t.thread, t.sequence,
         t.key_columns, t.tokens, t.lob_columns,
         t.columns.name AS names, t.before.name AS before_names,
         d.operation AS ddl_operation, d.object_type AS ddl_object_type, d.ddl_text
  FROM {trail} AS t
  LEFT JOIN {ddl} AS d
    ON d.trail_seq = t.trail_seq AND d.xid = t.xid AND (t.op = 'DDL' OR t.io_type = 160)
)
SELECT *,
       row_number() OVER w AS position,
       count(*) OVER whole AS records,
       min(trail_seq) OVER whole AS first_seq,
       max(trail_seq) OVER whole AS last_seq,
       lead(trail_seq) OVER w AS next_seq,
       lag(op) OVER w AS previous_op, lead(op) OVER w AS next_op,
       lag(before_after) OVER w AS previous_before_after, lead(before_after) OVER w AS next_before_after,
       lag(rowid) OVER w AS previous_rowid, lead(rowid) OVER w AS next_rowid,
       lag(rba) OVER w AS previous_rba, lead(rba) OVER w AS next_rba,
       lag(scn) OVER w AS previous_scn,
       min(commit_scn) OVER whole AS min_commit_scn, max(commit_scn) OVER whole AS max_commit_scn,
       min(commit_time) OVER whole AS min_commit_time, max(commit_time) OVER whole AS max_commit_time,
       max(scn) OVER whole AS last_change_scn
FROM narrow
WINDOW w AS (PARTITION BY xid ORDER BY trail_seq),
       whole AS (PARTITION BY xid ORDER BY trail_seq ROWS BETWEEN UNBOUNDED PRECEDING AND UNBOUNDED FOLLOWING)
