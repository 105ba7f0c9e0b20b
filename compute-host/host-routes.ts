import type { Context, Hono } from 'hono'
import type { z } from 'zod'
import { hostRoutes, type HostRoute, type HostRoutes } from '../runtime/contracts/host-api.ts'
import { validate } from '../runtime/validate.ts'
import type { Logger } from './log.ts'

/** What a host request carries: the edge's request id and a logger that puts it on every line. */
export type HostEnv = { Variables: { requestId: string; log: Logger } }
export type HostContext = Context<HostEnv>

/** A handler per entry of `hostRoutes`: the validated body in, the JSON answer (or a stream) out. */
export type HostHandlers = {
  [N in keyof HostRoutes]: (
    input: HostRoutes[N] extends { input: infer I extends z.ZodType } ? z.output<I> : undefined,
    c: HostContext,
  ) => Promise<HostAnswer<HostRoutes[N]>> | HostAnswer<HostRoutes[N]>
}
type HostAnswer<R> = R extends { stream: true }
  ? Response
  : R extends { output: infer O extends z.ZodType }
    ? z.input<O>
    : never

/**
 * Registers every route of the table (runtime/contracts/host-api.ts) with its handler. A body is
 * checked by the edge's own `validate()`, so a bad one is the same 400 with the same field errors,
 * and the fault suite finds each route's schema on the router as it does the edge's.
 */
export function serveHostRoutes(app: Hono<HostEnv>, handlers: HostHandlers): void {
  for (const [name, route] of Object.entries(hostRoutes) as [keyof HostRoutes, HostRoute][]) {
    const handler = handlers[name] as (input: unknown, c: HostContext) => unknown
    const answer = async (c: HostContext) => {
      const input = route.input ? c.req.valid('json' as never) : undefined
      const result = await handler(input, c)
      return result instanceof Response ? result : c.json(result as object)
    }
    if (route.input) app.on(route.method, route.path, validate('json', route.input), answer)
    else app.on(route.method, route.path, answer)
  }
}
