#!/usr/bin/env bash
# Builds every release artifact of one platform into target/release-files/ (or --out).
# The distribution is `grounded-js` on PyPI and npm (`grounded` there is another
# project's); the command it installs is `grounded`.
#
#   grounded-VERSION-TRIPLE.tar.gz (.zip on windows)  the binary, README.md, LICENSE
#   grounded-VERSION-PLATFORM.vsix                    the VS Code extension with the binary
#   grounded_js-VERSION-py3-none-TAG.whl              the wheel (maturin, bindings = "bin")
#   grounded_js-VERSION.tar.gz                        the sdist (builds from source)
#   grounded-js-VERSION.tgz                           the npm launcher package grounded-js
#   grounded-js-PLATFORM-VERSION.tgz                  the npm package grounded-js-PLATFORM
#   SHA256SUMS
#
# usage: dist/release.sh [--target TRIPLE] [--profile PROFILE] [--out DIR]
#   --target   a Rust triple of the release platforms (default: this machine's)
#   --profile  the cargo profile (default: dist, the size- and start-up-tuned one in
#              Cargo.toml; `release` or `dev` package a cheaper build of the same code)
#   --out      the folder the files end in (default: target/release-files; never a
#              cargo profile folder such as target/dist, which holds cargo's own build)
#
# The files are made in a fresh folder beside --out and moved into place at the end, so
# two runs at once never delete each other's work (cargo's own lock orders their builds)
# and --out holds one whole release or the previous one, never half of each.
#
# The binary is compiled once, by maturin for the wheel; every other artifact packs
# that same file. The version is Cargo.toml's: the extension's and the npm launcher's
# package.json must say the same (tests/cli/install.rs fails otherwise), and the binary's
# `--version` is compared when it runs here. Needs: cargo, node and npm, python3 (maturin
# is installed into target/dist-tools when it is not on PATH), tar or 7z.
#
# Linux builds link against glibc 2.17 (ruff's floor: RHEL 7, Ubuntu 14.04, Amazon
# Linux 2 and everything after), through zig as the C compiler and linker (maturin's
# --zig; zig from PyPI's `ziglang`, installed beside maturin when no zig is on PATH).
# Built on the runner's own glibc, the binary needed 2.35 and no RHEL 9, Ubuntu 20.04
# or Debian 11 could run it. maturin refuses a binary that needs a newer symbol, and
# tags the wheel manylinux_2_17 (manylinux2014).
set -euo pipefail
cd "$(dirname "$0")/.."
repo=$PWD

die() { echo "release: $*" >&2; exit 1; }

target="" profile=dist out=""
while [ $# -gt 0 ]; do
    case "$1" in
        --target) target="$2"; shift 2 ;;
        --profile) profile="$2"; shift 2 ;;
        --out) out="$2"; shift 2 ;;
        -h|--help) awk 'NR == 1 { next } /^#/ { sub(/^# ?/, ""); print; next } { exit }' "$0"; exit 0 ;;
        *) die "unknown argument $1 (see --help)" ;;
    esac
done

host=$(rustc -vV | sed -n 's/^host: //p')
target=${target:-$host}
# Rust triple -> the platform names of VS Code (vsce --target) and npm (os-cpu).
case "$target" in
    x86_64-unknown-linux-gnu) platform=linux-x64 os=linux cpu=x64 ;;
    aarch64-unknown-linux-gnu) platform=linux-arm64 os=linux cpu=arm64 ;;
    x86_64-apple-darwin) platform=darwin-x64 os=darwin cpu=x64 ;;
    aarch64-apple-darwin) platform=darwin-arm64 os=darwin cpu=arm64 ;;
    x86_64-pc-windows-msvc) platform=win32-x64 os=win32 cpu=x64 ;;
    *) die "no release for $target (release targets: x86_64-unknown-linux-gnu aarch64-unknown-linux-gnu x86_64-apple-darwin aarch64-apple-darwin x86_64-pc-windows-msvc)" ;;
esac
exe=""; [ "$os" = win32 ] && exe=.exe

meta=$(cargo metadata --format-version 1 --no-deps)
json() { node -e "const m=JSON.parse(require('fs').readFileSync(0,'utf8'));console.log($1)"; }
version=$(printf '%s' "$meta" | json "m.packages.find(p=>p.name==='grounded').version")
target_dir=$(printf '%s' "$meta" | json "m.target_directory")
out=${out:-$repo/target/release-files}
mkdir -p "$out"
out=$(cd "$out" && pwd)
# A cargo profile folder (target/dist was this script's default once): emptying it
# deleted cargo's build/ and deps/, and a second run's build in progress with them.
if [ -d "$out/.fingerprint" ] || [ -d "$out/deps" ]; then
    die "$out is a cargo build folder (it has .fingerprint/ or deps/): choose another --out"
fi
final=$out
out=$(mktemp -d "$final.partial.XXXXXX")

# One version everywhere: a release whose parts disagree is refused before it is built.
ext_version=$(json "m.version" < editors/vscode/package.json)
npm_version=$(json "m.version" < npm/grounded/package.json)
npm_deps=$(json "[...new Set(Object.values(m.optionalDependencies))].join(' ')" < npm/grounded/package.json)
for v in "$ext_version" "$npm_version" "$npm_deps"; do
    [ "$v" = "$version" ] || die "version mismatch: Cargo.toml says $version, editors/vscode/package.json $ext_version, npm/grounded/package.json $npm_version (optionalDependencies: $npm_deps)"
done

echo "release: grounded $version for $target ($platform), profile $profile, into $final"
stage=$(mktemp -d)
trap 'rm -rf "$stage" "$out"' EXIT

# maturin (and, for linux, zig): on PATH, else a venv of its own under the target
# folder (kept between runs).
tools="$target_dir/dist-tools"
need=('maturin>=1.5,<2')
zig_on_path=$(command -v zig || true)
[ "$os" = linux ] && [ -z "$zig_on_path" ] && need+=('ziglang>=0.11,<0.14')
maturin=$(command -v maturin || true)
if [ -z "$maturin" ] || { [ "$os" = linux ] && [ -z "$zig_on_path" ]; }; then
    if [ ! -x "$tools/bin/maturin" ] && [ ! -x "$tools/Scripts/maturin.exe" ] \
        || { [ "$os" = linux ] && [ -z "$zig_on_path" ] && ! "$tools/bin/python" -c 'import ziglang' 2>/dev/null; }; then
        # Made aside and renamed: a second run at once finds a whole venv or none.
        fresh=$(mktemp -d "$tools.new.XXXXXX")
        python3 -m venv "$fresh"
        "$fresh/bin/python" -m pip install --quiet "${need[@]}" 2>/dev/null \
            || "$fresh/Scripts/python" -m pip install --quiet "${need[@]}"
        rm -rf "$tools.old.$$"
        mv -T "$tools" "$tools.old.$$" 2>/dev/null || true
        mv -T "$fresh" "$tools" 2>/dev/null || rm -rf "$fresh"
        rm -rf "$tools.old.$$"
    fi
    [ -n "$maturin" ] || maturin=$tools/bin/maturin
    [ -x "$maturin" ] || maturin=$tools/Scripts/maturin.exe
fi
zig_flags=()
if [ "$os" = linux ]; then
    if [ -z "$zig_on_path" ]; then
        # maturin runs `zig`: a shim for the ziglang package's own.
        mkdir -p "$stage/zig-bin"
        printf '#!/bin/sh\nexec "%s" -m ziglang "$@"\n' "$tools/bin/python" > "$stage/zig-bin/zig"
        chmod +x "$stage/zig-bin/zig"
        export PATH="$stage/zig-bin:$PATH"
    fi
    zig_flags=(--zig --compatibility manylinux2014)
else
    zig_flags=(--compatibility pypi)
fi

# The wheel, and with it the binary. maturin checks the binary's glibc symbols against
# the manylinux policies and tags the wheel with the oldest glibc it runs on.
"$maturin" build --profile "$profile" --target "$target" --out "$out" "${zig_flags[@]}"
"$maturin" sdist --out "$out"
bin="$target_dir/$target/$profile/grounded$exe"
[ "$profile" = dev ] && bin="$target_dir/$target/debug/grounded$exe"
[ -f "$bin" ] || die "maturin built no binary at $bin"
# This run's own copy: a second run's cargo may rewrite the file under target/ meanwhile.
cp "$bin" "$stage/grounded$exe"
bin=$stage/grounded$exe
if [ "$target" = "$host" ]; then
    got=$("$bin" --version)
    [ "$got" = "grounded $version" ] || die "$bin --version says '$got', Cargo.toml $version"
fi
wheel=$(cd "$out" && ls grounded_js-"$version"-*.whl)
# The glibc floor, from the wheel's tag (manylinux_2_34_x86_64 -> 2.34): the npm
# package carries it so that its launcher says so on an older system.
glibc=""
if [ "$os" = linux ]; then
    glibc=$(printf '%s' "$wheel" | sed -n 's/.*manylinux_\([0-9]*\)_\([0-9]*\)_.*/\1.\2/p' | head -n1)
    [ -n "$glibc" ] || die "the wheel $wheel has no manylinux tag: maturin's glibc check did not pass"
    echo "release: glibc floor $glibc (wheel $wheel)"
fi

# The binary archive.
name="grounded-$version-$target"
mkdir -p "$stage/$name"
cp "$bin" README.md LICENSE "$stage/$name/"
if [ "$os" = win32 ]; then
    (cd "$stage" && 7z a -tzip -bd "$out/$name.zip" "$name" >/dev/null)
else
    tar -C "$stage" -czf "$out/$name.tar.gz" "$name"
fi

# The VSIX with the binary in it.
(
    cd editors/vscode
    if [ ! -f node_modules/.package-lock.json ] || [ package-lock.json -nt node_modules/.package-lock.json ]; then
        npm ci --no-audit --no-fund
    fi
    npm run --silent package -- --target "$platform" --server "$bin" --out "$out/grounded-$version-$platform.vsix"
)

# The npm packages: the launcher, and this platform's package (os/cpu select it).
mkdir -p "$stage/npm/launcher" "$stage/npm/platform/bin"
cp npm/grounded/package.json npm/grounded/README.md "$stage/npm/launcher/"
mkdir -p "$stage/npm/launcher/bin"
cp npm/grounded/bin/grounded.js "$stage/npm/launcher/bin/"
cp "$bin" "$stage/npm/platform/bin/grounded$exe"
cp LICENSE "$stage/npm/platform/"
VERSION=$version PLATFORM=$platform OS=$os CPU=$cpu GLIBC=$glibc EXE=$exe node -e '
const e = process.env;
const pkg = {
  name: `grounded-js-${e.PLATFORM}`,
  version: e.VERSION,
  description: `The grounded binary for ${e.PLATFORM}: installed by the grounded-js package, not by hand.`,
  license: "MIT",
  os: [e.OS],
  cpu: [e.CPU],
  files: [`bin/grounded${e.EXE}`],
  preferUnplugged: true,
};
if (e.GLIBC) {
  pkg.libc = ["glibc"];
  pkg.grounded = { glibc: e.GLIBC };
}
require("fs").writeFileSync(process.argv[1], JSON.stringify(pkg, null, 2) + "\n");
' "$stage/npm/platform/package.json"
(cd "$stage/npm/launcher" && npm pack --silent --pack-destination "$out" >/dev/null)
(cd "$stage/npm/platform" && npm pack --silent --pack-destination "$out" >/dev/null)

sha=(sha256sum); command -v sha256sum >/dev/null || sha=(shasum -a 256)   # macOS has shasum
(cd "$out" && "${sha[@]}" -- * > "$stage/SHA256SUMS" && mv "$stage/SHA256SUMS" SHA256SUMS)
# Into place: the previous release moves aside under a name of this run's own, then goes.
old="$final.old.$$"
mv -T "$final" "$old" 2>/dev/null || true
mv -T "$out" "$final"
rm -rf "$old"
echo "release: done"
ls -l "$final"
