import { query, revalidate } from '@solidjs/router'
import type { AutonomySettingsPatch } from '../../../runtime/contracts/settings.ts'
import { api, ok } from '../api.ts'

/** Agent evolution (issue 39): the switches, the signals, the revisions, and a worker pass. */
export const getEvolutionPolicies = query(
  () => ok(api.autonomy.policies.$get()),
  'evolution-policies',
)
export const getSignals = query(
  () => ok(api.autonomy.signals.$get({ query: { limit: '50' } })),
  'evolution-signals',
)
export const getRevisions = query(() => ok(api.autonomy.revisions.$get()), 'evolution-revisions')
/** The review queue: proposals waiting for the owner. */
export const getProposals = query(
  () => ok(api.autonomy.proposals.$get({ query: {} })),
  'evolution-proposals',
)

const changed = () =>
  revalidate([getEvolutionPolicies.key, getSignals.key, getRevisions.key, getProposals.key])

export async function setGlobal(json: AutonomySettingsPatch) {
  await ok(api.settings.autonomy.$patch({ json }))
  await changed()
}

/** Whether learned changes wait for review unless an agent chooses otherwise. */
export async function setReviewByDefault(reviewByDefault: boolean) {
  await ok(api.autonomy.policies.$patch({ json: { reviewByDefault } }))
  await changed()
}

/** The channel conversation held proposals are also asked on; null: none. */
export async function setReviewBinding(reviewBindingId: string | null) {
  await ok(api.autonomy.policies.$patch({ json: { reviewBindingId } }))
  await changed()
}

/** One agent's review choice; null follows the global default. */
export async function setAgentReview(agentId: string, review: boolean | null) {
  await ok(api.autonomy.policies[':agentId'].$patch({ param: { agentId }, json: { review } }))
  await changed()
}

export async function approveProposal(id: string) {
  await ok(api.autonomy.proposals[':id'].approve.$post({ param: { id } }))
  await changed()
}

export async function rejectProposal(id: string) {
  await ok(api.autonomy.proposals[':id'].reject.$post({ param: { id } }))
  await changed()
}

export async function setAgentEvolution(agentId: string, enabled: boolean) {
  await ok(api.autonomy.policies[':agentId'].$patch({ param: { agentId }, json: { enabled } }))
  await changed()
}

export async function ignoreSignal(id: string) {
  await ok(api.autonomy.signals[':id'].ignore.$post({ param: { id } }))
  await changed()
}

export async function retrySignal(id: string) {
  await ok(api.autonomy.signals[':id'].retry.$post({ param: { id } }))
  await changed()
}

export async function revertRevision(id: string) {
  await ok(api.autonomy.revisions[':id'].revert.$post({ param: { id } }))
  await changed()
}

/** One worker pass now; its counts. */
export async function runEvolutionNow() {
  const pass = await ok(api.autonomy.evolution.run.$post())
  await changed()
  return pass
}

/** What a pass would change now; nothing is changed and no signal is claimed. */
export const previewEvolution = () => ok(api.autonomy.evolution['dry-run'].$post())
