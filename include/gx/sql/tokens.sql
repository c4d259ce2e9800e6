-- rule 13: token R (the ROWID) on every record (a DDL record, IOType 160, has no row: no ROWID, no R);
-- L (commit SCN) and 6 (xid) on the first record of each transaction only; one commit SCN and
-- commit time per transaction, not before its changes (position, min_/max_commit_*, last_change_scn:
-- include/gx/features.sql)
SELECT trail_seq, xid,
       CASE WHEN NOT r_ok THEN 'token R missing or not the ROWID (or on a DDL record)'
            WHEN position = 1 THEN 'first record without tokens L and 6 of its transaction'
            ELSE 'tokens L or 6 on a record after the first' END AS problem,
       to_json(named_struct('position', position, 'rowid', rowid, 'commit_scn', commit_scn,
               'tokens', tokens)) AS detail
FROM (
  SELECT *,
         coalesce(CASE WHEN io_type = 160 THEN rowid = '' AND NOT exists(tokens, t -> t.name = 'R')
                       ELSE size(filter(tokens, t -> t.name = 'R')) = 1
                            AND exists(tokens, t -> t.name = 'R' AND t.value = rowid) END, false) AS r_ok,
         coalesce(CASE WHEN position = 1 THEN
                         size(filter(tokens, t -> t.name = 'L')) = 1
                     AND exists(tokens, t -> t.name = 'L' AND t.value = CAST(commit_scn AS STRING))
                     AND size(filter(tokens, t -> t.name = '6')) = 1
                     AND exists(tokens, t -> t.name = '6' AND t.value = xid)
                  ELSE NOT exists(tokens, t -> t.name IN ('L', '6')) END, false) AS commit_ok
  FROM {batch}
) AS checked
WHERE NOT r_ok OR NOT commit_ok
UNION ALL
SELECT first_seq, xid, 'more than one commit, or a commit before its changes',
       to_json(named_struct('min_commit_scn', min_commit_scn, 'max_commit_scn', max_commit_scn,
               'min_commit_time', min_commit_time, 'max_commit_time', max_commit_time,
               'last_change_scn', last_change_scn))
FROM {batch}
WHERE position = 1
  AND (min_commit_scn != max_commit_scn OR min_commit_time != max_commit_time
       OR last_change_scn > min_commit_scn)
