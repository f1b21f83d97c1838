"""DW_AT_language codes, by their names in pyelftools' ENUM_DW_LANG: which are C, C++ and
Rust, and the name gdb gives each (`show language`, `info frame`, `info source`).

One table: the type builder (C++ spelling of types, prototypes), the type-name index (units
whose types have qualified names) and the language names all ask here, so that a new
standard's code (C++17, C++20, C17...) is one line.
"""

from __future__ import annotations

from elftools.dwarf.enums import ENUM_DW_LANG


def _codes(*names: str) -> frozenset[int]:
    return frozenset(ENUM_DW_LANG["DW_LANG_" + name] for name in names)


C = _codes("C89", "C", "C99", "C11", "C17", "C23")
CPLUS = _codes(
    "C_plus_plus", "C_plus_plus_03", "C_plus_plus_11", "C_plus_plus_14", "C_plus_plus_17",
    "C_plus_plus_20", "C_plus_plus_23",
)  # fmt: skip
RUST = ENUM_DW_LANG["DW_LANG_Rust"]
# The languages whose types have qualified names (`ns::T`, `crate::m::T`).
QUALIFIED_TYPE_NAMES = CPLUS | {RUST}
MIPS_ASSEMBLER = ENUM_DW_LANG["DW_LANG_Mips_Assembler"]  # gas's units: no types
# gdb's prototyped_function_p: only these have functions without a prototype; the others'
# are prototyped with or without DW_AT_prototyped (an assembler unit's `{void (void)}`)
UNPROTOTYPED = C | _codes("ObjC", "OpenCL")

_GDB_NAMES: dict[str, frozenset[int]] = {
    "c": C,
    "c++": CPLUS,
    "rust": frozenset((RUST,)),
    "go": _codes("Go"),
    "d": _codes("D"),
    "objective-c": _codes("ObjC"),
    "opencl": _codes("OpenCL"),
    "ada": _codes("Ada83", "Ada95", "Ada2005", "Ada2012"),
    "pascal": _codes("Pascal83"),
    "modula-2": _codes("Modula2"),
    "fortran": _codes("Fortran77", "Fortran90", "Fortran95", "Fortran03", "Fortran08"),
    "asm": frozenset((MIPS_ASSEMBLER,)),
}
_NAME_OF = {code: name for name, codes in _GDB_NAMES.items() for code in codes}


def language_name(code: object) -> str:
    """gdb's name for a DW_AT_language; languages gdb does not know are `minimal`."""
    return _NAME_OF.get(code, "minimal") if isinstance(code, int) else "minimal"
