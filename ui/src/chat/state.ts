import { createSignal } from 'solid-js'

/**
 * What the chat page keeps across its own remounts: the router renders `/` and `/sessions/:id` as
 * separate routes, so the first message of a new chat (which moves to `/sessions/:id`) or a visit
 * to another page would otherwise lose the draft, the picked model and the sidebar's choices.
 */
export const [draft, setDraft] = createSignal('')
export const [pickedModel, setPickedModel] = createSignal<string>()
export const [workspaceFilter, setWorkspaceFilter] = createSignal('')
export const [archivedOpen, setArchivedOpen] = createSignal(false)
/** The owner chose to chat although the gateway's catalog looked empty (first-run.tsx). */
export const [setupDismissed, setSetupDismissed] = createSignal(false)
