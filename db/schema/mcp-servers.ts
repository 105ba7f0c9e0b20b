import { sql } from '../drizzle-orm.ts'
import { boolean, check, integer, jsonb, pgTable, text } from '../drizzle-pg-core.ts'
import { timestamps } from './_columns.ts'

/** A stdio server's environment variable whose value is a vault secret (named, not stored). */
export type McpSecretEnvRef = { name: string; secretId: string }

/** A header an HTTP server's requests carry, its value a vault secret (named, never stored here). */
export type McpCredentialRef = { header: string; secretId: string; scheme: 'bearer' | 'raw' }

/**
 * The owner's MCP servers (X8). A Streamable HTTP server by URL (HTTPS, or loopback when
 * `allow_loopback`), its credentials vault secrets named by id; or a stdio server by argv, run
 * in the sandbox unless `run_on_host` (the owner's explicit opt-in), with network only when
 * `allow_network`. `agent_ids` are the agents given its tools (`agent_tools` narrows an agent
 * to some of them): tool membership is the owner's.
 */
export const mcpServers = pgTable(
  'popagent_mcp_servers',
  {
    id: text().primaryKey(),
    displayName: text().notNull(),
    transport: text().$type<'http' | 'stdio'>().notNull(),
    enabled: boolean().notNull(),
    url: text(),
    allowLoopback: boolean().notNull(),
    credentials: jsonb().$type<McpCredentialRef[]>().notNull(),
    argv: jsonb().$type<string[]>(),
    env: jsonb().$type<Record<string, string>>().notNull(),
    /** A stdio server's variables whose values the host decrypts from the vault at start. */
    secretEnv: jsonb().$type<McpSecretEnvRef[]>().notNull().default([]),
    readOnlyPaths: jsonb().$type<string[]>().notNull(),
    runOnHost: boolean().notNull(),
    allowNetwork: boolean().notNull(),
    callTimeoutMs: integer().notNull(),
    agentIds: jsonb().$type<string[]>().notNull(),
    /**
     * Per agent of `agent_ids`, the server's tools (as the server names them) that agent gets;
     * an agent not named here gets them all, as do agents given the server before the choice.
     */
    agentTools: jsonb().$type<Record<string, string[]>>().notNull().default({}),
    ...timestamps,
  },
  (t) => [
    check('popagent_mcp_servers_transport', sql`${t.transport} in ('http', 'stdio')`),
    check(
      'popagent_mcp_servers_shape',
      sql`(${t.transport} = 'http' and ${t.url} is not null and ${t.argv} is null) or (${t.transport} = 'stdio' and ${t.argv} is not null and ${t.url} is null)`,
    ),
    check('popagent_mcp_servers_timeout', sql`${t.callTimeoutMs} between 1000 and 600000`),
  ],
)
