-- rule 6: trail_seq numbers the records 0..n-1 once each; transactions follow in commit order
-- (commit SCN ascending along trail_seq, ties by thread). A transaction is its first record
-- (position 1, include/gx/features.sql), ordered by where it starts.
SELECT first_seq AS trail_seq, xid, 'transaction out of commit order' AS problem,
       to_json(named_struct('commit_scn', commit_scn, 'thread', thread, 'previous_xid', previous_xid,
               'previous_commit_scn', previous_commit_scn, 'previous_thread', previous_thread)) AS detail
FROM (
  SELECT xid, first_seq, min_commit_scn AS commit_scn, thread,
         lag(xid) OVER w AS previous_xid, lag(min_commit_scn) OVER w AS previous_commit_scn,
         lag(thread) OVER w AS previous_thread
  FROM {batch}
  WHERE position = 1
  WINDOW w AS (ORDER BY first_seq)
) AS ordered
WHERE commit_scn < previous_commit_scn
   OR (commit_scn = previous_commit_scn AND thread < previous_thread)
UNION ALL
SELECT CAST(NULL AS BIGINT), CAST(NULL AS STRING), 'trail_seq is not 0..n-1, each once',
       to_json(named_struct('records', records, 'distinct_trail_seqs', distinct_seqs,
               'first_trail_seq', first_seq, 'last_trail_seq', last_seq))
FROM (
  SELECT count(*) AS records, count(DISTINCT trail_seq) AS distinct_seqs,
         min(trail_seq) AS first_seq, max(trail_seq) AS last_seq
  FROM {batch}
) AS numbering
WHERE records > 0 AND (distinct_seqs != records OR first_seq != 0 OR last_seq != records - 1)
