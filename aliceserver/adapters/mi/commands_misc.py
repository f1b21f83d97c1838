"""Session commands: settings, features, files, environment, target, interpreters."""

from __future__ import annotations

import contextlib
import os
from collections.abc import Iterator
from typing import TYPE_CHECKING

from aliceserver import __version__
from aliceserver.adapters.mi import (
    auto_load,
    completion,
    libraries,
    log_file,
    radix,
    settings_policy,
    source_paths,
)
from aliceserver.adapters.mi.buildargv import build_argv
from aliceserver.adapters.mi.core_commands import close_core
from aliceserver.adapters.mi.inferior_list import as_current, claim_engine, detach_target
from aliceserver.adapters.mi.intsettings import session_evaluator
from aliceserver.adapters.mi.output import Value, record, stream
from aliceserver.adapters.mi.parser import MiCommand, getopt, parse_line
from aliceserver.adapters.mi.registry import EXIT, Context, MiError, MiRegistry, Reply
from aliceserver.adapters.mi.remote_commands import remote_held
from aliceserver.adapters.mi.screen_env import inferior_environment, set_variable
from aliceserver.adapters.mi.settings import RANGE_WARNING, Settings, range_mismatch
from aliceserver.adapters.mi.ui import Ui
from aliceserver.debuggers.arch.program import program_architecture
from aliceserver.debuggers.arch.registry import of_elf
from aliceserver.debuggers.librarypaths import HasLibraryPaths
from aliceserver.errors import AliceError

if TYPE_CHECKING:
    from aliceserver.adapters.mi.session import MiSession

FEATURES = ["frozen-varobjs", "pending-breakpoints", "thread-info", "data-read-memory-bytes",
            "breakpoint-notifications", "ada-task-info", "language-option", "info-gdb-mi-command",
            "undefined-command-error-code", "exec-run-start-option", "data-disassemble-a-option"]  # fmt: skip


def banner() -> str:
    return (
        f"GNU gdb (aliceserver {__version__}) 13.1\n"
        "aliceserver: a debugger server with gdb's interfaces over its own ptrace engine; "
        "it is not GNU gdb.\nLicense BSD-3-Clause-Clear.\n"
        'This GDB was configured as "x86_64-linux-gnu".\n'
        'For help, type "help".\n'
    )


# --- settings, shared with the console's set/show -------------------------------------------
_TRACE_NOTES = {"trace-notes": "note", "trace-user": "user", "trace-stop-notes": "stop note"}


_CWD_UNSET = ("You have not set the inferior's current working directory.\nThe inferior will inherit GDB's cwd "
              "if native debugging, or the remote\nserver's cwd if remote debugging.")


def do_set(ctx: Context, text: str, *, from_mi: bool) -> None:
    session = ctx.session
    words = text.split()
    if not words:
        raise MiError("Argument required (expression to compute).")
    head, rest = words[0], text.strip()[len(words[0]) :].strip()
    if head in ("var", "variable"):
        assign(ctx, rest)
        return
    if words == ["tcp"]:
        from aliceserver.adapters.mi.remote_commands import set_tcp_help

        ctx.console(set_tcp_help())
        return
    if head in radix.NAMES:  # gdb's own parse (an expression) and messages
        radix.set_radix(ctx, head, rest, from_tty=ctx.from_tty and not from_mi)
        return
    if head == "args":
        from aliceserver.adapters.mi.commands_exec import set_args

        set_args(ctx, text.lstrip()[len(head) :].lstrip())  # gdb keeps a set's trailing blanks
        return
    if head in ("environment", "env"):
        name, _, value = rest.partition("=") if "=" in rest else rest.partition(" ")
        if not name.strip():
            raise MiError("Argument required (environment variable and value).")
        set_variable(session.inferior.env, name.strip(), value.strip())
        return
    if head in ("inferior-tty", "tty"):
        old = session.inferior.tty
        session.inferior.tty = rest or None
        if session.inferior.tty != old:
            _param_changed(ctx, "inferior-tty", rest, from_mi)
        return
    if head == "cwd":
        session.inferior.cwd = os.path.expanduser(rest) if rest else os.getcwd()
        session.inferior.cwd_setting = rest
        return
    if head == "directories":
        source_paths.set_directories(ctx, rest, from_mi=from_mi)
        return
    if head == "non-stop" and rest in ("1", "on", "yes", "enable"):
        # All-stop only; this answer makes Emacs fall back to all-stop (CLIENTS.md).
        raise MiError('No symbol "non-stop" in current context.')
    if head == "target-async":
        ctx.console("Warning: 'set target-async', an alias for the command 'set mi-async', is deprecated.\n")
        ctx.console("Use 'set mi-async'.\n\n")
    if words[0] == "logging" and len(words) == 2 and words[1] in ("on", "off"):
        _deprecated_alias(ctx, f"set logging {words[1]}", "set logging enabled", f"set logging enabled {words[1]}")
        words, text = ["logging", "enabled", words[1]], f"logging enabled {words[1]}"
    if auto_load.set_all(ctx, words):
        return
    words = settings_policy.canonical(session.settings, words)
    evaluate = session_evaluator(session)
    settings_policy.check_set(session.settings, words, running=session.inferior.process is not None, evaluate=evaluate)
    found = session.settings.find(words)
    if found is None:
        if "=" in text:
            assign(ctx, text)
            return
        raise MiError(f'No symbol "{head}" in current context.')
    name, value_words = found
    value_text = text.strip().split(None, len(name.split()))[-1] if value_words else ""
    if name == "prompt":
        # gdb keeps a prompt's trailing blanks: `set prompt (banana) ` ends in a space
        value_text = text.lstrip()[len("prompt") :].lstrip() if text.lstrip().startswith("prompt") else value_text
    old = session.settings.get(name)
    if name == "architecture":
        _check_architecture(session, value_text)
    if name in _LIBRARY_PATHS:
        value_text = _library_paths(session.debugger, name, value_text)
    value = session.settings.set(name, value_text, evaluate)
    if name == "breakpoint condition-evaluation" and value == "target":
        # gdb's set hook where the target evaluates no conditions (none does here): the mode stays
        value = session.settings.set(name, old)
        ctx.log("warning: Target does not support breakpoint condition evaluation.\n"
                "Using host evaluation mode instead.")
        ctx.log("\n")  # a record of its own in MI, as gdb's warning writes it
    if name in ("architecture", "endian"):  # gdb's set hook tells what it is now, changed or not
        ctx.console(show_value(ctx, name)[1] + "\n")
    elif name == "check range" and range_mismatch(session.settings):
        ctx.log(RANGE_WARNING)
    elif name in _TRACE_NOTES:  # gdb's set hook, on any target without tracepoints (ours)
        ctx.log(f"warning: Target does not support trace notes, {_TRACE_NOTES[name]} ignored\n")
    if name == "remotetimeout":
        from aliceserver.adapters.mi.remote_commands import apply_timeouts

        apply_timeouts(session)
    elif name == "unwindonsignal":  # the engine's, for every call (conditions' too)
        session.debugger.set_call_options(unwind_on_signal=value == "on")
    elif name == "backtrace past-main":  # entry values read main's caller or not
        session.debugger.set_backtrace_past_main(value == "on")
    elif name == "stop-on-solib-events":  # the engine told to report every loader event
        from aliceserver.adapters.mi.catch_stops import sync

        sync(session)
    elif name == "scheduler-locking":  # replay is off when not replaying (we never replay)
        session.debugger.set_scheduler_locking(steps_alone=value in ("on", "step"))
    elif name == "breakpoint jump-patches":  # aliceserver's own: the live engine's (ptrace)
        patches = getattr(session.debugger, "jump_patches", None)
        if patches is not None:
            patches.enabled = value == "on"
    elif name == "may-call-functions":
        session.debugger.set_call_options(may_call=value == "on")
    elif name == "check type":
        session.debugger.set_call_options(strict_types=value == "on")
    elif name in settings_policy.PRINT_LIMITS:
        settings_policy.apply_print_limits(session)
    elif name in log_file.SETTINGS:
        log_file.changed(ctx, name, from_tty=not from_mi)
    elif name.startswith("auto-load "):
        auto_load.sync(session)
    elif name in ("dprintf-style", "dprintf-function", "dprintf-channel"):
        from aliceserver.adapters.mi.dprintf import restyle

        restyle(ctx)
    if value != old:  # gdb tells only a change
        _param_changed(ctx, name, session.settings.notified(name), from_mi)


_LIBRARY_PATHS = ("sysroot", "solib-search-path")


def _program_architecture(session: MiSession) -> str | None:
    """gdb's name of the program's architecture, by its ELF header (the engine's where
    the file cannot be read); None without a program."""
    program = session.inferior.program
    if not program:
        return None
    try:
        return of_elf(program).name
    except (OSError, AliceError):
        return program_architecture(session.debugger).name


def _check_architecture(session: MiSession, text: str) -> None:
    """Only auto and the program's own architecture are debugged as they say."""
    wanted = Settings().set("architecture", text)  # gdb's parse and errors, on a copy
    current = _program_architecture(session) or "i386:x86-64"
    if wanted not in ("auto", current):
        raise MiError(f'The setting "architecture" is not supported by aliceserver except as auto or {current}.')


def _library_paths(debugger: object, name: str, text: str) -> str:
    """gdb's set sysroot / solib-search-path: the engine reads libraries there from now
    on (a stopped process's again at once); `~` expanded as gdb does for file names."""
    if not isinstance(debugger, HasLibraryPaths):
        raise MiError(f'The setting "{name}" is not supported by this debugger engine.')
    value = ":".join(os.path.expanduser(part) for part in text.strip().split(":"))
    if name == "sysroot":
        debugger.set_library_paths(sysroot=value)
    else:
        debugger.set_library_paths(search_path=value)
    return value


def _deprecated_alias(ctx: Context, alias: str, command: str, use: str) -> None:
    ctx.console(f"Warning: '{alias}', an alias for the command '{command}', is deprecated.\n")
    advice = f"Use '{use}'.\n\n"
    if ctx.ui.is_mi:  # gdb writes the advice and its blank line as one record
        ctx.ui.line(stream("~", advice))
    else:
        ctx.console(advice)


def _param_changed(ctx: Context, name: str, value: str, from_mi: bool) -> None:
    line = record("=", "cmd-param-changed", [("param", name), ("value", value)])
    ctx.session.broadcast(line, except_ui=ctx.ui if from_mi else None)


def assign(ctx: Context, expression: str) -> None:
    session = ctx.session
    if "=" not in expression:
        raise MiError("Argument required (expression to compute).")
    info = session.evaluate(expression)
    if info.error:
        raise MiError(info.value)
    target = expression.split("=", 1)[0].strip()
    try:
        where = session.evaluate(f"&({target})")
        from aliceserver.adapters.mi.disasm import address_of

        address = address_of(session, f"&({target})")
        size = session.evaluate(f"sizeof({target})").value
        from aliceserver.adapters.mi.frames import hex16

        del where
        session.notify("memory-changed", [("thread-group", "i1"), ("addr", hex16(address)),
                                          ("len", hex(int(size.split()[0])))])
    except (AliceError, ValueError):
        pass


def show_value(ctx: Context, name: str) -> tuple[str, str]:
    """(value, the sentence `show` prints)."""
    session = ctx.session
    inferior = session.inferior
    if name == "args":
        value = inferior.args_text if inferior.args_text is not None else " ".join(inferior.args)
        return value, f'Argument list to give program being debugged when it is started is "{value}".'
    if name in ("inferior-tty", "tty"):
        value = inferior.tty or ""
        return value, f'Terminal for future runs of program being debugged is "{value}".'
    if name == "cwd":
        return inferior.cwd_setting, _CWD_UNSET if not inferior.cwd_setting else (
            f'Current working directory that will be used when starting the inferior is "{inferior.cwd_setting}".')
    if name == "target-async":
        name = "mi-async"
    if name.split()[:1] in (["language"], ["lang"]):  # gdb shows it whatever follows
        return "auto", f'The current source language is "auto; currently {current_language(ctx)}".'
    if name == "directories":
        return source_paths.directories_sentence(ctx)
    if name == "tcp":
        from aliceserver.adapters.mi.remote_commands import show_tcp

        return "", show_tcp(lambda each: show_value(ctx, each)[1])
    if name == "endian" and session.settings.get("endian") == "auto":  # x86-64's, the one we debug
        return "auto", "The target endianness is set automatically (currently little endian)."
    if name in ("architecture", "arch") and session.settings.get("architecture") == "auto":
        # gdb's default architecture is i386 until a program tells it (by its ELF header)
        current = _program_architecture(session) or "i386"
        return "auto", f'The target architecture is set to "auto" (currently "{current}").'
    words = settings_policy.canonical(session.settings, name.split())
    found = session.settings.find(words)
    if found is None:  # (gdb's show of a setting takes no arguments: it ignores any)
        settings_policy.check_show(words)
        raise MiError(f'Undefined show command: "{name}".  Try "help show".')
    return session.settings.get(found[0]), session.settings.show_text(found[0])


def current_language(ctx: Context) -> str:
    """The language `set language auto` stands for (gdb's current_language): the selected
    frame's, else that of main's unit, else c."""
    return ctx.session.current_language()


# --- MI commands ---------------------------------------------------------------------------
def _gdb_set(ctx: Context, args: list[str]) -> Reply:
    raw = ctx.command.raw_args if ctx.command is not None else " ".join(args)
    if ctx.command is not None and (ctx.command.thread is not None or ctx.command.frame is not None):
        raw = " ".join(args)
    do_set(ctx, raw, from_mi=True)
    return None


def _gdb_show(ctx: Context, args: list[str]) -> Reply:
    if not args:
        raise MiError("Argument required (show what?).")
    if args[0] == "version":
        ctx.console(banner())
        return None
    value, _ = show_value(ctx, " ".join(args))
    return [("value", value)]


def _gdb_version(ctx: Context, args: list[str]) -> Reply:
    ctx.console(banner())
    return None


def _gdb_exit(ctx: Context, args: list[str]) -> Reply:
    return EXIT


def _list_features(ctx: Context, args: list[str]) -> Reply:
    return [("features", list(FEATURES))]


def _list_target_features(ctx: Context, args: list[str]) -> Reply:
    session = ctx.session
    features: list[Value] = ["async"] if session.inferior.process is not None and session.settings.mi_async else []
    return [("features", features)]


def _info_gdb_mi_command(ctx: Context, args: list[str]) -> Reply:
    if len(args) != 1:
        raise MiError("Usage: -info-gdb-mi-command MI_COMMAND_NAME")
    name = args[0].lstrip("-")
    return [("command", {"exists": "true" if name in ctx.session.mi_commands else "false"})]


def _accept(ctx: Context, args: list[str]) -> Reply:
    return None


def _complete(ctx: Context, args: list[str]) -> Reply:
    if len(args) != 1:
        raise MiError("Usage: -complete COMMAND")
    found = completion.complete(ctx.session, args[0])
    pairs: list[tuple[str, Value]] = [] if found.completion is None else [("completion", found.completion)]
    return [*pairs, ("matches", list(found.matches)), ("max_completions_reached", "1" if found.max_reached else "0")]


@contextlib.contextmanager
def _selected_for_command(ctx: Context) -> Iterator[None]:
    """The command's `--thread N` / `--frame N` select that thread and frame while it runs
    and no longer (gdb's mi_cmd_execute, its user selection restored after)."""
    inferior = ctx.session.inferior
    if ctx.thread is None and ctx.frame is None:
        yield
        return
    kept = inferior.selected_tid, inferior.selected_level
    tid = ctx.session.thread_arg(ctx.thread)
    if tid != inferior.selected_tid:
        inferior.selected_tid, inferior.selected_level = tid, 0
    if ctx.frame is not None:
        ctx.session.frames.frame(tid, ctx.frame)  # gdb's error for a frame the stack lacks
        inferior.selected_level = ctx.frame
    try:
        yield
    finally:
        inferior.selected_tid, inferior.selected_level = kept


def _interpreter_exec(ctx: Context, args: list[str]) -> Reply:
    if len(args) < 2:
        raise MiError("-interpreter-exec: Usage: -interpreter-exec interp command")
    interpreter, commands = args[0], args[1:]
    session = ctx.session
    if interpreter in ("console", "cli"):
        ctx.cli = True
        reply: Reply = None
        with _selected_for_command(ctx):
            for text in commands:
                reply = session.run_cli(ctx, text)
        return reply
    if interpreter.startswith("mi"):
        for text in commands:
            parsed = parse_line(text)
            if not isinstance(parsed, MiCommand):  # a console command, answered in MI
                ctx.ui.log(parsed.text + "\n")
                reply = session.run_cli(Context(session, ctx.ui, parsed.token, None, cli=True), parsed.text)
                if reply is not None:
                    return reply
                ctx.ui.result(parsed.token, "done")
                continue
            handler = session.mi_commands.get(parsed.name)
            if handler is None:
                raise MiError(f"Undefined MI command: {parsed.name}", "undefined-command")
            inner = Context(session, ctx.ui, parsed.token, parsed, thread=parsed.thread, frame=parsed.frame)
            result = handler(inner, list(parsed.args))
            if isinstance(result, list | tuple):
                ctx.ui.result(parsed.token, "done", result)
            elif result is None:
                ctx.ui.result(parsed.token, "done")
            else:
                return result
        return None
    raise MiError(f'-interpreter-exec: could not find interpreter "{interpreter}"')


def interpreter_exec_console(ctx: Context, text: str) -> Reply:
    """The console's `interpreter-exec INTERPRETER COMMAND...`: MI's answers are written as
    MI records even on a console, as gdb does."""
    words = build_argv(text)  # gdb_buildargv: quotes group, each word one command
    if not words:
        raise MiError("Argument required (interpreter-exec command).")
    if len(words) < 2:
        raise MiError("Usage: interpreter-exec INTERPRETER COMMAND...")
    interpreter, commands = words[0], words[1:]
    if interpreter not in ("console", "cli") and not interpreter.startswith("mi"):
        raise MiError(f'Could not find interpreter "{interpreter}".')
    if interpreter in ("console", "cli") or ctx.ui.is_mi:
        return _interpreter_exec(ctx, words)
    ctx.ui.flush()  # what the console said comes first
    mi_ui = Ui(ctx.ui.transport, mi=True, name=ctx.ui.name)
    for command in commands:
        inner = Context(ctx.session, mi_ui, "", None)
        try:
            reply = _interpreter_exec(inner, [interpreter, command])
        except MiError as error:
            pairs: list[tuple[str, Value]] = [("msg", str(error))]
            mi_ui.result("", "error", pairs + ([("code", error.code)] if error.code else []))
            continue
        if reply is not None:
            return reply
    return None


def set_program(ctx: Context, path: str | None, *, announce: bool = False) -> None:
    """The program to debug (None: none); `announce`: gdb's "Reading symbols" line first."""
    session = ctx.session
    if path is not None and not os.path.exists(path):
        raise MiError(f"{path}: No such file or directory.")
    if session.inferior.process is None:
        session.drop_probe()
    session.inferior.program = os.path.abspath(path) if path else None
    session.inferior.ran = False  # gdb reads it anew: at its link-time addresses until it runs
    if path:
        if announce:
            ctx.console(f"Reading symbols from {path}...\n")
        auto_load.tell_refusals(session, os.path.abspath(path), ctx.log, ctx.console)


def _file_exec_and_symbols(ctx: Context, args: list[str]) -> Reply:
    set_program(ctx, args[0] if args else None)
    return None


def source_file(ctx: Context) -> list[tuple[str, Value]]:
    session = ctx.session
    session.ensure_symbols()
    if not session.has_symbols():
        raise MiError('No symbol table is loaded.  Use the "file" command.')
    memory = session.command_memory
    listed, position = memory.listed, memory.list_position
    if listed is not None:  # gdb's current source line: after a listing the next line, a stop's line
        path, line = (position.path, position.next_line) if position is not None and position.marker is listed \
            else listed
    else:
        places = [p for p in session.debugger.resolve_location("main") if p.source is not None]
        if not places or places[0].source is None:
            raise MiError("No symbol table is loaded.  Use the \"file\" command.")
        # gdb's default source line: `list` centred on main, 10 lines to a screen
        path, line = places[0].source.path, max(places[0].source.line - 9, 1)
    return [("line", str(line)), ("file", session.frames.file_name(path)),
            ("fullname", session.frames.fullname(path)), ("macro-info", "0")]


def _file_list_exec_source_file(ctx: Context, args: list[str]) -> Reply:
    return source_file(ctx)


def attach(ctx: Context, pid_text: str) -> Reply:
    session = ctx.session
    try:
        pid = int(pid_text)
    except ValueError:
        raise MiError(f"Illegal process-id: {pid_text}.") from None
    if session.inferior.process is not None:
        raise MiError("A program is being debugged already.")
    claim_engine(session, starting=True)  # one live process at a time
    session.drop_probe()
    session.debugger.attach(pid)
    if remote_held(session) is not None:  # through the stub: its stop, told as on connecting
        from aliceserver.adapters.mi.remote_commands import announce_attach

        announce_attach(ctx)
    if not session.inferior.program:
        try:
            session.inferior.program = os.readlink(f"/proc/{pid}/exe")
        except OSError:
            pass
    session.origin = None
    return None


def detach(ctx: Context, *, quitting: bool = False) -> Reply:
    """gdb's detach_command (then no_shared_libraries), or quit's (kill_or_detach)."""
    session = ctx.session
    session.require_process()
    from aliceserver.adapters.mi.notify import handle_event
    from aliceserver.debuggers.events import Exited

    process = session.inferior.process
    assert process is not None
    if session.inferior.running:
        session.debugger.interrupt()
        session.wait_event(lambda event: not session.inferior.running)
    session.debugger.detach()
    session.inferior.detaching = True
    loaded = list(session.inferior.libraries)
    handle_event(session, Exited(process.pid, None))
    if not quitting:
        libraries.forget_detached(session, loaded)
    return None


def _target_attach(ctx: Context, args: list[str]) -> Reply:
    if len(args) != 1:
        raise MiError("Argument required (process-id to attach).")
    return attach(ctx, args[0])


def _target_detach(ctx: Context, args: list[str]) -> Reply:
    target = detach_target(ctx.session, args)  # (its argument's errors first, as gdb's)
    if close_core(ctx):
        return None
    with as_current(ctx.session, target):
        return detach(ctx)


def _inferior_tty_set(ctx: Context, args: list[str]) -> Reply:
    ctx.session.inferior.tty = args[0] if args else None
    return None


def _inferior_tty_show(ctx: Context, args: list[str]) -> Reply:
    tty = ctx.session.inferior.tty
    return [("inferior_tty_terminal", tty)] if tty else None


def change_directory(ctx: Context, path: str) -> str:
    target = os.path.expanduser(path or "~")
    if not os.path.isabs(target):
        target = os.path.join(ctx.session.inferior.cwd, target)
    target = os.path.normpath(target)
    if not os.path.isdir(target):
        raise MiError(f"{path}: No such file or directory.")
    ctx.session.inferior.cwd = target
    return target


def _environment_cd(ctx: Context, args: list[str]) -> Reply:
    if len(args) != 1:
        raise MiError("-environment-cd: Usage: DIRECTORY")
    change_directory(ctx, args[0])
    return None


def _environment_pwd(ctx: Context, args: list[str]) -> Reply:
    return [("cwd", ctx.session.inferior.cwd)]


def _environment_path(ctx: Context, args: list[str]) -> Reply:
    session = ctx.session
    options = getopt("environment-path", args, flags="r")
    current = inferior_environment(session.host_env, session.inferior.env).get("PATH", "")
    if options.has("r"):
        current = session.host_env.get("PATH", "")
    if options.rest:
        current = ":".join(options.rest + ([current] if current else []))
    if options.rest or options.has("r"):
        set_variable(session.inferior.env, "PATH", current)
    return [("path", current)]


def _environment_directory(ctx: Context, args: list[str]) -> Reply:
    options = getopt("environment-directory", args, flags="r")
    return source_paths.environment_directory(ctx, options.has("r"), options.rest)


def register(registry: MiRegistry) -> None:
    for name, handler in {
        "gdb-set": _gdb_set, "gdb-show": _gdb_show, "gdb-version": _gdb_version, "gdb-exit": _gdb_exit,
        "list-features": _list_features, "list-target-features": _list_target_features,
        "info-gdb-mi-command": _info_gdb_mi_command,
        "enable-frame-filters": _accept, "complete": _complete, "interpreter-exec": _interpreter_exec,
        "file-exec-and-symbols": _file_exec_and_symbols, "file-exec-file": _file_exec_and_symbols,
        "file-symbol-file": _accept, "file-list-exec-source-file": _file_list_exec_source_file,
        "target-attach": _target_attach,
        "target-detach": _target_detach, "inferior-tty-set": _inferior_tty_set,
        "inferior-tty-show": _inferior_tty_show, "environment-cd": _environment_cd,
        "environment-pwd": _environment_pwd, "environment-path": _environment_path,
        "environment-directory": _environment_directory, "enable-timings": _accept,
    }.items():  # fmt: skip
        registry.add(name, handler)
