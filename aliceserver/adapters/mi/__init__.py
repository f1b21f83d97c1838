"""The GDB/MI front end: `aliceserver -i=mi PROG` speaks gdb's Machine Interface (and a
gdb-like console) over the IDebugger contract. Entry point: `main.main`."""
