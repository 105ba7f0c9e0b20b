import { recallSearchSuite } from './recall-search.suite.ts'
import { createTestDatabase } from './support/database.ts'

recallSearchSuite('recall search on real PostgreSQL', async () => {
  const database = await createTestDatabase()
  return { db: database.db, close: database.drop }
})
