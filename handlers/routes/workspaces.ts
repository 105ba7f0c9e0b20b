import { Hono } from 'hono'
import {
  CreateWorkspaceInput,
  PatchWorkspaceInput,
  RepoBriefQuery,
  WorkspaceParams,
} from '../../runtime/contracts/workspaces.ts'
import * as Sessions from '../../runtime/sessions/index.ts'
import * as Workspaces from '../../runtime/workspaces/index.ts'
import type { AppEnv } from '../env.ts'
import { validate } from '../validate.ts'

/**
 * The workspace registry (W1). Paths are checked by the compute host, which owns the filesystem:
 * only a directory that resolves inside POPAGENT_WORKSPACE_ROOT after following links is stored,
 * and it is stored in canonical form.
 */
export const workspaces = new Hono<AppEnv>()
  .get('/', async (c) => c.json({ workspaces: await Workspaces.list(c.var.db) }, 200))
  .post('/', validate('json', CreateWorkspaceInput), async (c) => {
    const input = c.req.valid('json')
    const { path } = await c.var.host.resolveWorkspace({ path: input.path })
    return c.json(await Workspaces.create(c.var.db, { name: input.name, path }), 201)
  })
  .patch(
    '/:id',
    validate('param', WorkspaceParams),
    validate('json', PatchWorkspaceInput),
    async (c) => {
      const input = c.req.valid('json')
      const path = input.path && (await c.var.host.resolveWorkspace({ path: input.path })).path
      const changes = {
        ...(input.name && { name: input.name }),
        ...(path && { path }),
        // The owner's switch for files that run code later (exec-trigger-guard.ts on the host).
        ...(input.allowExecTriggerWrites !== undefined && {
          allowExecTriggerWrites: input.allowExecTriggerWrites,
        }),
      }
      return c.json(await Workspaces.patch(c.var.db, c.req.valid('param').id, changes), 200)
    },
  )
  .get(
    '/:id/repo-brief',
    validate('param', WorkspaceParams),
    validate('query', RepoBriefQuery),
    async (c) => {
      const workspace = await Workspaces.get(c.var.db, c.req.valid('param').id)
      const { q: query } = c.req.valid('query')
      const signal = c.req.raw.signal
      return c.json(await c.var.host.repoBrief({ path: workspace.path, query }, { signal }), 200)
    },
  )
  .delete('/:id', validate('param', WorkspaceParams), async (c) => {
    const { id } = c.req.valid('param')
    await Workspaces.remove(c.var.db, id)
    return c.json({ deleted: id }, 200)
  })
  // Every active and archived session of one workspace and nothing else: their Mastra threads
  // first (through the host), then the rows.
  .delete('/:id/sessions', validate('param', WorkspaceParams), async (c) => {
    const { id } = c.req.valid('param')
    await Workspaces.assertExists(c.var.db, id)
    const ids = await Sessions.idsInWorkspace(c.var.db, id)
    await c.var.host.threads({ sessionIds: ids })
    const deleted = await Sessions.removeMany(c.var.db, ids)
    return c.json({ deleted }, 200)
  })
