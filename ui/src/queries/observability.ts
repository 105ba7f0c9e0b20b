import { query, revalidate } from '@solidjs/router'
import type {
  FeedbackBody,
  LogQuery,
  TraceListQuery,
  UsageQuery,
} from '../../../runtime/contracts/observability.ts'
import { api, ok } from '../api.ts'

/** Observability (X7, B2): usage and cost, traces, logs, feedback and the storage's health. */
const obs = api.observability

// Query strings carry strings: numbers and enums are sent as text and parsed by the server.
const asQuery = (q: Record<string, string | number | undefined>) =>
  Object.fromEntries(
    Object.entries(q)
      .filter(([, v]) => v !== undefined && v !== '')
      .map(([k, v]) => [k, String(v)]),
  )

export const getUsage = query(
  (q: Partial<UsageQuery>) => ok(obs.usage.$get({ query: asQuery(q) })),
  'observability-usage',
)

/**
 * Tokens and cost of one session or task over its whole life. `version` (a session's revision, a
 * task's attempt count) only makes a new key, so the figure is asked again after each turn.
 */
export const getRunUsage = query(
  (of: { sessionId?: string; taskId?: string }, _version: number) =>
    ok(obs.usage.$get({ query: asQuery({ groupBy: 'model', days: 365, ...of }) })),
  'observability-run-usage',
)

export const getTraces = query(
  (q: Partial<TraceListQuery>) => ok(obs.traces.$get({ query: asQuery(q) })),
  'observability-traces',
)

export const getTrace = query(
  (id: string) => ok(obs.traces[':id'].$get({ param: { id } })),
  'observability-trace',
)

export const getLogs = query(
  (q: Partial<LogQuery>) => ok(obs.logs.$get({ query: asQuery(q) })),
  'observability-logs',
)

export const getObservabilityHealth = query(() => ok(obs.health.$get()), 'observability-health')

export const getFeedback = query(() => ok(obs.feedback.$get()), 'observability-feedback')

export async function sendFeedback(json: FeedbackBody) {
  const saved = await ok(obs.feedback.$post({ json }))
  await revalidate(getFeedback.key)
  return saved
}
