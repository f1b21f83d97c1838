"""import_quietly: the module, the collector paused only meanwhile, the imports frozen."""

from __future__ import annotations

import gc
import sys

from aliceserver.startup import import_quietly


def test_imports_with_the_collector_paused_then_restores_it() -> None:
    name = "aliceserver.debuggers.symbols.dwarf.expr.lexer"
    sys.modules.pop(name, None)
    frozen_before = gc.get_freeze_count()
    assert gc.isenabled()
    module = import_quietly(name)
    assert module is sys.modules[name]
    assert gc.isenabled()
    assert gc.get_freeze_count() > frozen_before
    gc.disable()
    try:  # a caller that had it off keeps it off
        import_quietly("aliceserver.errors")
        assert not gc.isenabled()
    finally:
        gc.enable()


def test_a_module_imported_already_is_not_frozen_again() -> None:
    # A server that starts an engine per connection must not freeze each session's garbage.
    import_quietly("aliceserver.errors")
    session_objects = [[] for _ in range(100)]  # what a session made meanwhile
    frozen_before = gc.get_freeze_count()
    assert import_quietly("aliceserver.errors") is sys.modules["aliceserver.errors"]
    assert gc.get_freeze_count() == frozen_before
    assert len(session_objects) == 100
