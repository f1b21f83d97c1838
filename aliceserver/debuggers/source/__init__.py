"""The source level: frames, variables, expressions, printers, stepping plans and symbol
queries, written once over the process interface (debuggers/target.py) for every backend
(live ptrace, core files, gdb's remote protocol). Nothing here imports a backend."""
