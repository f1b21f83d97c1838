"""The index cache's format version (cache.py), apart so that the server's start can
tell whether a program's index is cached before it imports anything (programahead.py)."""

# 2: answers found later (inlined copies) in a second file; 3: LTO copies; 4: the symbol
# table's address index; 5: legacy Rust names with `..` in their path demangled; 6: the
# symbol table's `name@got.plt` slots; 7: the payload's length and CRC-32 in the header;
# 8: aarch64's `name@got.plt` slots; 9: the line part pickled on its own (lineparts.py);
# 10: dwz's partial units left out of the units; 11: the symbol table's name starts; 12: and
# its addresses where several functions start; 13: where the function list's names start,
# and the addresses of the symbol table's address index; 14: a function the DWARF alone
# defines kept by its entry range (a split function's hot part), not lowest to highest,
# and a C++ function's PLT stub demangled (`operator new(unsigned long)@plt`)
FORMAT_VERSION = 14
