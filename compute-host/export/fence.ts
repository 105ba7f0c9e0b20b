/** A Markdown code fence longer than any run of backticks in `text`, so nothing inside closes it. */
export function fenced(text: string, info = ''): string {
  const longest = Math.max(0, ...[...text.matchAll(/`+/g)].map((m) => m[0].length))
  const fence = '`'.repeat(Math.max(3, longest + 1))
  return `${fence}${info}\n${text}\n${fence}`
}
