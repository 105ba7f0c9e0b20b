import { Hono } from 'hono'
import {
  CreateHookInput,
  HookParams,
  PatchHookInput,
  SessionHookParams,
  TaskHookParams,
  TestHookInput,
} from '../../runtime/contracts/hooks.ts'
import * as Hooks from '../../runtime/hooks/index.ts'
import type { AppEnv } from '../env.ts'
import { validate } from '../validate.ts'

/**
 * Hooks (X3): definitions live in PostgreSQL and are written only here. A test run executes the
 * hook on the compute host (the sandbox and the network are there) and is audited like any run.
 */
export const hooks = new Hono<AppEnv>()
  .get('/', async (c) => c.json({ hooks: await Hooks.list(c.var.db) }, 200))
  .post('/', validate('json', CreateHookInput), async (c) =>
    c.json(await Hooks.create(c.var.db, c.req.valid('json')), 201),
  )
  .patch('/:id', validate('param', HookParams), validate('json', PatchHookInput), async (c) =>
    c.json(await Hooks.patch(c.var.db, c.req.valid('param').id, c.req.valid('json')), 200),
  )
  .delete('/:id', validate('param', HookParams), async (c) => {
    const { id } = c.req.valid('param')
    await Hooks.remove(c.var.db, id)
    return c.json({ deleted: id }, 200)
  })
  .post('/:id/test', validate('param', HookParams), validate('json', TestHookInput), async (c) =>
    c.json(await c.var.host.hookTest({ id: c.req.valid('param').id, ...c.req.valid('json') }), 200),
  )

/** The audit trail of a session's hook runs (mounted under /sessions). */
export const sessionHooks = new Hono<AppEnv>().get(
  '/:id/hooks',
  validate('param', SessionHookParams),
  async (c) =>
    c.json({ runs: await Hooks.runsOf(c.var.db, { sessionId: c.req.valid('param').id }) }, 200),
)

/** The audit trail of a task's hook runs (mounted under /tasks). */
export const taskHooks = new Hono<AppEnv>().get(
  '/:id/hooks',
  validate('param', TaskHookParams),
  async (c) =>
    c.json({ runs: await Hooks.runsOf(c.var.db, { taskId: c.req.valid('param').id }) }, 200),
)
