import {
  agentRuntimeSettings,
  autonomySettings,
  browserSettings,
  memorySettings,
} from '../../db/schema/index.ts'
import type { Db } from '../../db/index.ts'
import { AppError } from '../errors.ts'
import type {
  AgentRuntimeSettings,
  AutonomySettings,
  BrowserSettings,
  MemorySettings,
  MemorySettingsPatch,
} from '../contracts/settings.ts'
import { createSingleton, SettingsMissing } from './singleton.ts'

export { SettingsMissing }

function withoutKeys<T extends { singleton: boolean; updatedAt: Date }>(row: T) {
  const { singleton: _singleton, updatedAt, ...rest } = row
  return { ...rest, updatedAt: updatedAt.toISOString() }
}

type AgentRuntimeRow = typeof agentRuntimeSettings.$inferSelect

/** The model a run uses when the request names none, derived from the model source. */
export function effectiveDefaultModel(
  row: Pick<AgentRuntimeRow, 'modelSource' | 'configuredModel' | 'localModel' | 'freeCodingModel'>,
): string {
  if (row.modelSource === 'local') return row.localModel
  if (row.modelSource === 'free-coding-auto') return row.freeCodingModel
  return row.configuredModel
}

export const agentRuntime = createSingleton<AgentRuntimeRow, AgentRuntimeSettings>({
  name: 'agent-runtime',
  table: agentRuntimeSettings,
  toDto: (row) =>
    ({
      ...withoutKeys(row),
      effectiveDefaultModel: effectiveDefaultModel(row),
    }) as AgentRuntimeSettings,
})

export const memory = createSingleton<typeof memorySettings.$inferSelect, MemorySettings>({
  name: 'memory',
  table: memorySettings,
  toDto: (row) => withoutKeys(row) as MemorySettings,
})

export const autonomy = createSingleton<typeof autonomySettings.$inferSelect, AutonomySettings>({
  name: 'autonomy',
  table: autonomySettings,
  toDto: withoutKeys,
})

export const browser = createSingleton<typeof browserSettings.$inferSelect, BrowserSettings>({
  name: 'browser',
  table: browserSettings,
  toDto: withoutKeys,
})

export const MemorySettingsConflict = AppError.define(
  'MEMORY_SETTINGS_CONFLICT',
  400,
  'shared token budgets need async buffering off (Mastra refuses the combination)',
)

/** Memory settings with the one cross-field rule Mastra enforces, checked against the stored row. */
export async function patchMemory(db: Db, input: MemorySettingsPatch): Promise<MemorySettings> {
  const merged = { ...(await memory.get(db)), ...input }
  if (merged.shareTokenBudget && merged.asyncBuffering) throw new MemorySettingsConflict()
  return memory.patch(db, input)
}
