import { migrateDatabase } from '../../../../compute-host/database/migrate.ts'
import { openNodePostgres } from '../../../../compute-host/database/postgres.ts'
import { createDatabaseOnServer } from '../../../support/database.ts'

/**
 * The databases a process fault's hosts share: an application and an observability database on
 * `server`, and the test's own handle on the application one, migrated. Each is pushed onto
 * `cleanup` as it is made, so a failure part-way still drops what was made.
 */
export async function openFaultDatabases(cleanup: Array<() => Promise<unknown>>, server?: string) {
  const application = await createDatabaseOnServer(server)
  cleanup.push(application.drop)
  const observability = await createDatabaseOnServer(server)
  cleanup.push(observability.drop)
  // A small pool: the test's own reads must not crowd the hosts' connections.
  const handle = openNodePostgres(application.url, { max: 3, applicationName: 'fault-test' })
  cleanup.push(() => handle.close())
  await migrateDatabase(handle)
  return { application, observability, handle }
}
