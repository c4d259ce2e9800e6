"""How errors print: position first when one is known, the message alone otherwise."""

from __future__ import annotations

import pytest

from redo_lib.errors import ChecksumError, LogSetError, Position, RedoError


@pytest.mark.parametrize(
    ("error", "text"),
    [
        (
            LogSetError("range 16-16 does not start at a batch boundary"),
            "range 16-16 does not start at a batch boundary",
        ),
        (RedoError("no batch 'b-9'", batch="b-9"), "no batch 'b-9' (batch=b-9)"),
        (
            ChecksumError(
                "checksum mismatch", position=Position(file="1_15_7.arc", sequence=15, block=32, offset=14)
            ),
            "1_15_7.arc: RBA 0x00000f.00000020.000e (block 32, offset 14): checksum mismatch",
        ),
        (LogSetError("gap", position=Position(file="s3://a/1_3_7.arc")), "s3://a/1_3_7.arc: gap"),
    ],
    ids=["no-position", "no-position-details", "rba", "file-only"],
)
def test_an_error_prints_its_position_only_when_one_is_known(error: RedoError, text: str) -> None:
    assert str(error) == text
    assert "<unknown position>" not in str(error)


def test_an_empty_position_is_not_known() -> None:
    assert not Position().known
    assert Position(line=3).known and Position(offset=0).known


def test_the_retry_rule() -> None:
    """One rule for every task (issue 37, item 4): an error no retry can fix is final; storage
    errors and anything unknown may pass on retry."""
    from redo_lib.errors import StorageError, retry_can_help

    assert not retry_can_help(RedoError("REDOTRAIL_DBID must be a DBID"))
    assert not retry_can_help(LogSetError("the archive holds logs of 2 databases"))
    assert not retry_can_help(ChecksumError("bad checksum"))
    assert retry_can_help(StorageError("listing failed"))
    assert retry_can_help(OSError("connection reset"))
