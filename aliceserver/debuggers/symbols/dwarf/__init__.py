"""DWARF symbolics: line tables, index, unwinding, types, locations, values and expressions."""
