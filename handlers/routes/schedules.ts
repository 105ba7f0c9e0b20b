import { Hono } from 'hono'
import {
  CronPreviewInput,
  CreateScheduleInput,
  type CronPreviewAnswer,
  PatchScheduleInput,
  ScheduleHistoryQuery,
  ScheduleParams,
} from '../../runtime/contracts/schedules.ts'
import * as Channels from '../../runtime/channels/index.ts'
import { HostUnavailable } from '../../runtime/errors.ts'
import { history } from '../../runtime/schedules/history.ts'
import * as Schedules from '../../runtime/schedules/index.ts'
import { runNow } from '../../runtime/schedules/run-now.ts'
import type { AppEnv } from '../env.ts'
import type { HostClient } from '../host-client.ts'
import { assertKnownModels } from '../known-models.ts'
import { validate } from '../validate.ts'

/**
 * Cron schedules (T9). The compute host owns croner and the server's timezone: every expression
 * is checked there before anything is stored, so with the host down a create (or a cron change)
 * is a 503 and stores nothing. Reads and other edits need only the database; their `timezone` is
 * null when the host does not answer. A model id is checked against the gateway's catalog when it
 * is set, so a schedule never fires tasks for a model the gateway does not offer.
 */
const checkCron = async (host: HostClient, cron: string) =>
  Schedules.checkedCron(cron, await host.cronPreview({ cron }))

async function timezoneOf(host: HostClient): Promise<string | null> {
  try {
    return (await host.cronTimezone({ timeoutMs: 2_000 })).timezone
  } catch (error) {
    if (error instanceof HostUnavailable) return null
    throw error
  }
}

export const schedules = new Hono<AppEnv>()
  .get('/', async (c) => {
    const timezone = await timezoneOf(c.var.host)
    return c.json({ schedules: await Schedules.list(c.var.db, timezone) }, 200)
  })
  .post('/', validate('json', CreateScheduleInput), async (c) => {
    const input = c.req.valid('json')
    await assertKnownModels(c, { model: input.model })
    await Channels.assertDeliverable(c.var.db, input.deliverTo)
    const cron = await checkCron(c.var.host, input.cron)
    return c.json(await Schedules.create(c.var.db, { ...input, cron, source: 'user' }), 201)
  })
  // Checks an expression as it is typed (the UI's live preview); stores nothing. Croner's message
  // comes back as a 400 INVALID_CRON, and a host that does not answer is a 503.
  .post('/preview', validate('json', CronPreviewInput), async (c) => {
    const { next, timezone } = await c.var.host.cronPreview({ cron: c.req.valid('json').cron })
    const answer: CronPreviewAnswer = { next, timezone }
    return c.json(answer, 200)
  })
  .patch(
    '/:id',
    validate('param', ScheduleParams),
    validate('json', PatchScheduleInput),
    async (c) => {
      const { cron, ...fields } = c.req.valid('json')
      await assertKnownModels(c, { model: fields.model })
      await Channels.assertDeliverable(c.var.db, fields.deliverTo)
      const checked = cron === undefined ? undefined : await checkCron(c.var.host, cron)
      const changes = { ...fields, ...(checked && { cron: checked }) }
      const timezone = checked ? checked.timezone : await timezoneOf(c.var.host)
      return c.json(
        await Schedules.patch(c.var.db, c.req.valid('param').id, changes, timezone),
        200,
      )
    },
  )
  // The schedule's task, queued now as an occurrence would be; needs only the database.
  .post('/:id/run', validate('param', ScheduleParams), async (c) =>
    c.json(await runNow(c.var.db, c.req.valid('param').id), 201),
  )
  // Its occurrences, fired and skipped, newest first; needs only the database.
  .get(
    '/:id/history',
    validate('param', ScheduleParams),
    validate('query', ScheduleHistoryQuery),
    async (c) => {
      const { id } = c.req.valid('param')
      return c.json({ history: await history(c.var.db, id, c.req.valid('query').limit) }, 200)
    },
  )
  .delete('/:id', validate('param', ScheduleParams), async (c) => {
    const { id } = c.req.valid('param')
    await Schedules.remove(c.var.db, id)
    return c.json({ deleted: id }, 200)
  })
