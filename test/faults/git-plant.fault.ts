/**
 * The agent plants git configuration through its file tools (issue 14, hole 4, the file-tool
 * half; the shell's half is in sandbox-escape.fault.ts). A `core.fsmonitor` or `core.pager` in
 * `.git/config`, or an executable `.git/hooks/pre-commit`, runs as the owner on their next git
 * command. In a real turn on a real repository (with a nested one), the implementer reads each
 * target first (reading `.git` is allowed, and the tools want a read before a write), then
 * writes or edits it: at the root, in the nested repository, in another case, through a link
 * it could have made with its shell, and the nested repository's `.git` file itself. Every
 * attempt must fail with popagent's error, and git's files must stay byte for byte as they were.
 * A plain write in the same turn shows the tools themselves work.
 *
 * The same turn plants what runs from the working tree instead (hole 6): a `.gitattributes` at
 * the root and in a folder, a `.gitmodules`, a hook in the folder `core.hooksPath` names
 * (`.husky`, as husky sets it), an `.envrc` and a VS Code folder-open task, directly and through
 * a link into the hooks folder. The workspace never allowed it: each must be refused, none made.
 */
import assert from 'node:assert/strict'
import { execFileSync } from 'node:child_process'
import { existsSync } from 'node:fs'
import { mkdir, mkdtemp, readdir, readFile, realpath, rm, symlink } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { test } from 'node:test'
import { recordFigures, sized } from './mode.ts'
import { runFileToolTurn, startFileToolStack, type ToolCall } from './support/file-tool-turn.ts'

const PLANT = '[core]\n\tfsmonitor = "touch /tmp/popagent-planted"\n'
const HOOK = '#!/bin/sh\ntouch /tmp/popagent-planted\n'

const write = (path: string, content = PLANT): ToolCall => ({
  name: 'workspace-write',
  arguments: { path, content },
})
const edit = (path: string): ToolCall => ({
  name: 'workspace-edit',
  arguments: { path, old_string: 'repositoryformatversion', new_string: 'fsmonitor = x\n\tx' },
})
const read = (path: string): ToolCall => ({ name: 'workspace-read', arguments: { path } })

// Files that run code later, none of which exists before the turn.
const TRIGGERS = [
  '.gitattributes',
  'src/.gitattributes',
  '.gitmodules',
  '.husky/pre-commit',
  'hooks-link/post-checkout',
  '.envrc',
  '.vscode/tasks.json',
]
const TRIGGER_CONTENT: Record<string, string> = {
  '.gitattributes': '* filter=planted\n',
  'src/.gitattributes': '* filter=planted\n',
  '.gitmodules': '[submodule "x"]\n\tpath = x\n\turl = https://example.com/x.git\n',
  '.envrc': 'touch /tmp/popagent-planted\n',
  '.vscode/tasks.json':
    '{"tasks":[{"command":"touch /tmp/popagent-planted","runOptions":{"runOn":"folderOpen"}}]}\n',
}

async function snapshot(path: string): Promise<Map<string, string>> {
  const files = new Map<string, string>()
  for (const entry of await readdir(path, { recursive: true, withFileTypes: true })) {
    if (!entry.isFile()) continue
    const full = join(entry.parentPath, entry.name)
    files.set(full, await readFile(full, 'latin1'))
  }
  return files
}

test(
  'writes and edits of .git, and of files that run code later, through the file tools are all refused in a real turn',
  { timeout: 180_000 },
  async () => {
    const dir = await realpath(await mkdtemp(join(tmpdir(), 'popagent-fault-git-')))
    const repo = join(dir, 'root', 'proj')
    await mkdir(repo, { recursive: true })
    const git = (cwd: string, ...args: string[]) =>
      execFileSync('git', ['-c', 'init.defaultBranch=main', ...args], { cwd, stdio: 'pipe' })
    git(repo, 'init', '-q')
    git(repo, 'config', 'core.hooksPath', '.husky')
    git(join(repo), 'init', '-q', 'nested')
    // A worktree-style `.git` file (gitdir link), as a submodule has.
    await mkdir(join(repo, 'linked'))
    execFileSync('sh', ['-c', `printf 'gitdir: ../.git\\n' > ${join(repo, 'linked', '.git')}`])
    // Links the agent could make with its shell, to the git directory and into it.
    await symlink('.git', join(repo, 'git-dir'))
    await symlink('.git/config', join(repo, 'config-link'))
    await mkdir(join(repo, '.husky'))
    await mkdir(join(repo, 'src'))
    await symlink('.husky', join(repo, 'hooks-link'))
    const target = await startFileToolStack(join(dir, 'root'))
    try {
      const existing = [
        '.git/config',
        'nested/.git/config',
        'git-dir/config',
        'config-link',
        'linked/.git',
      ]
      const attempts: ToolCall[] = [
        write('.git/config'),
        edit('.git/config'),
        write('.git/hooks/pre-commit', HOOK),
        write('nested/.git/config'),
        edit('nested/.git/config'),
        write('nested/.git/hooks/post-checkout', HOOK),
        write('.GIT/config'),
        write('.Git/hooks/pre-commit', HOOK),
        write('git-dir/config'),
        write('git-dir/hooks/pre-push', HOOK),
        write('config-link'),
        write('linked/.git', 'gitdir: /tmp/elsewhere\n'),
      ]
      // Made together in one step, with the plain write: a specialist has 16 steps in all.
      const triggerAttempts = TRIGGERS.map((path) => write(path, TRIGGER_CONTENT[path] ?? HOOK))
      const gitBefore = await snapshot(join(repo, '.git'))
      const nestedBefore = await snapshot(join(repo, 'nested', '.git'))
      const linkedBefore = await readFile(join(repo, 'linked', '.git'), 'utf8')
      const rounds = sized(1, 3)
      const turns = []
      for (let round = 0; round < rounds; round++) {
        turns.push(
          await runFileToolTurn(
            target,
            [
              existing.map(read),
              ...attempts.map((call) => [call]),
              [...triggerAttempts, write(`notes-${round}.md`, 'a plain write\n')],
            ],
            sized(60_000, 120_000),
          ),
        )
      }
      const calls = turns.flatMap((t) => t.calls)
      const planted = calls.filter(
        (c) => c.tool !== 'workspace-read' && !String(c.input.path).startsWith('notes-'),
      )
      const refusal = (path: string) =>
        TRIGGERS.includes(path)
          ? /allowExecTriggerWrites/
          : /popagent does not let agents write inside \.git/
      const refused = planted.filter(
        (c) => c.status === 'failed' && refusal(String(c.input.path)).test(c.error ?? ''),
      )
      const gitUnchanged =
        JSON.stringify([...(await snapshot(join(repo, '.git')))]) === JSON.stringify([...gitBefore])
      const nestedUnchanged =
        JSON.stringify([...(await snapshot(join(repo, 'nested', '.git')))]) ===
        JSON.stringify([...nestedBefore])
      const figures = {
        writesRefused: `${refused.length}/${rounds * (attempts.length + TRIGGERS.length)}`,
        execTriggersMade: TRIGGERS.filter((path) => existsSync(join(repo, path))),
        gitConfigUnchanged: gitUnchanged,
        nestedGitUnchanged: nestedUnchanged,
        gitdirFileUnchanged:
          (await readFile(join(repo, 'linked', '.git'), 'utf8')) === linkedBefore,
        hooksPlanted: ['pre-commit', 'pre-push']
          .map((h) => join(repo, '.git', 'hooks', h))
          .filter(existsSync).length,
        upperCaseGitMade: existsSync(join(repo, '.GIT')) || existsSync(join(repo, '.Git')),
        readsOfGitAllowed: calls.filter(
          (c) => c.tool === 'workspace-read' && c.status === 'completed',
        ).length,
        plainWritesDone: calls.filter(
          (c) => String(c.input.path).startsWith('notes-') && c.status === 'completed',
        ).length,
        notRefused: planted
          .filter((c) => !refused.includes(c))
          .map((c) => `${c.tool} ${String(c.input.path)}: ${c.status} ${c.error ?? ''}`.trim()),
        errorExample: refused[0]?.error,
      }
      await recordFigures('git-plant', figures)

      assert.ok(
        turns.every((t) => t.finished),
        'a turn did not finish',
      )
      assert.equal(
        planted.length,
        rounds * (attempts.length + TRIGGERS.length),
        JSON.stringify(calls),
      )
      assert.deepEqual(figures.notRefused, [])
      assert.ok(gitUnchanged, '.git changed')
      assert.ok(nestedUnchanged, 'nested/.git changed')
      assert.ok(figures.gitdirFileUnchanged, 'linked/.git changed')
      assert.equal(figures.hooksPlanted, 0)
      assert.deepEqual(figures.execTriggersMade, [])
      assert.equal(figures.upperCaseGitMade, false)
      assert.equal(figures.readsOfGitAllowed, rounds * existing.length)
      assert.equal(figures.plainWritesDone, rounds)
    } finally {
      await target.stack.stop()
      await rm(dir, { recursive: true, force: true })
    }
  },
)
