import { memoriesSuite } from './memories.suite.ts'
import { createTestApp } from './support/app.ts'
import { createEmbeddedDatabase } from './support/database.ts'

memoriesSuite('memories on the embedded database (PGlite)', async () => {
  const database = await createEmbeddedDatabase()
  const app = createTestApp({ db: database.db })
  return { request: (p, init) => app.request(p, init), db: database.db, close: database.close }
})
