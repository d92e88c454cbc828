// Checks the emulator's GraphQL answers against GitHub's schema. graphql-js already completes
// each value by the selection's type (non-null, lists, enums, Int/String/Boolean, the concrete
// type of an interface or union); GitHub's custom scalars get the checks its SDL cannot carry.
// Any error the resolvers did not mean (a GitHubError is meant: GitHub answers it too) is a breach.
import { GraphQLScalarType, type GraphQLError, type GraphQLSchema } from 'graphql';
import { GitHubError } from '../world.ts';

const ISO_TIME = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(\.\d+)?(Z|[+-]\d{2}:\d{2})$/;

const isString = (value: unknown): value is string => typeof value === 'string';

/** What a value of each custom scalar must look like on the wire, as GitHub documents it. */
const SCALAR_RULES: Readonly<Record<string, { rule: string; ok: (value: unknown) => boolean }>> = {
  DateTime: {
    rule: 'an ISO-8601 time with its zone',
    ok: (v) => isString(v) && ISO_TIME.test(v) && !Number.isNaN(Date.parse(v)),
  },
  PreciseDateTime: {
    rule: 'an ISO-8601 time with its zone',
    ok: (v) => isString(v) && ISO_TIME.test(v) && !Number.isNaN(Date.parse(v)),
  },
  GitTimestamp: {
    rule: 'an ISO-8601 time with its zone',
    ok: (v) => isString(v) && ISO_TIME.test(v) && !Number.isNaN(Date.parse(v)),
  },
  Date: { rule: 'an ISO-8601 date', ok: (v) => isString(v) && /^\d{4}-\d{2}-\d{2}$/.test(v) },
  GitObjectID: { rule: 'a hexadecimal object id', ok: (v) => isString(v) && /^[0-9a-f]{40}([0-9a-f]{24})?$/.test(v) },
  // a resource path ("/acme/app/pull/1") is a URI too
  URI: { rule: 'a URI', ok: (v) => isString(v) && v.length > 0 && !/\s/.test(v) },
  BigInt: { rule: 'an integer in a string', ok: (v) => isString(v) && /^-?\d+$/.test(v) },
  HTML: { rule: 'a string', ok: isString },
  GitRefname: { rule: 'a string', ok: isString },
  GitSSHRemote: { rule: 'a string', ok: isString },
  Base64String: { rule: 'a string', ok: isString },
  X509Certificate: { rule: 'a string', ok: isString },
};

/** Makes the schema's custom scalars refuse a value GitHub would never send (once per schema). */
export function checkCustomScalars(schema: GraphQLSchema): void {
  for (const [name, { rule, ok }] of Object.entries(SCALAR_RULES)) {
    const type = schema.getType(name);
    if (!(type instanceof GraphQLScalarType)) throw new Error(`GitHub's GraphQL schema has no scalar ${name}`);
    type.serialize = (value: unknown) => {
      if (!ok(value))
        throw new TypeError(`${name} cannot represent ${JSON.stringify(value) ?? String(value)}: GitHub sends ${rule}`);
      return value;
    };
  }
}

/**
 * The errors of an executed answer that GitHub would not give, each at its JSON pointer. An
 * error without a path is about the request (its variables), not the answer.
 */
export function schemaBreaches(errors: readonly GraphQLError[] | undefined): string[] {
  return (errors ?? [])
    .filter((error) => error.path !== undefined && !(error.originalError instanceof GitHubError))
    .map((error) => `at /data${(error.path ?? []).map((p) => `/${p}`).join('')}: ${error.message}`);
}
