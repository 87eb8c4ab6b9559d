# Sourced by tools/matrix.sh and tools/test.sh: every set-up step a fresh
# Debian 12 machine needs, idempotent, so both commands work from scratch.
#   - PyPy from Debian (pypy3 pypy3-dev pypy3-venv) when we may install it;
#   - .venv-tools with tox, on a Python >= 3.9;
#   - PATH with every pyenv interpreter's bin directory (not pyenv's shims,
#     which only answer for the version PYENV_VERSION names), so tox finds
#     python2.7 ... python3.14, pypy3, python3.13t and python3.14t by name;
#   - a free-threaded CPython 3.13 built from Debian's source package
#     (tools/build_free_threaded.sh) when none is present and we may
#     install; built once, then found and reused;
#   - CPython 3.14 and 3.15 and PyPy 3.11 from Debian unstable's binary
#     packages, relocated under $PYENV_ROOT/versions
#     (tools/provide_debian_python.sh), when no python3.14 / python3.15 /
#     pypy3.11 is found on PATH or under pyenv.
set -euo pipefail

GILBENCH_ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
TOOLS_VENV="$GILBENCH_ROOT/.venv-tools"
PYENV_ROOT=${PYENV_ROOT:-$HOME/.pyenv}

say() { echo "gilbench: $*" >&2; }

# install_debian WHAT PACKAGE...: Debian packages, when we may install
# them; otherwise one line saying WHAT was skipped and how to add it.
install_debian() {
    local what=$1
    shift
    if dpkg -s "$@" >/dev/null 2>&1; then
        return 0
    fi
    local how="apt-get install -y $*"
    if [ "$(id -u)" != 0 ] || ! command -v apt-get >/dev/null; then
        say "$what skipped: not root or no apt-get; add it with: sudo $how"
        return 0
    fi
    say "installing $what from Debian ($how)"
    if ! { apt-get update -qq && DEBIAN_FRONTEND=noninteractive \
            apt-get install -y -qq "$@"; } >/dev/null; then
        say "$what skipped: apt-get failed; add it with: $how"
    fi
}

install_pypy() {
    install_debian PyPy pypy3 pypy3-dev pypy3-venv
}

# A Python >= 3.9 for the tools venv and the report.
find_host_python() {
    local candidate
    for candidate in python3 "$PYENV_ROOT"/versions/3.1[0-9]*/bin/python3 \
                     "$PYENV_ROOT"/versions/3.9*/bin/python3 /usr/bin/python3; do
        if command -v "$candidate" >/dev/null 2>&1 && "$candidate" -c \
            'import sys, venv; sys.exit(sys.version_info < (3, 9))' 2>/dev/null; then
            command -v "$candidate"
            return 0
        fi
    done
    say "error: no Python >= 3.9 found for the tools environment"
    return 2
}

make_tools_venv() {
    local stamp="$TOOLS_VENV/.requirements"
    if [ -f "$stamp" ] && cmp -s "$stamp" "$GILBENCH_ROOT/requirements-tools.txt"; then
        return 0
    fi
    local host
    host=$(find_host_python)
    say "creating $TOOLS_VENV with $host"
    "$host" -m venv --clear "$TOOLS_VENV"
    "$TOOLS_VENV/bin/python" -m pip install -q --disable-pip-version-check \
        -r "$GILBENCH_ROOT/requirements-tools.txt"
    cp "$GILBENCH_ROOT/requirements-tools.txt" "$stamp"
}

# Newest first, so an unversioned python3 (the report env) is the newest.
# Free-threaded builds (versions/3.13.5t/...) are left out: their bin
# directories also hold python3 and python3.13, which tox would take for the
# report env or for py313 where no GIL build of that version exists.  Only
# their python3.1Nt names go on the PATH, as links in one directory.
interpreter_path() {
    local dirs="" dir
    for dir in $(ls -d "$PYENV_ROOT"/versions/*/bin 2>/dev/null | sort -rV); do
        case "$dir" in
            *t/bin) ;;
            *) dirs="$dirs$dir:" ;;
        esac
    done
    dirs="$dirs$(free_threaded_links):"
    local rest
    rest=$(echo "$PATH" | tr ':' '\n' | grep -v "^$PYENV_ROOT/shims$" \
        | grep -v "pyenv-virtualenv/shims$" | paste -sd: -)
    echo "$dirs$rest"
}

free_threaded_links() {
    local links="$TOOLS_VENV/free-threaded-bin" exe
    rm -rf "$links"
    mkdir -p "$links"
    # Oldest first, so the newest build of a version keeps the name.
    for exe in $(ls -d "$PYENV_ROOT"/versions/*t/bin/python3.1[0-9]t \
                 2>/dev/null | sort -V); do
        ln -sf "$exe" "$links/"
    done
    echo "$links"
}

report_interpreters() {
    local name exe version
    for name in python2.7 python3.8 python3.9 pypy3 python3.10 python3.11 \
                pypy3.11 python3.12 python3.13 python3.13t python3.14 \
                python3.14t python3.15 python3.15t; do
        if exe=$(PATH="$GILBENCH_PATH" command -v "$name"); then
            case "$exe" in  # name the build, not bootstrap's link to it
                */free-threaded-bin/*) exe=$(readlink -f "$exe") ;;
            esac
            say "found $name: $exe"
        else
            case "$name" in
                python3.1[4-9]t) version=${name#python}; version=${version%t}
                    say "missing $name: its tox envs will be reported as" \
                        "SKIP; add one with: bash tools/build_free_threaded.sh" \
                        "--source Python-$version.N.tar.xz (or pyenv install ${version}t)" ;;
                *) say "missing $name: its tox env will be reported as SKIP" ;;
            esac
        fi
    done
}

has_free_threaded() {
    local name
    for name in python3.13t python3.14t; do
        PATH="$GILBENCH_PATH" command -v "$name" >/dev/null && return 0
    done
    return 1
}

# Costs nothing once an interpreter is there.  GILBENCH_BUILD_FREE_THREADED=0
# opts out of the build (210 s on this project's 2-core machines).
provide_free_threaded() {
    has_free_threaded && return 0
    if [ "${GILBENCH_BUILD_FREE_THREADED:-1}" = 0 ]; then
        say "free-threaded CPython skipped: GILBENCH_BUILD_FREE_THREADED=0;" \
            "add one with: pyenv install 3.13t"
        return 0
    fi
    # It prints its own line: what it built, or why it skipped.
    bash "$GILBENCH_ROOT/tools/build_free_threaded.sh" \
        "$PYENV_ROOT/versions" || true
    GILBENCH_PATH=$(interpreter_path)
}

# What Debian unstable serves as binaries only (CPython 3.14, 3.15 and
# PyPy 3.11): one found on PATH or under pyenv (pyenv install, uv python
# install) is used as it is; otherwise the script provides (or, once
# present, checks) its own copy.  GILBENCH_PROVIDE_DEBIAN=0 opts out.
provide_debian_pythons() {
    local wanted name exe
    for wanted in 3.14 3.15 pypy3; do
        name=python$wanted
        [ "$wanted" = pypy3 ] && name=pypy3.11
        if exe=$(PATH="$GILBENCH_PATH" command -v "$name") &&
                [ "${exe%-debian/bin/$name}" = "$exe" ]; then
            continue
        fi
        if [ "${GILBENCH_PROVIDE_DEBIAN:-1}" = 0 ]; then
            say "$name skipped: GILBENCH_PROVIDE_DEBIAN=0;" \
                "add one with: pyenv install ${name#python}"
            continue
        fi
        install_debian "patchelf (to relocate Debian's $name)" patchelf
        # It prints its own line: what it provided, or why it skipped.
        bash "$GILBENCH_ROOT/tools/provide_debian_python.sh" "$wanted" \
            "$PYENV_ROOT/versions" || true
    done
    GILBENCH_PATH=$(interpreter_path)
}

install_pypy
make_tools_venv
GILBENCH_PATH=$(interpreter_path)
provide_free_threaded
provide_debian_pythons
export GILBENCH_PATH
report_interpreters

tox_run() {
    (cd "$GILBENCH_ROOT" && PATH="$GILBENCH_PATH" "$TOOLS_VENV/bin/tox" "$@")
}
