//! Embed a hash of the crates' sources (`SOURCE_HASH`), so `redo_lib/native.py` can tell a stale
//! extension from a current one: FNV-1a 64 over the sorted relative paths and contents of every
//! `*.rs`, `Cargo.toml` and `Cargo.lock` under `crates/` (outside `target/` and the
//! `fuzz/` crate, which the extension does not contain). The same function is
//! in `redo_lib/native.py`; keep the two in step.

use std::fs;
use std::path::{Path, PathBuf};

fn walk(dir: &Path, root: &Path, out: &mut Vec<(String, PathBuf)>) {
    let Ok(entries) = fs::read_dir(dir) else { return };
    for entry in entries.flatten() {
        let path = entry.path();
        let name = entry.file_name().to_string_lossy().into_owned();
        if path.is_dir() {
            if name != "target" && name != "fuzz" && !name.starts_with('.') {
                walk(&path, root, out);
            }
        } else if name.ends_with(".rs") || name == "Cargo.toml" || name == "Cargo.lock" {
            let rel = path.strip_prefix(root).unwrap().to_string_lossy().replace('\\', "/");
            out.push((rel, path));
        }
    }
}

fn main() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).parent().unwrap().to_path_buf();
    let mut files = Vec::new();
    walk(&root, &root, &mut files);
    files.sort();
    let mut h: u64 = 0xcbf2_9ce4_8422_2325;
    let mut feed = |bytes: &[u8]| {
        for &b in bytes {
            h ^= b as u64;
            h = h.wrapping_mul(0x0100_0000_01b3);
        }
    };
    for (rel, path) in &files {
        feed(rel.as_bytes());
        feed(&[0]);
        feed(&fs::read(path).unwrap_or_default());
        feed(&[0]);
    }
    println!("cargo:rustc-env=REDO_SOURCE_HASH={h:016x}");
    for dir in [
        "redo-core/src",
        "redo-core/tests", // hashed too: without this a changed test file left the extension "stale"
        "redo-py/src",
        "redo-core/Cargo.toml",
        "redo-py/Cargo.toml",
        "Cargo.toml",
        "Cargo.lock",
    ] {
        println!("cargo:rerun-if-changed={}", root.join(dir).display());
    }
    println!("cargo:rerun-if-changed=build.rs");
}
