import { selfUpdateWorkflowSuite } from './self-update-workflow.suite.ts'
import { createEmbeddedDatabase } from './support/database.ts'

selfUpdateWorkflowSuite('self-update workflow on the embedded database (PGlite)', async () => {
  const database = await createEmbeddedDatabase()
  return { handle: database.handle, close: database.close }
})
