"""Symbolics: ELF symbols, link maps, disassembly (DWARF comes later)."""
