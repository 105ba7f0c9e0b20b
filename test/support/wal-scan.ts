/**
 * What PostgreSQL's write-ahead log recorded since the window opened: the raw bytes of the WAL
 * from the insert position at opening to the end of the current segment, read through the server (the test role
 * is a superuser; `pg_read_binary_file` reads the data directory wherever the server runs). A
 * value written and later overwritten stays here, which a scan of the tables cannot see. Values
 * PostgreSQL compressed (TOAST, over about 2 KB) are not recognisable in it: a scan of the log
 * proves the absence of uncompressed writes only.
 */
import postgres from 'postgres'

export type WalWindow = { text(): Promise<string>; close(): Promise<void> }

export async function openWalWindow(url: string): Promise<WalWindow> {
  const sql = postgres(url, { max: 1, onnotice: () => {} })
  const [start] = await sql<{ file: string; offset: number }[]>`
    select file_name as file, file_offset as offset
    from pg_walfile_name_offset(pg_current_wal_insert_lsn())`
  return {
    async text() {
      const [end] = await sql<{ file: string }[]>`
        select pg_walfile_name(pg_current_wal_insert_lsn()) as file`
      const files = await sql<{ name: string }[]>`
        select name from pg_ls_waldir()
        where name ~ '^[0-9A-F]{24}$' and name between ${start!.file} and ${end!.file}
        order by name`
      let text = ''
      for (const { name } of files) {
        const [row] = await sql<{ bytes: Buffer }[]>`
          select pg_read_binary_file('pg_wal/' || ${name}) as bytes`
        // The first segment from the window's start: what it held before is not the window's.
        const from = name === start!.file ? start!.offset : 0
        text += row!.bytes.subarray(from).toString('latin1')
      }
      return text
    },
    close: () => sql.end({ timeout: 5 }),
  }
}
