"""A client of gdb's remote serial protocol (RSP): a process behind `gdbserver`, `qemu -g`,
a probe or any stub, as a backend of the process interface (debuggers/target.py).

    packets     framing: checksums, escapes, run-length, hex (pure, no I/O)
    connection  a byte stream (TCP or a command's pipe), acks, timeouts, ^C
    client      the session: qSupported, qXfer, threads, the stop reply of each resume
    tdesc       the target description: registers by name, number, size and group
    stops       stop replies (S/T/W/X/O) decoded into the engine's events
    process     RemoteProcess: ProcessTarget and LiveProcess over a client
"""
