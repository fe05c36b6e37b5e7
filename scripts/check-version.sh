#!/usr/bin/env bash
# One version for every package, set in the workspace's Cargo.toml
# ([workspace.package] version). Fails, naming each disagreement, when:
#   - a crate sets a version of its own instead of version.workspace = true,
#   - Cargo.lock holds another version for a workspace crate,
#   - pyproject.toml sets a version (maturin must read Cargo.toml's:
#     dynamic = ["version"]),
#   - js/package.json or js/package-lock.json carries another version,
#   - CHANGELOG.md has no section for it,
#   - a package's copy of LICENSE-MIT / LICENSE-APACHE differs from the root's.
# Built artifacts in dist/ (if any) are checked too: each file name carries
# the version.
#
#   scripts/check-version.sh          check
#   scripts/check-version.sh --fix    write the workspace version into
#                                     js/package.json and its lock, and copy
#                                     the licence files into the packages
set -euo pipefail
cd "$(dirname "$0")/.."

version="$(sed -n '/^\[workspace\.package\]/,/^\[/{s/^version = "\(.*\)"$/\1/p}' Cargo.toml)"
[[ -n "$version" ]] || { echo "check-version: no version in Cargo.toml [workspace.package]" >&2; exit 1; }

if [[ "${1:-}" == "--fix" ]]; then
  node -e '
    const fs = require("fs");
    const v = process.argv[1];
    for (const f of ["js/package.json", "js/package-lock.json"]) {
      const j = JSON.parse(fs.readFileSync(f, "utf8"));
      j.version = v;
      if (j.packages && j.packages[""]) j.packages[""].version = v;
      fs.writeFileSync(f, JSON.stringify(j, null, 2) + "\n");
    }' "$version"
  for dir in crates/erpdata js; do cp LICENSE-MIT LICENSE-APACHE "$dir/"; done
fi

errors=()
for manifest in crates/*/Cargo.toml tools/*/Cargo.toml; do
  if ! grep -q '^version\.workspace = true$' "$manifest"; then
    errors+=("$manifest: not version.workspace = true")
  fi
done

# Workspace crates in Cargo.lock (no source line: path packages).
while read -r name locked; do
  [[ "$locked" == "$version" ]] || errors+=("Cargo.lock: $name $locked")
done < <(awk '
  /^\[\[package\]\]/ { if (name != "" && !src) print name, ver; name=""; ver=""; src=0 }
  /^name = /    { gsub(/"/, "", $3); name=$3 }
  /^version = / { gsub(/"/, "", $3); ver=$3 }
  /^source = /  { src=1 }
  END { if (name != "" && !src) print name, ver }' Cargo.lock | grep '^erpdata')

if grep -Eq '^version *=' pyproject.toml; then
  errors+=("pyproject.toml: sets a version; it must be dynamic (from Cargo.toml)")
fi
grep -Eq '^dynamic = \[.*"version".*\]' pyproject.toml || errors+=("pyproject.toml: version not dynamic")

while read -r where found; do
  [[ "$found" == "$version" ]] || errors+=("$where: $found")
done < <(node -e '
  const fs = require("fs");
  const p = JSON.parse(fs.readFileSync("js/package.json", "utf8"));
  const l = JSON.parse(fs.readFileSync("js/package-lock.json", "utf8"));
  console.log("js/package.json", p.version);
  console.log("js/package-lock.json", l.version);
  console.log("js/package-lock.json(packages)", l.packages[""].version);')

grep -Eq "^## \[$version\]" CHANGELOG.md || errors+=("CHANGELOG.md: no section ## [$version]")

for dir in crates/erpdata js; do
  for license in LICENSE-MIT LICENSE-APACHE; do
    cmp -s "$license" "$dir/$license" || errors+=("$dir/$license: not the root's $license")
  done
done

if [[ -d dist ]]; then
  for artifact in dist/*; do
    [[ -e "$artifact" ]] || continue
    case "$(basename "$artifact")" in
      erpdata-"$version"[.-]*) ;;
      *) errors+=("$artifact: not version $version") ;;
    esac
  done
fi

if ((${#errors[@]})); then
  printf 'check-version: the workspace version is %s, but\n' "$version" >&2
  printf '  %s\n' "${errors[@]}" >&2
  echo "(scripts/check-version.sh --fix writes it into js/; Cargo.toml is the one place to change it)" >&2
  exit 1
fi
echo "check-version: every package is $version"
