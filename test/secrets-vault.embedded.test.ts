import { createEmbeddedDatabase } from './support/database.ts'
import { vaultSuite } from './secrets-vault.suite.ts'

vaultSuite('the secrets vault on the embedded database (PGlite)', async () => {
  const database = await createEmbeddedDatabase()
  return { db: database.db, close: database.close }
})
