-- rule 8: TransInd 0 first, 1 middle, 2 last, or a lone 3, in every transaction
WITH placed AS (
  SELECT trail_seq, xid, trans_ind,
         row_number() OVER (PARTITION BY xid ORDER BY trail_seq) AS position,
         count(*) OVER (PARTITION BY xid) AS records
  FROM {batch}
),
expected AS (
  SELECT *, CASE WHEN records = 1 THEN 3 WHEN position = 1 THEN 0
                 WHEN position = records THEN 2 ELSE 1 END AS expected_trans_ind
  FROM placed
)
SELECT trail_seq, xid, 'TransInd does not match the place in the transaction' AS problem,
       to_json(named_struct('trans_ind', trans_ind, 'expected_trans_ind', expected_trans_ind,
               'position', position, 'records', records)) AS detail
FROM expected
WHERE trans_ind IS NULL OR trans_ind != expected_trans_ind
