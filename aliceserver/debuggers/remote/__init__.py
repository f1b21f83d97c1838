"""A client of gdb's remote serial protocol (RSP): a process behind `gdbserver`, `qemu -g`,
a probe or any stub, as a backend of the process interface (debuggers/target.py).

    packets     framing: checksums, escapes, run-length, hex (pure, no I/O)
    connection  a byte stream (TCP or a command's pipe), acks, timeouts, ^C
    client      the session: qSupported, qXfer, threads, Hg, the wait for a stop reply
    tdesc       the target description: registers by name, number, size and group
    registers   the description's registers as the engine's names and DWARF numbers
    regcache    one stop's registers per thread (`g`, `p`, those a stop reply carried)
    memory      `x`/`m` reads and `X`/`M` writes in chunks of the packet size
    stops       stop replies (S/T/W/X/w/N) decoded into the engine's events
    signals     gdb's wire signal numbers to and from this host's
    threadids   `pPID.TID` thread ids; threadlist: the threads of one stop
    breakpoints Z0-Z4, our own int3 where Z0 is missing, and what must be stepped over
    resume      the packets of a resume: vCont actions, or c/s with Hc
    libraries   qXfer:libraries-svr4:read (the memory walk where it fails, as gdb), and
                qXfer:libraries:read where no SVR4 list is offered (gdb's solib-target:
                re-read at each `library` stop reply; segments or sections)
    solibevents the loader's events as library stops (catch load, stop-on-solib-events)
    hostio      vFile: open/pread/fstat/close: the target's files (gdb's host I/O)
    targetfiles the program's and libraries' files under the sysroot `target:`, copied
                into the cache directory and read from there
    target      RemoteTarget: the read side (ProcessTarget)
    process     RemoteProcess: connect/run/attach and the live side (LiveProcess)
    session     RemoteSession: the engine's live process over a stub (RemoteTargets),
                execution, stop replies turned into events, step plans
    waiter      the wait for a stop reply, on the engine's thread between its commands
    traps       the engine's logical breakpoints placed with Z0 (AddressBreakpoints)
    watches     watchpoints with Z2/Z4, judged at each watch stop
    calls       calls into the program (calls/driver.py's CallThread): the calling
                thread alone (vCont;c:TID), a Z0 return trap, registers put back
"""
