"""gdb's console (CLI) commands: typed in a console UI, echoed on MI, or -interpreter-exec."""

from __future__ import annotations

import re
from dataclasses import replace

from aliceserver.adapters.gdbcommands.selection import Selection
from aliceserver.adapters.gdbcommands.values import show_convenience, show_values
from aliceserver.adapters.mi import (
    aliases,
    auto_load,
    bpnumbers,
    console_exec,
    console_more,
    console_targets,
    console_tui,
    core_commands,
    maint_info,
    radix,
    show_lists,
    skips,
    source_paths,
    subcommands,
    thread_names,
    tracepoints,
    user_commands,
    with_command,
)
from aliceserver.adapters.mi import commands_break as breaks
from aliceserver.adapters.mi import commands_misc as misc
from aliceserver.adapters.mi.break_keywords import keywords
from aliceserver.adapters.mi.catch_stops import register_console as register_catch
from aliceserver.adapters.mi.completion import console_complete
from aliceserver.adapters.mi.console_frames import register_frames
from aliceserver.adapters.mi.console_info import register_info
from aliceserver.adapters.mi.console_print import register_print
from aliceserver.adapters.mi.console_symbols import rbreak
from aliceserver.adapters.mi.console_workflow import register_workflow
from aliceserver.adapters.mi.inferiors import register_inferiors
from aliceserver.adapters.mi.locations import console_location
from aliceserver.adapters.mi.output import record
from aliceserver.adapters.mi.pending_query import create_or_ask
from aliceserver.adapters.mi.queries import confirm, query
from aliceserver.adapters.mi.registry import EXIT, CliRegistry, Context, MiError, Reply
from aliceserver.adapters.mi.screen_env import inferior_environment, set_variable
from aliceserver.adapters.mi.settings import RANGE_WARNING, range_mismatch
from aliceserver.adapters.mi.tracepoints import register_console as register_tracepoints
from aliceserver.adapters.mi.watch_gate import remember_frame, watch_keywords
from aliceserver.transports.tty import open_tty_transport


def run_console_command(ctx: Context, text: str) -> Reply:
    line = text.strip(" \t\r").lstrip("\n")
    if line.startswith("server "):  # gdb's prefix for commands kept out of the history
        line = line[len("server ") :].strip()
    if not line or line.startswith("#"):
        return None
    # gdb's command characters (valid_cmd_char_p: `alias x.y`, `5`, `-foo`), or `!` / `|` alone
    match = re.match(r"([\w.-]+|[!|])(.*)", line, re.S)
    if match is None:  # gdb's command word is the command characters it starts with: none
        raise MiError('Undefined command: "".  Try "help".')
    word, rest = match.group(1), match.group(2)
    found = ctx.session.cli_commands.lookup(word)
    if found is None:
        raise MiError(f'Undefined command: "{word}".  Try "help".')
    name, handler = found
    if rest and not rest[0].isspace() and rest[0] != "/" and name not in ("!", "|"):
        raise MiError(f'Undefined command: "{word + rest.split()[0]}".  Try "help".')
    if ctx.session.user_commands.deprecated:
        from aliceserver.adapters.mi.deprecation import warn_if_deprecated

        warn_if_deprecated(ctx, word, name)
    if name in ("set", "complete"):  # gdb keeps their trailing blanks: a prompt may end in one,
        # and `complete set language ` completes the value
        body = text.rstrip("\r\n")
        argument = rest.strip() + body[len(body.rstrip(" \t")) :]
    else:  # echo keeps its trailing blanks and newlines; other commands do not care.
        argument = rest.lstrip(" \t") if name == "echo" else rest.strip()
    user = user_commands.builtin_subcommand(ctx, name, argument)  # `define info foo`'s `info foo`
    if user is not None:
        command, arguments = user
        return user_commands.with_hooks(ctx, name, lambda: user_commands.run_user_command(ctx, command, arguments))
    return user_commands.with_hooks(ctx, name, lambda: handler(ctx, argument))


def parse_escapes(text: str) -> str:
    """gdb's echo: C escapes, octal bytes, a trailing backslash dropped."""
    out = bytearray()
    i = 0
    simple = {"n": 10, "t": 9, "r": 13, "a": 7, "b": 8, "f": 12, "v": 11, "e": 27}
    while i < len(text):
        ch = text[i]
        if ch == "\\" and i + 1 < len(text):
            nxt = text[i + 1]
            if nxt in simple:
                out.append(simple[nxt])
                i += 2
            elif nxt in "01234567":
                end = i + 1
                while end < len(text) and end - i <= 3 and text[end] in "01234567":
                    end += 1
                out.append(int(text[i + 1 : end], 8) & 0xFF)
                i = end
            else:
                out += nxt.encode()
                i += 2
            continue
        if ch == "\\":
            i += 1
            continue
        out += ch.encode("utf-8", "surrogateescape")
        i += 1
    return out.decode("utf-8", "surrogateescape")


# --- breakpoints ---------------------------------------------------------------------------
def _break(ctx: Context, text: str, temporary: bool = False, from_tty: bool = True, hardware: bool = False) -> Reply:
    session = ctx.session
    location, rest = console_location(text)  # gdb's syntax and errors
    given = keywords(session, rest)
    condition, thread = given.condition, given.thread
    default = not location.strip()
    if default:
        if session.inferior.process is None or session.inferior.running:
            raise MiError("No default breakpoint address now.")
        tid, level = session.selected_frame()
        location = f"*0x{session.frames.frame(tid, level).pc:016x}"  # as gdb writes it back
    bp = create_or_ask(ctx, lambda pending: session.breakpoints.create(
        location, temporary=temporary, condition=condition, pending_ok=pending, thread=thread,
        force_condition=given.force_condition, warn=ctx.log, hardware=hardware), "hw breakpoint" if hardware else "breakpoint")
    if bp is None:  # a pending one declined
        return None
    if bp.pending and rest.strip():
        bp.pending_extra = rest.strip()
    if default:  # gdb's default location: the last shown line's sal, no function (until a re-set)
        bp.places = tuple(replace(place, function=None) for place in bp.places)
    # gdb's describe_other_breakpoints: only for a person typing (not -batch, -x, source)
    if from_tty and ctx.from_tty:
        breaks.note_others(ctx, bp)
    ctx.console(session.breakpoints.announce(bp))
    breaks.created(ctx, bp, to_self=True)
    return None


def break_at(ctx: Context, location: str) -> Reply:
    """`break LOCATION` as other commands set breakpoints (rbreak): not from the terminal,
    so without gdb's note of other breakpoints at the same pc."""
    return _break(ctx, location, from_tty=False)


def _clear(ctx: Context, text: str) -> Reply:
    session = ctx.session
    spec = session.breakpoints.normalize(text) if text else None
    line: tuple[str, int] | None = None
    if spec is None:  # gdb's default_match: the frame's pc, or any place on its line
        tid, level = session.selected_frame("No source file specified.")  # no frame shown yet
        frame = session.frames.frame(tid, level)
        if frame.source is None:
            raise MiError("No source file specified.")
        addresses, line = {frame.pc}, (frame.source.path, frame.source.line)
    else:
        addresses = {p.address for p in session.debugger.resolve_location(spec)}
    found = [bp for bp in session.breakpoints.sorted()
             if not bp.is_watch and (any(p.address in addresses or (line is not None and p.source is not None
                                         and (p.source.path, p.source.line) == line) for p in bp.places)
                                     or bp.location == text)]  # fmt: skip
    if not found:
        raise MiError(f"No breakpoint at {text}." if text else "No breakpoint at this line.")
    numbers = " ".join(str(bp.number) for bp in found)
    ctx.console(f"Deleted breakpoint{'s' if len(found) > 1 else ''} {numbers} \n")
    for bp in found:
        session.breakpoints.delete(bp)
        session.notify("breakpoint-deleted", [("id", str(bp.number))])
    return None


def _delete(ctx: Context, text: str) -> Reply:
    sub, rest = subcommands.resolve("delete", text)
    if sub == "display":
        return _undisplay(ctx, rest)
    words = rest.split() if sub == "breakpoints" else text.split()
    if sub == "checkpoint":
        return console_tui.no_checkpoint(ctx, "delete", rest)
    if sub in ("tvariable", "tracepoints"):
        return tracepoints.delete_subcommand(ctx, sub, rest)
    if not words and ctx.from_tty and ctx.session.breakpoints.sorted():  # gdb asks a person only
        if not query(ctx, "Delete all breakpoints? "):
            return None
    breaks.delete(ctx, _ranges(ctx, words))
    return None


def _ranges(ctx: Context, words: list[str]) -> list[str]:
    out: list[str] = []
    for word in bpnumbers.resolved(ctx, words):
        if re.fullmatch(r"\d+-\d+", word):
            low, high = word.split("-")
            out += [str(n) for n in range(int(low), int(high) + 1)]
        else:
            out.append(word)
    return out


def _enable(ctx: Context, text: str, enabled: bool) -> Reply:
    sub, rest = subcommands.resolve("enable" if enabled else "disable", text)
    if sub == "display":
        from aliceserver.adapters.mi import displays

        return displays.enable(ctx, rest, enabled)
    words = rest.split() if sub == "breakpoints" else text.split()
    if sub in ("once", "count", "delete"):  # `enable o 2`: gdb's `enable once 2`
        words = [sub, *rest.split()]
    if enabled:
        breaks.enable_command(ctx, _ranges(ctx, words))
    else:
        breaks.enable(ctx, _ranges(ctx, words), enabled)
    return None


def _condition(ctx: Context, text: str) -> Reply:
    """`condition [-force] N [EXPR]`."""
    words = text.split(None, 1)
    if not words:
        raise MiError("Argument required (breakpoint number).")
    force = False
    while words and words[0].startswith("-") and not words[0][1:].isdigit():  # gdb's options
        if words[0] == "--":
            words = words[1].split(None, 1) if len(words) > 1 else []
            break
        if len(words[0]) < 2 or not "-force".startswith(words[0]):
            raise MiError(f"Unrecognized option at: {' '.join(words)}")
        force, words = True, words[1].split(None, 1) if len(words) > 1 else []
    if not words:
        raise MiError(f"Bad breakpoint argument: '{text.strip()}'")
    if words[0].startswith("$") and words[0] != "$bpnum":  # get_number: the variable's value
        from aliceserver.adapters.mi.bpnumbers import value_of

        number = value_of(ctx, words[0])
        if not number:
            raise MiError(f"Bad breakpoint argument: '{text.strip()}'")
        words[0] = str(number)
    breaks.condition(ctx, words[0], words[1] if len(words) > 1 else "", force=force)
    return None


def _ignore(ctx: Context, text: str) -> Reply:
    words = text.split()
    if len(words) != 2:
        raise MiError("Argument required (a breakpoint number).")
    breaks.after(ctx, words[0], words[1])
    return None


def _watch(ctx: Context, text: str, mode: str) -> Reply:
    option, _, rest = text.partition(" ")
    location = option in ("-l", "-location")  # the memory it names now: no frame to die with
    if location:
        text = rest.strip()
    if not text:
        raise MiError("Argument required (expression to compute).")
    expression, given = watch_keywords(ctx.session, text)  # thread N, if COND
    if given.condition is not None:  # gdb parses it first: its unknown symbols are errors
        where = ctx.session.console_selection()
        ctx.session.debugger.evaluate(given.condition, where.thread_id, where.level, type_only=True)
    bp = breaks.watch(ctx, expression, mode, location=location)
    bp.condition, bp.thread = given.condition, given.thread
    remember_frame(ctx.session, bp)
    ctx.console(ctx.session.breakpoints.announce(bp))
    breaks.created(ctx, bp, to_self=True)
    return None


# --- settings and the rest ------------------------------------------------------------------
def _set(ctx: Context, text: str) -> Reply:
    word, _, rest = text.strip().partition(" ")
    if word == "substitute-path":
        source_paths.set_substitute_path(ctx, rest)
        return None
    if show_lists.set_prefix(ctx, text):
        return None
    misc.do_set(ctx, text, from_mi=False)
    return None


def _show(ctx: Context, text: str) -> Reply:
    if show_lists.show_prefix(ctx, text, ctx.session.settings.names(), _show):
        return None
    if text == "version":
        ctx.console(misc.banner())
        return None
    if text in ("environment", "env") or text.startswith(("environment ", "env ")):
        name = text.split(None, 1)[1] if " " in text else None
        env = inferior_environment(ctx.session.host_env, ctx.session.inferior.env)
        if name:
            ctx.console(f"{name} = {env[name]}\n" if name in env else f"Environment variable \"{name}\" not defined.\n")
        else:
            ctx.console("".join(f"{k}={v}\n" for k, v in env.items()))
        return None
    word, _, rest = text.partition(" ")
    if word in ("copying", "warranty", "configuration"):  # gdb's own licence and build
        raise MiError(f'"show {word}" is not supported by aliceserver.')
    if word == "paths":  # the PATH the program is given
        path = inferior_environment(ctx.session.host_env, ctx.session.inferior.env).get("PATH", "")
        ctx.console(f"Executable and object file path: {path}\n")
        return None
    if word == "substitute-path":
        source_paths.show_substitute_path(ctx, rest)
        return None
    if word == "user":
        return user_commands.show_user(ctx, rest)
    if word == "commands":
        ctx.session.history.show(ctx, rest)
        return None
    if text == "radix":
        radix.show_radix(ctx, from_tty=ctx.from_tty)
        return None
    if word in ("values", "convenience", "conv"):
        _show_values(ctx, word, rest)
        return None
    _, sentence = misc.show_value(ctx, text)
    ctx.console(sentence + "\n")
    if ctx.session.settings.find(text.split()) == ("check range", []) and range_mismatch(ctx.session.settings):
        ctx.log(RANGE_WARNING)
    return None


def _show_values(ctx: Context, word: str, rest: str) -> None:
    """gdb's show values and show convenience, from the engine's store of them."""
    session = ctx.session
    inferior = session.inferior
    stopped = inferior.process is not None and not inferior.running and inferior.selected_tid is not None
    where = Selection(*session.selected_frame()) if stopped else Selection(None)
    if word == "values":
        show_values(session.debugger, where, session.command_memory, rest, ctx.console)
    else:
        show_convenience(session.debugger, where, ctx.console)


def _unset(ctx: Context, text: str) -> Reply:
    if console_targets.unset(ctx, text):
        return None
    words = text.split()
    if words and words[0] == "substitute-path":
        source_paths.unset_substitute_path(ctx, text.strip()[len(words[0]) :])
        return None
    if len(words) >= 2 and words[0] in ("environment", "env"):
        set_variable(ctx.session.inferior.env, words[1], None)
        return None
    raise MiError('"unset" must be followed by the name of an unset subcommand.')


def _echo(ctx: Context, text: str) -> Reply:
    ctx.console(parse_escapes(text))
    return None


def _pwd(ctx: Context, text: str) -> Reply:
    ctx.console(f"Working directory {ctx.session.inferior.cwd}.\n")
    return None


def _cd(ctx: Context, text: str) -> Reply:
    target = misc.change_directory(ctx, text)
    if ctx.from_tty:
        ctx.console(f"Working directory {target}.\n")
    return None


def _shell(ctx: Context, text: str) -> Reply:
    if not ctx.session.config.shell_enabled:
        raise MiError("Shell commands are disabled; start aliceserver with --enable-shell to allow them.")
    import subprocess  # here: a session rarely runs one (subprocess with locale: 1.3 ms of a start)

    result = subprocess.run(text or "true", shell=True, capture_output=True, text=True,
                            cwd=ctx.session.inferior.cwd, check=False)
    ctx.console(result.stdout + result.stderr)
    return None


def _quit(ctx: Context, text: str) -> Reply:
    live = [inferior for inferior in ctx.session.inferiors if inferior.process is not None]
    if live:  # gdb's quit_confirm
        fates = "".join(
            f"\tInferior {inferior.number} [process {inferior.process.pid}] "
            f"will be {'detached' if inferior.process.attached else 'killed'}.\n"
            for inferior in live if inferior.process is not None
        )
        confirm(ctx, f"A debugging session is active.\n\n{fates}\nQuit anyway? ")
    return EXIT


def _tty(ctx: Context, text: str) -> Reply:
    misc.do_set(ctx, f"inferior-tty {text}", from_mi=False)
    return None


def _new_ui(ctx: Context, text: str) -> Reply:
    from aliceserver.adapters.mi.ui import Ui

    words = text.split()
    if len(words) != 2:
        raise MiError("Usage: new-ui INTERPRETER TTY")
    interpreter, path = words
    if interpreter not in ("mi", "mi1", "mi2", "mi3", "mi4", "console"):
        raise MiError(f'Interpreter `{interpreter}\' unrecognized')
    try:
        transport = open_tty_transport(path)
    except OSError as error:
        raise MiError(f"could not open {path}: {error.strerror or error}") from None
    session = ctx.session
    ui = Ui(transport, mi=interpreter != "console", name=path)
    if ui.is_mi:
        ui.line(record("=", "thread-group-added", [("id", "i1")]))
    ui.prompt()
    session.add_ui(ui)
    ctx.console("New UI allocated\n")
    return None


def _help(ctx: Context, text: str) -> Reply:
    from aliceserver.adapters.mi.help_command import help_text

    user_help = user_commands.help_text(ctx, text)
    ctx.console(user_help if user_help is not None else help_text(ctx, text))
    return None


def _apropos(ctx: Context, text: str) -> Reply:
    from aliceserver.adapters.mi.help_command import apropos

    apropos(ctx, text)
    return None


def _source(ctx: Context, text: str) -> Reply:
    from aliceserver.adapters.mi.scripts import source

    return source(ctx, text)


def _python(ctx: Context, text: str) -> Reply:
    from aliceserver.adapters.mi.scripts import python_command

    return python_command(ctx, text)


def _python_interactive(ctx: Context, text: str) -> Reply:
    from aliceserver.adapters.mi.scripts import python_interactive

    return python_interactive(ctx, text)


def _directory(ctx: Context, text: str) -> Reply:
    return source_paths.directory(ctx, text)


def _display(ctx: Context, text: str) -> Reply:
    from aliceserver.adapters.mi import displays

    return displays.add(ctx, text)


def _undisplay(ctx: Context, text: str) -> Reply:
    from aliceserver.adapters.mi import displays

    return displays.remove(ctx, text)


def _break_range(ctx: Context, text: str) -> Reply:
    # gdb's answer on x86-64, whose native target has no ranged breakpoints (PowerPC only)
    raise MiError("This target does not support hardware ranged breakpoints.")


def _unsupported(name: str):  # type: ignore[no-untyped-def]
    def handler(ctx: Context, text: str) -> Reply:
        raise MiError(f'"{name}" is not supported by aliceserver.')

    return handler


def register_all(registry: CliRegistry) -> None:
    add = registry.add
    add("break", _break, "b", "br", "bre", "brea")
    add("tbreak", lambda ctx, text: _break(ctx, text, temporary=True), "tb")
    add("hbreak", lambda ctx, text: _break(ctx, text, hardware=True))
    add("thbreak", lambda ctx, text: _break(ctx, text, temporary=True, hardware=True))
    add("rbreak", rbreak)
    add("clear", _clear)
    add("delete", _delete, "d")
    add("disable", lambda ctx, text: _enable(ctx, text, False), "dis", "disa")
    add("enable", lambda ctx, text: _enable(ctx, text, True), "en")
    add("condition", _condition)
    add("ignore", _ignore)
    add("watch", lambda ctx, text: _watch(ctx, text, ""))
    add("rwatch", lambda ctx, text: _watch(ctx, text, "r"))
    add("awatch", lambda ctx, text: _watch(ctx, text, "a"))
    console_exec.register(registry)
    add("set", _set)
    add("show", _show)
    add("unset", _unset)
    add("echo", _echo)
    add("pwd", _pwd)
    add("cd", _cd)
    add("shell", _shell, "!")
    add("quit", _quit, "q", "exit")
    add("file", lambda ctx, text: console_targets.exec_file(ctx, text, symbols=True))
    add("exec-file", console_targets.exec_file)
    add("tty", _tty)
    add("new-ui", _new_ui)
    add("help", _help, "h")
    add("apropos", _apropos)
    add("source", _source)
    add("directory", _directory, "dir")
    add("display", _display)
    add("undisplay", _undisplay)
    add("python", _python, "py")
    add("python-interactive", _python_interactive, "pi")
    add("record", _unsupported("record"))
    add("stop", lambda ctx, text: None)  # gdb's placeholder: only its hooks (hook-stop) run
    core_commands.register_console(registry)
    add("break-range", _break_range)
    add("interpreter-exec", misc.interpreter_exec_console)
    add("complete", console_complete)
    register_catch(registry)
    register_tracepoints(registry)
    register_print(registry)
    register_frames(registry)
    register_info(registry)
    maint_info.register(registry)
    register_workflow(registry)
    register_inferiors(registry)
    user_commands.register(registry)
    skips.register(registry)
    thread_names.register(registry)
    with_command.register(registry)
    aliases.register(registry)
    console_more.register(registry)
    auto_load.register(registry)
