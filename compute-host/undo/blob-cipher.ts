import { createCipheriv, createDecipheriv, hkdfSync, randomBytes } from 'node:crypto'
import { hashOf } from './tree-state.ts'

/**
 * Per-turn undo keeps the bytes of repository files, and a repository may hold a secret (a `.env`
 * its owner keeps there), so the store holds them encrypted: AES-256-GCM under a key derived with
 * HKDF-SHA256 from POPAGENT_SECRET_KEY with undo's own info string (never the vault's keys), a
 * fresh 12-byte nonce per blob, a 16-byte tag, and the blob's hash as additional data so one row's
 * content cannot be passed off as another's. Stored as `v1:` + base64(nonce ‖ ciphertext ‖ tag)
 * in the same text column; rows written before are plain base64, which never holds a ':'.
 */
export type BlobCipher = {
  seal(hash: string, content: Buffer): string
  /** The content of a stored row; throws a clear error rather than answer wrong bytes. */
  open(hash: string, stored: string): Buffer
}

const PREFIX = 'v1:'
const NONCE = 12
const TAG = 16
const SALT = Buffer.from('popagent/v1')
const INFO = Buffer.from('popagent/undo/v1')

/** The cipher from the vault key and the earlier keys a rotation keeps (decryption only). */
export function blobCipher(current: string, previous: readonly string[] = []): BlobCipher {
  const derive = (base64: string) =>
    Buffer.from(hkdfSync('sha256', Buffer.from(base64.trim(), 'base64'), SALT, INFO, 32))
  const key = derive(current)
  const keys = [key, ...previous.map(derive)]
  return {
    seal(hash, content) {
      const nonce = randomBytes(NONCE)
      const cipher = createCipheriv('aes-256-gcm', key, nonce, { authTagLength: TAG })
      cipher.setAAD(Buffer.from(hash))
      const sealed = Buffer.concat([cipher.update(content), cipher.final()])
      return PREFIX + Buffer.concat([nonce, sealed, cipher.getAuthTag()]).toString('base64')
    },
    open(hash, stored) {
      return openStored(hash, stored, keys)
    },
  }
}

/**
 * A stored row's content, with or without a cipher: a plain row (written before encryption)
 * opens without one; an encrypted row without the key, or whose tag fails under every key, is an
 * error. Either way the bytes must hash to the row's hash, so nothing else is ever written back.
 */
export function openBlob(cipher: BlobCipher | undefined, hash: string, stored: string): Buffer {
  return cipher ? cipher.open(hash, stored) : openStored(hash, stored, [])
}

function openStored(hash: string, stored: string, keys: readonly Buffer[]): Buffer {
  let content: Buffer | undefined
  if (!stored.includes(':')) {
    content = Buffer.from(stored, 'base64')
  } else if (!stored.startsWith(PREFIX)) {
    throw new Error('its earlier content is stored in a form this popagent does not know')
  } else if (keys.length === 0) {
    throw new Error(
      'its earlier content is kept encrypted and this host has no POPAGENT_SECRET_KEY to open it',
    )
  } else {
    const bytes = Buffer.from(stored.slice(PREFIX.length), 'base64')
    if (bytes.length < NONCE + TAG) throw new Error('its earlier content is kept damaged')
    for (const key of keys) {
      content = decrypt(key, hash, bytes)
      if (content) break
    }
    if (!content) {
      throw new Error(
        'its earlier content cannot be decrypted: it was kept under another POPAGENT_SECRET_KEY (name it in POPAGENT_SECRET_KEYS_PREVIOUS) or was altered',
      )
    }
  }
  if (hashOf(content) !== hash) throw new Error('its earlier content does not match its hash')
  return content
}

function decrypt(key: Buffer, hash: string, bytes: Buffer): Buffer | undefined {
  const decipher = createDecipheriv('aes-256-gcm', key, bytes.subarray(0, NONCE), {
    authTagLength: TAG,
  })
  decipher.setAAD(Buffer.from(hash))
  decipher.setAuthTag(bytes.subarray(bytes.length - TAG))
  try {
    return Buffer.concat([
      decipher.update(bytes.subarray(NONCE, bytes.length - TAG)),
      decipher.final(),
    ])
  } catch {
    return undefined
  }
}
