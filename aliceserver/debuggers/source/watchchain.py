"""The memory a watched expression that is no lvalue reads (gdb's value chain, for
`watch a + b`, `watch q.d + q.f`, `watch s.x * 2`): each variable, member or element
whose value it fetches. A member's or an element's own bytes are fetched, not the whole
of the struct or array around it (gdb's lazy values). The places must stay put: an
expression that reads memory through a pointer or by a variable index would move with
them (gdb re-reads its chain then); that is refused."""

from __future__ import annotations

from collections.abc import Callable

from aliceserver.debuggers.symbols.dwarf.expr import ast
from aliceserver.debuggers.symbols.dwarf.values import Value
from aliceserver.errors import ProtocolError

Region = tuple[int, int]  # address, size in bytes


def fixed_regions(tree: ast.Expr, value_of: Callable[[ast.Expr], Value], text: str) -> list[Region]:
    """The (address, size) of each memory value `tree` reads, in order, no repeats."""
    found: list[Region] = []
    _collect(tree, True, value_of, text, found)
    if not found:
        raise ProtocolError(f"Cannot watch constant value `{text}'.")  # gdb's words
    return _merged(found)


def _merged(regions: list[Region]) -> list[Region]:
    """The places with those that overlap or touch made one (bit-fields of one word share
    its bytes: one register, not one each)."""
    out: list[list[int]] = []
    for start, size in sorted(regions):
        if out and start <= out[-1][1]:
            out[-1][1] = max(out[-1][1], start + size)
        else:
            out.append([start, start + size])
    return [(start, end - start) for start, end in out]


def _collect(node: ast.Expr, read: bool, value_of: Callable[[ast.Expr], Value], text: str,
             found: list[Region]) -> None:  # fmt: skip
    """`read`: the node's own value is fetched (not so for the struct a `.` reads a
    member of, nor the array indexed)."""
    if isinstance(node, (ast.IntLit, ast.FloatLit, ast.DecimalFloatLit, ast.CharLit, ast.SizeofType)):
        return
    if isinstance(node, ast.Name) or (isinstance(node, ast.Member) and not node.arrow):
        if isinstance(node, ast.Member):
            _collect(node.base, False, value_of, text, found)
        if read:
            _place(node, value_of, text, found)
        return
    if isinstance(node, ast.Index) and isinstance(node.index, ast.IntLit):
        base = value_of(node.base)
        if base.address is None or _is_pointer(base):
            raise _moves(text)
        _collect(node.base, False, value_of, text, found)
        if read:
            _place(node, value_of, text, found)
        return
    if isinstance(node, (ast.Binary, ast.Comma)):
        for part in (node.left, node.right) if isinstance(node, ast.Binary) else (node.first, node.then):
            _collect(part, True, value_of, text, found)
        return
    if isinstance(node, ast.Ternary):
        for part in (node.condition, node.then, node.otherwise):
            _collect(part, True, value_of, text, found)
        return
    if isinstance(node, (ast.Cast, ast.NamedCast)):
        _collect(node.operand, True, value_of, text, found)
        return
    if isinstance(node, ast.Unary) and node.op in ("-", "+", "!", "~"):
        _collect(node.operand, True, value_of, text, found)
        return
    if isinstance(node, ast.Unary) and node.op in ("&", "sizeof"):
        return  # an address, a size: no value read
    if isinstance(node, (ast.Member, ast.Index)) or (isinstance(node, ast.Unary) and node.op == "*"):
        raise _moves(text)
    raise ProtocolError(f"cannot watch {text!r}: it is not in memory")


def _place(node: ast.Expr, value_of: Callable[[ast.Expr], Value], text: str, found: list[Region]) -> None:
    value = value_of(node)
    if value.address is None:  # a register, a constant: no memory to watch
        raise ProtocolError(f"cannot watch {text!r}: a value it reads is not in memory")
    if value.bit_size:  # a bit-field: the bytes that hold its bits
        first = value.address + value.bit_offset // 8
        found.append((first, (value.bit_offset % 8 + value.bit_size + 7) // 8))
        return
    found.append((value.address, value.byte_size))


def _is_pointer(value: Value) -> bool:
    from aliceserver.debuggers.symbols.dwarf.types import PointerType, strip

    return isinstance(strip(value.type), PointerType)


def _moves(text: str) -> ProtocolError:
    return ProtocolError(
        f"cannot watch {text!r}: it is not in memory, and the memory it reads moves with a "
        "pointer or an index (a watch that follows them is not supported)"
    )
