"""Switchboard's own `mekara` package, holding only the step API compiled mekara scripts import.

The runner puts this folder first on Python's import path, so `from mekara.scripting.runtime import auto` resolves
here even where mekara is not installed (and a real mekara installed beside it is never mixed in). See
docs/coming-from-mekara.md.
"""
