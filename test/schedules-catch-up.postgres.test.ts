import { scheduleCatchUpSuite } from './schedules-catch-up.suite.ts'
import { createTestApp } from './support/app.ts'
import { createTestDatabase } from './support/database.ts'

scheduleCatchUpSuite('missed schedule occurrences on real PostgreSQL', async () => {
  const database = await createTestDatabase()
  const app = createTestApp({ db: database.db })
  return { db: database.db, request: (path, init) => app.request(path, init), close: database.drop }
})
