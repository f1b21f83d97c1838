"""Pretty printers written for gdb (libstdc++'s, Rust's, a project's own), run through a
module that offers the part of gdb's Python API they use (printers/gdb). Nothing here is
imported until a C++ or Rust value (or a user's script) needs it; see host.py."""
