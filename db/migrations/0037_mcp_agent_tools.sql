-- Per-tool choice within an MCP server (issue 40): for an agent given the server, the server's
-- tools (by the server's names) that agent gets. An agent not named gets every tool, as before.
ALTER TABLE "popagent_mcp_servers" ADD COLUMN "agent_tools" jsonb DEFAULT '{}'::jsonb NOT NULL;
