-- The owner's MCP servers (X8): Streamable HTTP by URL or stdio by argv, credentials named as
-- vault secret ids (never values), the agents given each server's tools.
CREATE TABLE "popagent_mcp_servers" (
	"id" text PRIMARY KEY NOT NULL,
	"display_name" text NOT NULL,
	"transport" text NOT NULL,
	"enabled" boolean NOT NULL,
	"url" text,
	"allow_loopback" boolean NOT NULL,
	"credentials" jsonb NOT NULL,
	"argv" jsonb,
	"env" jsonb NOT NULL,
	"read_only_paths" jsonb NOT NULL,
	"run_on_host" boolean NOT NULL,
	"allow_network" boolean NOT NULL,
	"call_timeout_ms" integer NOT NULL,
	"agent_ids" jsonb NOT NULL,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	"updated_at" timestamp with time zone DEFAULT now() NOT NULL,
	CONSTRAINT "popagent_mcp_servers_transport" CHECK ("transport" in ('http', 'stdio')),
	CONSTRAINT "popagent_mcp_servers_shape" CHECK (("transport" = 'http' and "url" is not null and "argv" is null) or ("transport" = 'stdio' and "argv" is not null and "url" is null)),
	CONSTRAINT "popagent_mcp_servers_timeout" CHECK ("call_timeout_ms" between 1000 and 600000)
);
