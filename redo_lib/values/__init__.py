"""Column value encodings: Oracle column bytes <-> Python values and trail text (redo-format §7).

Pure functions, one type family per module: ``numbers`` (NUMBER), ``text`` (character types and
charsets), ``datetimes`` (DATE, TIMESTAMPs, INTERVALs, redo time), ``floats`` (BINARY_FLOAT /
BINARY_DOUBLE), ``rowids`` (ROWID, DBA, UROWID) and ``codecs`` (type code -> codec, and
``decode_value`` / ``encode_value``, the entry points used per column). Layer 1: imports only
``redo_lib.errors``; on bad input everything raises ``ValueDecodeError``.
"""

from redo_lib.values.codecs import CODECS, Codec, decode_value, encode_value
from redo_lib.values.datetimes import (
    decode_date,
    decode_date_value,
    decode_interval_ds,
    decode_interval_ym,
    decode_redo_time,
    decode_timestamp,
    decode_timestamp_ltz,
    decode_timestamp_ltz_value,
    decode_timestamp_tz,
    decode_timestamp_tz_value,
    decode_timestamp_value,
    encode_date,
    encode_interval_ds,
    encode_interval_ym,
    encode_redo_time,
    encode_timestamp,
    encode_timestamp_ltz,
    encode_timestamp_tz,
)
from redo_lib.values.floats import (
    decode_binary_double,
    decode_binary_float,
    encode_binary_double,
    encode_binary_float,
    render_binary_double,
    render_binary_float,
)
from redo_lib.values.numbers import NEGATIVE_INFINITY, POSITIVE_INFINITY, decode_number, encode_number
from redo_lib.values.rowids import (
    RowId,
    dba_block,
    dba_file,
    decode_rowid,
    decode_urowid,
    encode_rowid,
    encode_urowid,
    make_dba,
    parse_rowid,
)
from redo_lib.values.text import TWIN_CHARSET_NAMES, charset_name, charset_names, decode_text, encode_text

__all__ = [
    "CODECS",
    "NEGATIVE_INFINITY",
    "POSITIVE_INFINITY",
    "Codec",
    "RowId",
    "TWIN_CHARSET_NAMES",
    "charset_name",
    "charset_names",
    "dba_block",
    "dba_file",
    "decode_binary_double",
    "decode_binary_float",
    "decode_date",
    "decode_date_value",
    "decode_interval_ds",
    "decode_interval_ym",
    "decode_number",
    "decode_redo_time",
    "decode_rowid",
    "decode_text",
    "decode_timestamp",
    "decode_timestamp_ltz",
    "decode_timestamp_ltz_value",
    "decode_timestamp_tz",
    "decode_timestamp_tz_value",
    "decode_timestamp_value",
    "decode_urowid",
    "decode_value",
    "encode_binary_double",
    "encode_binary_float",
    "encode_date",
    "encode_interval_ds",
    "encode_interval_ym",
    "encode_number",
    "encode_redo_time",
    "encode_rowid",
    "encode_text",
    "encode_timestamp",
    "encode_timestamp_ltz",
    "encode_timestamp_tz",
    "encode_urowid",
    "encode_value",
    "make_dba",
    "parse_rowid",
    "render_binary_double",
    "render_binary_float",
]
