import { hooksStoreSuite } from './hooks-store.suite.ts'
import { createTestDatabase } from './support/database.ts'

hooksStoreSuite('hooks and their audit on real PostgreSQL', async () => {
  const database = await createTestDatabase()
  return { db: database.db, close: database.drop }
})
