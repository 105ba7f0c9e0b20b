import { ObservabilityUnavailable, TraceNotFound } from '../../runtime/observability/errors.ts'
import type { HostHandlers } from '../host-routes.ts'
import type { HostResources } from '../resources.ts'
import { addFeedback, listFeedback } from './feedback.ts'
import { currentPrices, setModelPrice } from './model-prices.ts'
import { probeSearxng } from './searxng-probe.ts'
import { lastRetentionRun, readRetention, updateRetention } from './retention.ts'
import { listLogLines, listTraces, readTrace } from './trace-reads.ts'
import { usageReport } from './usage-report.ts'

type ObservabilityHandlers = Pick<
  HostHandlers,
  | 'observabilityUsage'
  | 'observabilityTraces'
  | 'observabilityTrace'
  | 'observabilityLogs'
  | 'observabilityHealth'
  | 'addFeedback'
  | 'listFeedback'
  | 'modelPrices'
  | 'setModelPrice'
  | 'retention'
  | 'setRetention'
>

/** The host's observability endpoints; each reads the observability database, never the app's. */
export function observabilityHandlers($: HostResources): ObservabilityHandlers {
  const obs = $.observability
  const db = $.databases.observability.db
  // Mastra's tables exist only once its init() succeeded; until then a read is a clear 503.
  const storage = () => {
    if (!obs.health().storageReady) throw new ObservabilityUnavailable()
    return obs.storage
  }
  return {
    observabilityUsage: (query) => usageReport(storage(), db, query),
    observabilityTraces: (query) => listTraces(storage(), query),
    observabilityTrace: async ({ traceId }) => {
      const trace = await readTrace(storage(), traceId)
      if (!trace) throw new TraceNotFound({ traceId })
      return trace
    },
    observabilityLogs: (query) => listLogLines(storage(), query),
    observabilityHealth: async () => ({
      ...obs.health(),
      searxng: await probeSearxng($.env.SEARXNG_URL),
    }),
    addFeedback: async (body) => {
      await addFeedback(storage(), body, $.redact)
      return { saved: true as const }
    },
    listFeedback: () => listFeedback(storage()),
    modelPrices: async () => ({ prices: await currentPrices(db) }),
    setModelPrice: async (body) => {
      const price = await setModelPrice(db, body)
      obs.prices.invalidate()
      return price
    },
    retention: async () => {
      const [settings, last] = await Promise.all([readRetention(db), lastRetentionRun(db)])
      return {
        settings,
        lastRun: last
          ? {
              trigger: last.trigger,
              outcome: last.outcome,
              startedAt: last.startedAt.toISOString(),
              finishedAt: last.finishedAt?.toISOString() ?? null,
              partitionsDropped: last.partitionsDropped,
            }
          : null,
        nextRunAt: obs.retention.nextRunAt()?.toISOString() ?? null,
      }
    },
    setRetention: (patch) => updateRetention(db, patch),
  }
}
