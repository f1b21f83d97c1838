"""gdb's `info pretty-printer`, `info type-printers` and `info frame-filter`: gdb writes
them in Python (gdb/command/pretty_printers.py, type_printers.py, frame_filters.py) over
the printers its scripts registered; here the same listing runs over the printers this
session's scripts registered (libstdc++'s, Rust's, a project's own), through the engine's
gdb Python API. gdb's own global `builtin` collection (mpx_bound128, for a register type
x86-64 Linux no longer has) is listed first, as gdb lists it."""

from __future__ import annotations

from aliceserver.adapters.mi.registry import Context, MiError
from aliceserver.errors import AliceError

_PRETTY = r'''
import re
argv = gdb.string_to_argv(_arg)
if len(argv) > 3:
    raise SyntaxError("too many arguments")
name_sub = argv[1].split(";", 1) if len(argv) >= 2 else [""]
object_re = re.compile(argv[0] if argv else "")
name_re = re.compile(name_sub[0])
subname_re = re.compile(name_sub[1]) if len(name_sub) == 2 else None
def _name(p):
    return p.name if hasattr(p, "name") else p.__name__ if hasattr(p, "__name__") else "unknown"
def _on(enabled):
    return "" if enabled else " [disabled]"
def _list(title, printers, owner):
    if printers and object_re.match(owner):
        print(title)
        for p in sorted(list(printers), key=_name):
            if name_re.match(_name(p)):
                print("  %s%s" % (_name(p), _on(getattr(p, "enabled", True))))
                subs = getattr(p, "subprinters", None)
                for s in sorted(list(subs or []), key=_name):
                    if not subname_re or subname_re.match(s.name):
                        print("    %s%s" % (s.name, _on(s.enabled)))
class _Named:
    def __init__(self, name, subprinters=None):
        self.name, self.enabled, self.subprinters = name, True, subprinters
_builtin = _Named("builtin", [_Named("mpx_bound128")])
_list("global pretty-printers:", [_builtin, *gdb.pretty_printers], "global")
_cp = gdb.current_progspace()
_list("progspace %s pretty-printers:" % _cp.filename, _cp.pretty_printers, "progspace")
for _o in gdb.objfiles():
    _list("objfile %s pretty-printers:" % _o.filename, _o.pretty_printers, _o.filename)
'''

_TYPES = r'''
def _list(printers):
    for p in sorted(list(printers), key=lambda x: x.name):
        print("  %s%s" % (p.name, "" if p.enabled else " [disabled]"))
_sep = ""
for _o in gdb.objfiles():
    if _o.type_printers:
        print("%sType printers for %s:" % (_sep, _o.filename))
        _list(_o.type_printers)
        _sep = "\n"
if gdb.current_progspace().type_printers:
    print("%sType printers for program space:" % _sep)
    _list(gdb.current_progspace().type_printers)
    _sep = "\n"
if gdb.type_printers:
    print("%sGlobal type printers:" % _sep)
    _list(gdb.type_printers)
'''

_FRAMES = r'''
def _priority(f):
    return getattr(f, "priority", 0)
def _print(title, filters, blank):
    if not filters:
        return 0
    print(title)
    print("  Priority  Enabled  Name")
    for name, f in sorted(filters.items(), key=lambda i: _priority(i[1]), reverse=True):
        print("  %s  %s  %s" % ("{:<8}".format(str(_priority(f))),
                                "{:<7}".format("Yes" if getattr(f, "enabled", True) else "No"), name))
    if blank:
        print("")
    return 1
_any = _print("global frame-filters:", gdb.frame_filters, True)
_cp = gdb.current_progspace()
_any += _print("progspace %s frame-filters:" % _cp.filename, _cp.frame_filters, True)
for _o in gdb.objfiles():
    _any += _print("objfile %s frame-filters:" % _o.filename, _o.frame_filters, False)
if _any == 0:
    print("No frame filters.")
'''


def _run(ctx: Context, code: str) -> str:
    session = ctx.session
    inferior = session.inferior
    stopped = inferior.process is not None and not inferior.running and inferior.selected_tid is not None
    try:
        done = session.debugger.run_python(code, None, inferior.selected_tid if stopped else None,
                                           inferior.selected_level if stopped else 0)  # fmt: skip
    except AliceError as error:
        raise MiError(str(error)) from None
    if done.failed:  # as gdb reports an exception its Python command raised
        lines = done.errors.strip().splitlines()
        kind, _, message = (lines[-1] if lines else "Exception: ").partition(": ")
        ctx.log(f"Python Exception <class '{kind}'>: {message}\n")
        raise MiError(f"Error occurred in Python: {message}")
    return done.output


def info_pretty_printer(ctx: Context, text: str) -> None:
    ctx.console(_run(ctx, f"_arg = {text!r}\n" + _PRETTY))


def info_type_printers(ctx: Context, text: str) -> None:
    ctx.console(_run(ctx, _TYPES))


def info_frame_filter(ctx: Context, text: str) -> None:
    ctx.console(_run(ctx, _FRAMES))
