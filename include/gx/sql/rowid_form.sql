-- rule 13: the ROWID of a row change is an 18-character Oracle ROWID; a DDL record (IOType 160) has
-- no row and an empty ROWID
SELECT trail_seq, xid, 'ROWID is not an 18-character Oracle ROWID' AS problem,
       to_json(named_struct('op', op, 'rowid', rowid)) AS detail
FROM {batch}
WHERE NOT coalesce(CASE WHEN io_type = 160 THEN rowid = ''
                        ELSE length(rowid) = 18 AND NOT rowid RLIKE '[^A-Za-z0-9+/]' END, false)
