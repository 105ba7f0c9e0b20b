import { query, revalidate } from '@solidjs/router'
import type { CreateSecretInput, SecretBindingsInput } from '../../../runtime/contracts/secrets.ts'
import { api, ok } from '../api.ts'

/** The vault's secrets: names, versions, fingerprints and origins; never a value. */
export const getSecrets = query(() => ok(api.secrets.$get()), 'secrets')

const changed = () => revalidate(getSecrets.key)

export async function createSecret(json: CreateSecretInput) {
  const created = await ok(api.secrets.$post({ json }))
  await changed()
  return created
}

export async function rotateSecret(id: string, value: string) {
  const rotated = await ok(api.secrets[':id'].rotate.$post({ param: { id }, json: { value } }))
  await changed()
  return rotated
}

export async function bindSecret(id: string, json: SecretBindingsInput) {
  const bound = await ok(api.secrets[':id'].bindings.$put({ param: { id }, json }))
  await changed()
  return bound
}

export async function deleteSecret(id: string) {
  await ok(api.secrets[':id'].$delete({ param: { id } }))
  await changed()
}
