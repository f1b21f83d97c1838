"""gdb.xmethod: matchers and workers are registered and kept (expressions that call them
come later), as gdb's own API."""

from __future__ import annotations

from typing import Any

from aliceserver.debuggers.printers import gdb


class XMethod:
    def __init__(self, name: str) -> None:
        self.name = name
        self.enabled = True


class XMethodMatcher:
    def __init__(self, name: str) -> None:
        self.name = name
        self.enabled = True
        self.methods: list[XMethod] | None = None

    def match(self, class_type: Any, method_name: str) -> Any:
        raise NotImplementedError("XMethodMatcher match")


class XMethodWorker:
    def get_arg_types(self) -> Any:
        raise NotImplementedError("XMethodWorker get_arg_types")

    def get_result_type(self, *args: Any) -> Any:
        return None

    def __call__(self, *args: Any) -> Any:
        raise NotImplementedError("XMethodWorker __call__")


class SimpleXMethodMatcher(XMethodMatcher):
    """One method matched by class and method name regexps, run by a function."""

    class SimpleXMethodWorker(XMethodWorker):
        def __init__(self, method_function: Any, arg_types: Any) -> None:
            self._arg_types = arg_types
            self._method_function = method_function

        def get_arg_types(self) -> Any:
            return self._arg_types

        def __call__(self, *args: Any) -> Any:
            return self._method_function(*args)

    def __init__(self, name: str, class_matcher: str, method_matcher: str,
                 method_function: Any, *arg_types: Any) -> None:
        import re

        super().__init__(name)
        self._method_function = method_function
        self._class_matcher = re.compile(class_matcher)
        self._method_matcher = re.compile(method_matcher)
        self._arg_types = arg_types

    def match(self, class_type: Any, method_name: str) -> Any:
        cm = self._class_matcher.match(str(class_type.unqualified().tag))
        mm = self._method_matcher.match(method_name)
        if cm and mm:
            return self.SimpleXMethodWorker(self._method_function, self._arg_types)
        return None


def register_xmethod_matcher(locus: Any, matcher: Any, replace: bool = False) -> None:
    if not hasattr(matcher, "name") or not hasattr(matcher, "enabled"):
        raise TypeError("matcher missing attribute: name or enabled")
    if locus is None:
        locus = gdb
    matchers = locus.xmethods
    for i, existing in enumerate(matchers):
        if existing.name == matcher.name:
            if not replace:
                raise RuntimeError(f"Xmethod matcher already registered with {getattr(locus, 'filename', 'gdb')}: {matcher.name}")
            del matchers[i]
            break
    matchers.insert(0, matcher)
