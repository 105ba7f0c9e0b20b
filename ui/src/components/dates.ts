const dateTime = new Intl.DateTimeFormat(undefined, { dateStyle: 'medium', timeStyle: 'medium' })

/** A timestamp in the browser's locale and timezone, or a dash. */
export function when(iso: string | null | undefined): string {
  return iso ? dateTime.format(new Date(iso)) : '—'
}

/** A timestamp in a named timezone (a schedule's occurrences are read in the server's). */
export function inZone(iso: string, timeZone: string, style: 'full' | 'medium' = 'full'): string {
  try {
    return new Intl.DateTimeFormat(undefined, {
      dateStyle: style,
      timeStyle: 'short',
      timeZone,
    }).format(new Date(iso))
  } catch {
    return iso
  }
}
