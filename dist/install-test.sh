#!/usr/bin/env bash
# Installs each artifact of dist/release.sh in isolation, as its users install it, and
# runs the installed `grounded`: `--version` must be Cargo.toml's, and `grounded check
# examples/demo` (a copy of the demo without its grounded.toml, so the corpus is the
# one bundled in the binary) must exit 1 with the member finding at
# examples/demo/mistakes/member.js:8:8. PATH holds no other grounded.
#
#   dist/install-test.sh [DIST]     (default target/release-files; Linux x64, where CI runs)
#
# Every route installs the distribution `grounded-js` (PyPI's and npm's `grounded` is
# another project) and must put the command `grounded` on PATH.
#
# 1. the binary archive, unpacked; 2. the wheel with pip in a fresh venv, then pipx and
# uv tool (installed into a tools venv when missing); 3. the npm packages from their
# tarballs into a fresh project with no network (npm --offline); 4. the VSIX: its server
# is there, runnable, and the VS Code end-to-end test runs with it alone (no grounded
# on PATH, no grounded.serverPath). Bad installs: the platform package missing, and a
# pip on an older glibc, each said in one line. The glibc floor: the binary needs no
# GLIBC_ symbol newer than 2.17 (objdump -T), and the wheel is tagged so.
set -euo pipefail
cd "$(dirname "$0")/.."
repo=$PWD
dist=$(cd "${1:-target/release-files}" && pwd)
version=$(sed -n 's/^version = "\(.*\)"$/\1/p' Cargo.toml | head -n1)
host=$(rustc -vV | sed -n 's/^host: //p')
[ "$host" = x86_64-unknown-linux-gnu ] || { echo "install-test: written for linux x64, not $host" >&2; exit 1; }
platform=linux-x64
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
passed=0 failed=0

fail() { echo "install-test: FAILED: $*" >&2; failed=$((failed + 1)); }
ok() { echo "install-test: ok: $*"; passed=$((passed + 1)); }

# A PATH with the system's tools and none of the places a grounded may be installed.
base_path=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin
for d in /usr/local/bin /usr/bin; do
    [ ! -e "$d/grounded" ] || { echo "install-test: $d/grounded exists: remove it, the installs must be tried alone" >&2; exit 1; }
done

# The demo as a user has it: its scripts, no grounded.toml (the bundled corpus).
work=$tmp/work
mkdir -p "$work/examples"
cp -r examples/demo "$work/examples/demo"
rm -f "$work/examples/demo/grounded.toml"

# Runs `grounded --version` and the demo check with PATH=$1:base; $2 names the install.
try() {
    local dir=$1 what=$2 got out status
    got=$(cd "$work" && PATH="$dir:$base_path" command -v grounded || true)
    if [ "$got" != "$dir/grounded" ]; then
        fail "$what: grounded on PATH is '$got', not $dir/grounded"
        return
    fi
    out=$(cd "$work" && PATH="$dir:$base_path" grounded --version 2>&1 || true)
    if [ "$out" != "grounded $version" ]; then
        fail "$what: --version said '$out', Cargo.toml $version"
        return
    fi
    set +e
    out=$(cd "$work" && PATH="$dir:$base_path" grounded check examples/demo 2>&1)
    status=$?
    set -e
    if [ "$status" != 1 ] || ! grep -q 'examples/demo/mistakes/member.js:8:8' <<<"$out"; then
        fail "$what: grounded check examples/demo exited $status without the member finding: $out"
        return
    fi
    ok "$what: grounded $version, check examples/demo exit 1 with mistakes/member.js:8:8"
}

(cd "$dist" && sha256sum --quiet -c SHA256SUMS) && ok "SHA256SUMS" || fail "SHA256SUMS does not match"

# 1. The binary archive.
mkdir -p "$tmp/archive"
tar -C "$tmp/archive" -xzf "$dist/grounded-$version-$host.tar.gz"
try "$tmp/archive/grounded-$version-$host" "archive"

# The glibc floor, read from the binary as the dynamic loader will: the newest GLIBC_
# version any of its symbols needs (ruff's wheels run on 2.17; built on the runner's
# own glibc, ours needed 2.35).
floor=2.17
needs=$(objdump -T "$tmp/archive/grounded-$version-$host/grounded" | grep -o 'GLIBC_[0-9][0-9.]*' | sed 's/GLIBC_//' | sort -uV)
newest=$(tail -n1 <<<"$needs")
if [ -n "$newest" ] && [ "$(printf '%s\n%s\n' "$newest" "$floor" | sort -V | tail -n1)" = "$floor" ]; then
    ok "the binary needs glibc $newest at most (floor $floor)"
else
    over=$(awk -v f="$floor" '{ split($0, a, "."); split(f, b, "."); if (a[1] > b[1] || (a[1] == b[1] && a[2] > b[2])) print }' <<<"$needs" | tr '\n' ' ')
    fail "the binary needs glibc symbols newer than $floor: ${over:-none found (objdump -T printed no GLIBC_ version)}"
fi

# 2. The wheel: pip in a fresh venv, no index.
wheel=$(ls "$dist"/grounded_js-"$version"-*.whl)
python3 -m venv "$tmp/venv"
"$tmp/venv/bin/pip" install --quiet --no-index "$wheel"
try "$tmp/venv/bin" "pip install $(basename "$wheel")"
# pipx and uv, from a tools venv kept in the target folder between runs.
tools=${CARGO_TARGET_DIR:-$repo/target}/install-tools
if [ ! -x "$tools/bin/pipx" ] || [ ! -x "$tools/bin/uv" ]; then
    python3 -m venv "$tools"
    "$tools/bin/pip" install --quiet pipx uv
fi
PIPX_HOME=$tmp/pipx PIPX_BIN_DIR=$tmp/pipx-bin PIPX_MAN_DIR=$tmp/pipx-man \
    "$tools/bin/pipx" install --quiet "$wheel" >/dev/null
try "$tmp/pipx-bin" "pipx install"
UV_TOOL_DIR=$tmp/uv UV_TOOL_BIN_DIR=$tmp/uv-bin UV_CACHE_DIR=$tmp/uv-cache \
    "$tools/bin/uv" tool install --quiet --offline "$wheel"
try "$tmp/uv-bin" "uv tool install"
# The wheel is tagged with the floor, and a pip on an older glibc than that finds no
# wheel it may install: one line, not a binary that fails at its first run.
case "$(basename "$wheel")" in
    *manylinux_2_17_x86_64*) ok "the wheel is tagged manylinux_2_17 ($(basename "$wheel"))" ;;
    *) fail "the wheel is not tagged manylinux_2_17: $(basename "$wheel")" ;;
esac
set +e
out=$("$tmp/venv/bin/pip" download --quiet --no-deps --no-index --find-links "$dist" --only-binary=:all: \
    --platform manylinux_2_16_x86_64 --python-version 3.11 -d "$tmp/old" grounded-js 2>&1)
status=$?
set -e
# Known good: the same download for the wheel's own tag finds it (pip matches an
# explicit --platform exactly, so a newer glibc's tag would not).
mine=$(basename "$wheel" .whl | sed 's/.*-py3-none-//; s/\..*//')
"$tmp/venv/bin/pip" download --quiet --no-deps --no-index --find-links "$dist" --only-binary=:all: \
    --platform "$mine" --python-version 3.11 -d "$tmp/new" grounded-js \
    || fail "pip for $mine found no wheel"
if [ "$status" != 0 ] && grep -q "No matching distribution found for grounded-js" <<<"$out"; then
    ok "pip on glibc 2.16 refuses the wheel: $(grep -m1 'No matching' <<<"$out")"
else
    fail "pip on glibc 2.16 did not refuse the wheel (exit $status): $out"
fi

# 3. npm, from the tarballs, with no network.
proj=$tmp/npm
mkdir -p "$proj"
cp -r "$work/examples" "$proj/examples"
(cd "$proj" && npm init -y >/dev/null && npm install --offline --no-audit --no-fund --silent \
    "$dist/grounded-js-$version.tgz" "$dist/grounded-js-$platform-$version.tgz")
try "$proj/node_modules/.bin" "npm install (offline, from the tarballs)"
set +e
out=$(cd "$proj" && PATH="$(dirname "$(command -v node)"):$base_path" npx --offline grounded check examples/demo 2>&1)
status=$?
set -e
if [ "$status" = 1 ] && grep -q 'examples/demo/mistakes/member.js:8:8' <<<"$out"; then
    ok "npx grounded check examples/demo: exit 1 with mistakes/member.js:8:8"
else
    fail "npx grounded check examples/demo exited $status: $out"
fi
# The launcher alone (--omit=optional): its platform package is missing, said in one line.
proj2=$tmp/npm-omit
mkdir -p "$proj2"
(cd "$proj2" && npm init -y >/dev/null && npm install --offline --no-audit --no-fund --silent --omit=optional \
    "$dist/grounded-js-$version.tgz")
set +e
out=$(cd "$proj2" && npx --offline grounded --version 2>&1)
status=$?
set -e
if [ "$status" = 2 ] && [ "$(wc -l <<<"$out")" = 1 ] && grep -q "grounded-js-$platform, .*is not in node_modules.*(npm install grounded-js)$" <<<"$out"; then
    ok "npm --omit=optional: $out"
else
    fail "npm --omit=optional: exit $status: $out"
fi

# 4. The VSIX: the server inside, with its run bit, the version of the extension.
vsix=$dist/grounded-$version-$platform.vsix
mkdir -p "$tmp/vsix"
unzip -q "$vsix" -d "$tmp/vsix"
manifest=$(node -e 'const m=require(process.argv[1]);console.log(m.version)' "$tmp/vsix/extension/package.json")
[ "$manifest" = "$version" ] && ok "VSIX manifest version $manifest" || fail "VSIX manifest version $manifest, Cargo.toml $version"
grep -q "TargetPlatform=\"$platform\"" "$tmp/vsix/extension.vsixmanifest" \
    && ok "VSIX targets $platform" || fail "VSIX has no TargetPlatform=$platform"
try "$tmp/vsix/extension/server" "VSIX server/grounded"
if command -v node >/dev/null; then
    set +e
    node editors/vscode/test/e2e.js --vsix "$vsix" --screenshots "${CARGO_TARGET_DIR:-$repo/target}/vscode-e2e-vsix" | tee "$tmp/e2e.out"
    status=${PIPESTATUS[0]}
    set -e
    if grep -q '^skipped:' "$tmp/e2e.out"; then
        # Not run is not passed: said, and counted as a failure where CI requires it.
        if [ -n "${CI:-}" ]; then fail "VS Code e2e with the VSIX did not run"; else echo "install-test: VS Code e2e with the VSIX: not run here"; fi
    elif [ "$status" = 0 ]; then
        ok "VS Code e2e with the VSIX's own server and no grounded on PATH"
    else
        fail "VS Code e2e with the VSIX"
    fi
fi

echo "install-test: $passed passed, $failed failed"
[ "$failed" = 0 ]
