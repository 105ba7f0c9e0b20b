import { Hono } from 'hono'
import {
  CreateMcpServerInput,
  McpServerParams,
  PatchMcpServerInput,
} from '../../runtime/contracts/mcp-servers.ts'
import * as McpServers from '../../runtime/mcp-servers/index.ts'
import type { AppEnv } from '../env.ts'
import { validate } from '../validate.ts'

/**
 * The owner's MCP servers (X8, docs/mcp-servers.md): definitions in PostgreSQL, written only
 * here, behind the API key like all of /api. Credentials are vault secrets named by id and never
 * shown. Each server's live state (connected, tools, last error) is the host's to tell.
 */
export const mcpServers = new Hono<AppEnv>()
  .get('/', async (c) => c.json({ servers: await McpServers.list(c.var.db) }, 200))
  .get('/states', async (c) => c.json(await c.var.host.mcpServerStates(), 200))
  .post('/', validate('json', CreateMcpServerInput), async (c) =>
    c.json(await McpServers.create(c.var.db, c.req.valid('json')), 201),
  )
  .get('/:id', validate('param', McpServerParams), async (c) =>
    c.json(await McpServers.get(c.var.db, c.req.valid('param').id), 200),
  )
  .patch(
    '/:id',
    validate('param', McpServerParams),
    validate('json', PatchMcpServerInput),
    async (c) =>
      c.json(await McpServers.patch(c.var.db, c.req.valid('param').id, c.req.valid('json')), 200),
  )
  .delete('/:id', validate('param', McpServerParams), async (c) => {
    const { id } = c.req.valid('param')
    await McpServers.remove(c.var.db, id)
    return c.json({ deleted: id }, 200)
  })
