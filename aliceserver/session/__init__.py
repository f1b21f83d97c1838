"""The session core: what every front end keeps about a debugged program, kept once.

Between the front ends (adapters/) and the engine (IDebugger): the program's run state
and a thread-safe wait for its next stop (runstate), and the user's breakpoints under one
numbering with the map from the engine's ids to them (breakpoints). A front end adds only
its own presentation (DAP's ids and verified state, MI's tuples, the agent's replies).
It sees the engine through IDebugger and its events only, as the adapters do.
"""
