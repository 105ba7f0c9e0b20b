import type { VaultKey } from './keyring.ts'
import { SecretIntegrityError } from './errors.ts'

/**
 * AES-256-GCM through WebCrypto. Each encryption takes a fresh random 12-byte nonce; the tag is
 * pinned to 128 bits and the stored ciphertext must be at least that long, so a shortened tag is
 * refused rather than checked with fewer bits. The additional data binds a ciphertext to its
 * secret's id, name and version: copied into another row, or left behind by a rename or an
 * older version, it no longer decrypts.
 */
const NONCE_BYTES = 12
const TAG_BITS = 128

export type Sealed = { nonce: string; ciphertext: string }
export type SecretIdentity = { id: string; name: string; version: number }

export function additionalData(who: SecretIdentity): Uint8Array<ArrayBuffer> {
  return new TextEncoder().encode(`popagent/secret/v1\0${who.id}\0${who.name}\0${who.version}`)
}

export async function seal(key: VaultKey, who: SecretIdentity, value: string): Promise<Sealed> {
  const nonce = crypto.getRandomValues(new Uint8Array(NONCE_BYTES))
  const sealed = await crypto.subtle.encrypt(
    { name: 'AES-GCM', iv: nonce, additionalData: additionalData(who), tagLength: TAG_BITS },
    key.encrypt,
    new TextEncoder().encode(value),
  )
  return { nonce: toBase64(nonce), ciphertext: toBase64(new Uint8Array(sealed)) }
}

/** The value, or a SecretIntegrityError naming the secret (never any of its bytes). */
export async function open(key: VaultKey, who: SecretIdentity, sealed: Sealed): Promise<string> {
  const refuse = (cause?: unknown) =>
    new SecretIntegrityError({ id: who.id, name: who.name }, { cause })
  const nonce = fromBase64(sealed.nonce)
  const ciphertext = fromBase64(sealed.ciphertext)
  if (!nonce || !ciphertext || nonce.length !== NONCE_BYTES || ciphertext.length < TAG_BITS / 8) {
    throw refuse()
  }
  let plain: ArrayBuffer
  try {
    plain = await crypto.subtle.decrypt(
      { name: 'AES-GCM', iv: nonce, additionalData: additionalData(who), tagLength: TAG_BITS },
      key.encrypt,
      ciphertext,
    )
  } catch (error) {
    throw refuse(error)
  }
  return new TextDecoder('utf-8', { fatal: true }).decode(plain)
}

/** A keyed fingerprint (HMAC-SHA256, 12 hex characters): tells values apart, cannot be guessed offline. */
export async function fingerprint(key: VaultKey, value: string): Promise<string> {
  const mac = await crypto.subtle.sign('HMAC', key.mac, new TextEncoder().encode(value))
  return Array.from(new Uint8Array(mac).slice(0, 6), (b) => b.toString(16).padStart(2, '0')).join(
    '',
  )
}

function toBase64(bytes: Uint8Array): string {
  let binary = ''
  for (const b of bytes) binary += String.fromCharCode(b)
  return btoa(binary)
}

function fromBase64(text: string): Uint8Array<ArrayBuffer> | undefined {
  try {
    return Uint8Array.from(atob(text), (c) => c.charCodeAt(0))
  } catch {
    return undefined
  }
}
