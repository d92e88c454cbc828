// Where the shadow mode is read: every `.mode` of a config (`ctx.config.mode`, `config.mode`,
// `c.mode` where `c` is declared a `…Config`) and every `mode` destructured from one, read with
// the TypeScript parser (syntax only; a config is known by its name or its declared type).
import ts from 'typescript';

/** Is `expr` a config: named `config`/`cfg` (as itself or a property), or an identifier declared with a `…Config` type in this file? */
function isConfig(expr: ts.Expression, configNames: ReadonlySet<string>): boolean {
  if (ts.isIdentifier(expr)) return /^(config|cfg)$/i.test(expr.text) || configNames.has(expr.text);
  if (ts.isPropertyAccessExpression(expr)) return /^(config|cfg)$/i.test(expr.name.text);
  if (ts.isParenthesizedExpression(expr) || ts.isNonNullExpression(expr)) return isConfig(expr.expression, configNames);
  return false;
}

/** `file:line` of each read of a config's `mode` in the file `name` whose text is `text`. */
export function modeReads(name: string, text: string): string[] {
  const source = ts.createSourceFile(name, text, ts.ScriptTarget.Latest, true);
  const configNames = new Set<string>();
  const declare = (node: ts.Node) => {
    if ((ts.isParameter(node) || ts.isVariableDeclaration(node)) && ts.isIdentifier(node.name) && node.type) {
      if (/Config\b/.test(node.type.getText(source))) configNames.add(node.name.text);
    }
    ts.forEachChild(node, declare);
  };
  declare(source);
  const found: string[] = [];
  const at = (node: ts.Node) => `${name}:${source.getLineAndCharacterOfPosition(node.getStart(source)).line + 1}`;
  const visit = (node: ts.Node) => {
    if (ts.isPropertyAccessExpression(node) && node.name.text === 'mode' && isConfig(node.expression, configNames))
      found.push(at(node));
    else if (
      ts.isVariableDeclaration(node) &&
      ts.isObjectBindingPattern(node.name) &&
      node.initializer &&
      isConfig(node.initializer, configNames) &&
      node.name.elements.some((e) => (e.propertyName ?? e.name).getText(source) === 'mode')
    )
      found.push(at(node));
    ts.forEachChild(node, visit);
  };
  visit(source);
  return found;
}
