#!/usr/bin/env bash
# Installs what the VS Code end-to-end test (e2e.js) needs into a cache folder outside
# the repository: code-server (VS Code in a browser) and playwright-core (drives the
# system's Chromium over CDP; it downloads no browser). Idempotent: a finished install
# leaves a stamp naming its versions, and a second run with the same versions does
# nothing. The folder is GROUNDED_VSCODE_E2E_DIR, else
# ${XDG_CACHE_HOME:-$HOME/.cache}/grounded/vscode-e2e.
#
# code-server is pinned to 4.100.3 because its native modules are built for the node
# that runs it, and 4.100.3 is the newest release whose `engines.node` is 20 (Debian 12's
# node here); 4.139.1 wants node 24 and fails to start on 20. It is VS Code 1.100, which
# the extension's `engines.vscode` (^1.82.0) admits.
set -euo pipefail

CODE_SERVER_VERSION=4.100.3
PLAYWRIGHT_VERSION=1.65.1
# The @vscode/ripgrep that code-server 4.100.3's VS Code pins (lib/vscode/npm-shrinkwrap.json)
# and the ripgrep release its postinstall fetches.
VSCODE_RIPGREP_VERSION=1.15.11
RIPGREP_RELEASE=v13.0.0-10
dir="${GROUNDED_VSCODE_E2E_DIR:-${XDG_CACHE_HOME:-$HOME/.cache}/grounded/vscode-e2e}"
stamp="$dir/installed"
# "scripts": the install ran code-server's install scripts (an npm that blocks them
# leaves a code-server whose native modules were never built; see below).
want="code-server@$CODE_SERVER_VERSION playwright-core@$PLAYWRIGHT_VERSION scripts"

if [ -f "$stamp" ] && [ "$(cat "$stamp")" = "$want" ]; then
    echo "vscode-e2e: already installed in $dir ($want)"
    exit 0
fi
command -v node >/dev/null || { echo "vscode-e2e: node is missing (apt-get install nodejs npm)" >&2; exit 1; }
chromium="${CHROMIUM:-$(command -v chromium || command -v chromium-browser || true)}"
[ -n "$chromium" ] || echo "vscode-e2e: warning: no chromium on PATH (apt-get install chromium); e2e.js needs one" >&2

# code-server's native modules (kerberos, native-keymap, @vscode/spdlog, ...) are built
# here and need these headers; the build fails deep in npm's output without them.
missing=""
command -v rg >/dev/null || missing=1
for h in /usr/include/gssapi/gssapi.h /usr/include/X11/Xlib.h /usr/include/X11/extensions/XKBfile.h; do
    [ -f "$h" ] || missing=1
done
if [ -n "$missing" ] || ! command -v make >/dev/null || ! command -v g++ >/dev/null; then
    echo "vscode-e2e: code-server's native modules need build tools and headers:" >&2
    echo "  apt-get install build-essential pkg-config python3 libkrb5-dev libx11-dev libxkbfile-dev libsecret-1-dev ripgrep" >&2
    exit 1
fi

mkdir -p "$dir"
cd "$dir"
rm -f "$stamp"
# A node_modules left by an install under another stamp is started afresh: npm calls
# it "up to date" and runs no install script again.
rm -rf node_modules package-lock.json
[ -f package.json ] || echo '{ "name": "grounded-vscode-e2e", "private": true }' > package.json
# VS Code's @vscode/ripgrep downloads its rg from GitHub in its postinstall, which fails
# where only package registries are reachable (and retries for a minute first). It takes
# a tarball already in its cache folder (under os.tmpdir()) as the download: give it the
# distribution's rg there, in a TMPDIR of our own.
case "$(uname -m)" in
    x86_64) rg_target=x86_64-unknown-linux-musl ;;
    aarch64) rg_target=aarch64-unknown-linux-musl ;;
    *) echo "vscode-e2e: no ripgrep target for $(uname -m)" >&2; exit 1 ;;
esac
export TMPDIR="$dir/tmp"
rg_cache="$TMPDIR/vscode-ripgrep-cache-$VSCODE_RIPGREP_VERSION"
mkdir -p "$rg_cache/rg"
cp "$(command -v rg)" "$rg_cache/rg/rg"
tar -czf "$rg_cache/ripgrep-$RIPGREP_RELEASE-$rg_target.tar.gz" -C "$rg_cache/rg" rg
# code-server's postinstall builds native modules against the running node's headers,
# and as root it refuses to run unless npm says unsafe-perm (npm 7+ dropped the flag
# but code-server still reads it from the environment). node-pty's postinstall runs
# `npx node-gyp`, which an npmrc with `yes=false` (or no terminal) cancels.
# npm 11.x runs no dependency's install script unless approved (allowScripts), and
# code-server's postinstall runs nested `npm install`s whose own scripts build the
# native modules: the pinned versions above are approved whole for this one install.
npm_config_dangerously_allow_all_scripts=true npm_config_unsafe_perm=true npm_config_yes=true npm install --no-audit --no-fund --no-save "code-server@$CODE_SERVER_VERSION" "playwright-core@$PLAYWRIGHT_VERSION"
test -x node_modules/.bin/code-server
echo "$want" > "$stamp"
echo "vscode-e2e: installed in $dir ($want)"
