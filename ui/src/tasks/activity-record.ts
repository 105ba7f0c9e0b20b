// Transcript records are free-form objects; these read one field with the type it should have.
export const text = (r: Record<string, unknown>, key: string) =>
  typeof r[key] === 'string' ? (r[key] as string) : undefined
export const num = (r: Record<string, unknown>, key: string) =>
  typeof r[key] === 'number' ? (r[key] as number) : undefined
export const shown = (value: unknown): string =>
  typeof value === 'string' ? value : (JSON.stringify(value, null, 2) ?? '')
