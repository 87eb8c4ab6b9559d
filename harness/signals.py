"""Signal names for failure reasons, on every interpreter (2.7 has no
signal.Signals)."""
import signal

# Aliases (SIGIOT = SIGABRT, SIGCLD = SIGCHLD): reversed alphabetical
# order lets the usual name, which sorts first, win.
_NAMES = dict((int(getattr(signal, name)), name)
              for name in sorted(dir(signal), reverse=True)
              if name.startswith("SIG") and not name.startswith("SIG_")
              and isinstance(getattr(signal, name), int))


def signal_name(number):
    return _NAMES.get(number, "signal %d" % number)
