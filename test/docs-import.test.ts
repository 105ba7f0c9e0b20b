/**
 * The documentation import through the whole stack (W7): the compute host reads the registered
 * repository's README.md and docs/**\/*.md, the edge stores them, the host's background indexer
 * makes them searchable. Links out of the repository, oversized files and non-text are refused
 * with the file named (by its path in the repository, never anything past a link out), and
 * nothing of that import is stored.
 */
import assert from 'node:assert/strict'
import { lstat, mkdir, mkdtemp, rename, rm, symlink, writeFile } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { after, before, describe, test } from 'node:test'
import { createSession } from './support/api-fixtures.ts'
import { markRoles, postChat, roleOf, toolResultsOf } from './support/chat.ts'
import { startTestStack, type TestStack } from './support/stack.ts'
import { readUiStream, streamedText } from './support/ui-stream.ts'
import { errorJson, okJson, typedClient, type Client } from './support/typed-client.ts'
import { waitFor } from './support/until.ts'

describe('documentation import', () => {
  let stack: TestStack
  let api: Client['api']
  let id: string
  let repo: string
  before(async () => {
    stack = await startTestStack()
    api = typedClient(stack.edge()).api
    repo = join(stack.host.resources.workspaceRoot, 'project')
    await mkdir(join(repo, 'docs', 'guides'), { recursive: true })
    await writeFile(join(repo, 'README.md'), '# Project\n\nBuild with `make`.\n')
    await writeFile(join(repo, 'docs', 'guides', 'setup.md'), '# Setup\n\n## Cache\n\nWarm it.\n')
    await writeFile(join(repo, 'docs', 'notes.txt'), 'not markdown')
    await mkdir(join(repo, 'docs', 'node_modules'))
    await writeFile(join(repo, 'docs', 'node_modules', 'dep.md'), '# a dependency')
    // A link that stays inside is read like the file it names.
    await symlink('../README.md', join(repo, 'docs', 'readme-link.md'))
    const workspace = await okJson(
      await api.workspaces.$post({ json: { name: 'project', path: 'project' } }),
      201,
    )
    id = workspace.id
  })
  after(() => stack.stop())

  const importDocs = () => api.workspaces[':id'].docs.import.$post({ param: { id } })
  const list = async () =>
    (await okJson(await api.workspaces[':id'].docs.$get({ param: { id } }))).docs

  test('imports the README and docs/, then the host indexes them in the background', async () => {
    const result = await okJson(await importDocs())
    assert.deepEqual(result.documents.map((d) => d.sourcePath).sort(), [
      'README.md',
      'docs/guides/setup.md',
      'docs/readme-link.md',
    ])
    await waitFor(
      async () => ((await list()).every((d) => d.indexState === 'indexed') ? true : undefined),
      15_000,
      'every imported document indexed',
    )
    const hits = await okJson(
      await api.workspaces[':id'].docs.search.$post({
        param: { id },
        json: { query: 'warming the cache', limit: 5 },
      }),
    )
    assert.equal(hits.results[0]?.headingPath, 'Setup > Cache')
  })

  test('a researcher calls docs-search in a turn; the activity streams with its result', async () => {
    await markRoles(stack, ['orchistrator', 'researcher'])
    const url = await stack.listen()
    const sessionId = await createSession(stack.edge(), id)
    stack.gateway.respondWith((r) => {
      const role = roleOf(r)
      const answered = toolResultsOf(r).length > 0
      if (role === 'orchistrator') {
        return answered
          ? { text: 'the cache is warmed first' }
          : { toolCalls: [{ name: 'agent-researcher', arguments: { prompt: 'check the docs' } }] }
      }
      if (role === 'researcher') {
        return answered
          ? { text: 'found it in Setup' }
          : { toolCalls: [{ name: 'docs-search', arguments: { query: 'warming the cache' } }] }
      }
      return { text: 'n/a' }
    })
    try {
      const chunks = await readUiStream(
        await postChat(url, { sessionId, workspaceId: id, text: 'How is the cache handled?' }),
      )
      assert.equal(streamedText(chunks), 'the cache is warmed first')
      const calls = new Map<string, any>()
      for (const c of chunks) {
        if (
          c.type === 'data-agentActivity' &&
          c.data.kind === 'tool' &&
          c.data.tool === 'docs-search'
        )
          calls.set(c.id, c.data)
      }
      const [call] = [...calls.values()]
      assert.equal(calls.size, 1)
      assert.equal(call.agentId, 'researcher')
      assert.equal(call.status, 'completed')
      assert.match(String(call.output), /Setup \(guides\/setup\) — Setup > Cache/)
      // What the researcher's model was given back is the same section.
      const researcherFollowUp = stack.gateway.requests.find(
        (r) => roleOf(r) === 'researcher' && toolResultsOf(r).length > 0,
      )!
      assert.match(JSON.stringify(toolResultsOf(researcherFollowUp)), /Warm it/)
    } finally {
      stack.gateway.respondWith(undefined)
    }
  })

  test('a docs folder that links out of the repository is refused naming only docs, nothing past it', async () => {
    // A distinctive folder outside, with names and a size that must not come back in any answer.
    const outside = await mkdtemp(join(tmpdir(), 'popagent-outside-qz7v-'))
    await writeFile(join(outside, 'qz7v-private-roadmap.md'), '# Roadmap\n')
    await mkdir(join(outside, 'qz7v-subfolder'))
    await writeFile(join(outside, 'qz7v-subfolder', 'qz7v-notes.md'), '# Notes\n')
    const secretFile = join(outside, 'qz7v-huge.md')
    await writeFile(secretFile, 'x'.repeat(913_579))
    const before = await list()
    const told = (text: string) => ['qz7v', outside, '913579'].filter((leak) => text.includes(leak))
    await rename(join(repo, 'docs'), join(repo, 'docs-kept'))
    try {
      await symlink(outside, join(repo, 'docs'))
      const res = await importDocs()
      const text = await res.text()
      assert.equal(res.status, 400, text)
      const body = JSON.parse(text)
      assert.equal(body.error.code, 'DOC_IMPORT_REFUSED')
      assert.equal(
        body.error.message,
        'docs: a link that leads out of the repository; nothing was imported',
      )
      assert.deepEqual(told(text), [])
      assert.deepEqual(told(JSON.stringify(stack.logs)), [])
      assert.deepEqual(await list(), before)

      // A file link out is refused as a link, without the size of what it points at.
      await rm(join(repo, 'docs'))
      await rename(join(repo, 'docs-kept'), join(repo, 'docs'))
      await symlink(secretFile, join(repo, 'docs', 'sized.md'))
      const sized = await importDocs()
      const sizedText = await sized.text()
      assert.equal(sized.status, 400, sizedText)
      assert.match(
        JSON.parse(sizedText).error.message,
        /^docs\/sized\.md: a link that leads out of the repository; nothing was imported$/,
      )
      assert.deepEqual(told(sizedText), [])
      assert.deepEqual(told(JSON.stringify(stack.logs)), [])
    } finally {
      await rm(join(repo, 'docs', 'sized.md'), { force: true })
      if (await lstat(join(repo, 'docs-kept')).catch(() => undefined)) {
        await rm(join(repo, 'docs'), { force: true })
        await rename(join(repo, 'docs-kept'), join(repo, 'docs'))
      }
      await rm(outside, { recursive: true, force: true })
    }
  })

  for (const [name, plant, why] of [
    [
      'a link to a file outside the repository',
      () => symlink('/etc/hostname', join(repo, 'docs', 'escape.md')),
      /docs\/escape\.md: a link that leads out of the repository; nothing was imported/,
    ],
    [
      'a link to a directory outside the repository',
      () => symlink('/etc', join(repo, 'docs', 'etc')),
      /docs\/etc: a link that leads out of the repository/,
    ],
    [
      'a file over the size bound',
      () => writeFile(join(repo, 'docs', 'huge.md'), 'x'.repeat(900_000)),
      /docs\/huge\.md: 900000 bytes, over the bound/,
    ],
    [
      'a file that is not UTF-8 text',
      () => writeFile(join(repo, 'docs', 'binary.md'), Buffer.from([0xff, 0xfe, 0x00, 0x41])),
      /docs\/binary\.md: not UTF-8 text/,
    ],
  ] as const) {
    test(`${name} refuses the whole import, naming the file`, async () => {
      // A change that a successful import would store, to prove nothing of this one is.
      await writeFile(join(repo, 'README.md'), '# Project\n\nNow built with `just`.\n')
      const before = await list()
      await plant()
      try {
        const res = await importDocs()
        const body = await errorJson(res, 400)
        assert.equal(body.error.code, 'DOC_IMPORT_REFUSED')
        assert.match(body.error.message, why)
        assert.deepEqual(await list(), before)
      } finally {
        for (const f of ['escape.md', 'etc', 'huge.md', 'binary.md']) {
          await rm(join(repo, 'docs', f), { force: true })
        }
        await writeFile(join(repo, 'README.md'), '# Project\n\nBuild with `make`.\n')
      }
    })
  }
})
