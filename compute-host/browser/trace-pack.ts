import { createHash } from 'node:crypto'
import { constants } from 'node:fs'
import { lstat, open, rename, rm, type FileHandle } from 'node:fs/promises'
import { join } from 'node:path'
import { crc32, deflateRawSync } from 'node:zlib'

/**
 * Packs one Playwright trace the browser server left in its output directory into a single zip
 * the trace viewer opens (`npx playwright show-trace <file>`, or trace.playwright.dev).
 *
 * Playwright's MCP server records a "live" trace: `<name>.trace`, `<name>.network` and
 * `<name>.stacks` beside shared `resources/` and `screencast/` folders. The zip takes those three
 * and only the resources and frames they name, under the same relative paths (what the viewer
 * reads from a zip).
 *
 * The files are the server's, so nothing in them is trusted: the name is checked, every file
 * must be a regular file (a symbolic link is refused, and opened with O_NOFOLLOW so one swapped
 * in meanwhile is refused too), named references stay inside the trace folder, and the whole is
 * bounded (`maxBytes`, before and after packing). The zip is written as `<target>.part` with
 * mode 0600 and renamed into place when complete.
 */

const TRACE_NAME = /^trace-[A-Za-z0-9_-]{1,120}$/
const REFERENCE = /"(?:_?file|_?sha1)"\s*:\s*"([^"\\]{1,300})"/g
const INSIDE = /^(?:resources|screencast)\/[A-Za-z0-9@._-]{1,250}$/

export class TracePackError extends Error {
  override name = 'TracePackError'
}

export function isTraceName(name: string): boolean {
  return TRACE_NAME.test(name)
}

/** The paths, relative to the trace folder, that a trace's text names (resources, frames). */
export function traceReferences(text: string): string[] {
  const found = new Set<string>()
  for (const match of text.matchAll(REFERENCE)) {
    const value = match[1]!
    const path = value.includes('/') ? value : `resources/${value}`
    if (INSIDE.test(path) && !path.includes('..')) found.add(path)
  }
  return [...found]
}

async function readRegular(path: string, limit: number): Promise<Buffer | undefined> {
  let handle: FileHandle
  try {
    handle = await open(path, constants.O_RDONLY | constants.O_NOFOLLOW)
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code
    if (code === 'ENOENT') return undefined
    if (code === 'ELOOP') throw new TracePackError(`${path} is a symbolic link`)
    throw error
  }
  try {
    const stat = await handle.stat()
    if (!stat.isFile()) throw new TracePackError(`${path} is not a regular file`)
    if (stat.size > limit) throw new TracePackError(`the trace is over its bound`)
    const bytes = await handle.readFile()
    if (bytes.length > limit) throw new TracePackError(`the trace is over its bound`)
    return bytes
  } finally {
    await handle.close()
  }
}

type Entry = { name: Buffer; crc: number; size: number; packed: number; offset: number }

function localHeader(e: Omit<Entry, 'offset'>): Buffer {
  const h = Buffer.alloc(30)
  h.writeUInt32LE(0x04034b50, 0)
  h.writeUInt16LE(20, 4) // version needed
  h.writeUInt16LE(0x0800, 6) // names are UTF-8
  h.writeUInt16LE(8, 8) // deflate
  h.writeUInt16LE(0, 10) // time
  h.writeUInt16LE(0x21, 12) // 1980-01-01
  h.writeUInt32LE(e.crc, 14)
  h.writeUInt32LE(e.packed, 18)
  h.writeUInt32LE(e.size, 22)
  h.writeUInt16LE(e.name.length, 26)
  return Buffer.concat([h, e.name])
}

function centralHeader(e: Entry): Buffer {
  const h = Buffer.alloc(46)
  h.writeUInt32LE(0x02014b50, 0)
  h.writeUInt16LE((3 << 8) | 20, 4) // made by Unix
  h.writeUInt16LE(20, 6)
  h.writeUInt16LE(0x0800, 8)
  h.writeUInt16LE(8, 10)
  h.writeUInt16LE(0, 12)
  h.writeUInt16LE(0x21, 14)
  h.writeUInt32LE(e.crc, 16)
  h.writeUInt32LE(e.packed, 20)
  h.writeUInt32LE(e.size, 24)
  h.writeUInt16LE(e.name.length, 28)
  h.writeUInt32LE((0o100600 << 16) >>> 0, 38) // a regular file, 0600
  h.writeUInt32LE(e.offset, 42)
  return Buffer.concat([h, e.name])
}

/**
 * Writes `<traceDir>/<name>.*` and what they name into `target` (a new file, mode 0600).
 * Answers the zip's size and SHA-256.
 */
export async function packTrace(input: {
  traceDir: string
  name: string
  target: string
  maxBytes: number
}): Promise<{ bytes: number; sha256: string }> {
  if (!isTraceName(input.name)) throw new TracePackError(`unexpected trace name ${input.name}`)
  const dir = await lstat(input.traceDir).catch(() => undefined)
  if (!dir?.isDirectory()) throw new TracePackError(`${input.traceDir} is not a directory`)
  let budget = input.maxBytes
  const sources: [string, Buffer][] = []
  const take = async (relative: string, required: boolean) => {
    const bytes = await readRegular(join(input.traceDir, relative), budget)
    if (!bytes) {
      if (required) throw new TracePackError(`the server left no ${relative}`)
      return
    }
    budget -= bytes.length
    sources.push([relative, bytes])
  }
  for (const ext of ['trace', 'network', 'stacks'])
    await take(`${input.name}.${ext}`, ext === 'trace')
  const text = sources
    .filter(([n]) => !n.endsWith('.stacks'))
    .map(([, b]) => b.toString('utf8'))
    .join('\n')
  for (const reference of traceReferences(text)) await take(reference, false)

  const part = `${input.target}.part`
  const handle = await open(part, 'wx', 0o600)
  const hash = createHash('sha256')
  let offset = 0
  const write = async (chunk: Buffer) => {
    offset += chunk.length
    if (offset > input.maxBytes) throw new TracePackError('the packed trace is over its bound')
    hash.update(chunk)
    await handle.write(chunk)
  }
  try {
    const entries: Entry[] = []
    for (const [relative, bytes] of sources) {
      const packed = deflateRawSync(bytes)
      const entry = {
        name: Buffer.from(relative, 'utf8'),
        crc: crc32(bytes),
        size: bytes.length,
        packed: packed.length,
        offset,
      }
      entries.push(entry)
      await write(localHeader(entry))
      await write(packed)
    }
    const centralStart = offset
    for (const entry of entries) await write(centralHeader(entry))
    const end = Buffer.alloc(22)
    end.writeUInt32LE(0x06054b50, 0)
    end.writeUInt16LE(entries.length, 8)
    end.writeUInt16LE(entries.length, 10)
    end.writeUInt32LE(offset - centralStart, 12)
    end.writeUInt32LE(centralStart, 16)
    await write(end)
    await handle.close()
    await rename(part, input.target)
    return { bytes: offset, sha256: hash.digest('hex') }
  } catch (error) {
    await handle.close().catch(() => {})
    await rm(part, { force: true })
    throw error
  }
}
