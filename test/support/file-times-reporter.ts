/**
 * A second test reporter beside `spec` (test/run.ts): once the run ends, the slowest test files
 * by the runner's own duration of each file's process. CI's limit is what the whole run takes on
 * two cores, so this list says where to trim first. (Wall spans between a file's events would not
 * do: with two files at a time the runner holds back the second file's events until the first is
 * reported.)
 */
type TestEvent = {
  type: string
  data?: { file?: string; name?: string; nesting?: number; details?: { duration_ms?: number } }
}

const SHOWN = 15

export default async function* fileTimes(source: AsyncIterable<TestEvent>) {
  const seconds = new Map<string, number>()
  for await (const event of source) {
    const { file, name, nesting, details } = event.data ?? {}
    // The test that stands for a whole file is named by the file's path.
    const wholeFile = nesting === 0 && file && name && file.endsWith(name)
    if (event.type === 'test:complete' && wholeFile && details?.duration_ms !== undefined) {
      seconds.set(name, details.duration_ms / 1000)
    }
  }
  const slowest = [...seconds].sort((a, b) => b[1] - a[1]).slice(0, SHOWN)
  if (!slowest.length) return
  yield `\nslowest test files (seconds each file's process ran):\n`
  for (const [file, s] of slowest) yield `  ${s.toFixed(1).padStart(6)}  ${file}\n`
}
