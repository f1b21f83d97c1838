"""gdb's `pipe [-d DELIM] COMMAND DELIM SHELL_COMMAND` and `| COMMAND | SHELL_COMMAND`:
what the gdb command prints is fed to the shell command, whose output is shown; the exit
status lands in $_shell_exitcode. A shell runs only where the server's policy allows the
`shell` command (--enable-shell), refused otherwise with the same words, after gdb's own
argument errors (gdb 13's pipe_command)."""

from __future__ import annotations

import dataclasses

from aliceserver.adapters.mi.registry import CliRegistry, Context, MiError, Reply

SHELL_DISABLED = "Shell commands are disabled; start aliceserver with --enable-shell to allow them."


@dataclasses.dataclass
class _Captured(Context):
    """The command's console output, kept for the shell (gdb's execute_command_to_ui_file);
    its errors and warnings still go to the terminal."""

    captured: list[str] = dataclasses.field(default_factory=list)

    def console(self, text: str, *, line_start: bool = False) -> None:
        self.captured.append(text)


def _split(text: str) -> tuple[str, str]:
    """The gdb command and the shell command."""
    delimiter = "|"
    if text.startswith("-d") and (len(text) == 2 or text[2].isspace()):
        words = text[2:].split(None, 1)
        if not words:
            raise MiError("-d requires an argument")
        delimiter, text = words[0], words[1] if len(words) > 1 else ""
    if not text:
        raise MiError("Missing COMMAND")
    at = text.find(delimiter)
    if at < 0:
        raise MiError("Missing delimiter before SHELL_COMMAND")
    command, shell = text[:at].strip(), text[at + len(delimiter):].strip()
    if not command:
        raise MiError("No previous command to relaunch")  # gdb repeats the last one typed
    if not shell:
        raise MiError("Missing SHELL_COMMAND")
    return command, shell


def pipe(ctx: Context, text: str) -> Reply:
    import subprocess  # here: a session rarely pipes (subprocess with locale: 1.3 ms of a start)

    from aliceserver.adapters.mi.console import run_console_command  # it registers this command

    command, shell = _split(text.strip())
    if not ctx.session.config.shell_enabled:
        raise MiError(SHELL_DISABLED)
    captured = _Captured(**{f.name: getattr(ctx, f.name) for f in dataclasses.fields(Context)})
    try:
        run_console_command(captured, command)
    finally:  # the shell gets what was printed before an error too, as gdb's pipe
        done = subprocess.run(shell, shell=True, input="".join(captured.captured), capture_output=True,
                              text=True, cwd=ctx.session.inferior.cwd, check=False)  # fmt: skip
        ctx.console(done.stdout)
        if done.stderr:
            ctx.log(done.stderr)
    if done.returncode >= 0:
        ctx.session.debugger.evaluate(f"$_shell_exitcode = {done.returncode}")
    else:
        ctx.session.debugger.evaluate(f"$_shell_exitsignal = {-done.returncode}")
    return None


def register(registry: CliRegistry) -> None:
    registry.add("pipe", pipe, "|")
