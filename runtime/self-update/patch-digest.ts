/**
 * The digest that binds a review to one exact change: SHA-256 over a versioned header, the base
 * commit and the patch bytes. The patch is git's own canonical form (`--full-index` binary diff,
 * no renames, no external diff or textconv, three lines of context), so both sides' blob ids are
 * inside it and the same change against the same base always gives the same digest. Naming the
 * base means a patch replayed onto another commit is a different digest.
 *
 * WebCrypto, so the edge can recompute a digest it shows.
 */
const HEADER = 'popagent.selfupdate.v1\n'
const SHA = /^[0-9a-f]{40}$/

export async function patchDigest(baseSha: string, patch: Uint8Array): Promise<string> {
  if (!SHA.test(baseSha)) throw new Error(`patchDigest: ${JSON.stringify(baseSha)} is not a sha`)
  const head = new TextEncoder().encode(`${HEADER}base ${baseSha}\n`)
  const bytes = new Uint8Array(head.length + patch.length)
  bytes.set(head, 0)
  bytes.set(patch, head.length)
  const hash = new Uint8Array(await crypto.subtle.digest('SHA-256', bytes))
  return Array.from(hash, (byte) => byte.toString(16).padStart(2, '0')).join('')
}

export function isDigest(value: string): boolean {
  return /^[0-9a-f]{64}$/.test(value)
}
