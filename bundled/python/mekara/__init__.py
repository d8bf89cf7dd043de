"""Switchboard's stand-in for the `mekara` package: only what compiled mekara scripts import.

Switchboard runs mekara's compiled scripts unchanged (docs/coming-from-mekara.md). They import their step
API from `mekara.scripting.runtime`; this package provides that API, written for Switchboard to the same
names and signatures, and is first on the runner's import path.
"""
