-- export_dictionary.sql: the source database's dictionary as Redotrail's own JSON (docs/dictionary.md)
--
-- WHAT IT WRITES
--   One JSON document, "format": "redotrail-dictionary", "format_version": 1: the current SCN, the
--   database and national character sets, the highest object number in the database
--   ("max_object_id", MAX(OBJECT_ID) of DBA_OBJECTS over every owner: Redotrail tells objects that
--   existed at the export but were not exported, out of scope, from objects created after it, which
--   fail validation until the dictionary is refreshed; docs/data-quality.md), the owners exported
--   ("owners") and every table, partition and subpartition they own ("objects", from DBA_OBJECTS:
--   a change to one of them that no exported table describes fails validation naming it, where
--   another owner's object is out of scope), and for every table
--   of the chosen owners its object ids, its stored columns (hidden ones included, virtual ones
--   left out), its enabled primary / unique key constraints, the object ids of its partitions
--   and subpartitions, and the storage the decoder cannot read ("encrypted": a TDE tablespace,
--   "compress_for": DBA_TABLES.COMPRESS_FOR when compressed, "iot_type": an index-organized table,
--   whose "dataobj" is then its IOT - TOP index's; each absent when not so), and "supplemental": "all"
--   when every column is supplementally logged (V$DATABASE.SUPPLEMENTAL_LOG_DATA_ALL, or an ALL
--   COLUMN LOGGING group in DBA_LOG_GROUPS; absent otherwise: deletes then carry their key). The layouts of Oracle's
--   own dictionary tables SYS.OBJ$, TABPART$, TABCOMPART$, TABSUBPART$, USER$, COL$, CDEF$ and CCOL$
--   are "tables" entries too, owned by SYS (their columns by SEGCOL#, from DBA_TAB_COLS), and the
--   "sys" member holds the exported owners' rows of those tables, each with its ROWID (ROWIDTOCHAR) and valid
--   from the exported SCN: their USER$ rows, the OBJ$ rows of their tables, partitions and
--   subpartitions (TYPE# 2, 19, 34), the TABPART$ / TABCOMPART$ rows of those tables (BO#), the
--   TABSUBPART$ rows of those composite partitions (POBJ#), the COL$ rows of those tables (OBJ#:
--   every column, hidden, unused and virtual ones included) and their constraints' CDEF$ rows and
--   those constraints' CCOL$ rows (OBJ#: every constraint, of any TYPE#). The decoder follows the
--   owners' partitions and objects from the row changes of those tables in the redo (docs/dictionary.md,
--   "The SYS rows"). Redotrail reads it with
--   redo_lib.dictionary.load_dictionary(); every table in it is valid from the exported SCN on.
--   DATA_TYPE names ("VARCHAR2", "TIMESTAMP(6)") are mapped to Oracle's internal type codes in
--   Python (redo_lib/dictionary/model.py, type_code_for_name), not here. CHARACTER_SET_NAME is passed
--   through as CHAR_CS / NCHAR_CS and resolved against the exported character sets on load.
--
--   DBA_TABLESPACES and DBA_INDEXES are read too (the storage attributes), DBA_LOG_GROUPS (the
--   supplemental logging), and the eight SYS tables
--   above themselves (the "sys" member).
--
-- HOW TO RUN (SQL*Plus or SQLcl; Oracle 12.2 or later)
--   Connect to the database whose redo you will decode (in a multitenant database: the PDB), as a
--   user that can read the DBA_ views, NLS_DATABASE_PARAMETERS and V$DATABASE (SELECT_CATALOG_ROLE
--   is enough for those) and the eight SYS tables of the "sys" member. Either grant SELECT on each:
--
--     GRANT SELECT ON SYS.OBJ$ TO exporter;        GRANT SELECT ON SYS.TABPART$ TO exporter;
--     GRANT SELECT ON SYS.TABCOMPART$ TO exporter; GRANT SELECT ON SYS.TABSUBPART$ TO exporter;
--     GRANT SELECT ON SYS.USER$ TO exporter;       GRANT SELECT ON SYS.COL$ TO exporter;
--     GRANT SELECT ON SYS.CDEF$ TO exporter;       GRANT SELECT ON SYS.CCOL$ TO exporter;
--
--   or grant SELECT ANY DICTIONARY, which covers OBJ$, COL$, CDEF$, CCOL$ and the partition tables
--   but, from 12.1 on, not USER$ (it holds the password hashes): USER$ still needs its own GRANT
--   SELECT above. Only USER# and NAME of USER$ are read. Use a UTF-8 client character set so that names are written as
--   UTF-8:
--
--     export NLS_LANG=AMERICAN_AMERICA.AL32UTF8
--     sqlplus -s -l user@//dbhost:1521/service @include/sql/export_dictionary.sql HR,SALES dictionary.json
--
--   argument 1  the owners to export: comma-separated, no spaces, spelled as the dictionary stores
--               them (normally upper case)
--   argument 2  the output file. The JSON goes there (SPOOL, in the client's current directory when
--               the name is relative); nothing is printed to the terminal. The script exits when done,
--               with a non-zero exit code on any SQL error.
--
--   Check the result:  .venv/bin/python -c "from redo_lib.dictionary import load_dictionary as l; print(l('dictionary.json'))"
--
-- WHEN TO RUN
--   Take the export while no DDL runs on these owners, at an SCN no later than the first redo you
--   decode with it: the export is valid from its "scn" on, and DDL met later in the redo opens newer
--   versions. The SCN (and max_object_id) are read by the same statement that reads the
--   dictionary views and the SYS tables; the SCN is read once and is the "valid_from_scn" of every
--   "sys" row. Export every owner you capture (REDOTRAIL_CAPTURE, docs/operations.md): an
--   object of an owner the export leaves out counts as out of scope.
--
-- LIMITS
--   * Each output line is one JSON_OBJECT of at most 4000 bytes (VARCHAR2 without
--     MAX_STRING_SIZE=EXTENDED); a key constraint whose column names add up to more than that fails
--     with ORA-40459 / ORA-01489.
--   * The SCN comes from V$DATABASE.CURRENT_SCN. Without access to V$DATABASE, replace that scalar
--     subquery by DBMS_FLASHBACK.GET_SYSTEM_CHANGE_NUMBER (needs EXECUTE on DBMS_FLASHBACK).
--   * 11.2 FALLBACK: JSON_OBJECT and JSON_ARRAYAGG do not exist before 12.2. On 11.2 keep the CTEs
--     below and build each line by concatenation instead, quoting every string value as
--     '"' || REPLACE(REPLACE(value, '\', '\\'), '"', '\"') || '"', writing NULL as null and
--     NULLABLE / HIDDEN_COLUMN as true / false; for the constraint columns use
--     LISTAGG('"' || column_name || '"', ',') WITHIN GROUP (ORDER BY position). The document layout
--     is the same (docs/dictionary.md).

SET ECHO OFF
SET TERMOUT OFF
SET FEEDBACK OFF
SET HEADING OFF
SET VERIFY OFF
SET PAGESIZE 0
SET LINESIZE 32767
SET TRIMSPOOL ON
SET TAB OFF
SET SERVEROUTPUT OFF
SET SQLBLANKLINES ON
SET DEFINE ON
WHENEVER SQLERROR EXIT FAILURE
WHENEVER OSERROR EXIT FAILURE

DEFINE owners = "&1"
DEFINE outfile = "&2"

SPOOL &outfile

WITH
scn AS (
  -- read once: the document's "scn" and the "valid_from_scn" of every "sys" row
  SELECT /*+ MATERIALIZE */ d.current_scn FROM v$database d
),
tabs AS (
  SELECT o.owner,
         o.object_name AS table_name,
         o.object_id,
         -- an index-organized table has no segment of its own: its rows live in its IOT - TOP
         -- index, whose data object id is the one the redo names
         COALESCE(o.data_object_id,
                  (SELECT io.data_object_id
                     FROM dba_indexes i
                     JOIN dba_objects io
                       ON io.owner = i.owner AND io.object_name = i.index_name AND io.object_type = 'INDEX'
                    WHERE i.table_owner = t.owner AND i.table_name = t.table_name
                      AND i.index_type = 'IOT - TOP')) AS data_object_id,
         -- storage the decoder cannot read (docs/data-quality.md): a TDE-encrypted tablespace (of
         -- the table, else of its partitions), COMPRESS_FOR when compression is enabled, IOT_TYPE
         CASE WHEN EXISTS (SELECT 1 FROM dba_tablespaces ts
                            WHERE ts.encrypted = 'YES'
                              AND (ts.tablespace_name = t.tablespace_name
                                   OR ts.tablespace_name IN (SELECT p.tablespace_name FROM dba_tab_partitions p
                                                              WHERE p.table_owner = t.owner
                                                                AND p.table_name = t.table_name)))
              THEN 'true' END AS encrypted,
         CASE WHEN t.compression = 'ENABLED' THEN t.compress_for END AS compress_for,
         t.iot_type,
         -- every column supplementally logged, by the database or the table (docs/tables.md)
         CASE WHEN (SELECT d.supplemental_log_data_all FROM v$database d) = 'YES'
                OR EXISTS (SELECT 1 FROM dba_log_groups g
                            WHERE g.owner = t.owner AND g.table_name = t.table_name
                              AND g.log_group_type = 'ALL COLUMN LOGGING')
              THEN 'all' END AS supplemental,
         ROW_NUMBER() OVER (ORDER BY o.owner, o.object_name) AS tab_no
    FROM dba_tables t
    JOIN dba_objects o
      ON o.owner = t.owner
     AND o.object_name = t.table_name
     AND o.object_type = 'TABLE'
     AND o.subobject_name IS NULL
   WHERE (INSTR(',' || '&&owners' || ',', ',' || t.owner || ',') > 0
          -- the layouts of the SYS tables whose rows make the "sys" member
          OR (t.owner = 'SYS' AND t.table_name IN ('OBJ$', 'TABPART$', 'TABCOMPART$', 'TABSUBPART$', 'USER$',
                                                   'COL$', 'CDEF$', 'CCOL$')))
     AND t.dropped = 'NO'
),
cols AS (
  SELECT x.tab_no,
         ROW_NUMBER() OVER (PARTITION BY x.tab_no ORDER BY c.segment_column_id) AS rn,
         JSON_OBJECT(
           'col_no'      VALUE c.column_id,            -- NULL for hidden columns
           'segcol_no'   VALUE c.segment_column_id,    -- redo column index + 1
           'intcol_no'   VALUE c.internal_column_id,   -- informational
           'name'        VALUE c.column_name,
           'type'        VALUE c.data_type,
           'length'      VALUE c.data_length,          -- bytes
           'char_length' VALUE CASE WHEN c.char_used IS NOT NULL THEN c.char_length END,
           'precision'   VALUE c.data_precision,
           'scale'       VALUE c.data_scale,
           'charset'     VALUE c.character_set_name,   -- CHAR_CS, NCHAR_CS or NULL
           'nullable'    VALUE CASE c.nullable WHEN 'Y' THEN 'true' ELSE 'false' END FORMAT JSON,
           'hidden'      VALUE CASE c.hidden_column WHEN 'YES' THEN 'true' ELSE 'false' END FORMAT JSON
         ) AS js
    FROM dba_tab_cols c
    JOIN tabs x
      ON x.owner = c.owner
     AND x.table_name = c.table_name
   WHERE c.segment_column_id IS NOT NULL               -- virtual columns have no place in the row
),
cons AS (
  SELECT x.tab_no,
         ROW_NUMBER() OVER (PARTITION BY x.tab_no ORDER BY k.constraint_name) AS rn,
         JSON_OBJECT(
           'name'    VALUE k.constraint_name,
           'type'    VALUE k.constraint_type,          -- P or U
           'columns' VALUE (SELECT JSON_ARRAYAGG(cc.column_name ORDER BY cc.position)
                              FROM dba_cons_columns cc
                             WHERE cc.owner = k.owner
                               AND cc.constraint_name = k.constraint_name
                               AND cc.table_name = k.table_name) FORMAT JSON
         ) AS js
    FROM dba_constraints k
    JOIN tabs x
      ON x.owner = k.owner
     AND x.table_name = k.table_name
   WHERE k.constraint_type IN ('P', 'U')
     AND k.status = 'ENABLED'
),
segs AS (
  SELECT x.tab_no, po.object_id, po.data_object_id, p.partition_name AS seg_name
    FROM dba_tab_partitions p
    JOIN tabs x
      ON x.owner = p.table_owner
     AND x.table_name = p.table_name
    JOIN dba_objects po
      ON po.owner = p.table_owner
     AND po.object_name = p.table_name
     AND po.subobject_name = p.partition_name
     AND po.object_type = 'TABLE PARTITION'
  UNION ALL
  SELECT x.tab_no, so.object_id, so.data_object_id, s.subpartition_name
    FROM dba_tab_subpartitions s
    JOIN tabs x
      ON x.owner = s.table_owner
     AND x.table_name = s.table_name
    JOIN dba_objects so
      ON so.owner = s.table_owner
     AND so.object_name = s.table_name
     AND so.subobject_name = s.subpartition_name
     AND so.object_type = 'TABLE SUBPARTITION'
),
parts AS (
  SELECT tab_no,
         ROW_NUMBER() OVER (PARTITION BY tab_no ORDER BY object_id) AS rn,
         JSON_OBJECT('obj' VALUE object_id, 'dataobj' VALUE data_object_id, 'name' VALUE seg_name) AS js
    FROM segs
),
objs AS (
  -- the exported owners' objects that hold rows (recycle-bin objects left out)
  SELECT ROW_NUMBER() OVER (ORDER BY o.object_id) AS rn,
         JSON_OBJECT('obj' VALUE o.object_id, 'dataobj' VALUE o.data_object_id,
                     'owner' VALUE o.owner, 'name' VALUE o.object_name,
                     'subname' VALUE o.subobject_name, 'type' VALUE o.object_type) AS js
    FROM dba_objects o
   WHERE INSTR(',' || '&&owners' || ',', ',' || o.owner || ',') > 0
     AND o.object_type IN ('TABLE', 'TABLE PARTITION', 'TABLE SUBPARTITION')
     AND o.object_name NOT LIKE 'BIN$%'
),
sys_users AS (
  -- the "sys" member (docs/dictionary.md, "The SYS rows"): the exported owners' USER$ rows ...
  SELECT ROWIDTOCHAR(u.rowid) AS rid, u.user#, u.name
    FROM sys.user$ u
   WHERE INSTR(',' || '&&owners' || ',', ',' || u.name || ',') > 0
),
sys_objs AS (
  -- ... the OBJ$ rows of their tables (TYPE# 2), table partitions (19) and subpartitions (34) ...
  SELECT ROWIDTOCHAR(o.rowid) AS rid, o.obj#, o.dataobj#, o.owner#, o.name, o.subname, o.type#, o.flags
    FROM sys.obj$ o
    JOIN sys_users u
      ON u.user# = o.owner#
   WHERE o.type# IN (2, 19, 34)
),
sys_tabparts AS (
  -- ... the TABPART$ and TABCOMPART$ rows of those tables (BO#) ...
  SELECT ROWIDTOCHAR(p.rowid) AS rid, p.obj#, p.dataobj#, p.bo#, p.part#
    FROM sys.tabpart$ p
   WHERE p.bo# IN (SELECT so.obj# FROM sys_objs so WHERE so.type# = 2)
),
sys_compparts AS (
  SELECT ROWIDTOCHAR(p.rowid) AS rid, p.obj#, p.dataobj#, p.bo#, p.part#
    FROM sys.tabcompart$ p
   WHERE p.bo# IN (SELECT so.obj# FROM sys_objs so WHERE so.type# = 2)
),
sys_subparts AS (
  -- ... and the TABSUBPART$ rows of those composite partitions (POBJ#)
  SELECT ROWIDTOCHAR(sp.rowid) AS rid, sp.obj#, sp.dataobj#, sp.pobj#, sp.subpart#
    FROM sys.tabsubpart$ sp
   WHERE sp.pobj# IN (SELECT cp.obj# FROM sys_compparts cp)
),
sys_cols AS (
  -- ... and the COL$ rows of those tables (OBJ#), every column
  SELECT ROWIDTOCHAR(c.rowid) AS rid, c.obj#, c.col#, c.segcol#, c.intcol#, c.name, c.type#, c.length,
         c.precision#, c.scale, c.null$, c.property, c.charsetid, c.charsetform
    FROM sys.col$ c
   WHERE c.obj# IN (SELECT so.obj# FROM sys_objs so WHERE so.type# = 2)
),
sys_cdefs AS (
  -- ... the CDEF$ rows of those tables (OBJ#), every constraint ...
  SELECT ROWIDTOCHAR(d.rowid) AS rid, d.obj#, d.con#, d.type#
    FROM sys.cdef$ d
   WHERE d.obj# IN (SELECT so.obj# FROM sys_objs so WHERE so.type# = 2)
),
sys_ccols AS (
  -- ... and the CCOL$ rows of those tables (OBJ#), every column of every constraint
  SELECT ROWIDTOCHAR(cc.rowid) AS rid, cc.obj#, cc.con#, cc.intcol#
    FROM sys.ccol$ cc
   WHERE cc.obj# IN (SELECT so.obj# FROM sys_objs so WHERE so.type# = 2)
),
sys_tables AS (
  -- the members of "sys", in document order
  SELECT 1 AS tbl_no, 'OBJ$' AS tbl FROM dual UNION ALL
  SELECT 2, 'TABPART$' FROM dual UNION ALL
  SELECT 3, 'TABCOMPART$' FROM dual UNION ALL
  SELECT 4, 'TABSUBPART$' FROM dual UNION ALL
  SELECT 5, 'USER$' FROM dual UNION ALL
  SELECT 6, 'COL$' FROM dual UNION ALL
  SELECT 7, 'CDEF$' FROM dual UNION ALL
  SELECT 8, 'CCOL$' FROM dual
),
sys_rows AS (
  -- one row each: "rowid", "valid_from_scn" (the export SCN), "valid_to_scn" (null: as it stands),
  -- then the columns the spec names
  SELECT 1 AS tbl_no, ROW_NUMBER() OVER (ORDER BY r.obj#) AS rn,
         JSON_OBJECT('rowid' VALUE r.rid, 'valid_from_scn' VALUE s.current_scn,
                     'valid_to_scn' VALUE CAST(NULL AS NUMBER),
                     'OBJ#' VALUE r.obj#, 'DATAOBJ#' VALUE r.dataobj#, 'OWNER#' VALUE r.owner#,
                     'NAME' VALUE r.name, 'SUBNAME' VALUE r.subname, 'TYPE#' VALUE r.type#,
                     'FLAGS' VALUE r.flags NULL ON NULL) AS js
    FROM sys_objs r CROSS JOIN scn s
  UNION ALL
  SELECT 2, ROW_NUMBER() OVER (ORDER BY r.obj#),
         JSON_OBJECT('rowid' VALUE r.rid, 'valid_from_scn' VALUE s.current_scn,
                     'valid_to_scn' VALUE CAST(NULL AS NUMBER),
                     'OBJ#' VALUE r.obj#, 'DATAOBJ#' VALUE r.dataobj#, 'BO#' VALUE r.bo#,
                     'PART#' VALUE r.part# NULL ON NULL)
    FROM sys_tabparts r CROSS JOIN scn s
  UNION ALL
  SELECT 3, ROW_NUMBER() OVER (ORDER BY r.obj#),
         JSON_OBJECT('rowid' VALUE r.rid, 'valid_from_scn' VALUE s.current_scn,
                     'valid_to_scn' VALUE CAST(NULL AS NUMBER),
                     'OBJ#' VALUE r.obj#, 'DATAOBJ#' VALUE r.dataobj#, 'BO#' VALUE r.bo#,
                     'PART#' VALUE r.part# NULL ON NULL)
    FROM sys_compparts r CROSS JOIN scn s
  UNION ALL
  SELECT 4, ROW_NUMBER() OVER (ORDER BY r.obj#),
         JSON_OBJECT('rowid' VALUE r.rid, 'valid_from_scn' VALUE s.current_scn,
                     'valid_to_scn' VALUE CAST(NULL AS NUMBER),
                     'OBJ#' VALUE r.obj#, 'DATAOBJ#' VALUE r.dataobj#, 'POBJ#' VALUE r.pobj#,
                     'SUBPART#' VALUE r.subpart# NULL ON NULL)
    FROM sys_subparts r CROSS JOIN scn s
  UNION ALL
  SELECT 5, ROW_NUMBER() OVER (ORDER BY r.user#),
         JSON_OBJECT('rowid' VALUE r.rid, 'valid_from_scn' VALUE s.current_scn,
                     'valid_to_scn' VALUE CAST(NULL AS NUMBER),
                     'USER#' VALUE r.user#, 'NAME' VALUE r.name NULL ON NULL)
    FROM sys_users r CROSS JOIN scn s
  UNION ALL
  SELECT 6, ROW_NUMBER() OVER (ORDER BY r.obj#, r.intcol#),
         JSON_OBJECT('rowid' VALUE r.rid, 'valid_from_scn' VALUE s.current_scn,
                     'valid_to_scn' VALUE CAST(NULL AS NUMBER),
                     'OBJ#' VALUE r.obj#, 'COL#' VALUE r.col#, 'SEGCOL#' VALUE r.segcol#,
                     'INTCOL#' VALUE r.intcol#, 'NAME' VALUE r.name, 'TYPE#' VALUE r.type#,
                     'LENGTH' VALUE r.length, 'PRECISION#' VALUE r.precision#, 'SCALE' VALUE r.scale,
                     'NULL$' VALUE r.null$, 'PROPERTY' VALUE r.property, 'CHARSETID' VALUE r.charsetid,
                     'CHARSETFORM' VALUE r.charsetform NULL ON NULL)
    FROM sys_cols r CROSS JOIN scn s
  UNION ALL
  SELECT 7, ROW_NUMBER() OVER (ORDER BY r.obj#, r.con#),
         JSON_OBJECT('rowid' VALUE r.rid, 'valid_from_scn' VALUE s.current_scn,
                     'valid_to_scn' VALUE CAST(NULL AS NUMBER),
                     'OBJ#' VALUE r.obj#, 'CON#' VALUE r.con#, 'TYPE#' VALUE r.type# NULL ON NULL)
    FROM sys_cdefs r CROSS JOIN scn s
  UNION ALL
  SELECT 8, ROW_NUMBER() OVER (ORDER BY r.obj#, r.con#, r.intcol#),
         JSON_OBJECT('rowid' VALUE r.rid, 'valid_from_scn' VALUE s.current_scn,
                     'valid_to_scn' VALUE CAST(NULL AS NUMBER),
                     'OBJ#' VALUE r.obj#, 'CON#' VALUE r.con#, 'INTCOL#' VALUE r.intcol# NULL ON NULL)
    FROM sys_ccols r CROSS JOIN scn s
),
header AS (
  SELECT JSON_OBJECT(
           'format'           VALUE 'redotrail-dictionary',
           'format_version'   VALUE 1,
           'scn'              VALUE (SELECT s.current_scn FROM scn s),
           'max_object_id'    VALUE (SELECT MAX(o.object_id) FROM dba_objects o),
           'owners'           VALUE (SELECT JSON_ARRAYAGG(u.username ORDER BY u.username)
                                       FROM dba_users u
                                      WHERE INSTR(',' || '&&owners' || ',', ',' || u.username || ',') > 0)
                                    FORMAT JSON,
           'db_charset'       VALUE (SELECT n.value FROM nls_database_parameters n
                                      WHERE n.parameter = 'NLS_CHARACTERSET'),
           'national_charset' VALUE (SELECT n.value FROM nls_database_parameters n
                                      WHERE n.parameter = 'NLS_NCHAR_CHARACTERSET'),
           'exported_by'      VALUE 'include/sql/export_dictionary.sql'
         ) AS js
    FROM dual
),
heads AS (
  SELECT tab_no,
         JSON_OBJECT('obj' VALUE object_id, 'dataobj' VALUE data_object_id,
                     'owner' VALUE owner, 'name' VALUE table_name,
                     'encrypted' VALUE encrypted FORMAT JSON, 'compress_for' VALUE compress_for,
                     'iot_type' VALUE iot_type, 'supplemental' VALUE supplemental ABSENT ON NULL) AS js
    FROM tabs
),
lines AS (
  -- part 0: document header; part 1: the tables, each in sections 0..6; parts 2-3: the objects;
  -- part 4: the "sys" member, each of its tables a section header and its rows; part 5: the end.
  SELECT 0 AS part, 0 AS tab_no, 0 AS sect, 0 AS rn,
         SUBSTR(js, 1, LENGTH(js) - 1) || ',"tables":[' AS line
    FROM header
  UNION ALL
  SELECT 1, tab_no, 0, 0,
         CASE WHEN tab_no > 1 THEN ',' END || SUBSTR(js, 1, LENGTH(js) - 1) || ',"columns":['
    FROM heads
  UNION ALL
  SELECT 1, tab_no, 1, rn, CASE WHEN rn > 1 THEN ',' END || js FROM cols
  UNION ALL
  SELECT 1, tab_no, 2, 0, '],"constraints":[' FROM tabs
  UNION ALL
  SELECT 1, tab_no, 3, rn, CASE WHEN rn > 1 THEN ',' END || js FROM cons
  UNION ALL
  SELECT 1, tab_no, 4, 0, '],"partitions":[' FROM tabs
  UNION ALL
  SELECT 1, tab_no, 5, rn, CASE WHEN rn > 1 THEN ',' END || js FROM parts
  UNION ALL
  SELECT 1, tab_no, 6, 0, ']}' FROM tabs
  UNION ALL
  SELECT 2, 0, 0, 0, '],"objects":[' FROM dual
  UNION ALL
  SELECT 3, 0, 0, rn, CASE WHEN rn > 1 THEN ',' END || js FROM objs
  UNION ALL
  SELECT 4, tbl_no, 0, 0, CASE WHEN tbl_no = 1 THEN '],"sys":{' ELSE '],' END || '"' || tbl || '":['
    FROM sys_tables
  UNION ALL
  SELECT 4, tbl_no, 1, rn, CASE WHEN rn > 1 THEN ',' END || js FROM sys_rows
  UNION ALL
  SELECT 5, 0, 0, 0, ']}}' FROM dual
)
SELECT line
  FROM lines
 ORDER BY part, tab_no, sect, rn;

SPOOL OFF
EXIT
