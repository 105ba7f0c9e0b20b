import { sessionsSuite } from './sessions.suite.ts'
import { createTestApp } from './support/app.ts'
import { createTestDatabase } from './support/database.ts'

sessionsSuite('sessions on real PostgreSQL', async () => {
  const database = await createTestDatabase()
  const app = createTestApp({ db: database.db })
  return { request: (path, init) => app.request(path, init), close: database.drop }
})
