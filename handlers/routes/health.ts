import { sql } from '../../db/drizzle-orm.ts'
import { Hono } from 'hono'
import type { Db } from '../../db/index.ts'
import type { HealthBody, ProbeResult } from '../../runtime/contracts/health.ts'
import type { AppEnv } from '../env.ts'
import { errorMessage } from '../../runtime/error-message.ts'
import * as Channels from '../../runtime/channels/index.ts'

const PROBE_TIMEOUT_MS = 3_000

async function probe(db: Db): Promise<ProbeResult> {
  const started = performance.now()
  let timer: ReturnType<typeof setTimeout> | undefined
  try {
    await Promise.race([
      db.execute(sql`select 1`),
      new Promise((_, reject) => {
        timer = setTimeout(
          () => reject(new Error(`no answer within ${PROBE_TIMEOUT_MS} ms`)),
          PROBE_TIMEOUT_MS,
        )
      }),
    ])
    return { ok: true, latencyMs: Math.round(performance.now() - started) }
  } catch (error) {
    const message = errorMessage(error)
    return { ok: false, latencyMs: Math.round(performance.now() - started), error: message }
  } finally {
    clearTimeout(timer)
  }
}

/**
 * Readiness: 200 when both the application and the observability database answer, 503 naming
 * the one that does not. The compute host and the model gateway are reported, never blocking.
 */
export const health = new Hono<AppEnv>().get('/', async (c) => {
  const [application, observability, host, channels] = await Promise.all([
    probe(c.var.db),
    probe(c.var.observabilityDb),
    c.var.host.health({ timeoutMs: PROBE_TIMEOUT_MS }).then(
      (h) => ({ ok: true as const, h }),
      (e: unknown) => ({ ok: false as const, error: errorMessage(e) }),
    ),
    Channels.health(c.var.db).catch(() => null),
  ])
  const body: HealthBody = {
    status: application.ok && observability.ok ? 'ok' : 'unavailable',
    databases: { application, observability },
    computeHost: host.ok
      ? { reachable: true, startedAt: host.h.startedAt, engines: host.h.engines }
      : { reachable: false, error: host.error },
    gateway: host.ok ? host.h.gateway : null,
    localModels: host.ok ? host.h.localModels : null,
    sandbox: host.ok ? host.h.sandbox : null,
    channels,
    mcpServers: host.ok ? host.h.mcpServers : null,
    build: host.ok ? host.h.build : null,
  }
  if (body.status === 'ok') return c.json(body, 200)
  const down = [!application.ok && 'application', !observability.ok && 'observability'].filter(
    Boolean,
  )
  return c.json(
    {
      ...body,
      error: {
        code: 'NOT_READY' as const,
        message: `${down.join(' and ')} database not answering`,
      },
    },
    503,
  )
})
