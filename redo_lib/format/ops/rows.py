"""Row opcodes 11.x: KTB redo + KDO op header + the op's columns (redo-format §5.6).

11.2 IRP, 11.3 DRP, 11.4 LKR, 11.5 URP, 11.6 ORP, 11.8 CFA, 11.11 QMI, 11.12 QMD, 11.16 LMN and
11.22 CMP parse to ``RowOperation``; the KDO's own op byte decides the layout. Layer 1.
"""

from __future__ import annotations

from collections.abc import Sequence

from redo_lib.errors import FormatError
from redo_lib.format.layout import FileLayout
from redo_lib.format.model import Columns, Kdo, KdoOpCode, RowOperation
from redo_lib.format.ops.kdo import (
    data_column_count,
    parse_kdo,
    parse_ktb,
    parse_packed_columns,
    parse_piece_columns,
    parse_positions,
    parse_qmi_rows,
)

ROW_OPCODES = (2, 3, 4, 5, 6, 8, 11, 12, 16, 22)


def parse_row_operation(fields: Sequence[bytes], block_class: int, layout: FileLayout) -> RowOperation:
    """OP 11.x — field 1 KTB redo, field 2 KDO, then per KDO op (§5.6 table)."""
    if len(fields) < 2:
        raise FormatError(f"11.x needs KTB and KDO fields, has {len(fields)}")
    ktb = parse_ktb(fields[0], layout)
    kdo = parse_kdo(fields[1], layout)
    code = kdo.op & 0x1F
    if code in (KdoOpCode.IRP, KdoOpCode.ORP):
        columns, _ = parse_piece_columns(fields, 2, kdo, redo=True)
        return RowOperation(ktb=ktb, kdo=kdo, columns=columns)
    if code == KdoOpCode.URP:
        if len(fields) < 3:
            return RowOperation(ktb=ktb, kdo=kdo)
        positions = parse_positions(fields[2], layout)
        if kdo.kdom2:
            if len(fields) < 4:
                raise FormatError("11.5 KDOM2 without its value vector")
            columns, _ = parse_packed_columns(fields[3], kdo.nnew or 0, layout, "KDOM2 redo")
        else:
            columns = _urp_redo_columns(fields, 3, kdo)
        return RowOperation(ktb=ktb, kdo=kdo, columns=columns, positions=positions)
    if code == KdoOpCode.QMI:
        if len(fields) < 4:
            raise FormatError("11.11 QMI needs row-length and row-data fields")
        rows = parse_qmi_rows(fields[2], fields[3], len(kdo.slots), kdo.rowdeps, layout)
        return RowOperation(ktb=ktb, kdo=kdo, qmi_rows=rows)
    return RowOperation(ktb=ktb, kdo=kdo)


def _urp_redo_columns(fields: Sequence[bytes], i: int, kdo: Kdo) -> Columns:
    """URP redo values (OLR's reading): a field per column up to ``ccData``; NULL columns after the
    last non-NULL one take no field; NULL columns before it have a zero-length field."""
    limit = data_column_count(kdo)
    out: list[bytes | None] = []
    for col in range(kdo.nnew or 0):
        null = kdo.is_null(col)
        if col >= limit:
            out.append(None)
            continue
        if i >= len(fields):
            break
        field = fields[i]
        i += 1
        if null:
            if field:
                raise FormatError(
                    f"URP column {col} is NULL by the bitmap but its field has {len(field)} bytes"
                )
            out.append(None)
        else:
            out.append(bytes(field))
    return tuple(out)
