import { sql } from '../drizzle-orm.ts'
import { autonomySettings, memorySettings } from '../schema/index.ts'
import type { DataMigration } from './types.ts'

// Starting values sized for the owner's local model (two 64k contexts): observe well before the
// context fills, keep about a fifth raw, and keep file paths and errors verbatim.
export const seedMemoryAutonomyBrowserSettings: DataMigration = {
  name: '0003-seed-memory-autonomy-browser-settings',
  async up(tx) {
    await tx
      .insert(memorySettings)
      .values({
        singleton: true,
        enabled: true,
        observationMessageTokens: 24_000,
        reflectionObservationTokens: 40_000,
        rawHistoryRetention: 0.8,
        asyncBuffering: true,
        observationBufferTokens: 0.2,
        reflectionBufferActivation: 0.5,
        observationBlockAfter: 1.2,
        reflectionBlockAfter: 1.2,
        activateAfterIdle: 'auto',
        activateOnProviderChange: true,
        shareTokenBudget: false,
        previousObserverTokens: 4_000,
        temporalMarkers: true,
        observeAttachments: 'auto',
        retrievalScope: 'thread',
        observerInstruction:
          'Record file paths, commands, exact error strings, decisions and rejected approaches verbatim.',
        reflectorInstruction:
          'Keep identifiers, paths and failed-approach notes; merge duplicates; the newest fact wins.',
      })
      .onConflictDoNothing()
    await tx
      .insert(autonomySettings)
      .values({
        singleton: true,
        evolutionEnabled: false,
        skillCreationEnabled: false,
        automaticFactRetention: false,
        selfUpdateEnabled: false,
        deploymentEnabled: false,
      })
      .onConflictDoNothing()
    // Raw SQL naming only its own columns: drizzle's insert lists every column the table has
    // today, which fails on a database migrated only up to an older schema (0026 added the
    // browser's opt-ins). The memory and autonomy inserts above still name every column: the next
    // column added to those tables needs the same change.
    await tx.execute(sql`
      insert into popagent_browser_settings (singleton, enabled) values (true, false)
      on conflict do nothing`)
  },
}
