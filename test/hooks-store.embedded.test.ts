import { hooksStoreSuite } from './hooks-store.suite.ts'
import { createEmbeddedDatabase } from './support/database.ts'

hooksStoreSuite('hooks and their audit on the embedded database (PGlite)', async () => {
  const database = await createEmbeddedDatabase()
  return { db: database.db, close: database.close }
})
