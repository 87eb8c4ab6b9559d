#!/usr/bin/env bash
# Builds a free-threaded CPython ("3.13t") into DEST/<version>t (default
# $PYENV_ROOT/versions), where tools/bootstrap.sh's discovery finds it as
# python3.Nt, and prints one line saying what it did:
#
#   bash tools/build_free_threaded.sh [DEST]
#       3.13 from Debian 13's python3.13 source package (what bootstrap
#       runs when no free-threaded interpreter is present);
#   bash tools/build_free_threaded.sh --source SOURCE [DEST]
#       any version from a CPython source tarball (.tar.xz, .tgz) or an
#       unpacked source tree the user names, e.g. Python-3.14.1.tar.xz.
#
# It rebuilds nothing that exists (a build of that version, or any
# free-threaded build for the default).
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

SOURCE=
if [ "${1:-}" = --source ]; then
    SOURCE=${2:?--source needs a tarball or a source tree}
    shift 2
fi
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
    ls -d "$DEST"/${1:-3.1[3-9]}*t/bin/python3.1[3-9]t 2>/dev/null | head -n 1
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
    local tree=$1 prefix=$2 major_minor=$3
    cd "$tree" &&
        ./configure --disable-gil --prefix="$prefix" \
            --with-ensurepip=install &&
        make -j"$(nproc)" &&
        make install DESTDIR="$WORK/stage" &&
        "$WORK/stage$prefix/bin/python${major_minor}t" -c 'import sys
assert not sys._is_gil_enabled(), "GIL enabled on a --disable-gil build"' &&
        write_origin "$WORK/stage$prefix" &&
        mkdir -p "$(dirname "$prefix")" &&
        mv "$WORK/stage$prefix" "$prefix"
}

# Where the interpreter came from, for the report (gilbench.measure.buildinfo).
write_origin() {
    printf '{"origin": "built here by gilbench from %s"}\n' "$ORIGIN" \
        > "$1/gilbench-origin.json"
}

# A build this script made before it wrote origins: configured exactly as
# build() configures.
label_earlier_build() {
    local prefix=$1 args
    [ -e "$prefix/gilbench-origin.json" ] && return 0
    args=$("$prefix"/bin/python3.1[3-9]t -c 'import sysconfig
print(sysconfig.get_config_var("CONFIG_ARGS"))' 2>/dev/null) || return 0
    if [ "$args" = "'--disable-gil' '--prefix=$prefix' '--with-ensurepip=install'" ]; then
        ORIGIN="Debian's python3.13 source package ($(basename "${prefix%t}")), without PGO"
        write_origin "$prefix"
    fi
}

# The unpacked tree of $1 (a tarball or a tree), under $WORK/src.
unpack() {
    if [ -d "$1" ]; then
        cp -a "$1" "$WORK/src/tree" && echo "$WORK/src/tree"
    else
        tar -xf "$1" -C "$WORK/src" &&
            ls -d "$WORK"/src/*/ | head -n 1
    fi
}

# "3.14.1" from a source tree's Include/patchlevel.h.
tree_version() {
    sed -n 's/^#define PY_VERSION *"\([0-9.]*\)[^"]*".*/\1/p' \
        "$1/Include/patchlevel.h" 2>/dev/null
}

locked() {
    mkdir -p "$DEST"
    # One build at a time on a machine: a second bootstrap waits, then
    # finds the first one's interpreter.
    exec 9>"$DEST/.gilbench-free-threaded.lock"
    flock 9
    WORK=$(mktemp -d "${TMPDIR:-/tmp}/gilbench-ft.XXXXXX")
    trap 'rm -rf "$WORK"' EXIT
    mkdir -p "$WORK/src"
    : > "$LOG"
}

from_debian() {
    local found start tarball tree version
    if found=$(existing) && [ -n "$found" ]; then
        label_earlier_build "$(dirname "$(dirname "$found")")"
        say "free-threaded CPython present: $found (nothing built)"
        return 0
    fi
    command -v apt-get >/dev/null || skip "no apt-get"
    [ "$(id -u)" = 0 ] || skip "not root (apt-get needed)"
    locked
    if found=$(existing) && [ -n "$found" ]; then
        say "free-threaded CPython present: $found (built meanwhile)"
        return 0
    fi
    start=$(date +%s)
    say "building free-threaded CPython 3.13 from Debian's python3.13 source (about 4 minutes on 2 cores; log: $LOG)"
    fetch_source >>"$LOG" 2>&1 || skip "could not fetch Debian's python3.13 source"
    tarball=$(ls "$WORK"/src/python3.13_*.orig.tar.xz 2>/dev/null | head -n 1)
    [ -n "$tarball" ] || skip "no orig tarball in Debian's python3.13 source"
    version=$(basename "$tarball" | sed 's/^python3\.13_\(.*\)\.orig\.tar\.xz$/\1/')
    install_build_deps >>"$LOG" 2>&1 || skip "could not install build dependencies"
    tree=$(unpack "$tarball") || skip "could not unpack $tarball"
    ORIGIN="Debian's python3.13 source package ($version), without PGO"
    (build "$tree" "$DEST/${version}t" 3.13) >>"$LOG" 2>&1 || skip "build failed"
    say "built free-threaded CPython ${version}t into $DEST/${version}t in $(( $(date +%s) - start )) s"
}

from_source() {
    local found start tree version
    [ -e "$SOURCE" ] || skip "no such source: $SOURCE"
    locked
    tree=$(unpack "$SOURCE") || skip "could not unpack $SOURCE"
    version=$(tree_version "$tree")
    [ -n "$version" ] || skip "$SOURCE is not a CPython source (no Include/patchlevel.h)"
    case "$version" in
        3.1[3-9].*) ;;
        *) skip "CPython $version has no free-threaded build (3.13 and newer do)" ;;
    esac
    HOW_BY_HAND="pyenv install ${version%.*}t"
    if found=$(existing "$version") && [ -n "$found" ]; then
        say "free-threaded CPython $version present: $found (nothing built)"
        return 0
    fi
    if [ "$(id -u)" = 0 ] && command -v apt-get >/dev/null; then
        install_build_deps >>"$LOG" 2>&1 || skip "could not install build dependencies"
    fi
    start=$(date +%s)
    say "building free-threaded CPython $version from $SOURCE (log: $LOG)"
    ORIGIN="$(basename "$SOURCE"), without PGO"
    (build "$tree" "$DEST/${version}t" "${version%.*}") >>"$LOG" 2>&1 || skip "build failed"
    say "built free-threaded CPython ${version}t into $DEST/${version}t in $(( $(date +%s) - start )) s"
}

if [ -n "$SOURCE" ]; then
    from_source
else
    from_debian
fi
