import { mkdtemp, rm } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { sql } from '../db/drizzle-orm.ts'
import { rowsOf } from '../db/rows.ts'
import { parseHostEnv } from '../compute-host/env.ts'
import { startComputeHost } from '../compute-host/main.ts'
import { observabilityTracesSuite, TRACE_MODEL } from './observability-traces.suite.ts'
import { createTestApp } from './support/app.ts'
import { startScriptedGateway } from './support/scripted-gateway.ts'
import { quietLog } from './support/stack.ts'

// The single embedded instance: observability in its own schema beside the application's data.
observabilityTracesSuite('traces and usage on the embedded database (PGlite)', async () => {
  const dir = await mkdtemp(join(tmpdir(), 'popagent-obs-embedded-'))
  const gateway = await startScriptedGateway({ models: [{ id: TRACE_MODEL }] })
  const host = await startComputeHost(
    parseHostEnv({
      POPAGENT_DATA_DIR: join(dir, 'data'),
      POPAGENT_WORKSPACE_ROOT: join(dir, 'workspaces'),
      NINEROUTER_URL: gateway.url,
    }),
    { port: 0, log: quietLog() },
  )
  const { application, observability } = host.resources.databases
  const edge = createTestApp({
    db: application.db,
    observabilityDb: observability.db,
    hostUrl: host.url,
    hostToken: host.token,
  })
  return {
    host: () => host,
    gateway,
    request: (path, init) => edge.request(path, init),
    // The application's schemas only: the observability schema is the other database.
    applicationTables: async () =>
      rowsOf<{ name: string }>(
        await application.db.execute(
          sql`select tablename as name from pg_tables where schemaname <> 'observability'`,
        ),
      ).map((r) => r.name),
    close: async () => {
      await host.stop()
      await gateway.close()
      await rm(dir, { recursive: true, force: true })
    },
  }
})
