import { query, revalidate } from '@solidjs/router'
import { api, ok } from '../api.ts'

/**
 * The gateway's model catalog and the effective default (`GET /api/models`). The layout holds
 * it for the app's life (app.tsx), so every page shares one fetch; `refreshModels` asks again
 * (the first-run panel's Retry, a change of the default model in the settings).
 */
export const getModels = query(() => ok(api.models.$get()), 'models')

export const refreshModels = () => revalidate(getModels.key)
