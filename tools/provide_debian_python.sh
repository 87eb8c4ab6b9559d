#!/usr/bin/env bash
# Provides CPython X.Y (3.14, 3.15), or PyPy, from Debian unstable's binary
# packages, relocated into DEST (default $PYENV_ROOT/versions) as
# X.Y.Z-debian or pypy3.N-V-debian, where tools/bootstrap.sh's discovery
# finds it as pythonX.Y or pypy3.N; prints one line saying what it did, or
# why it skipped (exit 1).
#
#   bash tools/provide_debian_python.sh 3.14|3.15|pypy3 [DEST]
#
# Why relocated binaries: Debian unstable serves these interpreters' binary
# packages but not their sources, and they need its newer libc.  The
# packages and every library they link (libc included) are extracted into
# the prefix; the interpreter's ELF loader and a DT_RPATH (which, unlike
# RUNPATH, also covers the modules it dlopens) point there, so nothing of
# the system is used or touched.  apt runs with a private configuration,
# lists and cache, and `apt-get download` checks every file against the
# signed index.
#
# Once present it costs one start of the interpreter: a prefix that no
# longer starts or imports (a library deleted) is replaced.
set -euo pipefail

WANTED=${1:?usage: provide_debian_python.sh 3.14|3.15|pypy3 [DEST]}
DEST=${2:-${PYENV_ROOT:-$HOME/.pyenv}/versions}
LOG=${GILBENCH_DEBIAN_LOG:-${TMPDIR:-/tmp}/gilbench-$WANTED-debian.log}
MIRROR=${GILBENCH_DEBIAN_MIRROR:-http://deb.debian.org/debian}
SUITE=${GILBENCH_DEBIAN_SUITE:-unstable}
LIBRARIES="libc6 libgcc-s1 libssl3t64 libffi8 libexpat1 zlib1g libbz2-1.0
    liblzma5 libzstd1 libsqlite3-0 libncursesw6 libtinfo6"
if [ "$WANTED" = pypy3 ]; then
    NAME=pypy3
    HOW_BY_HAND="pyenv install pypy3.11"
    MAIN_PACKAGE=pypy3
    PACKAGES="pypy3 pypy3-lib pypy3-dev pypy3-venv python3-pip-whl
        python3-setuptools-whl libgdbm6t64 $LIBRARIES"
    GLOB=pypy3.*-debian
    OPTIMIZED="PyPy's translation (RPython, JIT)"
    HEALTH='import ssl, sqlite3, lzma, bz2, ctypes, decimal, venv'
else
    NAME="python$WANTED"
    HOW_BY_HAND="pyenv install $WANTED, or uv python install $WANTED"
    MAIN_PACKAGE=python$WANTED-minimal
    PACKAGES="python$WANTED python$WANTED-minimal libpython$WANTED-minimal
        libpython$WANTED-stdlib libpython$WANTED libpython$WANTED-dev
        python$WANTED-dev python$WANTED-venv python3-pip-whl $LIBRARIES
        libmpdec4 libreadline8t64 libuuid1 libdb5.3t64"
    GLOB=$WANTED.*-debian
    OPTIMIZED="PGO, LTO (Debian's build rules)"
    # What a usable prefix imports (the modules that need its libraries).
    HEALTH='import ssl, sqlite3, lzma, bz2, ctypes, decimal, readline, uuid, venv'
fi
ORIGIN_FILE=gilbench-origin.json

say() { echo "gilbench: $*" >&2; }
skip() {
    say "$NAME skipped: $1 (log: $LOG); add one with: $HOW_BY_HAND"
    exit 1
}

existing() {
    ls -d "$DEST"/$GLOB 2>/dev/null | sort -V | tail -n 1
}

# A prefix's interpreter: bin/python3.14, bin/pypy3.11.
executable() {
    local exe
    for exe in "$1"/bin/python3.* "$1"/bin/pypy3.*; do
        if [ -e "$exe" ]; then
            echo "$exe"
            return 0
        fi
    done
    return 1
}

healthy() {
    local exe
    exe=$(executable "$1") && "$exe" -c "$HEALTH" >>"$LOG" 2>&1
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
    # apt-get update fails on an unreachable mirror only with -o
    # APT::Update::Error-Mode=any; an empty list then fails the download.
    private_apt -o APT::Update::Error-Mode=any update &&
        (cd "$WORK/debs" &&
         # shellcheck disable=SC2086
         private_apt download $PACKAGES)
}

# The package's version (3.14.10-1, 8.0.1+dfsg-1), from its file's name.
package_version() {
    ls "$WORK"/debs/"$MAIN_PACKAGE"_*.deb | head -n 1 |
        sed 's/.*_\([^_]*\)_[^_]*\.deb$/\1/; s/%3a/:/'
}

extract() {
    local deb
    mkdir -p "$WORK/stage"
    for deb in "$WORK"/debs/*.deb; do
        dpkg-deb -x "$deb" "$WORK/stage"
    done
}

# python3.14, or pypy3.11 (what Debian's pypy3 links to).
stage_executable() {
    if [ "$WANTED" = pypy3 ]; then
        readlink "$WORK/stage/usr/bin/pypy3"
    else
        echo "python$WANTED"
    fi
}

# Make the extracted tree start from $1, its final place: loader and rpath
# (of libpypy too, whose RUNPATH would hide the executable's RPATH), the
# real pyconfig.h where Debian's dispatches by multiarch, ensurepip's
# wheel directory inside the prefix.
relocate() {
    local prefix=$1 exe=$2 stage=$WORK/stage libdir lib
    libdir=$prefix/usr/lib/x86_64-linux-gnu
    patchelf --set-interpreter "$libdir/ld-linux-x86-64.so.2" \
        --force-rpath --set-rpath "$libdir" "$stage/usr/bin/$exe" || return 1
    for lib in "$stage"/usr/lib/x86_64-linux-gnu/libpypy*-c.so; do
        if [ -e "$lib" ]; then
            patchelf --force-rpath --set-rpath "$libdir" "$lib" || return 1
        fi
    done
    if [ -e "$stage/usr/include/x86_64-linux-gnu/$exe/pyconfig.h" ]; then
        cp "$stage/usr/include/x86_64-linux-gnu/$exe/pyconfig.h" \
            "$stage/usr/include/$exe/pyconfig.h" || return 1
    fi
    sed -i "s#'/usr/share/python-wheels/*'#'$prefix/usr/share/python-wheels/'#" \
        "$stage"/usr/lib/"$exe"/_sysconfigdata_*.py || return 1
    # The discovery's bin/: a link per file, since the interpreter finds its
    # prefix from its executable's real path, not from a linked directory.
    mkdir "$stage/bin" && ln -s "../usr/bin/$exe" "$stage/bin/$exe"
}

write_origin() {
    local prefix=$1 version=$2
    cat > "$prefix/usr/$ORIGIN_FILE" <<EOF
{"origin": "Debian $SUITE package ${MAIN_PACKAGE%-minimal} $version, relocated by gilbench",
 "optimizations": "$OPTIMIZED",
 "package": "${MAIN_PACKAGE%-minimal}", "package_version": "$version"}
EOF
}

# The prefix's name: 3.14.10-debian, or pypy3.11-8.0.1-debian.
prefix_name() {
    local version=$1 exe=$2
    if [ "$WANTED" = pypy3 ]; then
        echo "$exe-${version%%+*}-debian"
    else
        echo "${version%%-*}-debian"
    fi
}

main() {
    local found start version exe prefix
    : > "$LOG"
    if found=$(existing) && [ -n "$found" ]; then
        if healthy "$found"; then
            say "$NAME present: $found (nothing fetched)"
            return 0
        fi
        say "$NAME in $found does not start or import ($HEALTH): replacing it"
        rm -rf "$found"
    fi
    command -v apt-get >/dev/null || skip "no apt-get"
    [ "$(id -u)" = 0 ] || skip "not root (a private apt needs it)"
    command -v patchelf >/dev/null || skip "no patchelf (apt-get install patchelf)"
    mkdir -p "$DEST"
    exec 9>"$DEST/.gilbench-$WANTED.lock"
    flock 9
    if found=$(existing) && [ -n "$found" ] && healthy "$found"; then
        say "$NAME present: $found (provided meanwhile)"
        return 0
    fi
    WORK=$(mktemp -d "${TMPDIR:-/tmp}/gilbench-$WANTED.XXXXXX")
    trap 'rm -rf "$WORK"' EXIT
    start=$(date +%s)
    fetch_packages >>"$LOG" 2>&1 ||
        skip "could not fetch Debian $SUITE's $NAME packages"
    version=$(package_version)
    extract >>"$LOG" 2>&1 || skip "could not extract $NAME $version"
    exe=$(stage_executable)
    prefix="$DEST/$(prefix_name "$version" "$exe")"
    relocate "$prefix" "$exe" >>"$LOG" 2>&1 ||
        skip "could not relocate $NAME $version"
    rm -rf "$prefix"
    mv "$WORK/stage" "$prefix"
    if ! healthy "$prefix"; then
        rm -rf "$prefix"
        skip "the relocated $NAME $version does not start or import"
    fi
    write_origin "$prefix" "$version"
    say "provided $NAME $version (Debian $SUITE, relocated) in $prefix in $(( $(date +%s) - start )) s"
}

main
