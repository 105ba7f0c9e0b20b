import { sql } from '../drizzle-orm.ts'
import { boolean, check, jsonb, pgTable, text, unique } from '../drizzle-pg-core.ts'
import { timestamps } from './_columns.ts'
import { agents } from './agents.ts'

/**
 * Agent Skills (https://agentskills.io/specification) owned by one agent. Enabled rows become
 * Mastra inline skills on the agent's next run; disabled rows stay editable and are left out.
 * `evolution_managed` marks a skill the learning loop may change; any ordinary edit clears it.
 */
export const agentSkills = pgTable(
  'popagent_agent_skills',
  {
    id: text().primaryKey(),
    agentId: text()
      .notNull()
      .references(() => agents.id, { onDelete: 'cascade' }),
    name: text().notNull(),
    description: text().notNull(),
    instructions: text().notNull(),
    references: jsonb().$type<Record<string, string>>().notNull(),
    sourceUrl: text(),
    enabled: boolean().notNull(),
    evolutionManaged: boolean().notNull(),
    ...timestamps,
  },
  (t) => [
    // Also serves lookups by agent: agent_id leads the index.
    unique('popagent_agent_skills_agent_name_key').on(t.agentId, t.name),
    check(
      'popagent_agent_skills_name_check',
      sql`${t.name} ~ '^[a-z0-9]+(-[a-z0-9]+)*$' and length(${t.name}) <= 64`,
    ),
  ],
)
