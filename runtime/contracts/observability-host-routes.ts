import type { HostRoute } from './host-api.ts'
import {
  FeedbackBody,
  FeedbackList,
  FeedbackSaved,
  LogLines,
  LogQuery,
  ModelPrice,
  ModelPrices,
  ObservabilityHealth,
  RetentionReport,
  RetentionSettings,
  RetentionSettingsPatch,
  SetModelPrice,
  TraceDetail,
  TraceList,
  TraceListQuery,
  TraceRef,
  UsageQuery,
  UsageReport,
} from './observability.ts'

const read = { method: 'POST', timeoutMs: 30_000 } as const

/**
 * The host endpoints behind /api/observability: the observability database is the host's, so the
 * edge asks it. Spread into `hostRoutes` (host-api.ts), one entry each.
 */
export const observabilityHostRoutes = {
  observabilityUsage: {
    ...read,
    path: '/internal/observability/usage',
    input: UsageQuery,
    output: UsageReport,
    does: 'total the token usage',
  },
  observabilityTraces: {
    ...read,
    path: '/internal/observability/traces',
    input: TraceListQuery,
    output: TraceList,
    does: 'list the traces',
  },
  observabilityTrace: {
    ...read,
    path: '/internal/observability/trace',
    input: TraceRef,
    output: TraceDetail,
    does: 'read the trace',
  },
  observabilityLogs: {
    ...read,
    path: '/internal/observability/logs',
    input: LogQuery,
    output: LogLines,
    does: 'read the logs',
  },
  observabilityHealth: {
    method: 'GET',
    path: '/internal/observability/health',
    output: ObservabilityHealth,
    timeoutMs: 10_000,
    does: 'report the observability storage',
  },
  addFeedback: {
    ...read,
    path: '/internal/observability/feedback',
    input: FeedbackBody,
    output: FeedbackSaved,
    does: 'store the feedback',
  },
  listFeedback: {
    method: 'GET',
    path: '/internal/observability/feedback',
    output: FeedbackList,
    timeoutMs: 30_000,
    does: 'list the feedback',
  },
  modelPrices: {
    method: 'GET',
    path: '/internal/observability/prices',
    output: ModelPrices,
    timeoutMs: 10_000,
    does: 'read the model prices',
  },
  setModelPrice: {
    ...read,
    path: '/internal/observability/prices',
    input: SetModelPrice,
    output: ModelPrice,
    does: 'store the model price',
  },
  retention: {
    method: 'GET',
    path: '/internal/observability/retention',
    output: RetentionReport,
    timeoutMs: 10_000,
    does: 'read the retention settings',
  },
  setRetention: {
    ...read,
    path: '/internal/observability/retention',
    input: RetentionSettingsPatch,
    output: RetentionSettings,
    does: 'store the retention settings',
  },
} as const satisfies Record<string, HostRoute>
