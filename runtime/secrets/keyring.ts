import { SecretKeyInvalid } from './errors.ts'

/**
 * The vault's keys, derived from POPAGENT_SECRET_KEY (32 random bytes, base64) with HKDF-SHA256:
 * one AES-256-GCM key that encrypts values and one HMAC key that fingerprints them, so the raw
 * key is never used for two purposes. Each key has a short id, stored on every row it encrypted,
 * so a rotated key can still open the rows it wrote until they are re-encrypted.
 */
export type VaultKey = {
  /** 16 hex characters of SHA-256 over a label and the key: names the key, never reveals it. */
  id: string
  encrypt: CryptoKey
  mac: CryptoKey
}

/** The current key (new rows, re-encryption) and the previous ones (decryption only). */
export type Keyring = { current: VaultKey; byId: ReadonlyMap<string, VaultKey> }

const SALT = new TextEncoder().encode('popagent/v1')
const text = (s: string) => new TextEncoder().encode(s)

export async function importVaultKey(base64: string, variable: string): Promise<VaultKey> {
  const raw = decodeKey(base64, variable)
  const master = await crypto.subtle.importKey('raw', raw, 'HKDF', false, ['deriveKey'])
  const derive = (info: string, algorithm: AesKeyGenParams | HmacKeyGenParams, use: KeyUsage[]) =>
    crypto.subtle.deriveKey(
      { name: 'HKDF', hash: 'SHA-256', salt: SALT, info: text(info) },
      master,
      algorithm,
      false,
      use,
    )
  const digest = new Uint8Array(
    await crypto.subtle.digest('SHA-256', new Uint8Array([...text('popagent/key-id\0'), ...raw])),
  )
  return {
    id: Array.from(digest.slice(0, 8), (b) => b.toString(16).padStart(2, '0')).join(''),
    encrypt: await derive('popagent/secret/enc', { name: 'AES-GCM', length: 256 }, [
      'encrypt',
      'decrypt',
    ]),
    mac: await derive('popagent/secret/mac', { name: 'HMAC', hash: 'SHA-256', length: 256 }, [
      'sign',
    ]),
  }
}

/** A keyring from the current key and any previous ones (comma-separated, decrypt only). */
export async function openKeyring(
  current: string,
  previous: readonly string[] = [],
): Promise<Keyring> {
  const key = await importVaultKey(current, 'POPAGENT_SECRET_KEY')
  const byId = new Map([[key.id, key]])
  for (const old of previous) {
    const k = await importVaultKey(old, 'POPAGENT_SECRET_KEYS_PREVIOUS')
    if (!byId.has(k.id)) byId.set(k.id, k)
  }
  return { current: key, byId }
}

function decodeKey(base64: string, variable: string): Uint8Array<ArrayBuffer> {
  let binary: string
  try {
    binary = atob(base64.trim())
  } catch {
    throw new SecretKeyInvalid({ variable }, { message: `${variable} is not valid base64` })
  }
  if (binary.length !== 32) {
    throw new SecretKeyInvalid(
      { variable },
      {
        message: `${variable} must be the base64 of exactly 32 bytes (it decodes to ${binary.length})`,
      },
    )
  }
  return Uint8Array.from(binary, (c) => c.charCodeAt(0))
}
