#!/usr/bin/env bash
# Builds every release artifact of one platform into target/dist/ (or --out):
#
#   grounded-VERSION-TRIPLE.tar.gz (.zip on windows)  the binary, README.md, LICENSE
#   grounded-VERSION-PLATFORM.vsix                    the VS Code extension with the binary
#   grounded-VERSION-py3-none-TAG.whl                 the wheel (maturin, bindings = "bin")
#   grounded-VERSION.tar.gz                           the sdist (builds from source)
#   grounded-VERSION.tgz                              the npm launcher package
#   grounded-PLATFORM-VERSION.tgz                     the npm package @grounded/PLATFORM
#   SHA256SUMS
#
# usage: dist/release.sh [--target TRIPLE] [--profile PROFILE] [--out DIR]
#   --target   a Rust triple of the release platforms (default: this machine's)
#   --profile  the cargo profile (default: dist, the size- and start-up-tuned one in
#              Cargo.toml; `release` or `dev` package a cheaper build of the same code)
#
# The binary is compiled once, by maturin for the wheel; every other artifact packs
# that same file. The version is Cargo.toml's: the extension's and the npm launcher's
# package.json must say the same (tests/cli/install.rs fails otherwise), and the binary's
# `--version` is compared when it runs here. Needs: cargo, node and npm, python3 (maturin
# is installed into target/dist-tools when it is not on PATH), tar or 7z.
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
        -h|--help) sed -n '2,22p' "$0" | sed 's/^# \{0,1\}//'; exit 0 ;;
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
out=${out:-$repo/target/dist}
mkdir -p "$out"
out=$(cd "$out" && pwd)

# One version everywhere: a release whose parts disagree is refused before it is built.
ext_version=$(json "m.version" < editors/vscode/package.json)
npm_version=$(json "m.version" < npm/grounded/package.json)
npm_deps=$(json "[...new Set(Object.values(m.optionalDependencies))].join(' ')" < npm/grounded/package.json)
for v in "$ext_version" "$npm_version" "$npm_deps"; do
    [ "$v" = "$version" ] || die "version mismatch: Cargo.toml says $version, editors/vscode/package.json $ext_version, npm/grounded/package.json $npm_version (optionalDependencies: $npm_deps)"
done

echo "release: grounded $version for $target ($platform), profile $profile, into $out"
rm -rf "${out:?}"/*

# maturin: on PATH, else a venv of its own under the target folder (kept between runs).
maturin=$(command -v maturin || true)
if [ -z "$maturin" ]; then
    tools="$target_dir/dist-tools"
    if [ ! -x "$tools/bin/maturin" ] && [ ! -x "$tools/Scripts/maturin.exe" ]; then
        python3 -m venv "$tools"
        "$tools/bin/python" -m pip install --quiet 'maturin>=1.5,<2' 2>/dev/null \
            || "$tools/Scripts/python" -m pip install --quiet 'maturin>=1.5,<2'
    fi
    maturin=$tools/bin/maturin
    [ -x "$maturin" ] || maturin=$tools/Scripts/maturin.exe
fi

# The wheel, and with it the binary. maturin checks the binary's glibc symbols against
# the manylinux policies and tags the wheel with the oldest glibc it runs on.
"$maturin" build --profile "$profile" --target "$target" --out "$out" --compatibility pypi
"$maturin" sdist --out "$out"
bin="$target_dir/$target/$profile/grounded$exe"
[ "$profile" = dev ] && bin="$target_dir/$target/debug/grounded$exe"
[ -f "$bin" ] || die "maturin built no binary at $bin"
if [ "$target" = "$host" ]; then
    got=$("$bin" --version)
    [ "$got" = "grounded $version" ] || die "$bin --version says '$got', Cargo.toml $version"
fi
wheel=$(cd "$out" && ls grounded-"$version"-*.whl)
# The glibc floor, from the wheel's tag (manylinux_2_34_x86_64 -> 2.34): the npm
# package carries it so that its launcher says so on an older system.
glibc=""
if [ "$os" = linux ]; then
    glibc=$(printf '%s' "$wheel" | sed -n 's/.*manylinux_\([0-9]*\)_\([0-9]*\)_.*/\1.\2/p' | head -n1)
    [ -n "$glibc" ] || die "the wheel $wheel has no manylinux tag: maturin's glibc check did not pass"
    echo "release: glibc floor $glibc (wheel $wheel)"
fi

# The binary archive.
stage=$(mktemp -d)
trap 'rm -rf "$stage"' EXIT
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
  name: `@grounded/${e.PLATFORM}`,
  version: e.VERSION,
  description: `The grounded binary for ${e.PLATFORM}: installed by the grounded package, not by hand.`,
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
echo "release: done"
ls -l "$out"
