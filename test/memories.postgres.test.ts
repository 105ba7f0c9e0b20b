import { memoriesSuite } from './memories.suite.ts'
import { createTestApp } from './support/app.ts'
import { createTestDatabase } from './support/database.ts'

memoriesSuite('memories on real PostgreSQL', async () => {
  const database = await createTestDatabase()
  const app = createTestApp({ db: database.db })
  return { request: (p, init) => app.request(p, init), db: database.db, close: database.drop }
})
