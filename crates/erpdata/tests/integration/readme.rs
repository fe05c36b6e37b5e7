//! The README's Rust section and the crate's README agree: every Rust
//! block of the former is in the latter, whose blocks run as doctests
//! (`ReadmeDoctests` in `lib.rs`, with features `reqwest`, `blocking` and
//! `serde`).

use std::path::PathBuf;

fn read(relative: &str) -> String {
    let path = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join(relative);
    std::fs::read_to_string(&path).unwrap_or_else(|e| panic!("{}: {e}", path.display()))
}

/// The fenced blocks whose info string starts with `rust`.
fn rust_blocks(markdown: &str) -> Vec<String> {
    let mut blocks = Vec::new();
    let mut current: Option<String> = None;
    for line in markdown.lines() {
        match (&mut current, line.trim_start().strip_prefix("```")) {
            (None, Some(info)) if info.starts_with("rust") => current = Some(String::new()),
            (Some(block), Some("")) => {
                blocks.push(std::mem::take(block));
                current = None;
            }
            (Some(block), _) => {
                block.push_str(line);
                block.push('\n');
            }
            (None, _) => {}
        }
    }
    assert!(current.is_none(), "an unclosed rust block");
    blocks
}

/// From `### Rust` to the next heading of level 1 to 3.
fn rust_section(readme: &str) -> &str {
    let start = readme.find("\n### Rust\n").expect("a `### Rust` section") + 1;
    let rest = &readme[start + "### Rust\n".len()..];
    let end = ["\n# ", "\n## ", "\n### "]
        .iter()
        .filter_map(|h| rest.find(h))
        .min()
        .unwrap_or(rest.len());
    &rest[..end]
}

#[test]
fn the_readmes_agree() {
    let root = read("../../README.md");
    let crate_readme = read("README.md");
    let section = rust_blocks(rust_section(&root));
    let crate_blocks = rust_blocks(&crate_readme);
    // The front page shows a client; the crate's page the core as well
    // (checked below).
    assert!(!section.is_empty(), "the Rust section shows a client");
    for block in &section {
        assert!(
            crate_blocks.contains(block),
            "this block of README.md's Rust section is not in crates/erpdata/README.md \
             (where it is doctested):\n{block}"
        );
    }
    for name in ["BlockingClient", "AsyncClient", "dues_request"] {
        assert!(crate_readme.contains(name), "{name}");
    }
}

#[test]
fn the_crate_readme_is_the_package_readme() {
    let manifest = read("Cargo.toml");
    assert!(manifest.contains("readme = \"README.md\""));
    let lib = read("src/lib.rs");
    assert!(lib.contains("#[doc = include_str!(\"../README.md\")]"));
}

/// docs.rs builds the docs with every feature and `--cfg docsrs`, where
/// the crate turns on rustdoc's `doc_cfg`: each item a feature gates
/// (`AsyncClient`, `Batch::to_record_batch`, ...) says which, instead of
/// reading as there in every build.
#[test]
fn docs_rs_marks_what_each_feature_gates() {
    let manifest = read("Cargo.toml");
    let metadata = manifest
        .split("[package.metadata.docs.rs]")
        .nth(1)
        .expect("a [package.metadata.docs.rs] table");
    let metadata = metadata.split("\n[").next().unwrap_or_default();
    assert!(metadata.contains("all-features = true"), "{metadata}");
    assert!(
        metadata.contains(r#"rustdoc-args = ["--cfg", "docsrs"]"#),
        "{metadata}"
    );
    assert!(read("src/lib.rs").contains("#![cfg_attr(docsrs, feature(doc_cfg))]"));
}
