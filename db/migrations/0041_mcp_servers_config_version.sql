-- The owner's MCP servers are part of what a run reads (compute-host/config-cache.ts keeps them
-- per version of the configuration counter, 0017): a change moves the counter.
CREATE TRIGGER "popagent_mcp_servers_config_version" AFTER INSERT OR UPDATE OR DELETE OR TRUNCATE ON "popagent_mcp_servers" FOR EACH STATEMENT EXECUTE FUNCTION "popagent_bump_config_version"();
