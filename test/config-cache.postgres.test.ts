import { configCacheSuite } from './config-cache.suite.ts'
import { createTestDatabase } from './support/database.ts'

configCacheSuite('the run configuration cache on real PostgreSQL', async () => {
  const database = await createTestDatabase()
  return { db: database.db, close: database.drop }
})
