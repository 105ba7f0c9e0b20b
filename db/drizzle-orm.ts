/**
 * drizzle-orm, as every module of popagent imports it. drizzle-orm's package.json is 178 KB, and
 * Node 22 parses its `exports` map again for each module that imports the package by name:
 * about 5 ms per importing module, over half a second of every start with a hundred of them.
 * Imported by name once, here, the map is read once. `npm run lint` keeps it that way
 * (scripts/import-zones.ts).
 */
export * from 'drizzle-orm'
