import { sql } from '../drizzle-orm.ts'
import { agents } from '../schema/index.ts'
import type { DataMigration } from './types.ts'

// Every role may search memory (X1, X2); `retain-fact` is offered to every role too and stores
// nothing unless the owner turns automatic fact retention on (autonomy settings, off by default).
const MEMORY_TOOLS = ['memory-search', 'retain-fact']

export const memoryToolsForEveryRole: DataMigration = {
  name: '0005-memory-tools-for-every-role',
  async up(tx) {
    for (const tool of MEMORY_TOOLS) {
      await tx
        .update(agents)
        .set({ tools: sql`${agents.tools} || ${JSON.stringify([tool])}::jsonb` })
        .where(sql`not (${agents.tools} ? ${tool})`)
    }
  },
}
