/**
 * Every row of every table of a database, all schemas (ours, drizzle's, Mastra's), each row cast
 * to text: what a backup, a support dump or a leaked replica would hold.
 */
import postgres from 'postgres'

export async function dumpDatabase(url: string): Promise<{ table: string; text: string }[]> {
  const sql = postgres(url, { max: 1, onnotice: () => {} })
  try {
    const tables = await sql<{ schema: string; name: string }[]>`
      select table_schema as schema, table_name as name from information_schema.tables
      where table_type = 'BASE TABLE' and table_schema not in ('pg_catalog', 'information_schema')
      order by 1, 2`
    const out: { table: string; text: string }[] = []
    for (const t of tables) {
      const rows = await sql<{ row: string }[]>`
        select t::text as row from ${sql(t.schema)}.${sql(t.name)} t`
      out.push({ table: `${t.schema}.${t.name}`, text: rows.map((r) => r.row).join('\n') })
    }
    return out
  } finally {
    await sql.end({ timeout: 5 })
  }
}
