/**
 * An object of the API as its serializers build it (an event, a venue, a term), which the pages word field by field.
 * Its shape is the API's response schema, checked where it is built; here it is read by name, so it is typed loosely.
 */
// biome-ignore lint/suspicious/noExplicitAny: the API's JSON objects, read by field name (see above)
export type ApiObject = Record<string, any>;
