"""The MCP front end: the agent tools (aliceserver.adapters.agent) served over the Model
Context Protocol with the official SDK. Importing this package does not import the SDK;
`aliceserver.adapters.mcp.server` does."""
