import Type, { type TProperties, type TSchema } from 'typebox';
import { closedObject, component, deletedSchema, postListSchema } from '../../http/schemas.ts';
import { ImageSchema } from '../images/response.ts';
import { globalIdProperties, jsonLdSchema, postHeadProperties } from '../posts/response.ts';
import type { LinkedPostKind } from '../../core/linked/kind.ts';

export interface LinkedResponseSchemas {
  /** §3.2/§3.3 (`serializeLinked`): published as the `Venue` / `Organizer` component. */
  item: TSchema;
  list: TSchema;
  /** A trash answers with the item; `force=true` with `{deleted, previous}` (D18). */
  deleted: TSchema;
}

const optional = (properties: TProperties): TProperties =>
  Object.fromEntries(Object.entries(properties).map(([key, schema]) => [key, Type.Optional(schema)]));

const built = new Map<LinkedPostKind, LinkedResponseSchemas>();

/** Built once per kind, so events embed the very schema the venue routes publish. */
export function linkedResponseSchemas(kind: LinkedPostKind): LinkedResponseSchemas {
  const existing = built.get(kind);
  if (existing) return existing;
  const title = kind.type[0].toUpperCase() + kind.type.slice(1);
  // Empty values are dropped from these objects, so every field that can be empty is optional.
  const item = component(
    title,
    closedObject(
      {
        ...postHeadProperties(kind.type),
        ...optional({
          [kind.nameKey]: Type.String({ description: `The ${kind.type} name.` }),
          description: Type.String({ description: `The ${kind.type} description, as HTML.` }),
          excerpt: Type.String({ description: 'The short description, as HTML.' }),
        }),
        slug: Type.String({ description: `The ${kind.type} slug (with a __trashed suffix while in the trash).` }),
        image: Type.Optional(ImageSchema),
        ...optional(kind.fieldSchemas),
        json_ld: Type.Optional(jsonLdSchema(kind.type)),
        ...kind.trailingSchemas,
        ...globalIdProperties(kind.type),
      },
      { description: `A ${kind.type}. Fields with an empty value are left out.` },
    ),
  );
  const schemas: LinkedResponseSchemas = {
    item,
    list: postListSchema(kind.collection, item, `A page of ${kind.collection}.`),
    deleted: Type.Union([item, deletedSchema(item, `The ${kind.type} as it was before it was deleted.`)]),
  };
  built.set(kind, schemas);
  return schemas;
}
