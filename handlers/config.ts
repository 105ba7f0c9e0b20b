import { z } from 'zod'

/**
 * The edge's one configuration schema. On Node it is parsed once from process.env by the entry;
 * on Workers it is parsed from the bindings and memoised per isolate.
 */
export const EdgeConfig = z
  .object({
    // When set, every /api request must carry this value in `x-popagent-key`.
    POPAGENT_API_KEY: z
      .string()
      .min(16, 'POPAGENT_API_KEY must be at least 16 characters')
      .optional(),
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
  .transform((v) => ({
    apiKey: v.POPAGENT_API_KEY,
    hostUrl: v.POPAGENT_HOST_URL.replace(/\/+$/, ''),
    hostToken: v.POPAGENT_HOST_TOKEN,
    maxBodyBytes: v.POPAGENT_MAX_BODY_BYTES,
    databaseUrl: v.DATABASE_URL,
    observabilityDatabaseUrl: v.OBSERVABILITY_DATABASE_URL,
  }))
export type EdgeConfig = z.output<typeof EdgeConfig>

const parsed = new WeakMap<object, EdgeConfig>()

/** Parses once per source object; a bad environment fails with every problem listed. */
export function parseEdgeConfig(source: Record<string, unknown>): EdgeConfig {
  const cached = parsed.get(source)
  if (cached) return cached
  const result = EdgeConfig.safeParse(source)
  if (!result.success) {
    const problems = result.error.issues.map((i) => `${i.path.join('.') || '(env)'}: ${i.message}`)
    throw new Error(`invalid edge configuration:\n  ${problems.join('\n  ')}`)
  }
  parsed.set(source, result.data)
  return result.data
}
