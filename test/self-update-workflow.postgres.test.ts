import { selfUpdateWorkflowSuite } from './self-update-workflow.suite.ts'
import { createTestDatabase } from './support/database.ts'

selfUpdateWorkflowSuite('self-update workflow on PostgreSQL', async () => {
  const database = await createTestDatabase()
  return { handle: database.handle, close: database.drop }
})
