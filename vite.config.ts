import { defineConfig } from 'vite'
import solid from 'vite-plugin-solid'
import { sizeBudget } from './scripts/ui-size-budget.ts'

/**
 * The web UI: a SolidJS single-page app in ui/, built into ui/dist, which the Node edge serves at
 * `/`. `npm install` builds it (the `prepare` script), so `npm start` always has a UI to serve.
 * Every build checks the size budget (scripts/ui-size-budget.ts) and fails over it.
 */
export default defineConfig({
  root: 'ui',
  plugins: [solid(), sizeBudget()],
  build: { outDir: 'dist', emptyOutDir: true, target: 'es2022' },
  server: { proxy: { '/api': 'http://127.0.0.1:3000' } },
})
