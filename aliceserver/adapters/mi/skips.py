"""gdb's skip list (skip.c): `skip [FUNCTION]`, `skip function|file [NAME]`, `skip
-fi|-gfi|-fu|-rfu ...`, `skip delete|enable|disable [LIST]` and `info skip [LIST]`. The
list is the session's; the engine asks it (set_step_skips) when a `step` enters a function,
and goes over the function where an enabled entry names it or its file."""

from __future__ import annotations

import fnmatch
import re
from dataclasses import dataclass, field

from aliceserver.adapters.mi.posix_regex import RegexError, extended
from aliceserver.adapters.mi.registry import CliRegistry, Context, MiError, Reply
from aliceserver.debuggers.stepskips import SkipQuery
from aliceserver.errors import AliceError
from aliceserver.regexes import compiled_later

_OPTIONS = {"-fi": "file", "-file": "file", "-gfi": "gfile", "-gfile": "gfile",
            "-fu": "function", "-function": "function", "-rfu": "rfunction", "-rfunction": "rfunction"}
_RANGE = compiled_later(r"(\d+|\$\w*)(?:-(\d*|\$\w*))?")


@dataclass
class SkipEntry:
    number: int
    file: str = ""
    file_is_glob: bool = False
    function: str = ""
    function_regex: re.Pattern[str] | None = None  # a -rfunction's, compiled
    enabled: bool = True

    def skips(self, query: SkipQuery) -> bool:
        """gdb's function_name_is_marked_for_skip for this entry: both its file and its
        function when it has both, else the one it has."""
        by_file = bool(self.file) and any(self._file_matches(name) for name in query.files)
        by_function = bool(self.function) and query.function is not None and self._function_matches(query.function)
        if self.file and self.function:
            return by_file and by_function
        return by_file or by_function

    def _file_matches(self, name: str) -> bool:
        if self.file_is_glob:  # gdb_filename_fnmatch without FNM_FILE_NAME: `*` spans `/`
            return fnmatch.fnmatchcase(name, self.file)
        return _same_file(name, self.file)

    def _function_matches(self, name: str) -> bool:
        if self.function_regex is not None:
            return self.function_regex.search(name) is not None
        return _same_function(name, self.function)


@dataclass
class SkipList:
    entries: list[SkipEntry] = field(default_factory=list)
    highest: int = 0

    def add(self, entry: SkipEntry) -> None:
        self.highest += 1
        entry.number = self.highest
        self.entries.append(entry)

    def skips(self, query: SkipQuery) -> bool:
        return any(entry.enabled and entry.skips(query) for entry in self.entries)


def _same_file(name: str, wanted: str) -> bool:
    """gdb's compare_filenames_for_search: `wanted` is the whole name or its tail after a `/`."""
    if not name.endswith(wanted):
        return False
    return len(name) == len(wanted) or (not wanted.startswith("/") and name[-len(wanted) - 1] == "/")


def _same_function(name: str, wanted: str) -> bool:
    """gdb's strcmp_iw: blanks do not count, and a name with parameters matches one without."""
    have, want = "".join(name.split()), "".join(wanted.split())
    return have == want or (have.startswith(want + "(") and "(" not in want)


def _skip_list(ctx: Context) -> SkipList:
    return ctx.session.skips


def _added(ctx: Context, entry: SkipEntry) -> None:
    skips = _skip_list(ctx)
    skips.add(entry)
    ctx.session.debugger.set_step_skips(skips.skips)


def _skip_function(ctx: Context, text: str) -> Reply:
    name = text or _current_function(ctx)
    _added(ctx, SkipEntry(0, function=name))
    ctx.console(f"Function {name} will be skipped when stepping.\n")
    return None


def _current_function(ctx: Context) -> str:
    session = ctx.session
    if session.inferior.process is None or session.inferior.running:
        raise MiError("No default function now.")
    tid, level = session.selected_frame()
    frame = session.frames.frame(tid, level)
    if frame.function is None or frame.source is None:
        raise MiError(f"No function found containing current program point {frame.pc:#x}.")
    return frame.function


def _skip_file(ctx: Context, text: str) -> Reply:
    name = text or _current_file(ctx)
    _added(ctx, SkipEntry(0, file=name))
    ctx.console(f"File {name} will be skipped when stepping.\n")
    return None


def _current_file(ctx: Context) -> str:
    """The file of the last frame shown (gdb's last displayed symtab), by its full name."""
    session = ctx.session
    frame = None
    if session.inferior.process is not None and not session.inferior.running:
        try:
            frame = session.frames.frame(*session.selected_frame())
        except AliceError:
            frame = None
    if frame is None or frame.source is None:
        raise MiError("No default file now.")
    return session.frames.fullname(frame.source.path, frame.source.symtab_fullname)


def _skip(ctx: Context, text: str) -> Reply:
    """`skip` alone or `skip FUNCTION` (skip_function_command), else the options."""
    words = text.split()
    if not words:
        return _skip_function(ctx, "")
    given: dict[str, str] = {}
    i = 0
    while i < len(words):
        word = words[i]
        if word in _OPTIONS:
            if i + 1 >= len(words):
                raise MiError(f"Missing value for {word} option.")
            given[_OPTIONS[word]] = words[i + 1]
            i += 2
        elif word.startswith("-"):
            raise MiError(f"Invalid skip option: {word}")
        elif i == 0:  # `skip foo (int)`: the whole text is the function, as gdb
            return _skip_function(ctx, text)
        else:
            raise MiError(f"Invalid argument: {word}")
    _skip_with_options(ctx, given)
    return None


def _skip_with_options(ctx: Context, given: dict[str, str]) -> None:
    if "file" in given and "gfile" in given:
        raise MiError("Cannot specify both -file and -gfile.")
    if "function" in given and "rfunction" in given:
        raise MiError("Cannot specify both -function and -rfunction.")
    file = given.get("file", given.get("gfile", ""))
    function = given.get("function", given.get("rfunction", ""))
    regex = None
    if "rfunction" in given:
        try:
            regex = extended(function)
        except RegexError as error:
            raise MiError(f"regexp: {error}") from None
    _added(ctx, SkipEntry(0, file, "gfile" in given, function, regex))
    file_word = "File(s)" if "gfile" in given else "File"
    function_word = "Function(s)" if regex is not None else "Function"
    if not function:
        ctx.console(f"{file_word} {file} will be skipped when stepping.\n")
    elif not file:
        ctx.console(f"{function_word} {function} will be skipped when stepping.\n")
    else:
        ctx.console(f"{function_word} {function} in {file_word.lower()} {file} will be skipped when stepping.\n")


def _in_list(ctx: Context, text: str, number: int) -> bool:
    """gdb's number_is_in_list: the numbers and ranges of `text` read until `number` is
    found; a word that is no number ends the list (an error only at its start)."""
    if not text:
        return True
    words = text.split()
    for i, word in enumerate(words):
        if not (word[0].isdigit() or word[0] in "$-"):
            if i == 0:
                raise MiError("Arguments must be numbers or '$' variables.")
            return False
        if word.startswith("-"):
            raise MiError("negative value")
        match = _RANGE().fullmatch(word)
        first = _value(ctx, match.group(1)) if match is not None else 0
        if first == 0:
            raise MiError("Arguments must be numbers or '$' variables.")
        last = first
        if match is not None and match.group(2) is not None:
            last = _value(ctx, match.group(2)) if match.group(2) else 0
            if last < first:
                raise MiError("inverted range")
        if first <= number <= last:
            return True
    return False


def _value(ctx: Context, word: str) -> int:
    """A number, or the integer a `$` variable holds (0 and gdb's complaint if none)."""
    if word.isdigit():
        return int(word)
    try:
        shown = ctx.session.evaluate(word).value
        return int(shown.split()[0], 0)
    except (AliceError, ValueError, IndexError):
        ctx.console("Convenience variable must have integer value.\n")
        return 0


def info_skip(ctx: Context, text: str) -> None:
    skips = _skip_list(ctx)
    shown = [entry for entry in skips.entries if _in_list(ctx, text, entry.number)]
    if not shown:
        ctx.console(f"No skiplist entries found with number {text}.\n" if text
                    else "Not skipping any files or functions.\n")  # fmt: skip
        return
    ctx.console(f"{'Num':<5} {'Enb':<3} {'Glob':>4} {'File':<20} {'RE':>2} Function\n")
    for entry in shown:
        glob, regex = "y" if entry.file_is_glob else "n", "y" if entry.function_regex else "n"
        ctx.console(f"{entry.number:<5} {'y' if entry.enabled else 'n':<3} {glob:>4} "
                    f"{entry.file or '<none>':<20} {regex:>2} {entry.function or '<none>'}\n")  # fmt: skip


def _change(ctx: Context, text: str, how: str) -> Reply:
    """skip delete|enable|disable [LIST]: gdb's error when the list names none."""
    skips = _skip_list(ctx)
    found = False
    for entry in list(skips.entries):
        if _in_list(ctx, text, entry.number):
            found = True
            if how == "delete":
                skips.entries.remove(entry)
            else:
                entry.enabled = how == "enable"
    if not found:
        raise MiError(f"No skiplist entries found with number {text or '(null)'}.")
    ctx.session.debugger.set_step_skips(skips.skips if skips.entries else None)
    return None


_SUBCOMMANDS = ("file", "function", "delete", "enable", "disable")


def skip_command(ctx: Context, text: str) -> Reply:
    """`skip`'s subcommands by gdb's unique prefixes, else `skip [OPTIONS|FUNCTION]`."""
    found = re.match(r"[A-Za-z][\w-]*", text)
    word = found.group(0) if found is not None else ""
    matches = [name for name in _SUBCOMMANDS if word and name.startswith(word)]
    if len(matches) > 1 and word not in matches:
        raise MiError(f'Ambiguous skip command "{word}": {", ".join(matches)}.')
    if len(matches) == 1 or word in matches:
        name, rest = (word if word in matches else matches[0]), text[len(word) :].strip()
        if name == "file":
            return _skip_file(ctx, rest)
        if name == "function":
            return _skip_function(ctx, rest)
        return _change(ctx, rest, name)
    return _skip(ctx, text)


def register(registry: CliRegistry) -> None:
    registry.add("skip", skip_command)
