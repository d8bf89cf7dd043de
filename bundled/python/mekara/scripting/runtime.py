"""Steps and results of mekara scripts, for Switchboard's Python runner.

A compiled mekara script is a generator `execute(request)` that yields `auto(...)`, `llm(...)` and
`call_script(...)` steps and receives a result for each. The names, fields and call signatures here are
mekara's (mekara.scripting.runtime), so scripts written for mekara run unchanged; the runner
(switchboard_runner.py) hands each step to Switchboard and sends the result back.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Callable, Optional, Union


@dataclass
class ShellAction:
    """Run a command line with the shell."""

    cmd: str

    def __repr__(self) -> str:
        return f"shell({self.cmd!r})"


@dataclass
class CallAction:
    """Call a Python function with keyword arguments (it runs in the runner, in the step's directory)."""

    func: Callable[..., Any]
    kwargs: dict

    def __repr__(self) -> str:
        return f"call({self.func.__name__})"


AutoAction = Union[ShellAction, CallAction]


@dataclass
class ShellResult:
    """Result of a command: stdout then stderr in `output`."""

    success: bool
    exit_code: int
    output: str


@dataclass
class CallResult:
    """Result of a function step: its return value and what it printed."""

    success: bool
    value: Any
    error: Optional[str] = None
    output: str = ""


@dataclass
class AutoException:
    """An auto step that raised (kept for scripts that name the type)."""

    success: bool = False
    exception: Exception = field(default_factory=lambda: Exception("Unknown auto step exception"))
    step_description: str = ""
    output: str = ""


AutoResult = Union[ShellResult, CallResult, AutoException]


@dataclass
class Auto:
    """A step that runs by itself: a shell command or a Python function."""

    action: AutoAction
    context: str

    @property
    def description(self) -> str:
        if isinstance(self.action, ShellAction):
            return self.action.cmd
        kwargs = ", ".join(f"{k}={v!r}" for k, v in self.action.kwargs.items())
        return f"{self.action.func.__name__}({kwargs})"

    def __repr__(self) -> str:
        return f"auto({self.action!r})"


@dataclass
class Llm:
    """A step only the model can do; it answers with `expects` keys."""

    prompt: str
    expects: dict = field(default_factory=dict)

    def __repr__(self) -> str:
        return f"llm({self.prompt!r})"


@dataclass
class LlmResult:
    """Result of an LLM step: the outputs the agent reported."""

    success: bool
    outputs: dict = field(default_factory=dict)


@dataclass
class CallScript:
    """Run another script (NL or compiled) as a nested frame."""

    name: str
    request: str = ""
    working_dir: Optional[Path] = None

    @property
    def description(self) -> str:
        return f"/{self.name} {self.request}" if self.request else f"/{self.name}"

    def __repr__(self) -> str:
        if not self.request:
            return f"call_script({self.name!r})"
        return f"call_script({self.name!r}, request={self.request!r})"


@dataclass
class ScriptCallResult:
    """Result of a call_script step."""

    success: bool
    exception: Optional[Exception] = None


def auto(action: Union[str, Callable[..., Any]], kwargs: Optional[dict] = None, *, context: str) -> Auto:
    """A shell command (a string) or a function called with `kwargs`; `context` says why the step runs."""
    if isinstance(action, str):
        return Auto(action=ShellAction(cmd=action), context=context)
    return Auto(action=CallAction(func=action, kwargs=kwargs or {}), context=context)


def llm(prompt: str, expects: Optional[dict] = None) -> Llm:
    """A step for the model: `prompt`, and the outputs it must report (`{key: description}`)."""
    return Llm(prompt=prompt, expects=expects or {})


def call_script(name: str, request: str = "", working_dir: Optional[Path] = None) -> CallScript:
    """Run the script `name` with `request` as its arguments, in `working_dir` (the caller's by default)."""
    return CallScript(name=name, request=request, working_dir=working_dir)
