// GitHub's pagination rule, checked with the schema before a document runs: every connection
// names `first` or `last` (not both). GitHub refuses the whole document otherwise.
import { getNamedType, GraphQLError, type ASTVisitor, type ValidationContext } from 'graphql';

export function paginationBoundaries(context: ValidationContext): ASTVisitor {
  return {
    Field(node) {
      const field = context.getFieldDef();
      if (!field || !getNamedType(field.type).name.endsWith('Connection')) return;
      const names = new Set(field.args.map((a) => a.name));
      if (!names.has('first') || !names.has('last')) return;
      const given = new Set((node.arguments ?? []).map((a) => a.name.value));
      if (!given.has('first') && !given.has('last')) {
        context.reportError(
          new GraphQLError(
            `You must provide a \`first\` or \`last\` value to properly paginate the \`${field.name}\` connection.`,
            { nodes: node },
          ),
        );
      } else if (given.has('first') && given.has('last')) {
        context.reportError(
          new GraphQLError(
            `Passing both \`first\` and \`last\` to paginate the \`${field.name}\` connection is not supported.`,
            { nodes: node },
          ),
        );
      }
    },
  };
}
