/** The first line of a result with its Markdown markers dropped, for the list. */
export function firstLine(value: string | null, max = 140): string | undefined {
  const line = value
    ?.split('\n')
    .map((l) =>
      l
        .replace(/^[\s#>*+-]+/, '')
        .replace(/\*\*|__|`/g, '')
        .trim(),
    )
    .find(Boolean)
  if (!line) return undefined
  return line.length > max ? `${line.slice(0, max - 1)}…` : line
}
