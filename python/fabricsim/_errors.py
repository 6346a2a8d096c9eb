"""The exceptions of the package. The native module raises them by name."""

from __future__ import annotations

from typing import Any


class FabricsimError(Exception):
    """Base class of every error fabricsim raises."""


class ScenarioError(FabricsimError, ValueError):
    """Bad input: a key of a scenario (or an argument) and what is wrong with its value.

    ``key`` is the dotted path of the key (``"topology.link_latency"``), ``value`` the value
    given for it when the scenario holds one (else ``None``), and ``expected`` what is wrong and
    what would be right. ``str(error)`` is the line ``fabricsim`` (the CLI) prints.
    """

    def __init__(self, key: str, expected: str, value: Any = None) -> None:
        super().__init__(f"{key}: {expected}")
        self.key = key
        self.expected = expected
        self.value = value

    def __reduce__(self) -> "tuple[type, tuple[str, str, Any]]":
        # Rebuilt whole when it crosses processes (an executor's worker raised it).
        return (type(self), (self.key, self.expected, self.value))


class SimulationError(FabricsimError, RuntimeError):
    """The run itself failed: a deadlock, a conservation check, a program left waiting."""


class FileError(FabricsimError, OSError):
    """A file the scenario names could not be read."""


class InternalError(FabricsimError, RuntimeError):
    """A bug in fabricsim (a Rust panic, caught before it reached Python)."""
