"""gdb's command language hosted by the front ends that are not MI (the DAP debug console,
the agent's debug_console): the MI session's console, run over the same debugger."""
