/**
 * Packing a browser server's trace into one recording (compute-host/browser/trace-pack.ts): the
 * files are the server's, so links, names and sizes are checked before anything is copied.
 */
import assert from 'node:assert/strict'
import { mkdir, mkdtemp, readdir, readFile, rm, stat, symlink, writeFile } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { after, before, describe, test } from 'node:test'
import { inflateRawSync } from 'node:zlib'
import { packTrace, traceReferences } from '../compute-host/browser/trace-pack.ts'

function entries(zip: Buffer): Map<string, string> {
  const found = new Map<string, string>()
  let at = 0
  while (zip.readUInt32LE(at) === 0x04034b50) {
    const packed = zip.readUInt32LE(at + 18)
    const nameLength = zip.readUInt16LE(at + 26)
    const name = zip.subarray(at + 30, at + 30 + nameLength).toString('utf8')
    const start = at + 30 + nameLength + zip.readUInt16LE(at + 28)
    found.set(name, inflateRawSync(zip.subarray(start, start + packed)).toString('utf8'))
    at = start + packed
  }
  return found
}

describe('packing a browser trace', () => {
  let dir: string
  let traces: string
  let out: string
  const NAME = 'trace-1796476826894'

  before(async () => {
    dir = await mkdtemp(join(tmpdir(), 'popagent-trace-pack-'))
    traces = join(dir, 'traces')
    out = join(dir, 'out')
    await mkdir(join(traces, 'resources'), { recursive: true })
    await mkdir(join(traces, 'screencast'), { recursive: true })
    await mkdir(out)
    await writeFile(
      join(traces, `${NAME}.trace`),
      '{"type":"screencast-frame","file":"screencast/page@1-2.jpeg"}\n' +
        '{"type":"x","file":"../../../etc/passwd"}\n',
    )
    await writeFile(join(traces, `${NAME}.network`), '{"_file":"resources/abc.dat"}\n')
    await writeFile(join(traces, 'screencast', 'page@1-2.jpeg'), 'frame')
    await writeFile(join(traces, 'resources', 'abc.dat'), 'body')
    // Another trace's resource in the same folder: not named, not packed.
    await writeFile(join(traces, 'resources', 'other.dat'), 'someone else')
  })
  after(() => rm(dir, { recursive: true, force: true }))

  test('takes the trace and only the files it names, into a 0600 zip', async () => {
    const target = join(out, 'a.zip')
    const packed = await packTrace({ traceDir: traces, name: NAME, target, maxBytes: 1 << 20 })
    assert.equal((await stat(target)).mode & 0o777, 0o600)
    assert.equal((await stat(target)).size, packed.bytes)
    const files = entries(await readFile(target))
    assert.deepEqual([...files.keys()].sort(), [
      'resources/abc.dat',
      'screencast/page@1-2.jpeg',
      `${NAME}.network`,
      `${NAME}.trace`,
    ])
    assert.equal(files.get('resources/abc.dat'), 'body')
  })

  test('names outside the trace folder are never references', () => {
    assert.deepEqual(
      traceReferences('"file":"../x" "_sha1":"a/../../b" "sha1":"ok.dat" "_file":"resources/.."'),
      ['resources/ok.dat'],
    )
  })

  test('a symbolic link, a bad name and a trace over the bound are refused, leaving no file', async () => {
    await symlink('/etc/hostname', join(traces, 'resources', 'link.dat'))
    await writeFile(join(traces, 'trace-linked.trace'), '{"sha1":"link.dat"}\n')
    await assert.rejects(
      packTrace({
        traceDir: traces,
        name: 'trace-linked',
        target: join(out, 'b.zip'),
        maxBytes: 1 << 20,
      }),
      /symbolic link/,
    )
    await assert.rejects(
      packTrace({ traceDir: traces, name: '../x', target: join(out, 'c.zip'), maxBytes: 1 << 20 }),
      /unexpected trace name/,
    )
    await assert.rejects(
      packTrace({ traceDir: traces, name: NAME, target: join(out, 'd.zip'), maxBytes: 50 }),
      /over its bound/,
    )
    assert.deepEqual((await readdir(out)).sort(), ['a.zip'])
  })
})
