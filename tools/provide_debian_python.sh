#!/usr/bin/env bash
# Provides CPython X.Y (3.14, 3.15) from Debian unstable's binary packages,
# relocated into DEST/X.Y.Z-debian (default $PYENV_ROOT/versions), where
# tools/bootstrap.sh's discovery finds it as pythonX.Y; prints one line
# saying what it did, or why it skipped (exit 1).
#
#   bash tools/provide_debian_python.sh 3.14 [DEST]
#
# Why relocated binaries: Debian unstable serves these interpreters' binary
# packages but not their sources, and they need its newer libc.  The
# packages and every library they link (libc included) are extracted into
# the prefix; the interpreter's ELF loader and a DT_RPATH (which, unlike
# RUNPATH, also covers the lib-dynload modules it dlopens) point there, so
# nothing of the system is used or touched.  apt runs with a private
# configuration, lists and cache, and `apt-get download` checks every file
# against the signed index.
#
# Once present it costs one start of the interpreter: a prefix that no
# longer starts or imports (a library deleted) is replaced.
set -euo pipefail

VERSION=${1:?usage: provide_debian_python.sh X.Y [DEST]}
DEST=${2:-${PYENV_ROOT:-$HOME/.pyenv}/versions}
LOG=${GILBENCH_DEBIAN_LOG:-${TMPDIR:-/tmp}/gilbench-python$VERSION-debian.log}
MIRROR=${GILBENCH_DEBIAN_MIRROR:-http://deb.debian.org/debian}
SUITE=${GILBENCH_DEBIAN_SUITE:-unstable}
HOW_BY_HAND="pyenv install $VERSION, or uv python install $VERSION"
PYTHON_PACKAGES="pythonV pythonV-minimal libpythonV-minimal libpythonV-stdlib
    libpythonV libpythonV-dev pythonV-dev pythonV-venv python3-pip-whl"
LIBRARIES="libc6 libgcc-s1 libssl3t64 libffi8 libexpat1 zlib1g libbz2-1.0
    liblzma5 libzstd1 libsqlite3-0 libmpdec4 libncursesw6 libtinfo6
    libreadline8t64 libuuid1 libdb5.3t64"
# What a usable prefix imports (the modules that need the bundled libraries).
HEALTH='import ssl, sqlite3, lzma, bz2, ctypes, decimal, readline, uuid, venv'
ORIGIN_FILE=gilbench-origin.json

say() { echo "gilbench: $*" >&2; }
skip() {
    say "python$VERSION skipped: $1 (log: $LOG); add one with: $HOW_BY_HAND"
    exit 1
}

existing() {
    ls -d "$DEST/$VERSION".*-debian 2>/dev/null | sort -V | tail -n 1
}

healthy() {
    "$1/bin/python$VERSION" -c "$HEALTH" >>"$LOG" 2>&1
}

private_apt() {
    apt-get -o Dir::Etc::SourceList=/dev/null \
        -o Dir::Etc::SourceParts="$WORK/apt/sources" \
        -o Dir::State::Lists="$WORK/apt/lists" \
        -o Dir::State::status=/dev/null \
        -o Dir::Cache="$WORK/apt/cache" \
        -o Dir::Cache::pkgcache= -o Dir::Cache::srcpkgcache= \
        -o Acquire::IndexTargets::deb::DEP-11::DefaultEnabled=false \
        -o APT::Sandbox::User=root -q "$@"
}

fetch_packages() {
    mkdir -p "$WORK/apt/sources" "$WORK/apt/lists/partial" \
        "$WORK/apt/cache/archives/partial" "$WORK/debs"
    cat > "$WORK/apt/sources/unstable.sources" <<EOF
Types: deb
URIs: $MIRROR
Suites: $SUITE
Components: main
Signed-By: /usr/share/keyrings/debian-archive-keyring.gpg
EOF
    private_apt update &&
        (cd "$WORK/debs" &&
         # shellcheck disable=SC2086
         private_apt download ${PYTHON_PACKAGES//V/$VERSION} $LIBRARIES)
}

# The interpreter's own version (3.14.10-1), from the package file's name.
package_version() {
    ls "$WORK"/debs/python"$VERSION"-minimal_*.deb | head -n 1 |
        sed 's/.*_\([^_]*\)_[^_]*\.deb$/\1/; s/%3a/:/'
}

# Extract into $1, then make it start from there (prefix $2, its final
# place): loader and rpath, the real pyconfig.h where Debian's dispatches by
# multiarch, and ensurepip's wheel directory inside the prefix.
relocate() {
    local stage=$1 prefix=$2 deb libdir
    for deb in "$WORK"/debs/*.deb; do
        dpkg-deb -x "$deb" "$stage"
    done
    libdir=$prefix/usr/lib/x86_64-linux-gnu
    patchelf --set-interpreter "$libdir/ld-linux-x86-64.so.2" \
        --force-rpath --set-rpath "$libdir" "$stage/usr/bin/python$VERSION"
    cp "$stage/usr/include/x86_64-linux-gnu/python$VERSION/pyconfig.h" \
        "$stage/usr/include/python$VERSION/pyconfig.h"
    sed -i "s#'/usr/share/python-wheels/*'#'$prefix/usr/share/python-wheels/'#" \
        "$stage"/usr/lib/python"$VERSION"/_sysconfigdata_*.py
    # The discovery's bin/: a link per file, since the interpreter finds its
    # prefix from its executable's real path, not from a linked directory.
    mkdir "$stage/bin"
    ln -s "../usr/bin/python$VERSION" "$stage/bin/python$VERSION"
}

write_origin() {
    local prefix=$1 version=$2
    cat > "$prefix/usr/$ORIGIN_FILE" <<EOF
{"origin": "Debian $SUITE package python$VERSION $version, relocated by gilbench",
 "package": "python$VERSION", "package_version": "$version"}
EOF
}

main() {
    local found start version prefix
    : > "$LOG"
    if found=$(existing) && [ -n "$found" ]; then
        if healthy "$found"; then
            say "python$VERSION present: $found (nothing fetched)"
            return 0
        fi
        say "python$VERSION in $found does not start or import ($HEALTH): replacing it"
        rm -rf "$found"
    fi
    command -v apt-get >/dev/null || skip "no apt-get"
    [ "$(id -u)" = 0 ] || skip "not root (a private apt needs it)"
    command -v patchelf >/dev/null || skip "no patchelf (apt-get install patchelf)"
    mkdir -p "$DEST"
    exec 9>"$DEST/.gilbench-python$VERSION.lock"
    flock 9
    if found=$(existing) && [ -n "$found" ] && healthy "$found"; then
        say "python$VERSION present: $found (provided meanwhile)"
        return 0
    fi
    WORK=$(mktemp -d "${TMPDIR:-/tmp}/gilbench-py$VERSION.XXXXXX")
    trap 'rm -rf "$WORK"' EXIT
    start=$(date +%s)
    fetch_packages >>"$LOG" 2>&1 ||
        skip "could not fetch Debian $SUITE's python$VERSION packages"
    version=$(package_version)
    prefix="$DEST/${version%%-*}-debian"
    mkdir -p "$WORK/stage"
    relocate "$WORK/stage" "$prefix" >>"$LOG" 2>&1 ||
        skip "could not relocate python$VERSION $version"
    rm -rf "$prefix"
    mv "$WORK/stage" "$prefix"
    if ! healthy "$prefix"; then
        rm -rf "$prefix"
        skip "the relocated python$VERSION $version does not start or import"
    fi
    write_origin "$prefix" "$version"
    say "provided python$VERSION $version (Debian $SUITE, relocated) in $prefix in $(( $(date +%s) - start )) s"
}

main
