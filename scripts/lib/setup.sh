# Shared by the scripts: installs what a fresh Debian machine lacks, then works from the project root.
# shellcheck shell=bash

FLUX_ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)"
cd "$FLUX_ROOT"

# Debian packages the build needs: Lua 5.4, readline, SQLite and libuv headers, and pkg-config to find Lua
# and libuv; libncurses-dev for terminfo (:open's full-screen views), tmux for the specs that drive :open; lua-cjson
# and lua-lpeg, the C modules a spec loads through require; curl, the outbox crash spec's sender; sqlite3, the
# docs' damaged-database example.
FLUX_APT_PACKAGES=(liblua5.4-dev libreadline-dev libsqlite3-dev pkg-config libuv1-dev libncurses-dev tmux lua-cjson lua-lpeg curl sqlite3)

flux_install_missing() {
    local missing=()
    local package
    for package in "${FLUX_APT_PACKAGES[@]}" "$@"; do
        dpkg-query -W -f='${Status}' "$package" 2>/dev/null | grep -q "install ok installed" || missing+=("$package")
    done
    [ ${#missing[@]} -eq 0 ] && return 0
    echo "Installing ${missing[*]}…" >&2
    local sudo=()
    [ "$(id -u)" -eq 0 ] || sudo=(sudo)
    "${sudo[@]}" apt-get update -qq >&2
    DEBIAN_FRONTEND=noninteractive "${sudo[@]}" apt-get install -y -qq "${missing[@]}" >&2
}

flux_require_swift() {
    if ! command -v swift >/dev/null 2>&1; then
        [ -x /opt/swift/usr/bin/swift ] && export PATH="/opt/swift/usr/bin:$PATH"
    fi
    command -v swift >/dev/null 2>&1 || { echo "swift is not on PATH: install the Swift 6 toolchain first." >&2; exit 1; }
}
