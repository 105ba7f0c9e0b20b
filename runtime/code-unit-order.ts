/**
 * Orders strings by their UTF-16 code units, as `Array.prototype.sort()` does by default and as
 * git orders paths: the same on every machine, with no locale, and about eight times cheaper than
 * `localeCompare` (which put sorting 2,400 paths at about 4 ms of every repository brief).
 */
export const byCodeUnits = (a: string, b: string): number => (a < b ? -1 : a > b ? 1 : 0)
