import { sql } from '../db/drizzle-orm.ts'
import { rowsOf } from '../db/rows.ts'
import { observabilityTracesSuite, TRACE_MODEL } from './observability-traces.suite.ts'
import { startTestStack } from './support/stack.ts'

observabilityTracesSuite('traces and usage on PostgreSQL', async () => {
  const stack = await startTestStack({ models: [{ id: TRACE_MODEL }] })
  return {
    host: () => stack.host,
    gateway: stack.gateway,
    request: (path, init) => stack.edge().request(path, init),
    applicationTables: async () =>
      rowsOf<{ name: string }>(
        await stack.database.db.execute(sql`select tablename as name from pg_tables`),
      ).map((r) => r.name),
    close: () => stack.stop(),
  }
})
