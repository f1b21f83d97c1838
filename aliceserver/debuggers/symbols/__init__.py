"""Symbolics: ELF symbols, link maps, auxv, disassembly, frame-pointer unwinding (DWARF later).

Modules: `elf` (ElfImage, ElfCache), `process` (ProcessSymbols), `linkmap`, `auxv`,
`disasm` (Disassembler), `fpunwind` (fp_backtrace). Nothing is imported here, so importing
one of them does not load capstone or construct for the others.
"""
