import { z } from 'zod'

/** AkurAI Build as this host has it (compute-host/build/client.ts `status`). */
export const BuildStatus = z.discriminatedUnion('enabled', [
  z.object({ enabled: z.literal(false), reason: z.string() }),
  z.object({
    enabled: z.literal(true),
    url: z.string(),
    status: z.enum(['idle', 'connecting', 'connected', 'failed', 'closed']),
    lastError: z.object({ code: z.string(), message: z.string(), at: z.string() }).nullable(),
    /** The server's operations as last listed; null before a listing. */
    operations: z.array(z.string()).nullable(),
    /** Each `build-*` tool's operations the server lacks (reported, never imitated). */
    missing: z.record(z.string(), z.array(z.string())),
  }),
])
export type BuildStatus = z.infer<typeof BuildStatus>
