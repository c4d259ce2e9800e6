-- rules 9, 10: IOType, BeforeAfter and operation agree: 5/A INSERT, 15/A|B UPDATE, 10/A|B UPDATE
-- (full image), 115/A|B PK_UPDATE, 3/B DELETE, 160 DDL (B of an update: its before record, which
-- before_images checks)
SELECT trail_seq, xid, 'IOType, BeforeAfter and operation disagree' AS problem,
       to_json(named_struct('io_type', io_type, 'before_after', before_after, 'op', op)) AS detail
FROM {batch}
WHERE NOT coalesce(
     (io_type = 5 AND op = 'INSERT' AND before_after = 'A')
  OR (io_type = 15 AND op = 'UPDATE' AND before_after IN ('A', 'B'))
  OR (io_type = 10 AND op = 'UPDATE' AND before_after IN ('A', 'B'))
  OR (io_type = 115 AND op = 'PK_UPDATE' AND before_after IN ('A', 'B'))
  OR (io_type = 3 AND op = 'DELETE' AND before_after = 'B')
  OR (io_type = 160 AND op = 'DDL'), false)
