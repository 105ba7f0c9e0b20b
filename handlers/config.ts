import { z } from 'zod'
import { withoutEmptyValues } from '../runtime/env-values.ts'
import {
  LOOPBACK_HOSTS,
  parseAllowedHosts,
  type HostAllowlist,
  type HostPattern,
} from './host-allowlist.ts'

/** Which entry parses the configuration; it decides the defaults below that differ. */
export type EdgeRuntime = 'node' | 'workers'

/**
 * The edge's one configuration schema. On Node it is parsed once from process.env by the entry;
 * on Workers it is parsed from the bindings and memoised per isolate.
 */
const EdgeEnv = z.object({
  // When set, every /api request must carry this value in `x-popagent-key`. `popagent start` and
  // `popagent edge` always set it (generated into the data directory when the operator did not).
  POPAGENT_API_KEY: z
    .string()
    .min(16, 'POPAGENT_API_KEY must be at least 16 characters')
    .optional(),
  // Public names (`name` or `name:port`, comma-separated) the edge answers for besides loopback.
  POPAGENT_ALLOWED_HOSTS: z
    .string()
    .optional()
    .transform((value, ctx) => {
      if (value === undefined) return undefined
      const parsed = parseAllowedHosts(value)
      if (parsed.bad) {
        ctx.addIssue({
          code: 'custom',
          message: `not a host name: ${parsed.bad.map((b) => JSON.stringify(b)).join(', ')} (give names such as agent.example.com or agent.example.com:8443, without a scheme or path)`,
        })
        return z.NEVER
      }
      return parsed.hosts
    }),
  // Where the compute host's internal API listens, and the token it expects.
  POPAGENT_HOST_URL: z.url().default('http://127.0.0.1:3100'),
  POPAGENT_HOST_TOKEN: z.string().min(16, 'POPAGENT_HOST_TOKEN must be at least 16 characters'),
  // Largest JSON body accepted by /api routes; bigger ones get 413.
  POPAGENT_MAX_BODY_BYTES: z.coerce
    .number()
    .int()
    .min(1024)
    .max(64 * 1024 * 1024)
    .default(4 * 1024 * 1024),
  // Set on Workers and for a separate `popagent edge`; the embedded start injects its handles.
  DATABASE_URL: z.string().optional(),
  OBSERVABILITY_DATABASE_URL: z.string().optional(),
})

export type EdgeConfig = {
  apiKey: string | undefined
  /**
   * Without a key: false on Node, where the entry points always supply one and the Node edge
   * refuses a non-loopback bind without one (entry.node.ts); true on Workers, whose /api then
   * answers 503 instead of running open to the internet.
   */
  apiKeyRequired: boolean
  /** The Host names answered (middleware/allowed-hosts.ts). */
  allowedHosts: HostAllowlist
  /** Whether POPAGENT_ALLOWED_HOSTS named any public host (the start-up warning reads it). */
  publicHostsConfigured: boolean
  hostUrl: string
  hostToken: string
  /**
   * The host's API called in the same process, set by `popagent start` (never from the
   * environment); without it the edge calls `hostUrl` over HTTP.
   */
  hostFetch?: (url: string, init: RequestInit) => Promise<Response>
  maxBodyBytes: number
  databaseUrl: string | undefined
  observabilityDatabaseUrl: string | undefined
}

/**
 * Node answers the loopback names plus the configured ones. Workers are reached on their own
 * public hostname (workers.dev or a custom domain), and Cloudflare routes a request to this
 * Worker only when its Host is one of the Worker's routes, so a rebound name never arrives:
 * without POPAGENT_ALLOWED_HOSTS a Worker answers any Host it is given, and with it only those.
 */
function allowlistFor(runtime: EdgeRuntime, configured: HostPattern[] | undefined): HostAllowlist {
  const listed = configured?.length ? configured : undefined
  if (runtime === 'workers') return listed ?? 'any'
  return [...LOOPBACK_HOSTS, ...(listed ?? [])]
}

const parsed = {
  node: new WeakMap<object, EdgeConfig>(),
  workers: new WeakMap<object, EdgeConfig>(),
}

/** Parses once per source object; a bad environment fails with every problem listed. */
export function parseEdgeConfig(
  source: Record<string, unknown>,
  runtime: EdgeRuntime = 'node',
): EdgeConfig {
  const cached = parsed[runtime].get(source)
  if (cached) return cached
  const result = EdgeEnv.safeParse(withoutEmptyValues(source))
  if (!result.success) {
    const problems = result.error.issues.map((i) => `${i.path.join('.') || '(env)'}: ${i.message}`)
    throw new Error(`invalid edge configuration:\n  ${problems.join('\n  ')}`)
  }
  const v = result.data
  const config: EdgeConfig = {
    apiKey: v.POPAGENT_API_KEY,
    apiKeyRequired: runtime === 'workers',
    allowedHosts: allowlistFor(runtime, v.POPAGENT_ALLOWED_HOSTS),
    publicHostsConfigured: (v.POPAGENT_ALLOWED_HOSTS?.length ?? 0) > 0,
    hostUrl: v.POPAGENT_HOST_URL.replace(/\/+$/, ''),
    hostToken: v.POPAGENT_HOST_TOKEN,
    maxBodyBytes: v.POPAGENT_MAX_BODY_BYTES,
    databaseUrl: v.DATABASE_URL,
    observabilityDatabaseUrl: v.OBSERVABILITY_DATABASE_URL,
  }
  parsed[runtime].set(source, config)
  return config
}
