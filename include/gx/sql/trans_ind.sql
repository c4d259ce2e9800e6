-- rule 8: TransInd 0 first, 1 middle, 2 last, or a lone 3, in every transaction (position and
-- records: the record's place in its transaction, include/gx/features.sql). No WITH in the rules:
-- Spark 4.1 answers a CTE over the cached batch from the trail again, not from its cache.
SELECT trail_seq, xid, 'TransInd does not match the place in the transaction' AS problem,
       to_json(named_struct('trans_ind', trans_ind, 'expected_trans_ind', expected_trans_ind,
               'position', position, 'records', records)) AS detail
FROM (
  SELECT *, CASE WHEN records = 1 THEN 3 WHEN position = 1 THEN 0
                 WHEN position = records THEN 2 ELSE 1 END AS expected_trans_ind
  FROM {batch}
) AS expected
WHERE trans_ind IS NULL OR trans_ind != expected_trans_ind
