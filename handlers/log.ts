import type { Context } from 'hono'
import type { AppEnv } from './env.ts'

/**
 * One JSON line per event on the edge's console (Workers and Node both capture it), tagged with
 * the request id. Callers pass only fields that are safe to log: never bodies or headers.
 */
export function edgeLog(
  level: 'warn' | 'error',
  c: Context<AppEnv>,
  message: string,
  fields: Record<string, unknown> = {},
) {
  const line = JSON.stringify({
    level,
    requestId: c.var.requestId,
    method: c.req.method,
    path: c.req.path,
    message,
    ...fields,
  })
  if (level === 'error') console.error(line)
  else console.warn(line)
}
