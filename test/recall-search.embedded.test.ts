import { recallSearchSuite } from './recall-search.suite.ts'
import { createEmbeddedDatabase } from './support/database.ts'

recallSearchSuite('recall search on the embedded database (PGlite + pgvector)', async () => {
  const database = await createEmbeddedDatabase()
  return { db: database.db, close: database.close }
})
