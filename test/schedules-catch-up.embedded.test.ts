import { scheduleCatchUpSuite } from './schedules-catch-up.suite.ts'
import { createTestApp } from './support/app.ts'
import { createEmbeddedDatabase } from './support/database.ts'

scheduleCatchUpSuite('missed schedule occurrences on the embedded database (PGlite)', async () => {
  const database = await createEmbeddedDatabase()
  const app = createTestApp({ db: database.db })
  return {
    db: database.db,
    request: (path, init) => app.request(path, init),
    close: database.close,
  }
})
