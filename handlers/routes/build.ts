import { Hono } from 'hono'
import {
  CreateBuildMaintenanceScheduleInput,
  QueueBuildMaintenanceInput,
} from '../../runtime/contracts/build.ts'
import { queueBuildMaintenance, scheduleBuildMaintenance } from '../../runtime/build/maintenance.ts'
import { checkedCron } from '../../runtime/schedules/index.ts'
import type { AppEnv } from '../env.ts'
import { assertKnownModels } from '../known-models.ts'
import { validate } from '../validate.ts'

/**
 * AkurAI Build (docs/build.md): whether it is configured on the host, its connection, and which
 * operations each `build-*` tool lacks. Disabled without AKURAI_BUILD_API_KEY: a status, not an
 * error. Behind the API key like all of /api.
 */
export const build = new Hono<AppEnv>()
  .get('/status', async (c) => c.json(await c.var.host.buildStatus(), 200))
  // Queues one build-maintenance task (docs/build.md): refused with the reason while Build is
  // disabled on the host or the AkurAI-Build workspace is not registered.
  .post('/maintenance', validate('json', QueueBuildMaintenanceInput), async (c) => {
    const input = c.req.valid('json')
    await assertKnownModels(c, { model: input.model })
    const status = await c.var.host.buildStatus()
    const disabled = status.enabled ? undefined : status.reason
    return c.json(await queueBuildMaintenance(c.var.db, input, disabled), 201)
  })
  // A recurring build-maintenance schedule, refused the same way; the host checks the cron.
  .post(
    '/maintenance/schedules',
    validate('json', CreateBuildMaintenanceScheduleInput),
    async (c) => {
      const input = c.req.valid('json')
      await assertKnownModels(c, { model: input.model })
      const status = await c.var.host.buildStatus()
      const disabled = status.enabled ? undefined : status.reason
      const cron = checkedCron(input.cron, await c.var.host.cronPreview({ cron: input.cron }))
      return c.json(await scheduleBuildMaintenance(c.var.db, { ...input, cron }, disabled), 201)
    },
  )
