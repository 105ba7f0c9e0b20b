import type TypeScript from 'typescript5'

// The parser is loaded on first use: it is large, and most starts never need it.
let loaded: Promise<typeof TypeScript> | undefined
export const loadTypeScript = () => (loaded ??= import('typescript5').then((m) => m.default))

const MAX_EXPORTS = 40

/**
 * The exported symbol names of one TypeScript or JavaScript source, read with the TypeScript
 * parser (syntax only: no type checking, no module resolution, nothing executed).
 */
export function exportedSymbols(ts: typeof TypeScript, path: string, text: string): string[] {
  const source = ts.createSourceFile(path, text, ts.ScriptTarget.Latest, false, kindOf(ts, path))
  const names: string[] = []
  const exported = (node: TypeScript.Node) =>
    ts.canHaveModifiers(node) &&
    (ts.getModifiers(node) ?? []).some((m) => m.kind === ts.SyntaxKind.ExportKeyword)
  const isDefault = (node: TypeScript.Node) =>
    ts.canHaveModifiers(node) &&
    (ts.getModifiers(node) ?? []).some((m) => m.kind === ts.SyntaxKind.DefaultKeyword)
  for (const statement of source.statements) {
    if (ts.isExportDeclaration(statement)) {
      const clause = statement.exportClause
      if (clause && ts.isNamedExports(clause)) {
        for (const element of clause.elements) names.push(element.name.text)
      } else if (statement.moduleSpecifier && ts.isStringLiteral(statement.moduleSpecifier)) {
        names.push(`* from ${statement.moduleSpecifier.text}`)
      }
    } else if (ts.isExportAssignment(statement)) {
      names.push('default')
    } else if (exported(statement)) {
      if (isDefault(statement)) names.push('default')
      if (ts.isVariableStatement(statement)) {
        for (const d of statement.declarationList.declarations) {
          if (ts.isIdentifier(d.name)) names.push(d.name.text)
        }
      } else if (
        (ts.isFunctionDeclaration(statement) ||
          ts.isClassDeclaration(statement) ||
          ts.isInterfaceDeclaration(statement) ||
          ts.isTypeAliasDeclaration(statement) ||
          ts.isEnumDeclaration(statement) ||
          ts.isModuleDeclaration(statement)) &&
        statement.name &&
        ts.isIdentifier(statement.name)
      ) {
        names.push(statement.name.text)
      }
    }
  }
  return [...new Set(names)].slice(0, MAX_EXPORTS)
}

function kindOf(ts: typeof TypeScript, path: string): TypeScript.ScriptKind {
  if (path.endsWith('.tsx')) return ts.ScriptKind.TSX
  if (path.endsWith('.jsx')) return ts.ScriptKind.JSX
  if (/\.(m|c)?js$/.test(path)) return ts.ScriptKind.JS
  return ts.ScriptKind.TS
}
