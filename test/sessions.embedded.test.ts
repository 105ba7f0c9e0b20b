import { sessionsSuite } from './sessions.suite.ts'
import { createTestApp } from './support/app.ts'
import { createEmbeddedDatabase } from './support/database.ts'

sessionsSuite('sessions on the embedded database (PGlite)', async () => {
  const database = await createEmbeddedDatabase()
  const app = createTestApp({ db: database.db })
  return { request: (path, init) => app.request(path, init), close: database.close }
})
