"""Import fallback for the cffi module when it is not built here.

A compiled extensions/_ceiling_cffi.<abi>.so takes precedence over this
file on import, so this runs only for an interpreter without that build:
it turns the bare "No module named" into the reason, e.g. on free-threaded
3.13, where cffi does not exist (see extensions/flavour.py).
"""
from gilbench.extensions import flavour

raise ImportError(flavour.cffi_unsupported()
                  or "no build for %s in this tree" % flavour.name())
