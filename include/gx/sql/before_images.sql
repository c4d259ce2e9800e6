-- rule 10: an update's before record (B) immediately precedes its after record (A): same
-- transaction, operation, row and change. With the image option update-befores
-- ($update_befores: the manifest's images) every update has one; without it, none has.
-- (next_* and previous_*: the neighbouring records of the transaction, include/gx/features.sql)
SELECT trail_seq, xid,
       CASE WHEN before_after = 'B' AND NOT $update_befores
              THEN 'before record of an update, though the batch asks for none'
            WHEN before_after = 'B' THEN 'before record not just ahead of its after record'
            ELSE 'update without its before record' END AS problem,
       to_json(named_struct('op', op, 'rowid', rowid, 'rba', rba, 'next_trail_seq', next_seq,
               'next_op', next_op, 'next_before_after', next_before_after)) AS detail
FROM {batch}
WHERE op IN ('UPDATE', 'PK_UPDATE')
  AND ((before_after = 'B' AND (NOT $update_befores OR next_seq IS NULL OR next_seq != trail_seq + 1
                                OR next_before_after != 'A' OR next_op != op OR next_rowid != rowid
                                OR next_rba != rba))
       OR (before_after = 'A' AND $update_befores
           AND (previous_before_after IS NULL OR previous_before_after != 'B' OR previous_op != op
                OR previous_rowid != rowid)))
