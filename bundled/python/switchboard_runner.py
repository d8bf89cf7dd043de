"""Switchboard's runner of compiled mekara scripts: one script per process, driven over JSON lines.

Switchboard (src/sources/scripts/python.ts) starts `python3 switchboard_runner.py` for each compiled Python
frame and sends one request per line on stdin; each gets one answer line on the protocol channel:

  {"op": "start", "file": F, "name": N, "request": R}  -> {"type": "ready"} | {"type": "load_error", "message"}
  {"op": "next", "value": V}   send V (the result of the last step; null first) into the generator
                               -> {"type": "step", "step": {...}} | {"type": "done"} | {"type": "raised", ...}
  {"op": "call", "cwd": D}     run the pending function step in D, capturing what it prints
                               -> {"type": "called", "value", "output"} | {"type": "call_raised", ...}
  {"op": "close"}              end the generator (its `finally` blocks run) -> {"type": "closed"}, exit

The protocol channel is a copy of the original stdout; the script's own stdout (a print between steps, a
child process) goes to stderr, so nothing a script writes can break a line. Values cross as JSON; a float
with no fraction (6.0) or not finite travels as {"$float": 6.0} because JSON readers elsewhere would turn it
into the integer 6, and a restarted run must give the script exactly what the first run gave it.
"""

from __future__ import annotations

import importlib.util
import io
import json
import math
import os
import sys
import traceback
from contextlib import redirect_stderr, redirect_stdout

# Never write bytecode into the package (it may be read-only) or into a project's script folders.
sys.dont_write_bytecode = True
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

from mekara.scripting.runtime import (  # noqa: E402
    Auto,
    CallAction,
    CallResult,
    CallScript,
    Llm,
    LlmResult,
    ScriptCallResult,
    ShellAction,
    ShellResult,
)

FLOAT = "$float"


def encode(value, where):
    """JSON form of a value; raises TypeError naming `where` for what JSON cannot hold."""
    if isinstance(value, float):
        if math.isfinite(value) and not value.is_integer():
            return value
        return {FLOAT: value if math.isfinite(value) else str(value)}
    if value is None or isinstance(value, (bool, int, str)):
        return value
    if isinstance(value, (list, tuple)):
        return [encode(v, where) for v in value]
    if isinstance(value, dict):
        if not all(isinstance(k, str) for k in value):
            raise TypeError(f"{where} is a dict with keys that are not strings, which cannot be recorded")
        return {k: encode(v, where) for k, v in value.items()}
    raise TypeError(
        f"{where} is a {type(value).__name__}, which cannot be recorded: "
        "use str, int, float, bool, None, lists and dicts with string keys"
    )


def decode(value):
    if isinstance(value, dict):
        if len(value) == 1 and FLOAT in value:
            return float(value[FLOAT])
        return {k: decode(v) for k, v in value.items()}
    if isinstance(value, list):
        return [decode(v) for v in value]
    return value


def describe_exception(exc):
    return {"name": type(exc).__name__, "message": str(exc)}


class Runner:
    def __init__(self, out):
        self.out = out
        self.gen = None
        self.step = None

    def answer(self, message):
        self.out.write(json.dumps(message) + "\n")
        self.out.flush()

    def start(self, req):
        file = req["file"]
        spec = importlib.util.spec_from_file_location(req.get("name") or "script", file)
        if spec is None or spec.loader is None:
            return {"type": "load_error", "message": f"{file} is not a Python module"}
        module = importlib.util.module_from_spec(spec)
        try:
            spec.loader.exec_module(module)
        except Exception as exc:
            return {
                "type": "load_error",
                "message": f"importing it raised {type(exc).__name__}: {exc}",
                "traceback": traceback.format_exc(),
            }
        execute = getattr(module, "execute", None)
        if not callable(execute):
            return {
                "type": "load_error",
                "message": "it defines no execute(request) function; a compiled mekara script must define "
                "`def execute(request: str):` that yields auto(), llm() and call_script() steps",
            }
        try:
            gen = execute(req.get("request", ""))
        except Exception as exc:
            return {"type": "load_error", "message": f"execute(request) raised {type(exc).__name__}: {exc}"}
        if not hasattr(gen, "send"):
            return {
                "type": "load_error",
                "message": "execute(request) is not a generator: it must `yield` its steps "
                "(auto(), llm(), call_script())",
            }
        self.gen = gen
        return {"type": "ready"}

    def result_for(self, value):
        """The result object the pending step's type calls for, built from what Switchboard sent."""
        value = decode(value or {})
        step = self.step
        success = bool(value.get("success", True))
        if isinstance(step, Auto) and isinstance(step.action, ShellAction):
            return ShellResult(success=success, exit_code=int(value.get("exit_code", 0)), output=value.get("output", ""))
        if isinstance(step, Auto):
            return CallResult(
                success=success, value=value.get("value"), error=value.get("error"), output=value.get("output", "")
            )
        if isinstance(step, Llm):
            return LlmResult(success=success, outputs=value.get("outputs") or {})
        if isinstance(step, CallScript):
            exc = value.get("exception")
            return ScriptCallResult(success=success, exception=Exception(exc) if exc else None)
        return None

    def next(self, req):
        try:
            if self.step is None:
                step = next(self.gen)
            else:
                step = self.gen.send(self.result_for(req.get("value")))
        except StopIteration:
            self.step = None
            return {"type": "done"}
        except Exception as exc:
            return {"type": "raised", **describe_exception(exc), "traceback": traceback.format_exc()}
        self.step = step
        return {"type": "step", "step": self.describe(step)}

    def describe(self, step):
        if isinstance(step, Auto) and isinstance(step.action, ShellAction):
            return {"kind": "auto", "action_type": "shell", "action": step.action.cmd, "context": step.context}
        if isinstance(step, Auto) and isinstance(step.action, CallAction):
            name = getattr(step.action.func, "__name__", "anonymous")
            try:
                kwargs = encode(step.action.kwargs, f"an argument of {name}()")
            except TypeError as exc:
                return {"kind": "invalid", "message": str(exc)}
            return {"kind": "auto", "action_type": "call", "action": name, "kwargs": kwargs, "context": step.context}
        if isinstance(step, Llm):
            return {"kind": "llm", "prompt": step.prompt, "expects": {k: str(v) for k, v in step.expects.items()}}
        if isinstance(step, CallScript):
            wd = None if step.working_dir is None else str(step.working_dir)
            return {"kind": "call_script", "name": step.name, "request": step.request or "", "working_dir": wd}
        return {
            "kind": "invalid",
            "message": f"execute() yielded {type(step).__name__} {repr(step)[:200]}, "
            "not a step made with auto(), llm() or call_script()",
        }

    def call(self, req):
        step = self.step
        if not (isinstance(step, Auto) and isinstance(step.action, CallAction)):
            return {"type": "call_raised", "name": "RuntimeError", "message": "no function step is pending", "output": ""}
        captured = io.StringIO()
        before = os.getcwd()
        try:
            os.chdir(req["cwd"])
            with redirect_stdout(captured), redirect_stderr(captured):
                value = step.action.func(**step.action.kwargs)
            encoded = encode(value, f"the value {step.action.func.__name__}() returned")
        except Exception as exc:
            return {"type": "call_raised", **describe_exception(exc), "output": captured.getvalue()}
        finally:
            os.chdir(before)
        return {"type": "called", "value": encoded, "output": captured.getvalue()}

    def close(self):
        if self.gen is not None:
            try:
                self.gen.close()
            except Exception:
                pass
        return {"type": "closed"}


def main():
    # The protocol gets the real stdout; everything else a script writes to stdout lands on stderr.
    out = os.fdopen(os.dup(1), "w", encoding="utf-8")
    os.dup2(2, 1)
    sys.stdout = sys.stderr
    runner = Runner(out)
    for line in sys.stdin:
        if not line.strip():
            continue
        req = json.loads(line)
        op = req.get("op")
        if op == "start":
            runner.answer(runner.start(req))
        elif op == "next":
            runner.answer(runner.next(req))
        elif op == "call":
            runner.answer(runner.call(req))
        elif op == "close":
            runner.answer(runner.close())
            return
        else:
            runner.answer({"type": "protocol_error", "message": f"unknown op {op!r}"})
    runner.close()


if __name__ == "__main__":
    main()
