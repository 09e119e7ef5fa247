/** A LIKE pattern's literal part, for `... like ? escape '\\'`. */
export const escapeLike = (value: string) => value.replace(/[\\%_]/g, (char) => `\\${char}`);
