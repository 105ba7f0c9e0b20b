import { docsSuite } from './docs.suite.ts'
import { createTestApp } from './support/app.ts'
import { createTestDatabase } from './support/database.ts'

docsSuite('documentation on real PostgreSQL', async () => {
  const database = await createTestDatabase()
  const app = createTestApp({ db: database.db })
  return { request: (p, init) => app.request(p, init), db: database.db, close: database.drop }
})
