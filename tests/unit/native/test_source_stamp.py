"""The staleness check's hash of ``crates/`` (``redo_lib.native``): read from its stamp while no
source changed, computed again when one did, and always the hash ``build.rs`` computes."""

from __future__ import annotations

import os
from pathlib import Path

from redo_lib.native import checked_hash, source_hash


def _tree(root: Path) -> Path:
    (root / "core" / "src").mkdir(parents=True)
    (root / "core" / "src" / "lib.rs").write_text("pub fn f() {}\n")
    (root / "core" / "Cargo.toml").write_text("[package]\nname = 'core'\n")
    (root / "target" / "release").mkdir(parents=True)
    (root / "target" / "release" / "junk.rs").write_text("not a source\n")  # never read
    (root / "fuzz").mkdir()
    (root / "fuzz" / "x.rs").write_text("neither\n")
    return root


def test_the_stamp_is_used_until_a_source_changes(tmp_path: Path) -> None:
    root = _tree(tmp_path / "crates")
    first = checked_hash(root)
    assert first == source_hash(root)
    stamp = root / "target" / ".redo-native-source-stamp.json"
    assert stamp.exists()
    # the stamp answers while sizes and mtimes stand (a forged hash in it shows it was read)
    stamp.write_text(stamp.read_text().replace(first, "0123456789abcdef"))
    assert checked_hash(root) == "0123456789abcdef"
    # a changed source: computed again, and equal to the full hash
    lib = root / "core" / "src" / "lib.rs"
    lib.write_text("pub fn g() {}\n")
    os.utime(lib, ns=(1, 1))
    assert checked_hash(root) == source_hash(root) != first
    # target/ and fuzz/ are no sources
    (root / "fuzz" / "x.rs").write_text("changed\n")
    assert checked_hash(root) == source_hash(root)


def test_an_unwritable_target_still_gives_the_hash(tmp_path: Path) -> None:
    root = _tree(tmp_path / "crates")
    (root / "target").rename(root / "elsewhere")
    (root / "target").write_text("a file where the folder would be")
    assert checked_hash(root) == source_hash(root)
