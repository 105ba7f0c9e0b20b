-- Vault secrets in a stdio MCP server's environment (issue 40): variable names bound to vault
-- secret ids (never values), decrypted on the host when the server is started.
ALTER TABLE "popagent_mcp_servers" ADD COLUMN "secret_env" jsonb DEFAULT '[]'::jsonb NOT NULL;
