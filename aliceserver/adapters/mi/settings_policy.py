"""Which gdb settings aliceserver honours, which it refuses, and how it refuses them.

gdb parses `set NAME ...` with a NAME it has no setting of as an expression (`set var`),
so `set remotecache on` must not fall there: a gdb setting we do not implement is refused
by name, and only a name gdb has no setting of goes on to `set var` (gdb's own
`No symbol "foo" in current context.`). `show` of a refused setting refuses the same way.

Every setting settings.py accepts, and what honours it (a setting honoured in part accepts
only the values we do, and refuses the others by name):

| setting | honoured by |
|---|---|
| confirm | queries.py: off asks nothing and prints no `(y or n)` line |
| pagination, height, width | nothing pages: MI and -batch never page in gdb either |
| mi-async, non-stop | session (non-stop on: gdb's "No symbol" answer, for Emacs) |
| print pretty, print object, print entry-values | the MI session's values, frames.py |
| print elements, print repeats, print address, print array-indexes | the engine's formatter (`apply_print_limits`); address also frames.py |
| print nibbles, print symbol, print null-stop | the engine's formatter (`apply_print_limits`); nibbles also x (examine.py), its separator the current language's |
| print static-members, print max-depth, print union | the engine's formatter (`apply_print_limits`) |
| print frame-arguments, print frame-info | frames.py, console_frames.py (frame, bt and its -frame-info/-frame-arguments), notify.py (stops) |
| output-radix, input-radix, radix | radix.py: the engine's formatter and expression reader (`apply_print_limits`) |
| print thread-events | notify.py: off drops the [New Thread ...] and [Thread ... exited] lines |
| print finish | notify.py: off shows finish's value as `<not displayed>` (still recorded as $N) |
| print sevenbit-strings | settings.py: `show` of gdb's string settings (prompt, trace-notes...) writes bytes past 127 in octal; MI strings always do |
| print inferior-events | only gdb's default |
| check range | kept and shown, as gdb (which checks no ranges in C, C++ or Rust): with its warning when on |
| check type | the engine's C++ overload resolution (`set_call_options`): off takes a nonzero int for a pointer |
| breakpoint pending, listsize, filename-display, backtrace past-main | console, locations, frames; past-main also the engine's entry values (`set_backtrace_past_main`) |
| breakpoint condition-evaluation | host (auto is host): aliceserver evaluates every condition, sending a stub no agent expressions; target gets gdb's warning for a target that evaluates none, and the mode stays |
| breakpoint jump-patches | aliceserver's own (on by default): the live engine judges a breakpoint's compiled condition in the program by a jump patch (debuggers/ptrace/patched_breakpoints.py); off: traps only |
| prompt | `-gdb-show prompt`; MI's own prompt stays `(gdb) ` as in gdb |
| disable-randomization, follow-fork-mode | the launch (follow-fork-mode: for the next run) |
| detach-on-fork | only on: the engine detaches a child it does not follow |
| scheduler-locking | on: continue and steps resume the selected thread alone (resume(thread)); step: steps only (set_scheduler_locking); replay: off, as gdb when not replaying |
| unwindonsignal, may-call-functions | the engine's calls |
| disassembly-flavor | only att |
| architecture | only auto (the program's own by its ELF header, aarch64 too: `show` says which) and i386:x86-64 for an x86-64 program (gdb's x86-64 build knows no other names) |
| startup-with-shell | launch_config: no shell is ever started; on splits `run`'s arguments as sh does (run_redirects.py), off at blanks as gdb's breakup_args |
| stop-on-solib-events | catch_stops.py: nonzero stops at every event of the loader (the engine's library catch), told as gdb's print_solib_event |
| step-mode, auto-solib-add | only gdb's defaults |
| displaced-stepping | auto and off: the engine steps over a breakpoint in place with the other threads stopped (gdb's off; auto is off in all-stop) |
| language, charset, host-/target-wide-charset, osabi | only gdb's defaults (auto) |
| target-charset | auto and UTF-8 (strings' valid UTF-8 shown as text, as gdb on a UTF-8 host); ASCII (or ANSI_X3.4-1968): the engine's formatter and x/s show bytes past 127 in octal |
| sysroot, solib-search-path | the engine's LibraryPaths (debuggers/librarypaths.py): where every library file is read |
| history size, history filename, history save, history expansion, history remove-duplicates | command_history.py: the lines typed at a terminal, read from the file at the start, written back at the end with save on, expanded (history_expand.py) with expansion on |
| complaints | any: aliceserver makes no complaints about symbols, so none is over the limit |
| debuginfod enabled, python print-stack, verbose, editing, style enabled, exec-done-display, trace-commands | only gdb's defaults: they change nothing aliceserver does |
| backtrace limit, max-value-size | only gdb's defaults |
| print demangle, print asm-demangle, print array, print vtbl, write | only gdb's defaults: the engine's formatter and disassembler write names and values as gdb does by default; no file is opened for writing |
| annotate | 0 and 1 (annotations.py: the source lines of frames, and info line's); 2's annotations of prompts, frames and values are not written |
| dprintf-style, dprintf-function, dprintf-channel | dprintf.py: gdb's printf line, or call's `call (void) FUNCTION ([CHANNEL,]ARGS)` run in the program; agent falls back to gdb's printf with gdb's warning (no target here runs breakpoint commands) |
| max-completions | completion.py (`-complete`) |
| remotecache | nothing, as in gdb: '"remotecache" now does nothing and exists only for compatibility reasons' |
| remote exec-file | extended-remote's `run` (launch_config's remote_program): the file the stub starts, empty its default program (gdb's empty vRun); the other `remote` settings are refused |
| remotetimeout | the remote connection's wait for a reply: gdb's three tries of it, then the link is given up (a late reply would be taken for the next request's); unlimited waits for ever; applies at once, connected or not |
| tcp connect-timeout, tcp auto-retry | `target remote HOST:PORT`: a refused connection tried again (auto-retry on) until the timeout, as gdb |
| exec-file-mismatch | `target remote`: the program's build id compared with the stub's file's, gdb's warning on a mismatch; ask (answered yes: no terminal here) loads the stub's file's symbols instead |
| trace-notes, trace-user, trace-stop-notes | kept and shown; gdb's own warning that the target does not support trace notes (no target here has tracepoints) |
| logging enabled, file, overwrite, redirect, debugredirect | log_file.py: a copy of the UI's output (debug output: aliceserver writes none) |
| auto-load python-scripts, auto-load safe-path, auto-load scripts-directory | the engine's AutoLoad (debuggers/printers/autoload.py, given by auto_load.sync): which printer scripts of the images run; a script outside the safe path is declined with gdb's warning |
| auto-load gdb-scripts, auto-load local-gdbinit, auto-load libthread-db | only off (their default here; gdb's is on): aliceserver loads no `-gdb.gdb` scripts, no `./.gdbinit`, no libthread_db |
| args, environment, cwd, inferior-tty, var | commands_misc.do_set |
"""

from __future__ import annotations

from typing import TYPE_CHECKING
from weakref import WeakKeyDictionary

from aliceserver.adapters.mi.queries import query as query  # re-exported for its callers
from aliceserver.adapters.mi.registry import MiError
from aliceserver.errors import AliceError
from aliceserver.regexes import compiled_later

if TYPE_CHECKING:
    from aliceserver.adapters.mi.intsettings import Evaluator
    from aliceserver.adapters.mi.session import MiSession
    from aliceserver.adapters.mi.settings import Settings

# gdb 13 settings aliceserver does not implement, by group (written by hand: a user's
# machine may have no gdb to ask). A name ending in a prefix (`debug`) covers every
# setting under it.
_REFUSED_GROUPS: dict[str, tuple[str, ...]] = {
    "remote targets": (
        "remote", "remoteaddresssize", "remotebreak", "remoteflow", "remotelogbase",
        "remotelogfile", "remotewritesize", "serial", "tdesc",
        "target-file-system-kind", "trust-readonly-sections", "auto-connect-native-target", "watchdog",
        "agent", "range-stepping", "dcache", "code-cache", "stack-cache", "mem",
    ),
    "command line and interface": (
        "tui", "suppress-cli-notifications", "max-user-call-depth", "interactive-mode",
        "extended-prompt", "script-extension", "source", "startup-quietly", "style",
        "debug", "observer",
    ),
    "architecture and ABI": (
        "cp-abi", "struct-convention", "coerce-float-to-double",
        "mpx", "disassembler-options", "disassemble-next-line",
    ),
    "symbols and languages": (
        "debug-file-directory", "data-directory", "index-cache", "case-sensitive", "demangle-style",
        "multiple-symbols", "basenames-may-differ", "opaque-type-resolution", "overload-resolution",
        "ada", "fortran", "extension-language", "frame-filter", "guile",
        "libthread-db-search-path", "compile-args", "compile-gcc", "debuginfod urls",
        "debuginfod verbose", "python ignore-environment", "python dont-write-bytecode",
    ),
    "printing": (
        "print max-symbolic-offset",
        "print pascal_static-members", "print raw-frame-arguments", "print raw-values",
        "print symbol-filename", "print symbol-loading", "print type",
        "print memory-tag-violations",
    ),
    "execution": (
        "schedule-multiple", "follow-exec-mode", "exec-wrapper",
        "exec-direction", "record", "may-write-registers", "may-write-memory",
        "may-insert-breakpoints", "may-insert-tracepoints", "may-insert-fast-tracepoints",
        "may-interrupt", "unwind-on-terminating-exception", "breakpoint always-inserted",
        "breakpoint auto-hw", "backtrace past-entry",
        "use-coredump-filter", "dump-excluded-mappings",
        "disconnected-dprintf",
    ),
    "tracepoints": (
        "circular-trace-buffer", "trace-buffer-size", "default-collect",
    ),
}
REFUSED: frozenset[str] = frozenset(name for names in _REFUSED_GROUPS.values() for name in names)

# Settings honoured for some values only: the values aliceserver behaves as.
_ONLY: dict[str, tuple[str, ...]] = {
    "print inferior-events": ("on",),
    "detach-on-fork": ("on",),
    "disassembly-flavor": ("att",), "architecture": ("auto", "i386:x86-64"), "endian": ("auto", "little"),
    "step-mode": ("off",),
    "displaced-stepping": ("auto", "off"),  # a trap's step over is in place, the others stopped
"auto-solib-add": ("on",),
    "language": ("auto",), "charset": ("auto",), "host-charset": ("auto",),
    "target-charset": ("auto", "ASCII", "ANSI_X3.4-1968", "UTF-8"), "target-wide-charset": ("auto",), "osabi": ("auto",),
    "debuginfod enabled": ("off",),
    "python print-stack": ("message",), "verbose": ("off",),
    "print demangle": ("on",), "print asm-demangle": ("off",), "print array": ("off",),
    "print vtbl": ("off",), "write": ("off",),
    "annotate": ("0", "1"),
    "editing": ("off",), "style enabled": ("off",), "exec-done-display": ("off",),
    "trace-commands": ("off",), "backtrace limit": ("unlimited",), "max-value-size": ("65536",),
    "auto-load gdb-scripts": ("off",), "auto-load libthread-db": ("off",), "auto-load local-gdbinit": ("off",),
}  # fmt: skip

# Prefixes whose every setting we know: another name under them is gdb's "Undefined" error.
_KNOWN_PREFIXES = {"print": "print", "p": "print", "pr": "print", "check": "check", "ch": "check", "tcp": "tcp"}


# Settings we implement under a prefix refused as a whole.
_HONOURED_UNDER_REFUSED = frozenset(("remote exec-file",))


def refused_name(words: list[str]) -> str | None:
    """The gdb setting we do not implement that `words` name (longest first), or None."""
    if " ".join(words[:2]) in _HONOURED_UNDER_REFUSED:
        return None
    for size in range(min(len(words), 3), 0, -1):
        name = " ".join(words[:size])
        if name in REFUSED:
            return name
    return None


# `set` subcommands commands_misc.do_set handles itself, besides the settings.
_OWN_SET_NAMES = ("variable", "args", "environment", "cwd", "directories", "inferior-tty", "tty",
                  "substitute-path", "logging")
_NAME = compiled_later(r"[A-Za-z0-9_-]+")


def canonical(settings: Settings, words: list[str]) -> list[str]:
    """`words` with each word after the first completed as gdb's lookup_cmd does, when it
    starts one name only (`set history file x`: history filename); gdb's error when a
    setting's name runs into its argument (`set history file/home/`)."""
    names = [name.split() for name in (*settings.names(), *REFUSED, *_OWN_SET_NAMES)]
    out: list[str] = []
    for index, word in enumerate(words[:3]):
        level = {name[index] for name in names if len(name) > index and name[:index] == out}
        part = _NAME().match(word)
        head = part.group(0) if part else word
        starting = [name for name in level if name.startswith(head)] if index else []
        full = head if head in level else starting[0] if len(starting) == 1 else None
        if full is None:
            break
        if head != word:  # the name runs into its argument
            if out + [full] in names:
                raise MiError("Argument must be preceded by space.")
            break
        out.append(full)
        if out in names and not any(len(name) > len(out) and name[: len(out)] == out for name in names):
            break
    return out + words[len(out) :]


def check_set(settings: Settings, words: list[str], *, running: bool, evaluate: Evaluator | None = None) -> None:
    """Refuse `set WORDS` when it names a gdb setting we do not implement, a value of one we
    implement in part, or an unknown setting under `print` (gdb's own error there)."""
    found = settings.find(words)
    if found is None:
        _refuse_unknown("set", words)
        return
    name, value_words = found
    if name == "follow-fork-mode" and running:
        raise MiError('Changing "follow-fork-mode" while the program runs is not supported by aliceserver.')
    allowed = _ONLY.get(name)
    if allowed is None:
        return
    from aliceserver.adapters.mi.settings import Settings

    probe = Settings()  # gdb's parse (and its errors) first, on a copy
    value = probe.set(name, " ".join(value_words), evaluate)
    if value not in allowed:
        raise MiError(f'The setting "{name}" is not supported by aliceserver except as '
                      f'{" or ".join(a or chr(34) * 2 for a in allowed)}.')


def check_show(words: list[str]) -> None:
    """Refuse `show WORDS` of a gdb setting we do not implement, and an unknown `print` one."""
    _refuse_unknown("show", words)


def _refuse_unknown(verb: str, words: list[str]) -> None:
    """Refuse a gdb setting we do not implement, and give gdb's error for an unknown one
    under a prefix it knows (`set print nosuch`)."""
    name = refused_name(words)
    if name is not None:
        raise MiError(f'The setting "{name}" is not supported by aliceserver.')
    prefix = _KNOWN_PREFIXES.get(words[0]) if len(words) > 1 else None
    if prefix is not None:
        rest = " ".join(words[1:])
        raise MiError(f'Undefined {verb} {prefix} command: "{rest}".  Try "help {verb} {prefix}".')


def nibbles_separator(session: MiSession, tid: int | None = None, level: int = 0) -> str:
    """/t's separator of nibbles under `print nibbles on` (else ""): the current language's
    (gdb's get_digit_separator: C++'s ', Rust's _, a blank in the others); with `tid`, the
    language of that thread's frame at `level` (where a value is evaluated)."""
    if session.settings.get("print nibbles") != "on":
        return ""
    language = None
    if tid is not None:
        try:
            language = session.debugger.frame_details(tid, level).language
        except AliceError:
            pass
    return {"c++": "'", "rust": "_"}.get(language or session.current_language(), " ")


# The separator each session's engine was last given: the current language is the selected
# frame's, so a print under `print nibbles on` gives it again when it changed.
_SEPARATORS: WeakKeyDictionary[MiSession, str] = WeakKeyDictionary()


def refresh_nibbles(session: MiSession, tid: int | None = None, level: int = 0) -> None:
    """Before a value is evaluated: the engine's nibble separator, the language's of the
    frame it is evaluated in (nibbles_separator); and ASCII strings where auto stands for
    the C locale's charset (told the engine at the first value, not at the session's start)."""
    if session.settings.get("print nibbles") != "on":
        if ascii_target(session.settings) and session not in _SEPARATORS:
            apply_print_limits(session)
        return
    separator = nibbles_separator(session, tid, level)
    if _SEPARATORS.get(session) != separator:
        apply_print_limits(session, separator)


# The settings the engine's formatter takes through apply_print_limits.
PRINT_LIMITS = frozenset(("print elements", "print repeats", "print address", "print array-indexes",
                          "print nibbles", "print symbol", "print null-stop", "target-charset",
                          "print static-members", "print max-depth", "print union"))


def apply_print_limits(session: MiSession, separator: str | None = None) -> None:
    """Tell the engine `print elements`, `print repeats` (unlimited: no limit), `print address`
    `print array-indexes`, `output-radix`, `print nibbles` (with the current language's
    separator, unless `separator` gives it), `print symbol`, `print null-stop`,
    `target-charset` (ASCII or not), `print static-members`, `print max-depth` and
    `print union`."""
    unlimited = 2**31 - 1

    def on(name: str) -> bool:
        return session.settings.get(name) == "on"

    def number(name: str) -> int:
        value = session.settings.get(name)
        return unlimited if value == "unlimited" else int(value)

    if separator is None:
        separator = nibbles_separator(session)
    _SEPARATORS[session] = separator

    session.debugger.set_print_limits(elements=number("print elements"), repeats=number("print repeats"),
                                      addresses=session.settings.get("print address") == "on",
                                      array_indexes=session.settings.get("print array-indexes") == "on",
                                      output_radix=int(session.settings.get("output-radix")),
                                      input_radix=int(session.settings.get("input-radix")),
                                      nibbles=separator, symbols=on("print symbol"),
                                      null_stop=on("print null-stop"),
                                      ascii=ascii_target(session.settings),
                                      static_members=on("print static-members"),
                                      max_depth=number("print max-depth"), unions=on("print union"))


def ascii_target(settings: Settings) -> bool:
    """Whether strings show bytes past 127 in octal: `target-charset` is ASCII (by either of
    its names: gdb's `show` gives the C locale's, ANSI_X3.4-1968, for auto there), or the
    host's is (gdb escapes what the host cannot print, whatever the target's)."""
    from aliceserver.adapters.mi.settings import host_charset

    ascii = ("ASCII", "ANSI_X3.4-1968")
    return settings.get("target-charset") in ascii or host_charset() in ascii
