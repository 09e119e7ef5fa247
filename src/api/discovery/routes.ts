import Type from 'typebox';
import { NAMESPACE } from '../../config.ts';
import { arg } from '../../core/input/args.ts';
import { endpoint, type RouteGroup } from '../../http/routes.ts';
import { namespaceIndex, NamespaceIndexSchema } from './namespace-index.ts';
import { openApiDocument, OPENAPI_VERSION } from './openapi.ts';

const OpenApiDocumentSchema = Type.Object(
  {
    openapi: Type.Literal(OPENAPI_VERSION),
    info: Type.Object({ title: Type.String(), version: Type.String() }),
    paths: Type.Object({}),
  },
  { description: `An OpenAPI ${OPENAPI_VERSION} document.` },
);

/**
 * §13 and §14: the namespace index and the OpenAPI document, both generated from `routeTable` (every group,
 * these two included) when asked, so routes added anywhere appear here without being listed twice.
 */
export function discoveryRoutes(routeTable: () => readonly RouteGroup[]): RouteGroup[] {
  let document: Record<string, unknown> | undefined;

  const index = endpoint({
    methods: ['GET'],
    summary: 'List every route of the namespace with its methods and arguments',
    responses: { 200: { description: 'The namespace index.', schema: NamespaceIndexSchema } },
    args: {
      namespace: arg.string({
        description: 'The namespace to describe; this service has only one.',
        default: NAMESPACE,
      }),
      context: arg.string({
        description: 'The scope of the answer; kept for compatibility, it changes nothing here.',
        default: 'view',
      }),
    },
    handler: async (ctx) => ({ body: namespaceIndex(routeTable(), ctx) }),
  });

  const doc = endpoint({
    methods: ['GET'],
    summary: `Describe this API as an OpenAPI ${OPENAPI_VERSION} document`,
    responses: { 200: { description: 'The OpenAPI document.', schema: OpenApiDocumentSchema } },
    args: {},
    // The route table and configuration are fixed for the life of the app, and so is the document.
    handler: async (ctx) => {
      document ??= openApiDocument(routeTable(), ctx.config);
      return { body: document };
    },
  });

  return [
    { path: '', pattern: '', endpoints: [index] },
    { path: '/doc', pattern: '/doc', endpoints: [doc] },
  ];
}
