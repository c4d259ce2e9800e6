"""Which changelog rows a batch's publish replaces (``spark_jobs.tables.Ownership``), on a RAC chain
of batches whose watermarks hold commits for the next batch (docs/pipeline-contract.md)."""

from __future__ import annotations

from spark_jobs.tables import Ownership

# batch A covers logs 1_1 and 2_1 up to its watermark 500; a commit of 1_1 at 520 (above it: thread 2
# had not reached 520 in A's logs) is held and emitted by batch B, which covers 1_2 and 2_2 up to 900
A = Ownership(logs=("1_1", "2_1"), watermark=500)
B = Ownership(logs=("1_2", "2_2"), watermark=900, held={"1_1": 520})


def test_each_committed_row_is_owned_by_exactly_one_batch_of_the_chain() -> None:
    rows = [("1_1", 120), ("2_1", 499), ("1_1", 520), ("1_1", 600), ("1_2", 610), ("2_2", 899), ("1_2", 950)]
    later = Ownership(logs=("1_3", "2_3"), held={"1_2": 950})  # the last batch: no watermark
    owners = [
        [name for name, batch in (("A", A), ("B", B), ("C", later)) if batch.owns(*row)] for row in rows
    ]
    assert owners == [["A"], ["A"], ["B"], ["B"], ["B"], ["B"], ["C"]]


def test_a_rerun_replaces_the_held_rows_its_earlier_run_published_and_nothing_below_them() -> None:
    # an earlier run of B published 1_1's held row at 520; this run emits none of 1_1 (say its
    # manifest changed): the earlier rows are still B's, A's rows of 1_1 are not
    again = Ownership(logs=("1_2", "2_2"), watermark=900)
    assert again.intervals({"1_1": 520}) == [("1_2", 0, 900), ("2_2", 0, 900), ("1_1", 520, 900)]
    assert not again.owns("1_1", 120)


def test_without_a_watermark_a_batch_owns_its_logs_whole() -> None:
    legacy = Ownership(logs=("1_5",))
    assert legacy.owns("1_5", 0) and legacy.owns("1_5", 10**15) and not legacy.owns("1_4", 10)
