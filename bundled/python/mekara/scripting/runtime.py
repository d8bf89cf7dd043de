"""The step API that compiled mekara scripts import, implemented for Switchboard's Python runner.

A compiled script is a generator `execute(request)`; each `yield` hands Switchboard one step made by `auto()`,
`llm()` or `call_script()`, and the value sent back in is that step's result. Only the public surface follows
mekara (class and field names, the three constructors and their parameters, `description` and the short reprs),
so that scripts written for mekara import and run as they are; the code is Switchboard's own. The runner
(switchboard_runner.py) turns each step into JSON and builds the result objects from Switchboard's answer.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Callable, Dict, Optional, Union

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


def _short(kind: str, *parts: str) -> str:
    """The compact form steps print as: `kind(part, part)`."""
    return f"{kind}({', '.join(parts)})"


# What an automatic step does.


@dataclass
class ShellAction:
    """`cmd`, given to `sh -c` in the step's directory."""

    cmd: str

    def __repr__(self) -> str:
        return _short("shell", repr(self.cmd))


@dataclass
class CallAction:
    """`func(**kwargs)`, run inside the runner process with the step's directory as its cwd."""

    func: Callable[..., Any]
    kwargs: Dict[str, Any]

    @property
    def name(self) -> str:
        return getattr(self.func, "__name__", "anonymous")

    def __repr__(self) -> str:
        return _short("call", self.name)


AutoAction = Union[ShellAction, CallAction]


# What the script receives back after a step.


@dataclass
class ShellResult:
    """The command's exit status and everything it wrote (stdout, then stderr)."""

    success: bool
    exit_code: int
    output: str


@dataclass
class CallResult:
    """The function's return value (as it crossed JSON) and what it printed while running."""

    success: bool
    value: Any
    error: Optional[str] = None
    output: str = ""


def _no_exception_given() -> Exception:
    return Exception("the automatic step failed (no exception was recorded)")


@dataclass
class AutoException:
    """An automatic step that raised. Switchboard hands such a failure to the agent instead, so a script only
    meets this type when it builds or checks one itself."""

    success: bool = False
    exception: Exception = field(default_factory=_no_exception_given)
    step_description: str = ""
    output: str = ""


AutoResult = Union[ShellResult, CallResult, AutoException]


# The three kinds of step.


@dataclass
class Auto:
    """A step Switchboard carries out without the model. `context` is the instruction it came from."""

    action: AutoAction
    context: str

    @property
    def description(self) -> str:
        """The command line, or the function call with its arguments, as answers show it."""
        action = self.action
        if isinstance(action, CallAction):
            arguments = [f"{key}={value!r}" for key, value in action.kwargs.items()]
            return f"{action.name}({', '.join(arguments)})"
        return action.cmd

    def __repr__(self) -> str:
        return _short("auto", repr(self.action))


@dataclass
class Llm:
    """A step for the agent: `prompt` says what to do, `expects` names each output it must report."""

    prompt: str
    expects: Dict[str, str] = field(default_factory=dict)

    def __repr__(self) -> str:
        return _short("llm", repr(self.prompt))


@dataclass
class LlmResult:
    """The outputs the agent reported for an LLM step, by the names `expects` gave."""

    success: bool
    outputs: Dict[str, Any] = field(default_factory=dict)


@dataclass
class CallScript:
    """A nested run of the script `name` (NL or compiled) with `request` as its arguments."""

    name: str
    request: str = ""
    working_dir: Optional[Path] = None

    @property
    def description(self) -> str:
        """The slash command a user would type for the same call."""
        return " ".join(part for part in (f"/{self.name}", self.request) if part)

    def __repr__(self) -> str:
        parts = [repr(self.name)] + ([f"request={self.request!r}"] if self.request else [])
        return _short("call_script", *parts)


@dataclass
class ScriptCallResult:
    """How the nested script ended: `success`, or the exception it ended with."""

    success: bool
    exception: Optional[Exception] = None


# Constructors, the way scripts make their steps.


def auto(action: Union[str, Callable[..., Any]], kwargs: Optional[Dict[str, Any]] = None, *, context: str) -> Auto:
    """A command line (a str) or a function with its keyword arguments; `context` is required."""
    if isinstance(action, str):
        return Auto(ShellAction(action), context)
    return Auto(CallAction(action, dict(kwargs) if kwargs else {}), context)


def llm(prompt: str, expects: Optional[Dict[str, str]] = None) -> Llm:
    """An agent step; `expects` maps each output name to what it should hold."""
    return Llm(prompt, dict(expects) if expects else {})


def call_script(name: str, request: str = "", working_dir: Optional[Path] = None) -> CallScript:
    """Run another script (`name` with `/` or `:` between segments), in `working_dir` when given."""
    return CallScript(name, request, working_dir)
