import { Hono } from 'hono'
import {
  AgentRuntimeSettingsPatch,
  AutonomySettingsPatch,
  BrowserSettingsPatch,
  MemorySettingsPatch,
} from '../../runtime/contracts/settings.ts'
import * as Settings from '../../runtime/settings/index.ts'
import type { AppEnv } from '../env.ts'
import { assertKnownModels } from '../known-models.ts'
import { validate } from '../validate.ts'

/** The four settings singletons. Changes apply on the next run; nothing is cached here. */
export const settings = new Hono<AppEnv>()
  .get('/agent-runtime', async (c) => c.json(await Settings.agentRuntime.get(c.var.db), 200))
  .patch('/agent-runtime', validate('json', AgentRuntimeSettingsPatch), async (c) => {
    const input = c.req.valid('json')
    await assertKnownModels(c, {
      configuredModel: input.configuredModel,
      localModel: input.localModel,
      freeCodingModel: input.freeCodingModel,
    })
    return c.json(await Settings.agentRuntime.patch(c.var.db, input), 200)
  })
  .get('/memory', async (c) => c.json(await Settings.memory.get(c.var.db), 200))
  .patch('/memory', validate('json', MemorySettingsPatch), async (c) =>
    c.json(await Settings.patchMemory(c.var.db, c.req.valid('json')), 200),
  )
  .get('/autonomy', async (c) => c.json(await Settings.autonomy.get(c.var.db), 200))
  .patch('/autonomy', validate('json', AutonomySettingsPatch), async (c) =>
    c.json(await Settings.autonomy.patch(c.var.db, c.req.valid('json')), 200),
  )
  .get('/browser', async (c) => c.json(await Settings.browser.get(c.var.db), 200))
  .patch('/browser', validate('json', BrowserSettingsPatch), async (c) =>
    c.json(await Settings.browser.patch(c.var.db, c.req.valid('json')), 200),
  )
