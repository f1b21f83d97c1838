"""gdb's command language, written once for every front end that offers a gdb console.

MI's console (`-interpreter-exec console`, a console UI), the DAP debug console and the
agent console all run these commands. A command takes the IDebugger, the frame the user
has selected (`Selection`) and what the session's commands remember between them
(`CommandMemory`), and writes gdb's text through a `write` callable; it raises AliceError
with gdb's message on failure (after writing what gdb would have printed before it).
"""
