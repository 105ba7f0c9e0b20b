import { configCacheSuite } from './config-cache.suite.ts'
import { createEmbeddedDatabase } from './support/database.ts'

configCacheSuite('the run configuration cache on the embedded database (PGlite)', async () => {
  const database = await createEmbeddedDatabase()
  return { db: database.db, close: database.close }
})
