import assert from 'node:assert/strict'
import { mkdir, mkdtemp, rm, symlink, writeFile } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { after, before, describe, test } from 'node:test'
import { startTestStack, type TestStack } from './support/stack.ts'
import { errorJson, okJson, typedClient } from './support/typed-client.ts'

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
  const api = () => typedClient(stack.edge()).api
  const list = async () => (await okJson(await api().workspaces.$get())).workspaces
  const register = (name: string, path: string) => api().workspaces.$post({ json: { name, path } })
  const patch = (id: string, json: { name?: string; path?: string }) =>
    api().workspaces[':id'].$patch({ param: { id }, json })
  const remove = (id: string) => api().workspaces[':id'].$delete({ param: { id } })

  test('registers a repository under its canonical path, links followed inside the root', async () => {
    const body = await okJson(await register('Repo A', 'repo-a'), 201)
    assert.match(body.id, /^wsp_/)
    assert.equal(body.path, 'repo-a')
    const viaDots = await okJson(await register('Repo A again', './repo-a/../repo-a/'))
    assert.equal(viaDots.path, 'repo-a')
    const viaLink = await okJson(await register('Repo A link', 'link-in'))
    assert.equal(viaLink.path, 'repo-a')
    const workspaces = await list()
    assert.ok(workspaces.some((w) => w.id === 'wsp_default'))
    assert.equal(workspaces.filter((w) => w.path === 'repo-a').length, 3)
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
      const before = (await list()).length
      const body = await errorJson(await register(`hostile ${index}`, path), 400)
      assert.equal(body.error.code, code)
      assert.equal((await list()).length, before)
    })
  }

  test('rename and move are checked the same way; names are unique', async () => {
    const created = await okJson(await register('Repo B', 'repo-b'))
    assert.equal((await register('Repo B', 'repo-a')).status, 409)
    const moved = await patch(created.id, { path: 'link-out' })
    assert.equal(moved.status, 400)
    const renamed = await patch(created.id, { name: 'Repo Bee' })
    assert.equal((await okJson(renamed)).name, 'Repo Bee')
  })

  test('removal keeps the default and any workspace with sessions', async () => {
    assert.equal((await remove('wsp_default')).status, 409)
    const used = await okJson(await register('Used', 'repo-b'))
    await api().sessions.$post({ json: { workspaceId: used.id } })
    const refused = await remove(used.id)
    assert.equal((await errorJson(refused, 409)).error.code, 'WORKSPACE_IN_USE')
    const unused = await okJson(await register('Unused', 'repo-b'))
    assert.equal((await remove(unused.id)).status, 200)
    assert.equal((await remove(unused.id)).status, 404)
  })
})
