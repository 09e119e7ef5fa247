import Type, { type TProperties, type TSchema } from 'typebox';
import { component } from '../core/input/schema-names.ts';

/**
 * Response schemas are TypeBox schemas written once: the OpenAPI document publishes them and, with
 * `VALIDATE_RESPONSES=1`, every JSON response is checked against them. A schema marked as a component
 * (core/input/schema-names.ts) is published once under `components.schemas` and referenced wherever it appears.
 */
export { component, componentName } from '../core/input/schema-names.ts';

/** An object whose keys are exactly these: an undocumented key in a response is drift, and the checks catch it. */
export const closedObject = <P extends TProperties>(properties: P, options: { description?: string } = {}) =>
  Type.Object(properties, { additionalProperties: false, ...options });

/** `YYYY-MM-DD HH:MM:SS`, the only timestamp format the API writes. */
export const wpDateTime = (description: string) =>
  Type.String({ description, pattern: '^\\d{4}-\\d{2}-\\d{2} \\d{2}:\\d{2}:\\d{2}$' });

export const absoluteUrl = (description: string) => Type.String({ description, format: 'uri' });

/** `[]`: what the reference writes for an empty PHP array where an object or a single item would otherwise stand. */
export const emptyArray = (description: string) => Type.Array(Type.Unknown(), { maxItems: 0, description });

/** §1.4: every error. `data` is null only for a few WordPress-core errors; extra top-level members are allowed (D7). */
export const ErrorSchema = component(
  'Error',
  Type.Object(
    {
      code: Type.String({ description: 'A stable, machine-readable error code, e.g. rest_invalid_param.' }),
      message: Type.String({ description: 'A human-readable explanation.' }),
      data: Type.Union([
        Type.Object(
          {
            status: Type.Integer({ description: 'The HTTP status of the response.' }),
            params: Type.Optional(
              Type.Unknown({
                description:
                  'Validation errors: the names of the missing parameters, or a message per invalid parameter.',
              }),
            ),
            details: Type.Optional(
              Type.Unknown({
                description: "Per invalid parameter, the validator's own error ({code, message, data}); [] when none.",
              }),
            ),
          },
          { description: 'The HTTP status and, depending on the error, more detail.' },
        ),
        Type.Null(),
      ]),
    },
    { description: 'The error envelope every failed request answers with.' },
  ),
);

/** The page envelope of `GET /events`, `/venues` and `/organizers` (§4.5, §6). */
export const postListSchema = (key: string, item: TSchema, description: string) =>
  closedObject(
    {
      [key]: Type.Array(item, { description: 'The items of this page.' }),
      rest_url: absoluteUrl("This page's URL, with every effective filter."),
      next_rest_url: Type.Optional(absoluteUrl('The next page, when there is one.')),
      previous_rest_url: Type.Optional(absoluteUrl('The previous page, when there is one.')),
      total: Type.Integer({ minimum: 0, description: 'How many items match the filters, over all pages.' }),
      total_pages: Type.Integer({ minimum: 0, description: 'How many pages there are (0 when nothing matches).' }),
    },
    { description },
  );

/** D18: `DELETE …?force=true` answers with the item as it was. */
export const deletedSchema = (item: TSchema, description: string) =>
  closedObject(
    {
      deleted: Type.Literal(true, { description: 'Always true: the item is gone for good.' }),
      previous: item,
    },
    { description },
  );
