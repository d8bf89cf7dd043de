"""The step API of mekara scripts, as `mekara.scripting` exports it."""

from mekara.scripting.runtime import (
    Auto,
    AutoException,
    AutoResult,
    CallAction,
    CallResult,
    CallScript,
    Llm,
    LlmResult,
    ScriptCallResult,
    ShellAction,
    ShellResult,
    auto,
    call_script,
    llm,
)

__all__ = [
    "Auto",
    "AutoException",
    "AutoResult",
    "CallAction",
    "CallResult",
    "CallScript",
    "Llm",
    "LlmResult",
    "ScriptCallResult",
    "ShellAction",
    "ShellResult",
    "auto",
    "call_script",
    "llm",
]
