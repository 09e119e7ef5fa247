import Type from 'typebox';
import { absoluteUrl, closedObject, component } from '../../http/schemas.ts';

/** §3.6 as D6 has it (`serializeImage`): nothing is downloaded, so width and height only when they were given. */
export const ImageSchema = component(
  'Image',
  closedObject(
    {
      url: absoluteUrl('The image URL.'),
      id: Type.Integer({ minimum: 1, description: 'The image record id; send it as `image` to reuse the image.' }),
      extension: Type.String({
        description: 'The file extension taken from the URL, lower case; "" when it has none.',
      }),
      width: Type.Optional(Type.Integer({ minimum: 0, description: 'Width in pixels, when known.' })),
      height: Type.Optional(Type.Integer({ minimum: 0, description: 'Height in pixels, when known.' })),
    },
    { description: 'A featured image.' },
  ),
);

export const imageOrFalse = (description: string) => Type.Union([ImageSchema, Type.Literal(false)], { description });
