import { query, revalidate } from '@solidjs/router'
import type {
  AgentRuntimeSettingsPatch,
  AutonomySettingsPatch,
  BrowserSettingsPatch,
  MemorySettingsPatch,
} from '../../../runtime/contracts/settings.ts'
import { api, ok } from '../api.ts'
import { getModels } from './models.ts'

/** The four settings singletons, by their route name. */
const routes = {
  'agent-runtime': {
    get: () => ok(api.settings['agent-runtime'].$get()),
    patch: (json: AgentRuntimeSettingsPatch) => ok(api.settings['agent-runtime'].$patch({ json })),
  },
  memory: {
    get: () => ok(api.settings.memory.$get()),
    patch: (json: MemorySettingsPatch) => ok(api.settings.memory.$patch({ json })),
  },
  autonomy: {
    get: () => ok(api.settings.autonomy.$get()),
    patch: (json: AutonomySettingsPatch) => ok(api.settings.autonomy.$patch({ json })),
  },
  browser: {
    get: () => ok(api.settings.browser.$get()),
    patch: (json: BrowserSettingsPatch) => ok(api.settings.browser.$patch({ json })),
  },
}
export type SettingsName = keyof typeof routes

export const getSettings = query(
  (name: SettingsName): Promise<Record<string, unknown>> => routes[name].get(),
  'settings',
)

/** The agent runtime's settings choose the default model, which the model catalog reports. */
export const staleAfterSettingsChange = (name: SettingsName) => [
  getSettings.keyFor(name),
  ...(name === 'agent-runtime' ? [getModels.key] : []),
]

/** Sends only the changed fields; the server validates them and answers with all of them. */
export async function patchSettings(
  name: SettingsName,
  patch: Record<string, unknown>,
): Promise<Record<string, unknown>> {
  // The form sends what the server's schema checks: the cast is the one place the patch is typed.
  const saved = await routes[name].patch(patch as never)
  await revalidate(staleAfterSettingsChange(name))
  return saved
}
