import Type from 'typebox';
import { NAMESPACE } from '../../config.ts';
import { schemaKeyword, type Arg, type Args } from '../../core/input/args.ts';
import type { RequestContext } from '../../http/context.ts';
import type { RouteGroup } from '../../http/routes.ts';
import { absoluteUrl, closedObject } from '../../http/schemas.ts';

/** The schema keywords WordPress copies from an argument into the index, in the order we print them. */
const ARG_KEYWORDS = ['description', 'type', 'format', 'enum', 'items', 'minimum', 'maximum', 'maxLength'] as const;

const json = (value: unknown): unknown => JSON.parse(JSON.stringify(value));

/** One argument as §13 shows it: its default (computed now when it depends on the clock), schema keywords, `required`. */
export function describeArg(spec: Arg, ctx: RequestContext): Record<string, unknown> {
  const described: Record<string, unknown> = {};
  const fallback = spec.documentedDefault ? spec.documentedDefault(ctx) : schemaKeyword(spec.schema, 'default');
  if (fallback !== undefined) described.default = json(fallback);
  for (const keyword of ARG_KEYWORDS) {
    const value = schemaKeyword(spec.schema, keyword);
    if (value !== undefined) described[keyword] = json(value);
  }
  described.required = spec.required;
  return described;
}

/** An endpoint without arguments prints `[]`, as PHP encodes an empty array (example 01). */
function describeArgs(args: Args, ctx: RequestContext): Record<string, unknown> | [] {
  const entries = Object.entries(args);
  return entries.length === 0 ? [] : Object.fromEntries(entries.map(([name, spec]) => [name, describeArg(spec, ctx)]));
}

/** Route keys are regular expressions; only the literal ones link to themselves. */
export const isLiteralPattern = (pattern: string) => !/[()[\]\\?*+]/.test(pattern);

/** §13: `GET {api}`, built from the route table itself. */
export function namespaceIndex(groups: readonly RouteGroup[], ctx: RequestContext): Record<string, unknown> {
  const { config } = ctx;
  const routes: Record<string, unknown> = {};
  for (const group of groups) {
    const route: Record<string, unknown> = {
      namespace: NAMESPACE,
      methods: group.endpoints.flatMap((candidate) => [...candidate.methods]),
      endpoints: group.endpoints.map((candidate) => ({
        methods: [...candidate.methods],
        args: describeArgs(candidate.args, ctx),
      })),
    };
    if (isLiteralPattern(group.pattern)) route._links = { self: [{ href: `${config.apiRoot}${group.pattern}` }] };
    routes[`/${NAMESPACE}${group.pattern}`] = route;
  }
  return { namespace: NAMESPACE, routes, _links: { up: [{ href: `${config.siteUrl}${config.apiPrefix}/` }] } };
}

const links = (relation: string, description: string) =>
  closedObject({ [relation]: Type.Array(closedObject({ href: absoluteUrl('The linked URL.') })) }, { description });

export const NamespaceIndexSchema = closedObject(
  {
    namespace: Type.Literal(NAMESPACE, { description: "This API's namespace." }),
    routes: Type.Record(
      Type.String(),
      closedObject({
        namespace: Type.Literal(NAMESPACE),
        methods: Type.Array(Type.String(), { description: 'Every method the route answers.' }),
        endpoints: Type.Array(
          closedObject({
            methods: Type.Array(Type.String(), { description: 'The methods this endpoint serves.' }),
            args: Type.Union(
              [
                Type.Record(
                  Type.String(),
                  Type.Object(
                    { required: Type.Boolean() },
                    {
                      description:
                        'An argument: `required`, and its default, description, type, items and format when it has them.',
                    },
                  ),
                ),
                Type.Array(Type.Unknown(), { maxItems: 0 }),
              ],
              { description: 'The arguments by name; [] when there are none.' },
            ),
          }),
        ),
        _links: Type.Optional(links('self', "For routes without parameters, the route's own URL.")),
      }),
      { description: 'Every route, keyed by its pattern (a regular expression for routes with parameters).' },
    ),
    _links: links('up', 'The API index above this namespace.'),
  },
  { description: 'The namespace index.' },
);
