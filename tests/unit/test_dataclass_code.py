"""dataclass_code: dataclasses' methods compiled once, kept on disk, identical to their own."""

from __future__ import annotations

import builtins
import dataclasses
import marshal
import sys
from pathlib import Path
from typing import Any

import pytest

from aliceserver import dataclass_code
from aliceserver.dataclass_code import DataclassCodeCache


def _make_classes() -> tuple[type[Any], type[Any]]:
    @dataclasses.dataclass(frozen=True, slots=True)
    class Point:
        x: int
        y: int = 2
        tags: tuple[str, ...] = ()

    @dataclasses.dataclass(order=True)
    class Box:
        name: str
        items: list[int] = dataclasses.field(default_factory=list)

    return Point, Box


def _methods(cls: type[Any]) -> dict[str, Any]:
    names = ("__init__", "__repr__", "__eq__", "__hash__", "__setattr__", "__delattr__", "__lt__")
    return {name: vars(cls)[name] for name in names if callable(vars(cls).get(name))}


def _cells(function: Any) -> list[Any]:
    """What a method's closure holds (a wrapped method: its code; its class: the name)."""
    held = [cell.cell_contents for cell in function.__closure__ or ()]
    return [value.__qualname__ if isinstance(value, type) else getattr(value, "__code__", value)
            for value in held]  # fmt: skip


def _with_cache(cache: DataclassCodeCache, monkeypatch: pytest.MonkeyPatch
                ) -> tuple[type[Any], type[Any]]:  # fmt: skip
    with monkeypatch.context() as patch:
        patch.setattr(dataclasses, "exec", cache.exec, raising=False)
        return _make_classes()


def _plain_classes(monkeypatch: pytest.MonkeyPatch) -> tuple[type[Any], type[Any]]:
    """The classes as dataclasses makes them itself (through the builtin exec)."""
    with monkeypatch.context() as patch:
        patch.delattr(dataclasses, "exec", raising=False)  # (installed by an earlier test)
        return _make_classes()


def test_classes_made_through_the_cache_are_dataclasses_own(tmp_path: Path,
                                                           monkeypatch: pytest.MonkeyPatch) -> None:  # fmt: skip
    plain = _plain_classes(monkeypatch)
    cache = DataclassCodeCache([str(tmp_path / "codes")])
    for cached in (_with_cache(cache, monkeypatch), _with_cache(cache, monkeypatch)):
        for ours, theirs in zip(cached, plain, strict=True):
            ours_methods, their_methods = _methods(ours), _methods(theirs)
            assert ours_methods.keys() == their_methods.keys()
            for name, method in ours_methods.items():
                expected = their_methods[name]
                assert method.__code__.co_code == expected.__code__.co_code, name
                assert method.__annotations__ == expected.__annotations__, name  # not strings
                assert method.__qualname__ == expected.__qualname__, name
                assert method.__module__ == expected.__module__, name
                assert method.__globals__ is expected.__globals__, name
                assert method.__defaults__ == expected.__defaults__, name
                assert method.__kwdefaults__ == expected.__kwdefaults__, name
                assert _cells(method) == _cells(expected), name
    point_cls, box_cls = cached
    point = point_cls(1, tags=("a",))
    assert repr(point).endswith("Point(x=1, y=2, tags=('a',))")
    assert point == point_cls(1, 2, ("a",)) and hash(point) == hash(point_cls(1, 2, ("a",)))
    with pytest.raises(dataclasses.FrozenInstanceError):
        point.x = 3
    assert box_cls("a") < box_cls("b") and box_cls("a").items == []
    assert cache.compiled > 0  # the first round compiled, the second found them


def test_saved_codes_are_found_by_the_next_process(tmp_path: Path,
                                                   monkeypatch: pytest.MonkeyPatch) -> None:  # fmt: skip
    monkeypatch.setattr(sys, "dont_write_bytecode", False)
    path = tmp_path / "sub" / "codes"
    first = DataclassCodeCache([str(path)])
    _with_cache(first, monkeypatch)
    first.save()
    assert first.compiled == 0 and path.exists()
    second = DataclassCodeCache([str(path)])
    assert second.entries() == first.entries() and first.entries()
    _with_cache(second, monkeypatch)
    assert second.compiled == 0  # nothing compiled again
    second.save()  # nothing new: the file is left as it is


def test_an_unwritable_place_falls_back_to_the_next(tmp_path: Path,
                                                    monkeypatch: pytest.MonkeyPatch) -> None:  # fmt: skip
    monkeypatch.setattr(sys, "dont_write_bytecode", False)
    blocked = tmp_path / "file"
    blocked.write_text("not a directory")
    fallback = tmp_path / "cache" / "codes"
    cache = DataclassCodeCache([str(blocked / "codes"), str(fallback)])
    _with_cache(cache, monkeypatch)
    cache.save()
    assert fallback.exists()
    assert DataclassCodeCache([str(blocked / "codes"), str(fallback)]).entries()


def test_nothing_is_written_without_byte_code(tmp_path: Path,
                                              monkeypatch: pytest.MonkeyPatch) -> None:  # fmt: skip
    monkeypatch.setattr(sys, "dont_write_bytecode", True)  # PYTHONDONTWRITEBYTECODE
    path = tmp_path / "codes"
    cache = DataclassCodeCache([str(path)])
    _with_cache(cache, monkeypatch)
    cache.save()
    assert not path.exists()


@pytest.mark.parametrize("content", [b"", b"garbage", marshal.dumps(("another python", {})),
                                     marshal.dumps([1, 2])])  # fmt: skip
def test_a_damaged_or_foreign_file_is_ignored(tmp_path: Path, content: bytes) -> None:
    path = tmp_path / "codes"
    path.write_bytes(content)
    assert DataclassCodeCache([str(path)]).entries() == {}


def test_install_is_once_per_process() -> None:
    cache = dataclass_code.install()
    assert cache is not None and dataclass_code.installed() is cache
    assert dataclass_code.install() is cache


def _method(cache: DataclassCodeCache, module: str, body: str) -> Any:
    """A method made through `cache` as dataclasses makes one: from the text of its maker."""
    made: dict[str, Any] = {}
    cache.exec(f"def __create_fn__():\n def f(self):\n  {body}\n return f",
               {"__name__": module, "__builtins__": builtins}, made)  # fmt: skip
    return made["__create_fn__"]()


def test_a_save_drops_what_a_module_imported_here_no_longer_makes(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:  # fmt: skip
    path = _saved_by_a_first_process(tmp_path, monkeypatch)
    # The next version of module a makes `return 1` and `return 4`, no more `return 2`;
    # b is not imported by this process, so its entry is kept for the processes that do.
    second = DataclassCodeCache([path])
    assert _count(second) == 3
    assert _method(second, "a", "return 1")(None) == 1 and second.compiled == 0
    assert _method(second, "a", "return 4")(None) == 4 and second.compiled == 1
    second.save()
    kept = DataclassCodeCache([path])
    assert _count(kept) == 3  # not 4
    assert {module: len(entries) for module, entries in kept.entries().items()} == {"a": 2, "b": 1}
    assert not any("return 2" in source for source in kept.entries()["a"])
    assert _method(kept, "b", "return 3")(None) == 3 and kept.compiled == 0


def _saved_by_a_first_process(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> str:
    """A methods file saved by a process whose module a made `return 1` and `return 2`
    and b `return 3`."""
    monkeypatch.setattr(sys, "dont_write_bytecode", False)
    path = str(tmp_path / "codes")
    first = DataclassCodeCache([path])
    for module, body in (("a", "return 1"), ("a", "return 2"), ("b", "return 3")):
        _method(first, module, body)
    first.save()
    return path


def _count(cache: DataclassCodeCache) -> int:
    return sum(len(entries) for entries in cache.entries().values())


def test_a_modules_entries_are_read_when_its_first_class_is_made(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:  # fmt: skip
    path = _saved_by_a_first_process(tmp_path, monkeypatch)
    # The file holds the classes of every front end run; a process reads those it makes.
    second = DataclassCodeCache([path])
    assert second.codes == {}
    assert _method(second, "a", "return 2")(None) == 2 and second.compiled == 0
    assert sorted(body for source in second.codes for body in ("return 1", "return 2", "return 3")
                  if body in source) == ["return 1", "return 2"]  # fmt: skip
    assert _method(second, "b", "return 3")(None) == 3 and second.compiled == 0
    assert len(second.codes) == 3


def _sample_classes() -> list[type[Any]]:
    import abc
    import typing

    @dataclasses.dataclass(kw_only=True)
    class KeywordOnly:
        a: int
        b: list[int] = dataclasses.field(default_factory=list)

    @dataclasses.dataclass
    class Mixed:
        self: int  # the generated __init__ names its own first argument otherwise
        x: dataclasses.InitVar[int] = 3
        _: dataclasses.KW_ONLY
        y: str = "a -> None"

    class WithNew:
        def __new__(cls, *args: Any, **kwargs: Any) -> Any:
            return super().__new__(cls)

    @dataclasses.dataclass
    class FromNew(WithNew):  # its own __init__ comes first in its MRO: inspect takes it
        a: int = 1

    @dataclasses.dataclass
    class OwnNew(WithNew):  # its own __new__: inspect takes that
        a: int = 1

        def __new__(cls, *args: Any, **kwargs: Any) -> Any:
            return super().__new__(cls)

    @dataclasses.dataclass
    class Abstract(abc.ABC):
        a: int

    made = dataclasses.make_dataclass(
        "Made", [("a", int), ("b", typing.Optional[str], None), ("c", dict[str, int],  # noqa: UP007
                 dataclasses.field(default_factory=dict)), ("d", "Made | None", None)])  # fmt: skip
    return [KeywordOnly, Mixed, FromNew, OwnNew, Abstract, made, *_make_classes()]


def test_a_generated_init_gives_the_text_of_inspect_signature() -> None:
    import inspect

    from aliceserver.startup import import_quietly

    import_quietly("aliceserver.debuggers.ptrace.engine")
    import_quietly("aliceserver.adapters.mi.session")
    ours = [value for name, module in list(sys.modules.items()) if name.startswith("aliceserver")
            for value in list(vars(module).values())
            if isinstance(value, type) and dataclasses.is_dataclass(value)]  # fmt: skip
    assert len(ours) > 300
    read = 0
    for cls in [*_sample_classes(), *ours]:
        text = dataclass_code.generated_init_signature(cls)
        if text is not None:
            assert text == str(inspect.signature(cls)), cls
            read += 1
    assert read > 300
    sample = {cls.__name__: cls for cls in _sample_classes()}
    assert dataclass_code.generated_init_signature(sample["FromNew"]) == "(a: 'int' = 1) -> None"
    assert dataclass_code.generated_init_signature(sample["OwnNew"]) is None  # __new__
    assert dataclass_code.generated_init_signature(sample["Abstract"]) is None  # a metaclass


def test_classes_without_a_docstring_get_dataclasses_own(monkeypatch: pytest.MonkeyPatch) -> None:
    plain = {cls.__name__: cls.__doc__ for cls in _sample_classes()}
    cache = dataclass_code.install()
    assert cache is not None
    assert isinstance(dataclasses.inspect, dataclass_code._DataclassInspect)  # type: ignore[attr-defined]
    assert {cls.__name__: cls.__doc__ for cls in _sample_classes()} == plain
    assert plain["Mixed"] == "Mixed(self: 'int', x: 'dataclasses.InitVar[int]' = 3, *, y: 'str' = 'a')"


def test_is_type_answers_as_dataclasses_own() -> None:
    import importlib.util
    import typing

    spec = importlib.util.spec_from_file_location("pristine_dataclasses", dataclasses.__file__)
    assert spec is not None and spec.loader is not None
    pristine = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(pristine)

    class Here:
        pass

    checks = [(typing, typing.ClassVar, dataclasses._is_classvar),  # type: ignore[attr-defined]
              (dataclasses, dataclasses.InitVar, dataclasses._is_initvar),  # type: ignore[attr-defined]
              (dataclasses, dataclasses.KW_ONLY, dataclasses._is_kw_only)]  # type: ignore[attr-defined]  # fmt: skip
    texts = ["int", "typing.ClassVar[int]", "ClassVar", " typing . ClassVar", "dataclasses.InitVar[int]",
             "dataclasses.KW_ONLY", "KW_ONLY", "Any", "pytest.ClassVar", "[int]", "", "t.ClassVar",
             "int | None", "dataclasses.field"]  # fmt: skip
    answers = [dataclass_code.is_type(text, Here, *check) for text in texts for check in checks]
    assert answers == [pristine._is_type(text, Here, *check) for text in texts for check in checks]
    again = [dataclass_code.is_type(text, Here, *check) for text in texts for check in checks]
    assert again == answers  # the texts matched before
    assert answers.count(True) == 2  # dataclasses.InitVar and .KW_ONLY (typing: not imported here)


def test_a_classs_own_annotations_are_inspects() -> None:
    import inspect

    class Bare:
        pass

    child = type("Child", (_sample_classes()[0],), {})  # no annotations of its own (its base's are not)
    classes = [*_sample_classes(), Bare, child, int]
    answers = [dataclass_code._DataclassInspect.get_annotations(cls) for cls in classes]
    assert answers == [inspect.get_annotations(cls) for cls in classes]
    assert answers[0] == {"a": "int", "b": "list[int]"} and answers[-3:] == [{}, {}, {}]
    first = _sample_classes()[0]
    assert dataclass_code._DataclassInspect.get_annotations(first) is not first.__annotations__  # a copy
    assert dataclass_code._DataclassInspect.get_annotations(first, eval_str=True) == {"a": int, "b": list[int]}
