import { Hono } from 'hono'
import type { AppEnv } from '../env.ts'

/**
 * Autonomy (issue 24). `POST /reconcile` gives each eligible workspace its one system self-update
 * schedule, never changing an existing one, and reports every workspace's eligibility with its
 * reasons. The work needs the repositories, so the compute host does it.
 */
export const autonomy = new Hono<AppEnv>().post('/reconcile', async (c) =>
  c.json(await c.var.host.autonomyReconcile(), 200),
)
