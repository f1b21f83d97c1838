"""The Debug Adapter Protocol front end (VS Code, nvim-dap, any DAP client).

`build_dap_server(DapServerConfig(debugger_factory=...))` wires a server; it serves stdio
or a TCP listener, one independent session (and debugger) per connection.
"""

from aliceserver.adapters.dap.server import DapServer, DapServerConfig, build_dap_server

__all__ = ["DapServer", "DapServerConfig", "build_dap_server"]
