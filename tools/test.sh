#!/usr/bin/env bash
# The tests: set up, then pytest in tox's `tests` env (current Python 3).
source "$(dirname "$0")/bootstrap.sh"
tox_run -e tests -- "$@"
