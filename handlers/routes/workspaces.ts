import { Hono } from 'hono'
import { z } from 'zod'
import { WorkspaceId } from '../../runtime/ids.ts'
import * as Sessions from '../../runtime/sessions/index.ts'
import * as Workspaces from '../../runtime/workspaces/index.ts'
import type { AppEnv } from '../env.ts'
import { validate } from '../validate.ts'

const WorkspaceParams = z.strictObject({ id: WorkspaceId })

/**
 * Workspace routes. Deleting a workspace's sessions removes every active and archived session of
 * that workspace and nothing else: their Mastra threads first (through the host), then the rows.
 */
export const workspaces = new Hono<AppEnv>().delete(
  '/:id/sessions',
  validate('param', WorkspaceParams),
  async (c) => {
    const { id } = c.req.valid('param')
    await Workspaces.assertExists(c.var.db, id)
    const ids = await Sessions.idsInWorkspace(c.var.db, id)
    await c.var.host.deleteThreads(ids)
    const deleted = await Sessions.removeMany(c.var.db, ids)
    return c.json({ deleted }, 200)
  },
)
