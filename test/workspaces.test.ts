import assert from 'node:assert/strict'
import { mkdir, mkdtemp, rm, symlink, writeFile } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { after, before, describe, test } from 'node:test'
import { json } from './support/app.ts'
import { startTestStack, type TestStack } from './support/stack.ts'

describe('workspace registry', () => {
  let stack: TestStack
  let dir: string
  before(async () => {
    dir = await mkdtemp(join(tmpdir(), 'popagent-workspaces-'))
    const root = join(dir, 'root')
    await mkdir(join(root, 'repo-a', '.git'), { recursive: true })
    await mkdir(join(root, 'repo-b'), { recursive: true })
    await mkdir(join(dir, 'outside'))
    await writeFile(join(root, 'file.txt'), 'not a directory')
    await symlink(join(dir, 'outside'), join(root, 'link-out'))
    await symlink(join(root, 'repo-a'), join(root, 'link-in'))
    stack = await startTestStack({ hostEnv: { POPAGENT_WORKSPACE_ROOT: root } })
  })
  after(async () => {
    await stack.stop()
    await rm(dir, { recursive: true, force: true })
  })
  const req = (path: string, init?: RequestInit) =>
    stack.edge().request(`/api/workspaces${path}`, init)
  const register = (name: string, path: string) => req('', json({ name, path }, { method: 'POST' }))

  test('registers a repository under its canonical path, links followed inside the root', async () => {
    const a = await register('Repo A', 'repo-a')
    const body = (await a.json()) as any
    assert.equal(a.status, 201, JSON.stringify(body))
    assert.match(body.id, /^wsp_/)
    assert.equal(body.path, 'repo-a')
    const viaDots = (await (await register('Repo A again', './repo-a/../repo-a/')).json()) as any
    assert.equal(viaDots.path, 'repo-a')
    const viaLink = (await (await register('Repo A link', 'link-in')).json()) as any
    assert.equal(viaLink.path, 'repo-a')
    const { workspaces } = (await (await req('')).json()) as any
    assert.ok(workspaces.some((w: any) => w.id === 'wsp_default'))
    assert.equal(workspaces.filter((w: any) => w.path === 'repo-a').length, 3)
  })

  const hostile = [
    ['an absolute path', '/etc', 'PATH_OUTSIDE_ROOT'],
    ['a parent escape', '../outside', 'PATH_OUTSIDE_ROOT'],
    ['a nested escape', 'repo-a/../../outside', 'PATH_OUTSIDE_ROOT'],
    ['a link out of the root', 'link-out', 'PATH_OUTSIDE_ROOT'],
    ['the root itself', '.', 'PATH_OUTSIDE_ROOT'],
    ['the root’s parent', '..', 'PATH_OUTSIDE_ROOT'],
    ['a NUL byte', 'repo-a\u0000/x', 'PATH_OUTSIDE_ROOT'],
    ['a drive path', 'C:\\Windows', 'PATH_OUTSIDE_ROOT'],
    ['a file', 'file.txt', 'PATH_NOT_A_DIRECTORY'],
    ['a missing directory', 'missing', 'PATH_NOT_A_DIRECTORY'],
    ['an encoded escape taken literally', '%2e%2e/outside', 'PATH_NOT_A_DIRECTORY'],
  ] as const
  for (const [index, [what, path, code]] of hostile.entries()) {
    test(`refuses ${what} and stores nothing`, async () => {
      const before = ((await (await req('')).json()) as any).workspaces.length
      const res = await register(`hostile ${index}`, path)
      const body = (await res.json()) as any
      assert.equal(res.status, 400, JSON.stringify(body))
      assert.equal(body.error.code, code)
      assert.equal(((await (await req('')).json()) as any).workspaces.length, before)
    })
  }

  test('rename and move are checked the same way; names are unique', async () => {
    const created = (await (await register('Repo B', 'repo-b')).json()) as any
    assert.equal((await register('Repo B', 'repo-a')).status, 409)
    const moved = await req(`/${created.id}`, json({ path: 'link-out' }, { method: 'PATCH' }))
    assert.equal(moved.status, 400)
    const renamed = await req(`/${created.id}`, json({ name: 'Repo Bee' }, { method: 'PATCH' }))
    assert.equal(((await renamed.json()) as any).name, 'Repo Bee')
  })

  test('removal keeps the default and any workspace with sessions', async () => {
    assert.equal((await req('/wsp_default', { method: 'DELETE' })).status, 409)
    const used = (await (await register('Used', 'repo-b')).json()) as any
    await stack.edge().request('/api/sessions', json({ workspaceId: used.id }, { method: 'POST' }))
    const refused = await req(`/${used.id}`, { method: 'DELETE' })
    assert.equal(refused.status, 409)
    assert.equal(((await refused.json()) as any).error.code, 'WORKSPACE_IN_USE')
    const unused = (await (await register('Unused', 'repo-b')).json()) as any
    assert.equal((await req(`/${unused.id}`, { method: 'DELETE' })).status, 200)
    assert.equal((await req(`/${unused.id}`, { method: 'DELETE' })).status, 404)
  })
})
