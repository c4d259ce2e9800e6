"""ColumnDef / TableVersion values, type codes, and the key choice of trail-contract rule 12."""

from __future__ import annotations

import dataclasses

import pytest

from redo_lib.dictionary.model import (
    ColumnDef,
    KeyConstraint,
    KeyKind,
    TableVersion,
    TypeCode,
    choose_key,
    normalize_type_name,
    type_code_for_name,
    type_name_for_code,
)
from redo_lib.errors import DictionaryError, MissingColumnError


def col(
    name: str, segcol: int, *, type_code: int = TypeCode.NUMBER, nullable: bool = True, hidden: bool = False
) -> ColumnDef:
    return ColumnDef(
        col_no=0 if hidden else segcol,
        segcol_no=segcol,
        name=name,
        type_code=type_code,
        type_name=type_name_for_code(type_code),
        length=22,
        nullable=nullable,
        hidden=hidden,
    )


def pk(*names: str, name: str = "PK") -> KeyConstraint:
    return KeyConstraint(name=name, kind=KeyKind.PRIMARY, columns=names)


def uk(*names: str, name: str = "UK") -> KeyConstraint:
    return KeyConstraint(name=name, kind=KeyKind.UNIQUE, columns=names)


COLUMNS = (
    col("ID", 1, nullable=False),
    col("CODE", 2, nullable=False),
    col("EMAIL", 3, type_code=TypeCode.VARCHAR2, nullable=True),
    col("NOTES", 4, type_code=TypeCode.CLOB),
    col("SYS_NC00005$", 5, hidden=True),
)


# -- rule 12 ------------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("constraints", "expected"),
    [
        pytest.param([pk("ID")], (KeyKind.PRIMARY, ("ID",)), id="primary-key"),
        pytest.param([uk("CODE"), pk("ID")], (KeyKind.PRIMARY, ("ID",)), id="primary-key-wins-over-unique"),
        pytest.param([uk("CODE")], (KeyKind.UNIQUE, ("CODE",)), id="unique-key-of-not-null-columns"),
        pytest.param(
            [uk("EMAIL")],
            (KeyKind.ALL, ("ID", "CODE", "EMAIL")),
            id="unique-key-with-nullable-column-not-eligible",
        ),
        pytest.param(
            [uk("ID", "EMAIL", name="A_UK"), uk("CODE", name="B_UK")],
            (KeyKind.UNIQUE, ("CODE",)),
            id="nullable-unique-skipped-for-the-next",
        ),
        pytest.param(
            [uk("CODE", name="Z_UK"), uk("ID", name="A_UK")],
            (KeyKind.UNIQUE, ("ID",)),
            id="first-unique-by-name",
        ),
        pytest.param([], (KeyKind.ALL, ("ID", "CODE", "EMAIL")), id="no-key-all-visible-non-lob-columns"),
        pytest.param(
            [pk("VIRT")], (KeyKind.ALL, ("ID", "CODE", "EMAIL")), id="key-on-unstored-column-not-eligible"
        ),
        pytest.param([pk("CODE", "ID")], (KeyKind.PRIMARY, ("ID", "CODE")), id="key-columns-in-column-order"),
    ],
)
def test_choose_key_follows_rule_12(
    constraints: list[KeyConstraint], expected: tuple[KeyKind, tuple[str, ...]]
) -> None:
    assert choose_key(COLUMNS, constraints) == expected


def test_all_columns_key_falls_back_to_lobs_when_nothing_else_is_visible() -> None:
    columns = (col("DOC", 1, type_code=TypeCode.BLOB), col("SYS_NC00002$", 2, hidden=True))
    assert choose_key(columns, []) == (KeyKind.ALL, ("DOC",))


# -- TableVersion ---------------------------------------------------------------------------------------


def version(**changes: object) -> TableVersion:
    base = TableVersion(
        obj=100,
        dataobj=100,
        owner="HR",
        name="EMP",
        columns=(col("ID", 1, nullable=False), col("NAME", 2), col("DEPT", 4)),
        key_columns=("ID",),
        key_kind=KeyKind.PRIMARY,
        valid_from_scn=1000,
    )
    return dataclasses.replace(base, **changes)  # type: ignore[arg-type]


def test_full_name_is_owner_dot_name() -> None:
    assert version().full_name == "HR.EMP"


@pytest.mark.parametrize(("segcol", "name"), [(1, "ID"), (2, "NAME"), (4, "DEPT")])
def test_column_by_segcol_is_one_based_and_allows_gaps(segcol: int, name: str) -> None:
    column = version().column_by_segcol(segcol)
    assert column.name == name
    assert column.index == segcol - 1


@pytest.mark.parametrize("segcol", [0, 3, 5])
def test_column_by_segcol_raises_missing_column(segcol: int) -> None:
    with pytest.raises(MissingColumnError) as info:
        version().column_by_segcol(segcol)
    assert info.value.details["obj"] == 100
    assert info.value.details["segcol"] == segcol


def test_column_by_name() -> None:
    assert version().column_by_name("DEPT").segcol_no == 4
    with pytest.raises(MissingColumnError):
        version().column_by_name("NOPE")


def test_key_kind_given_as_string_is_stored_as_enum() -> None:
    assert version(key_kind="unique", key_columns=("ID",)).key_kind is KeyKind.UNIQUE


@pytest.mark.parametrize(
    "changes",
    [
        pytest.param({"columns": (col("B", 2), col("A", 1))}, id="columns-out-of-segcol-order"),
        pytest.param({"columns": (col("A", 1), col("A", 2))}, id="duplicate-column-name"),
        pytest.param({"columns": ()}, id="no-columns"),
        pytest.param({"key_columns": ("NOPE",)}, id="key-column-not-a-column"),
        pytest.param({"key_columns": ()}, id="empty-key"),
        pytest.param({"key_kind": "foreign"}, id="bad-key-kind"),
        pytest.param({"valid_to_scn": 1000}, id="empty-scn-range"),
    ],
)
def test_inconsistent_table_version_is_a_dictionary_error(changes: dict[str, object]) -> None:
    with pytest.raises(DictionaryError):
        version(**changes)


@pytest.mark.parametrize("segcol", [0, -1])
def test_column_segcol_starts_at_one(segcol: int) -> None:
    with pytest.raises(DictionaryError):
        col("X", segcol)


def test_covers_is_half_open() -> None:
    v = version(valid_to_scn=2000)
    assert [v.covers(s) for s in (999, 1000, 1999, 2000)] == [False, True, True, False]


# -- type names and codes -------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("name", "code"),
    [
        ("VARCHAR2", 1),
        ("NVARCHAR2", 1),
        ("NUMBER", 2),
        ("FLOAT", 2),
        ("DATE", 12),
        ("RAW", 23),
        ("CHAR", 96),
        ("NCHAR", 96),
        ("BINARY_FLOAT", 100),
        ("BINARY_DOUBLE", 101),
        ("CLOB", 112),
        ("NCLOB", 112),
        ("BLOB", 113),
        ("TIMESTAMP(6)", 180),
        ("TIMESTAMP(9) WITH TIME ZONE", 181),
        ("INTERVAL YEAR(2) TO MONTH", 182),
        ("INTERVAL DAY(2) TO SECOND(6)", 183),
        ("TIMESTAMP(6) WITH LOCAL TIME ZONE", 231),
        ("LONG RAW", 24),
        ("SDO_GEOMETRY", 0),
    ],
)
def test_type_code_for_data_type_name(name: str, code: int) -> None:
    assert type_code_for_name(name) == code


def test_normalize_type_name_drops_qualifiers() -> None:
    assert normalize_type_name("interval day(2) to  second(6)") == "INTERVAL DAY TO SECOND"


@pytest.mark.parametrize(
    ("code", "national", "float_", "name"),
    [
        (1, False, False, "VARCHAR2"),
        (1, True, False, "NVARCHAR2"),
        (96, True, False, "NCHAR"),
        (112, True, False, "NCLOB"),
        (2, False, True, "FLOAT"),
        (2, False, False, "NUMBER"),
        (181, False, False, "TIMESTAMP WITH TIME ZONE"),
        (121, False, False, "TYPE#121"),
    ],
)
def test_type_name_for_code(code: int, national: bool, float_: bool, name: str) -> None:
    assert type_name_for_code(code, national=national, float_=float_) == name
