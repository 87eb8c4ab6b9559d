#!/usr/bin/env bash
# The tests: set up, then pytest in tox's `tests` env (current Python 3).
# The HTML page's browser test needs Debian's Chromium and its driver;
# without them it skips, saying so.
source "$(dirname "$0")/bootstrap.sh"
install_debian "Chromium (the HTML report's browser test)" chromium chromium-driver
tox_run -e tests -- "$@"
