import { createTestDatabase } from './support/database.ts'
import { vaultSuite } from './secrets-vault.suite.ts'

vaultSuite('the secrets vault on real PostgreSQL', async () => {
  const database = await createTestDatabase()
  return { db: database.db, close: database.drop }
})
