"""`mekara.scripting`: the same step API as `mekara.scripting.runtime`, for scripts that import it from here."""

from mekara.scripting.runtime import *  # noqa: F401,F403
from mekara.scripting.runtime import __all__  # noqa: F401
