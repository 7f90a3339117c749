#!/usr/bin/env bash
# One version, set once: [workspace.package] version in Cargo.toml. This fails when anything
# disagrees with it:
#
# - the version files: every workspace crate inherits it (`version.workspace = true`), the
#   pyproject takes it from Cargo (`dynamic = ["version"]`), gems/retry_core/lib/retry_core/version.rb
#   states it, CHANGELOG.md's newest entry is it;
# - the artifacts in dist/ (those present; with DIST_ONLY unset, all five kinds must be): each
#   file's name, the wheel's and sdist's METADATA/PKG-INFO, each gem's spec, the crate's
#   Cargo.toml; the wheel is abi3 and manylinux_2_17 (by its tag), the platform gem carries a
#   library for this Ruby's minor under lib/retry_core/<minor>/ and builds nothing at install,
#   the source gem ships its vendored crates and the .cargo/config.toml that points at them.
#
#   scripts/dist-check.sh            # check
#   scripts/dist-check.sh --version  # print the version and stop
set -euo pipefail
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
cd "$root"

version="$(python3 -c 'import tomllib; print(tomllib.load(open("Cargo.toml", "rb"))["workspace"]["package"]["version"])')"
if [[ "${1:-}" == "--version" ]]; then
    echo "$version"
    exit 0
fi

# The gems' specs, as JSON, read by RubyGems itself (nothing is installed).
gem_specs="$(mktemp)"
trap 'rm -f "$gem_specs"' EXIT
echo "{}" > "$gem_specs"
if compgen -G "dist/*.gem" >/dev/null; then
    ruby -rjson -rrubygems/package -e '
        out = ARGV.to_h do |f|
          s = Gem::Package.new(f).spec
          [File.basename(f), { "version" => s.version.to_s, "platform" => s.platform.to_s,
                               "files" => s.files, "extensions" => s.extensions,
                               "required_ruby_version" => s.required_ruby_version.to_s,
                               "metadata" => s.metadata }]
        end
        print JSON.generate(out)' dist/*.gem > "$gem_specs"
fi
ruby_minor="$(ruby -e 'print RUBY_VERSION[/\A\d+\.\d+/]')"

VERSION="$version" GEM_SPECS_FILE="$gem_specs" RUBY_MINOR="$ruby_minor" python3 - <<'PY'
import glob, io, json, os, re, sys, tarfile, tomllib, zipfile

v = os.environ["VERSION"]
only = os.environ.get("DIST_ONLY", "").split()
errors = []
def check(ok, what):
    if not ok:
        errors.append(what)

# Version files.
ws = tomllib.load(open("Cargo.toml", "rb"))["workspace"]
for member in ws["members"]:
    pkg = tomllib.load(open(f"{member}/Cargo.toml", "rb"))["package"]
    check(pkg.get("version") == {"workspace": True}, f"{member}/Cargo.toml: version is not `version.workspace = true`")
py = tomllib.load(open("pyproject.toml", "rb"))["project"]
check("version" not in py and "version" in py.get("dynamic", []), "pyproject.toml: version must be dynamic (from Cargo.toml)")
rb = re.search(r'VERSION = "([^"]+)"', open("gems/retry_core/lib/retry_core/version.rb").read())
check(rb and rb.group(1) == v, f"gems/retry_core/lib/retry_core/version.rb says {rb and rb.group(1)}, Cargo.toml {v}")
cl = re.search(r"^## \[?v?([0-9][^\] ]*)", open("CHANGELOG.md").read(), re.M)
check(cl and cl.group(1) == v, f"CHANGELOG.md's newest entry is {cl and cl.group(1)}, Cargo.toml says {v}")

# Artifacts.
if os.path.isdir("dist"):
    files = sorted(f for f in os.listdir("dist") if f != "SHA256SUMS")
    for f in files:
        check(f"-{v}" in f, f"dist/{f}: not version {v}")
    kinds = {
        "wheel": [f for f in files if f.endswith(".whl")],
        "sdist": [f for f in files if f.endswith(".tar.gz")],
        "crate": [f for f in files if f.endswith(".crate")],
        "gem": [f for f in files if f.endswith(".gem") and not re.search(r"-x86_64-linux|-[a-z0-9_]+-(linux|darwin|mingw)", f)],
        "native": [f for f in files if re.search(r"-x86_64-linux[^.]*\.gem$", f)],
    }
    for kind, found in kinds.items():
        if not only or kind in only:
            check(len(found) == 1, f"dist/: expected one {kind}, found {found}")
    for f in kinds["wheel"]:
        tag = f[:-4].split("-", 2)[2]
        check(tag.startswith(f"cp310-abi3-") and "manylinux_2_17_x86_64" in tag, f"dist/{f}: tag {tag} is not cp310-abi3 manylinux_2_17")
        with zipfile.ZipFile(f"dist/{f}") as z:
            meta = z.read(next(n for n in z.namelist() if re.fullmatch(r"[^/]+\.dist-info/METADATA", n))).decode()
            check(f"\nVersion: {v}\n" in meta, f"dist/{f}: METADATA version")
            check("\nLicense-Expression: MIT OR Apache-2.0\n" in meta, f"dist/{f}: no License-Expression")
            names = z.namelist()
            check(any(n.endswith("_native.abi3.so") for n in names), f"dist/{f}: no _native.abi3.so")
            check(any(n.endswith("LICENSE-APACHE") for n in names), f"dist/{f}: no LICENSE-APACHE")
    for f in kinds["sdist"]:
        with tarfile.open(f"dist/{f}") as t:
            pkg = t.extractfile(next(n for n in t.getnames() if re.fullmatch(r"[^/]+/PKG-INFO", n))).read().decode()
            check(f"\nVersion: {v}\n" in pkg, f"dist/{f}: PKG-INFO version")
            names = t.getnames()
            check(any(n.endswith("/core/src/lib.rs") for n in names), f"dist/{f}: the core crate is missing")
    for f in kinds["crate"]:
        with tarfile.open(f"dist/{f}") as t:
            top = next(n for n in t.getnames() if re.fullmatch(r"[^/]+/Cargo.toml", n)).split("/")[0]
            man = tomllib.loads(t.extractfile(f"{top}/Cargo.toml").read().decode())
            check(man["package"]["version"] == v, f"dist/{f}: Cargo.toml version")
            # crates.io's `retry-core` is an unrelated crate: ours is `llm-retry-core`, library `retry_core`.
            check(man["package"]["name"] == "llm-retry-core", f"dist/{f}: package name {man['package']['name']}")
            check(man.get("lib", {}).get("name") == "retry_core", f"dist/{f}: library name is not retry_core")
            names = set(t.getnames())
            for need in ("README.md", "LICENSE-MIT", "LICENSE-APACHE", "src/lib.rs"):
                check(f"{top}/{need}" in names, f"dist/{f}: {need} missing")
    specs = json.load(open(os.environ["GEM_SPECS_FILE"]))
    for f in kinds["gem"]:
        s = specs[f]
        check(s["version"] == v and s["platform"] == "ruby", f"dist/{f}: spec says {s['version']} {s['platform']}")
        check(s["extensions"] == ["ext/retry_core/Cargo.toml"], f"dist/{f}: extensions {s['extensions']}")
        check("ext/retry_core/.cargo/config.toml" in s["files"], f"dist/{f}: no .cargo/config.toml")
        check(any(p.startswith("ext/retry_core/vendor/") and p.endswith("/.cargo-checksum.json") for p in s["files"]),
              f"dist/{f}: no vendored crates")
        for key in ("homepage_uri", "source_code_uri", "changelog_uri"):
            check(key in s["metadata"], f"dist/{f}: metadata {key} missing")
    minor = os.environ["RUBY_MINOR"]
    for f in kinds["native"]:
        s = specs[f]
        check(s["version"] == v and s["platform"] == "x86_64-linux", f"dist/{f}: spec says {s['version']} {s['platform']}")
        check(s["extensions"] == [], f"dist/{f}: a precompiled gem must build nothing")
        check(f"lib/retry_core/{minor}/retry_core.so" in s["files"], f"dist/{f}: no lib/retry_core/{minor}/retry_core.so")

if errors:
    print("dist-check: FAILED", *errors, sep="\n  ", file=sys.stderr)
    sys.exit(1)
print(f"dist-check: version {v} everywhere" + (f"; dist/ holds {', '.join(files)}" if os.path.isdir("dist") else ""))
PY
