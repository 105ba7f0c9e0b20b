import { Hono } from 'hono'
import {
  FeedbackBody,
  LogQuery,
  RetentionSettingsPatch,
  SetModelPrice,
  TraceListQuery,
  TraceParams,
  UsageQuery,
} from '../../runtime/contracts/observability.ts'
import type { AppEnv } from '../env.ts'
import { validate } from '../validate.ts'

/**
 * Observability (X7, B2): usage and cost, traces, logs, feedback, model prices and the storage's
 * health. The observability database is the compute host's, so every route asks the host; the
 * answers are already redacted there.
 */
export const observability = new Hono<AppEnv>()
  .get('/usage', validate('query', UsageQuery), async (c) =>
    c.json(await c.var.host.observabilityUsage(c.req.valid('query')), 200),
  )
  .get('/traces', validate('query', TraceListQuery), async (c) =>
    c.json(await c.var.host.observabilityTraces(c.req.valid('query')), 200),
  )
  .get('/traces/:id', validate('param', TraceParams), async (c) =>
    c.json(await c.var.host.observabilityTrace({ traceId: c.req.valid('param').id }), 200),
  )
  .get('/logs', validate('query', LogQuery), async (c) =>
    c.json(await c.var.host.observabilityLogs(c.req.valid('query')), 200),
  )
  .get('/health', async (c) => c.json(await c.var.host.observabilityHealth(), 200))
  .get('/feedback', async (c) => c.json(await c.var.host.listFeedback(), 200))
  .post('/feedback', validate('json', FeedbackBody), async (c) =>
    c.json(await c.var.host.addFeedback(c.req.valid('json')), 201),
  )
  .get('/prices', async (c) => c.json(await c.var.host.modelPrices(), 200))
  .put('/prices', validate('json', SetModelPrice), async (c) =>
    c.json(await c.var.host.setModelPrice(c.req.valid('json')), 200),
  )
  .get('/retention', async (c) => c.json(await c.var.host.retention(), 200))
  .put('/retention', validate('json', RetentionSettingsPatch), async (c) =>
    c.json(await c.var.host.setRetention(c.req.valid('json')), 200),
  )
