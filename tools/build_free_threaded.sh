#!/usr/bin/env bash
# Builds a free-threaded CPython 3.13 ("3.13t") from Debian 13's python3.13
# source package into DEST/<version>t (default $PYENV_ROOT/versions), where
# tools/bootstrap.sh's discovery finds it, and prints one line saying what
# it did.  tools/bootstrap.sh calls this only when no free-threaded
# interpreter is present; run by hand it rebuilds nothing that exists.
#
# Why Debian's source package: it is the only CPython >= 3.13 source these
# machines can fetch (a package registry), and its orig tarball is the
# pristine upstream release.  Debian's own patches are not applied: they
# adapt the install layout to Debian's system Python, not to a prefix.
#
# apt runs with a private configuration (a deb-src entry for trixie, its
# own lists and cache in a temporary directory): the system's sources and
# package lists are never touched.  Build dependencies are Debian 12's
# ordinary -dev packages, installed by name from the system's sources.
set -euo pipefail

DEST=${1:-${PYENV_ROOT:-$HOME/.pyenv}/versions}
LOG=${GILBENCH_FT_LOG:-${TMPDIR:-/tmp}/gilbench-free-threaded-build.log}
HOW_BY_HAND="pyenv install 3.13t, or a distribution's python3.13-nogil"
BUILD_DEPS="build-essential libssl-dev zlib1g-dev libbz2-dev libreadline-dev
    libsqlite3-dev libffi-dev liblzma-dev libncurses-dev uuid-dev"

say() { echo "gilbench: $*" >&2; }
skip() {
    say "free-threaded CPython skipped: $1 (log: $LOG); add one with: $HOW_BY_HAND"
    exit 1
}

existing() {
    ls -d "$DEST"/3.1[3-9]*t/bin/python3.1[3-9]t 2>/dev/null | head -n 1
}

private_apt() {
    apt-get -o Dir::Etc::SourceList=/dev/null \
        -o Dir::Etc::SourceParts="$WORK/apt/sources" \
        -o Dir::State::Lists="$WORK/apt/lists" \
        -o Dir::Cache="$WORK/apt/cache" \
        -o Dir::Cache::pkgcache= -o Dir::Cache::srcpkgcache= \
        -o APT::Sandbox::User=root -q "$@"
}

fetch_source() {
    mkdir -p "$WORK/apt/sources" "$WORK/apt/lists/partial" \
        "$WORK/apt/cache/archives/partial" "$WORK/src"
    cat > "$WORK/apt/sources/trixie-src.sources" <<EOF
Types: deb-src
URIs: http://deb.debian.org/debian
Suites: trixie trixie-updates
Components: main
Signed-By: /usr/share/keyrings/debian-archive-keyring.gpg
EOF
    # --download-only: checksums are verified against the signed index,
    # and no Debian patch is applied (see above).
    private_apt update &&
        (cd "$WORK/src" && private_apt source --download-only python3.13)
}

install_build_deps() {
    local missing="" pkg
    for pkg in $BUILD_DEPS; do
        dpkg -s "$pkg" >/dev/null 2>&1 || missing="$missing $pkg"
    done
    [ -z "$missing" ] && return 0
    echo "installing build dependencies:$missing"
    # shellcheck disable=SC2086
    apt-get update -q &&
        DEBIAN_FRONTEND=noninteractive apt-get install -y -q $missing
}

# configure, make, and install through a staging root, so that an
# interrupted build never leaves a half-installed interpreter where the
# discovery would find it.  (Called after ||, where set -e does not
# apply: hence the && chain.)
build() {
    local tarball=$1 prefix=$2
    tar -xJf "$tarball" -C "$WORK/src" &&
        cd "$WORK/src"/Python-*/ &&
        ./configure --disable-gil --prefix="$prefix" \
            --with-ensurepip=install &&
        make -j"$(nproc)" &&
        make install DESTDIR="$WORK/stage" &&
        "$WORK/stage$prefix/bin/python3.13t" -c 'import sys
assert not sys._is_gil_enabled(), "GIL enabled on a --disable-gil build"' &&
        mkdir -p "$(dirname "$prefix")" &&
        mv "$WORK/stage$prefix" "$prefix"
}

main() {
    local found
    if found=$(existing) && [ -n "$found" ]; then
        say "free-threaded CPython present: $found (nothing built)"
        return 0
    fi
    command -v apt-get >/dev/null || skip "no apt-get"
    [ "$(id -u)" = 0 ] || skip "not root (apt-get needed)"
    mkdir -p "$DEST"
    # One build at a time on a machine: a second bootstrap waits, then
    # finds the first one's interpreter.
    exec 9>"$DEST/.gilbench-free-threaded.lock"
    flock 9
    if found=$(existing) && [ -n "$found" ]; then
        say "free-threaded CPython present: $found (built meanwhile)"
        return 0
    fi
    WORK=$(mktemp -d "${TMPDIR:-/tmp}/gilbench-ft.XXXXXX")
    trap 'rm -rf "$WORK"' EXIT
    local start tarball version
    start=$(date +%s)
    say "building free-threaded CPython 3.13 from Debian's python3.13 source (about 2 minutes on 2 cores; log: $LOG)"
    : > "$LOG"
    fetch_source >>"$LOG" 2>&1 || skip "could not fetch Debian's python3.13 source"
    tarball=$(ls "$WORK"/src/python3.13_*.orig.tar.xz 2>/dev/null | head -n 1)
    [ -n "$tarball" ] || skip "no orig tarball in Debian's python3.13 source"
    version=$(basename "$tarball" | sed 's/^python3\.13_\(.*\)\.orig\.tar\.xz$/\1/')
    install_build_deps >>"$LOG" 2>&1 || skip "could not install build dependencies"
    (build "$tarball" "$DEST/${version}t") >>"$LOG" 2>&1 || skip "build failed"
    say "built free-threaded CPython ${version}t into $DEST/${version}t in $(( $(date +%s) - start )) s"
}

main
