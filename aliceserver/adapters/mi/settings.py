"""gdb settings a client sets and shows (`-gdb-set`, `set`, `show`), with gdb's texts.
How each is honoured, and which gdb settings are refused: settings_policy.py."""

from __future__ import annotations

import functools
import os
from dataclasses import dataclass

from aliceserver.adapters.mi.intsettings import Evaluator, parse_setting
from aliceserver.adapters.mi.registry import MiError
from aliceserver.debuggers.printers.autoload import DEFAULT_PATH as AUTO_LOAD_DEFAULT

_BOOL = {"on": "on", "1": "on", "yes": "on", "enable": "on", "off": "off", "0": "off", "no": "off",
         "disable": "off"}  # fmt: skip


@dataclass
class _Setting:
    value: str
    kind: str  # bool, int, text, enum, file
    doc: str  # the text `show` prints, with {} for the value
    choices: tuple[str, ...] = ()
    value_docs: tuple[tuple[str, str], ...] = ()  # a text of its own for each value


# gdb's `print frame-info` values: auto lets each command choose what it shows of a frame.
FRAME_INFO = ("auto", "source-line", "location", "source-and-location", "location-and-address",
              "short-location")


# gdb 13's languages, in its order (`set language` lists them so when one is missing).
LANGUAGES = ("auto", "local", "unknown", "ada", "asm", "c", "c++", "d", "fortran", "go", "minimal", "modula-2",
             "objective-c", "opencl", "pascal", "rust")


def _history_file() -> str:
    """gdb's default history file: $GDBHISTFILE, else .gdb_history where it started."""
    return _absolute(os.environ.get("GDBHISTFILE") or ".gdb_history")


# gdb's var_string settings among ours: `show` writes them through its printchar, where
# `print sevenbit-strings on` turns each byte past 127 into octal.
_STRINGS = frozenset(("prompt", "trace-notes", "trace-user", "trace-stop-notes"))


def _sevenbit(text: str) -> str:
    """`text` with the bytes of its characters past ASCII as `\\nnn`."""
    return "".join(ch if ord(ch) < 0x80 else "".join(f"\\{b:03o}" for b in ch.encode("utf-8", "surrogateescape"))
                   for ch in text)


@functools.cache
def host_charset() -> str:
    """gdb's auto host charset: the locale's character set as the C library gives it to
    gdb (setlocale(LC_CTYPE, "") from the environment, "C" where that locale is not
    installed). Python's own locale may be coerced to UTF-8 (PEP 538: it sets
    LC_CTYPE=C.UTF-8 over a C locale; PEP 540's UTF-8 mode), so the environment is read
    as the C library read it before that."""
    import locale

    value = next((v for v in map(os.environ.get, ("LC_ALL", "LC_CTYPE", "LANG")) if v), "C")
    coerced = value == "C.UTF-8" and not os.environ.get("LC_ALL") and "LC_CTYPE" in os.environ \
        and os.environ.get("LANG", "C") in ("C", "POSIX", "")
    if coerced or value in ("C", "POSIX"):
        return "ANSI_X3.4-1968"
    previous = locale.setlocale(locale.LC_CTYPE)
    try:
        locale.setlocale(locale.LC_CTYPE, value)
        return locale.nl_langinfo(locale.CODESET)
    except locale.Error:  # not installed: the C library stays in "C"
        return "ANSI_X3.4-1968"
    finally:
        locale.setlocale(locale.LC_CTYPE, previous)


def _absolute(path: str) -> str:
    """gdb's tilde_expand and gdb_abspath: a relative name joins the working directory as is."""
    path = os.path.expanduser(path)
    return path if os.path.isabs(path) else os.path.join(os.getcwd(), path)


def _defaults() -> dict[str, _Setting]:
    s = _Setting
    return {
        "confirm": s("on", "bool", "Whether to confirm potentially dangerous operations is {}."),
        "pagination": s("on", "bool", "State of pagination is {}."),
        "height": s("unlimited", "int", "Number of lines gdb thinks are in a page is {}."),
        "width": s("80", "int", "Number of characters gdb thinks are in a line is {}."),
        "mi-async": s("off", "bool", "Whether MI is in asynchronous mode is {}."),
        "non-stop": s("off", "bool", "Controlling the inferior in non-stop mode is {}."),
        "print pretty": s("off", "bool", "Pretty formatting of structures is {}."),
        "print elements": s("200", "int", "Limit on string chars or array elements to print is {}."),
        "print frame-arguments": s("scalars", "enum", "Printing of non-scalar frame arguments is \"{}\".",
                                   ("all", "scalars", "none", "presence")),
        "print frame-info": s("auto", "enum", 'Printing of frame information is "{}".', FRAME_INFO),
        "print entry-values": s("default", "enum",
                                'Printing of function arguments at function entry is "{}".',
                                ("no", "only", "preferred", "if-needed", "both", "compact", "default")),
        "print address": s("on", "bool", "Printing of addresses is {}."),
        "input-radix": s("10", "int", "Default input radix for entering numbers is {}."),  # set: radix.py
        "output-radix": s("10", "int", "Default output radix for printing of values is {}."),
        "print array-indexes": s("off", "bool", "Printing of array indexes is {}."),
        "print object": s("off", "bool", "Printing of object's derived type based on vtable info is {}."),
        "print static-members": s("on", "bool", "Printing of C++ static members is {}."),
        "print symbol": s("on", "bool", "Printing of symbols when printing pointers is {}."),
        "print repeats": s("10", "int", "Threshold for repeated print elements is {}."),
        "print max-depth": s("20", "int", "Maximum print depth is {}."),
        "print null-stop": s("off", "bool", "Printing of char arrays to stop at first null char is {}."),
        "print nibbles": s("off", "bool", "Printing binary values in groups is {}."),
        "print sevenbit-strings": s("off", "bool", "Printing of 8-bit characters in strings as \\nnn is {}."),
        "print thread-events": s("on", "bool", "Printing of thread events is {}."),
        "print finish": s("on", "bool", "Printing of return value after `finish' is {}."),
        "print inferior-events": s("on", "bool", "Printing of inferior events is {}."),
        "breakpoint pending": s("auto", "enum", "Debugger's behavior regarding pending breakpoints is {}.",
                                ("on", "off", "auto")),
        # auto is host: no target here evaluates conditions (settings_policy.py)
        "breakpoint condition-evaluation": s("auto", "enum", "Breakpoint condition evaluation mode is {}.",
                                             ("auto", "host", "target"), value_docs=(
            ("auto", "Breakpoint condition evaluation mode is auto (currently host)."),)),
        # aliceserver's own: conditions judged in the program (debuggers/ptrace/patched_breakpoints.py)
        "breakpoint jump-patches": s("on", "bool", "Jump patches for conditional breakpoints are {}."),
        "prompt": s("(gdb) ", "text", 'Gdb\'s prompt is "{}".'),
        "listsize": s("10", "int", "Number of source lines gdb will list by default is {}."),
        "disassembly-flavor": s("att", "enum", 'The disassembly flavor is "{}".', ("att", "intel")),
        "endian": s("auto", "enum", "The target is set to {} endian.", ("big", "little", "auto")),
        "architecture": s("auto", "enum", 'The target architecture is set to "{}".',
                          ("i386", "i386:x86-64", "i386:x64-32", "i8086", "i386:intel", "i386:x86-64:intel",
                           "i386:x64-32:intel", "auto")),
        "disable-randomization": s("on", "bool",
                                   "Disabling randomization of debuggee's virtual address space is {}."),
        "startup-with-shell": s("on", "bool", "Use of shell to start subprocesses is {}."),
        "follow-fork-mode": s("parent", "enum", 'Debugger response to a program call of fork or vfork is "{}".',
                              ("parent", "child")),
        "detach-on-fork": s("on", "bool", "Whether gdb will detach the child of a fork is {}."),
        "scheduler-locking": s("replay", "enum", 'Mode for locking scheduler during execution is "{}".',
                               ("off", "on", "step", "replay")),
        "step-mode": s("off", "bool", "Mode of the step operation is {}."),
        "displaced-stepping": s("auto", "autobool",
                                "Debugger's willingness to use displaced stepping to step over breakpoints is {}.",
                                value_docs=(("auto", "Debugger's willingness to use displaced stepping to step "
                                                     "over breakpoints is auto (currently off)."),)),
        "can-use-hw-watchpoints": s("1", "int", "Debugger's willingness to use watchpoint hardware is {}."),
        "auto-solib-add": s("on", "bool", "Autoloading of shared library symbols is {}."),
        "stop-on-solib-events": s("0", "int", "Stopping for shared library events is {}."),
        "language": s("auto", "enum", 'The current source language is "{}".', LANGUAGES),
        "charset": s("auto", "text", 'The host character set is "{}".'),
        "host-charset": s("auto", "text", 'The host character set is "{}".'),
        "target-charset": s("auto", "text", 'The target character set is "{}".'),
        "target-wide-charset": s("auto", "text", 'The target wide character set is "{}".'),
        "osabi": s("auto", "text", 'The current OS ABI is "{}".', value_docs=(
            ("auto", 'The current OS ABI is "auto" (currently "GNU/Linux").\nThe default OS ABI is "GNU/Linux".'),)),
        "sysroot": s("target:", "text", 'The current system root is "{}".'),
        "solib-search-path": s("", "text", 'The search path for loading non-absolute shared library symbol files is {}.'),
        "debuginfod enabled": s("off", "text", 'Debuginfod functionality is currently set to "{}".'),
        "python print-stack": s("message", "text", 'The mode of Python stack printing on error is "{}".'),
        "verbose": s("off", "bool", "Verbosity is {}."),
        "print demangle": s("on", "bool", "Demangling of encoded C++/ObjC names when displaying symbols is {}."),
        "print asm-demangle": s("off", "bool", "Demangling of C++/ObjC names in disassembly listings is {}."),
        "print union": s("on", "bool", "Printing of unions interior to structures is {}."),
        "print array": s("off", "bool", "Pretty formatting of arrays is {}."),
        "print vtbl": s("off", "bool", "Printing of C++ virtual function tables is {}."),
        "write": s("off", "bool", "Writing into executable and core files is {}."),
        "check range": s("auto", "enum", 'Range checking is "{}".', ("on", "warn", "off", "auto"),
                         value_docs=(("auto", 'Range checking is "auto; currently off".'),)),
        "check type": s("on", "bool", "Strict type checking is {}."),
        "complaints": s("0", "int", "Max number of complaints about incorrect symbols is {}."),
        "annotate": s("0", "int", "Annotation_level is {}."),
        "history save": s("off", "bool", "Saving of the history record on exit is {}."),
        "history expansion": s("off", "bool", "History expansion on command input is {}."),
        "history size": s("256", "int", "The size of the command history is {}."),
        "history remove-duplicates": s("0", "int", "The number of history entries to look back at for duplicates is {}."),
        "history filename": s(_history_file(), "file", 'The filename in which to record the command history is "{}".',
                              value_docs=(("", "There is no filename currently set for recording the command "
                                                "history in."),)),
        "logging enabled": s("off", "bool", "", value_docs=(("on", "on: Logging is enabled."),
                                                           ("off", "off: Logging is disabled."))),
        "logging file": s("gdb.txt", "text", 'The current logfile is "{}".'),
        "logging overwrite": s("off", "bool", "", value_docs=(
            ("on", "on: Logging overwrites the log file."), ("off", "off: Logging appends to the log file."))),
        "logging redirect": s("off", "bool", "", value_docs=(
            ("on", "on: Output will go only to the log file."),
            ("off", "off: Output will go to both the screen and the log file."))),
        "logging debugredirect": s("off", "bool", "", value_docs=(
            ("on", "on: Debug output will go only to the log file."),
            ("off", "off: Debug output will go to both the screen and the log file."))),
        "unwindonsignal": s("off", "bool", "Unwinding of stack if a signal is received while in a call dummy is {}."),
        "may-call-functions": s("on", "bool", "Permission to call functions in the program is {}."),
        "backtrace limit": s("unlimited", "int", "An upper bound on the number of backtrace levels is {}."),
        "backtrace past-main": s("off", "bool", "Whether backtraces should continue past \"main\" is {}."),
        "editing": s("off", "bool", "Editing of command lines as they are typed is {}."),
        "style enabled": s("off", "bool", "", value_docs=(("on", "CLI output styling is enabled."),
                                                          ("off", "CLI output styling is disabled."))),
        "max-value-size": s("65536", "int", "Maximum value size is {} bytes."),
        "filename-display": s("relative", "enum", 'Filenames are displayed as "{}".',
                              ("basename", "relative", "absolute")),
        "exec-done-display": s("off", "bool", "Notification of completion for asynchronous execution commands is {}."),
        "trace-commands": s("off", "bool", "State of GDB CLI command tracing is {}."),
        "dprintf-style": s("gdb", "enum", 'The style of usage for dynamic printf is "{}".', ("gdb", "call", "agent")),
        "dprintf-function": s("printf", "text", 'The function to use for dynamic printf is "{}".'),
        "dprintf-channel": s("", "text", 'The channel to use for dynamic printf is "{}".'),
        "max-completions": s("200", "int", "Maximum number of completion candidates is {}."),
        "remotecache": s("off", "bool", "Deprecated remotecache flag is {}."),
        "trace-notes": s("", "text", 'The notes string to use for current and future trace runs is "{}".'),
        "trace-user": s("", "text", 'The user name to use for current and future trace runs is "{}".'),
        "trace-stop-notes": s("", "text", 'The notes string to use for future tstop commands is "{}".'),
        "remote exec-file": s("", "text", "{}"),  # extended-remote's run: empty, the stub's default
        "remotetimeout": s("2", "int", "Timeout limit to wait for target to respond is {}."),
        "tcp connect-timeout": s("15", "int", "Timeout limit in seconds for socket connection is {}."),
        "tcp auto-retry": s("on", "bool", "Auto-retry on socket connect is {}."),
        "exec-file-mismatch": s("ask", "enum", 'exec-file-mismatch handling is currently "{}".', ("ask", "warn", "off")),
        # off where gdb's default is on: aliceserver loads none of these (auto_load.py)
        "auto-load gdb-scripts": s("off", "bool", "Auto-loading of canned sequences of commands scripts is {}."),
        "auto-load libthread-db": s("off", "bool", "Auto-loading of inferior specific libthread_db is {}."),
        "auto-load local-gdbinit": s("off", "bool", "Auto-loading of .gdbinit script from current directory is {}."),
        "auto-load python-scripts": s("on", "bool", "Auto-loading of Python scripts is {}."),
        "auto-load safe-path": s(AUTO_LOAD_DEFAULT, "text",
                                 "List of directories from which it is safe to auto-load files is {}."),
        "auto-load scripts-directory": s(AUTO_LOAD_DEFAULT, "text",
                                         "List of directories from which to load auto-loaded scripts is {}."),
    }


_ALIASES = {"target-async": "mi-async", "print": "print", "p pretty": "print pretty", "lang": "language",
            "arch": "architecture"}
# gdb's kind of each number setting, which tells how =cmd-param-changed writes
# `unlimited`: a uinteger's UINT_MAX, an integer's INT_MAX, a zuinteger_unlimited's -1 (0
# being a number of its own there).
_UINTEGER = frozenset(("height", "width", "print elements", "print repeats", "backtrace limit",
                       "tcp connect-timeout"))
_INTEGER = frozenset(("listsize",))
_ZUINTEGER = frozenset(("history size", "history remove-duplicates", "max-value-size", "max-completions",
                        "print max-depth",
                        "remotetimeout"))
# gdb's zinteger settings: any int, none of them unlimited
_ZINTEGER = frozenset(("complaints", "can-use-hw-watchpoints", "stop-on-solib-events", "annotate"))
_SQRT_INT_MAX = 32767  # gdb's sqrt_int_max, a page's largest height or width


def _number_kind(name: str) -> str:
    """gdb's var_types of a number setting (the radices are radix.py's)."""
    if name in _UINTEGER:
        return "uinteger"
    if name in _INTEGER:
        return "integer"
    return "zuinteger_unlimited" if name in _ZUINTEGER else "zinteger"


# gdb's warning when `check range` is on (or warn) for a language that checks no ranges:
# C, C++ and Rust (gdb checks ranges in none of them: the setting only shows).
RANGE_WARNING = "warning: the current range check setting does not match the language.\n\n"


def range_mismatch(settings: Settings) -> bool:
    return settings.get("check range") in ("on", "warn")


class Settings:
    def __init__(self, mi_async: bool = False, batch: bool = False) -> None:
        self._values = _defaults()
        if batch:  # gdb's batch_flag: no terminal, lines as long as they come
            self._values["width"].value = "unlimited"
        if mi_async:
            self._values["mi-async"].value = "on"

    @property
    def mi_async(self) -> bool:
        return self._values["mi-async"].value == "on"

    def get(self, name: str) -> str:
        return self._values[name].value

    def kind(self, name: str) -> str:
        """bool, int, text, enum or file."""
        return self._values[name].kind

    def find(self, words: list[str]) -> tuple[str, list[str]] | None:
        """The longest known setting the words start with: (name, the value words)."""
        for size in (3, 2, 1):
            name = " ".join(words[:size])
            name = _ALIASES.get(name, name)
            if name in self._values and len(words) >= size:
                return name, words[size:]
        return None

    def set(self, name: str, text: str, evaluate: Evaluator | None = None) -> str:
        """Set `name` from `text`; returns the value as gdb shows it. `evaluate`: a number
        setting's expression's value (without it, literal numbers only)."""
        setting = self._values[name]
        text = text.lstrip() if name == "prompt" else text.strip()
        if setting.kind == "bool":
            if text == "":
                text = "on"
            if text.lower() not in _BOOL:
                raise MiError('"on" or "off" expected.')
            value = _BOOL[text.lower()]
        elif setting.kind == "int":
            value = parse_setting(_number_kind(name), text, evaluate)
            if name in ("height", "width") and value != "unlimited" and int(value) > _SQRT_INT_MAX:
                value = "unlimited"  # gdb's set_screen_size: past sqrt(INT_MAX) is unlimited
        elif setting.kind == "enum":
            matches = [c for c in setting.choices if c.startswith(text)] if text else []
            if text in setting.choices:
                matches = [text]
            if len(matches) != 1:
                allowed = ", ".join(setting.choices)
                raise MiError(f'Requires an argument. Valid arguments are {allowed}.' if not text
                              else f'Ambiguous item "{text}".' if matches else f'Undefined item: "{text}".')
            value = matches[0]
        elif setting.kind == "autobool":  # gdb's parse_auto_binary_operation
            value = _auto_bool(text)
        elif setting.kind == "file":  # empty: none
            value = _absolute(text) if text else ""
        elif name in ("auto-load safe-path", "auto-load scripts-directory"):  # gdb's optional file names
            value = os.path.expanduser(text) if text else AUTO_LOAD_DEFAULT  # empty: the default again
        else:
            value = text
        setting.value = value
        return value

    def notified(self, name: str) -> str:
        """The value as gdb's =cmd-param-changed gives it: its number for `unlimited`."""
        value = self._values[name].value
        if value != "unlimited":
            return value
        return "4294967295" if name in _UINTEGER else "2147483647" if name in _INTEGER else "-1"

    def value_choices(self, name: str) -> tuple[str, ...]:
        """What gdb's completer offers for `set NAME VALUE`: a bool's off and on, an enum's
        values, NUMBER and unlimited for a number that may be unlimited; nothing for the others."""
        setting = self._values[name]
        if setting.kind == "bool":
            return ("off", "on")
        if setting.kind == "enum":
            return setting.choices
        if setting.kind == "autobool":
            return ("auto", "off", "on")
        if setting.kind == "int" and name not in _ZINTEGER and name not in ("input-radix", "output-radix"):
            return ("NUMBER", "unlimited")
        return ()

    def show_text(self, name: str) -> str:
        if name == "charset":  # gdb's show charset: the three of them
            return "\n".join(self.show_text(each) for each in ("host-charset", "target-charset", "target-wide-charset"))
        setting = self._values[name]
        value = setting.value
        if value == "auto" and name in ("host-charset", "target-charset", "target-wide-charset"):
            host = self._values["host-charset"].value
            current = ("UTF-32" if name == "target-wide-charset"
                       else host if name == "target-charset" and host != "auto" else host_charset())  # fmt: skip
            return setting.doc.format(f"auto; currently {current}")
        if name == "auto-load safe-path" and not value.strip(":/"):  # `/` (or `::`): no protection
            return "Auto-load files are safe to load from any directory."
        if name in _STRINGS and self._values["print sevenbit-strings"].value == "on":
            value = _sevenbit(value)
        return dict(setting.value_docs).get(setting.value) or setting.doc.format(value)

    def names(self) -> list[str]:
        return list(self._values)


def _auto_bool(text: str) -> str:
    """on, off or auto from gdb's words for them (a prefix of one of the three)."""
    word = text.lower()
    named = {"1": "on", "yes": "on", "enable": "on", "0": "off", "no": "off", "disable": "off", "-1": "auto"}
    if word in named:
        return named[word]
    matches = [choice for choice in ("on", "off", "auto") if word and choice.startswith(word)]
    if len(matches) != 1:
        raise MiError('"on", "off" or "auto" expected.')
    return matches[0]
