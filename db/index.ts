import type { PgDatabase, PgQueryResultHKT } from './drizzle-pg-core.ts'
import type { DrizzleConfig } from './drizzle-orm.ts'
import * as schema from './schema/index.ts'

/**
 * The driver-agnostic database handle. The same domain code runs over postgres.js (a real
 * server, Node or Workers) and over in-process PGlite (the embedded default).
 */
export type Db = PgDatabase<PgQueryResultHKT, typeof schema>

export const drizzleOptions = { schema, casing: 'snake_case' } satisfies DrizzleConfig<
  typeof schema
>

export { schema }
