"""gdb's completion of a struct's members in an expression (`print ptr->ne`, `condition 1
values[0].a`): the members of the type of what comes before the last `.` or `->`, as gdb's
add_struct_fields lists them (a pointer's target's; anonymous unions opened, anonymous
structs not; a C++ class's methods but its constructor, and its bases' members).

The type is read from ptype's text of the operand. Other completions of an expression
(symbols, `$` variables) are not made here."""

from __future__ import annotations

import re
from typing import TYPE_CHECKING

from aliceserver.errors import AliceError

if TYPE_CHECKING:
    from aliceserver.adapters.mi.session import MiSession

_MEMBER_WORD = re.compile(r"(\.|->)\s*([A-Za-z_]\w*)?$")
_FUNCTION_POINTER = re.compile(r"\(\s*\*+\s*(\w+)\s*\)")
_LABEL = re.compile(r"\s*(?:public|private|protected):\s*$")
_HEADER_BASES = re.compile(r"^(?:struct|class|union)\s+[\w:<>, ]+?\s:\s(.*)\{\s*$")


def member_completions(session: MiSession, text: str) -> tuple[int, list[str]] | None:
    """Where the member's name starts in `text` and the members it may complete to; None
    when `text` does not end in `EXPR.NAME` / `EXPR->NAME` (NAME may be empty)."""
    found = _MEMBER_WORD.search(text)
    if found is None:
        return None
    operator = found.start()
    start = _operand_start(text, operator)
    operand = text[start:operator].strip()
    if not operand or operand[0].isdigit():
        return None
    session.ensure_symbols()
    where = session.console_selection()
    try:
        if text[:start].strip():  # gdb parses all that comes before: an unknown symbol ends it
            session.debugger.evaluate(text[:operator], where.thread_id, where.level, type_only=True)
    except AliceError as error:
        if str(error).startswith("No symbol"):
            return 0, []
    try:
        described = session.debugger.describe_type(operand, where.thread_id, where.level)
    except AliceError:
        return 0, []
    prefix = found.group(2) or ""
    word = found.end() - len(prefix)
    return word, sorted(
        {name for name in _members(session, described, 0) if name.startswith(prefix)}
    )


def _operand_start(text: str, end: int) -> int:
    """The start of the postfix expression that ends at `end` (names, `.`, `->`, and
    bracketed subscripts and calls)."""
    pos = end
    while pos > 0 and text[pos - 1].isspace():  # `dv . d`
        pos -= 1
    while pos > 0:
        ch = text[pos - 1]
        if ch.isalnum() or ch in "_$.":
            pos -= 1
        elif ch == ">" and pos >= 2 and text[pos - 2] == "-":
            pos -= 2
        elif ch in ")]":
            depth, opener = 0, "(" if ch == ")" else "["
            while pos > 0:
                pos -= 1
                depth += 1 if text[pos] == ch else -1 if text[pos] == opener else 0
                if depth == 0:
                    break
            if depth != 0:
                return 0
        else:
            break
    return pos


def _members(session: MiSession, described: str, depth: int) -> list[str]:
    """The member names of ptype's text of a struct, union or class (`{` ... `}`)."""
    lines = described.splitlines()
    if not lines or not lines[0].rstrip().endswith("{"):
        return []
    names: list[str] = []
    bases = _HEADER_BASES.match(lines[0].replace("type = ", "", 1))
    if bases is not None and depth < 8:
        for base in bases.group(1).split(","):
            base_name = re.sub(r"\b(?:public|private|protected|virtual)\b", "", base).strip()
            try:
                names += _members(session, session.debugger.describe_type(base_name), depth + 1)
            except AliceError:
                continue
    own = re.match(r"(?:type = )?(?:struct|class|union)\s+([\w:]+)", lines[0])
    class_name = own.group(1).split("::")[-1] if own else None
    body = lines[1:]
    i = 0
    while i < len(body):
        line = body[i].strip()
        i += 1
        if line.endswith("{"):  # a nested struct or union: its declarator after its `}`
            nested, level = [line], 1
            while i < len(body) and level:
                inner = body[i].strip()
                level += inner.count("{") - inner.count("}")
                nested.append(inner)
                i += 1
            closing = nested[-1].rstrip(";").lstrip("}").strip()
            if closing:
                names.append(_declarator_name(closing))
            elif line.startswith("union"):  # gdb opens an anonymous union, not a struct
                names += _members(session, "\n".join(nested[:-1] + ["}"]), depth + 1)
            continue
        if not line.endswith(";") or _LABEL.match(line) or line.startswith(("typedef ", "using ")):
            continue
        name = _declarator_name(line.rstrip(";"))
        if name and name != class_name:
            names.append(name)
    return [name for name in names if name]


def _declarator_name(declaration: str) -> str:
    """The name a member's declaration declares: `int b : 3`, `char name[8]`,
    `int (*fn)(int)`, `void run(int) const`, `~D(void)`."""
    pointer = _FUNCTION_POINTER.search(declaration)
    if pointer is not None:
        return pointer.group(1)
    text = re.sub(r"\s*:\s*\d+$", "", declaration)  # a bit field's width
    text = re.sub(r"(\[[^\]]*\])+$", "", text.strip())
    if "(" in text:  # a method: its name is the word before its parameters
        text = text[: text.index("(")]
    found = re.search(r"~?[A-Za-z_]\w*$", text.strip())
    return found.group() if found else ""
