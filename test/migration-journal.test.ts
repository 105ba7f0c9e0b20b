/**
 * Drizzle's migrator applies a journal entry only when its time is later than the newest one the
 * database has recorded, so an entry dated before an earlier one is silently skipped on every
 * database that already has that earlier one (0020 once was). Times must increase in order.
 */
import assert from 'node:assert/strict'
import { readFileSync } from 'node:fs'
import { test } from 'node:test'

test('every migration in the journal is dated after the one before it', () => {
  const journal = JSON.parse(
    readFileSync(new URL('../db/migrations/meta/_journal.json', import.meta.url), 'utf8'),
  ) as { entries: { tag: string; when: number }[] }
  const backwards = journal.entries
    .slice(1)
    .filter((entry, i) => entry.when <= journal.entries[i]!.when)
    .map((entry) => entry.tag)
  assert.deepEqual(backwards, [])
})
