import type { Selectable } from 'kysely';
import { isAbsoluteUrl } from '../../domain/urls.ts';
import { slugify } from '../../domain/slugs.ts';
import { isRowId, type Db, type Trx } from '../../store/store.ts';
import type { ImagesTable } from '../../store/schema.ts';
import { insertPost } from '../posts/store.ts';
import type { PublicationDate } from '../posts/fields.ts';

export type ImageRow = Selectable<ImagesTable>;

/** D6: `""`, `0` or `false` clear the image; otherwise an absolute http(s) URL or the id of an image record. */
export type ImageInput = { clear: true } | { url: string } | { id: number };

export function readImageInput(value: unknown): ImageInput | undefined {
  if (value === '' || value === 0 || value === '0' || value === false || value === null) return { clear: true };
  if (typeof value === 'number' && Number.isSafeInteger(value) && value > 0) return { id: value };
  if (typeof value !== 'string') return undefined;
  const trimmed = value.trim();
  if (/^\d+$/.test(trimmed)) return { id: Number(trimmed) };
  return isAbsoluteUrl(trimmed) ? { url: trimmed } : undefined;
}

export async function isImageId(db: Db, id: number): Promise<boolean> {
  if (!isRowId(id)) return false;
  return (await db.selectFrom('images').select('id').where('id', '=', id).executeTakeFirst()) !== undefined;
}

function extensionOf(url: string): string {
  const match = /\.([A-Za-z0-9]{1,8})$/.exec(new URL(url).pathname);
  return match ? match[1].toLowerCase() : '';
}

/** A file name's percent-escapes decoded for its title; one that is not valid UTF-8 (`%E0%A4%A`) stays as it is. */
function fileTitle(fileName: string): string {
  try {
    return decodeURIComponent(fileName);
  } catch {
    return fileName;
  }
}

/** The image id to store: an existing record, or a new one for a URL not seen before (nothing is downloaded). */
export async function resolveImage(
  trx: Trx,
  input: ImageInput,
  authorId: number,
  at: PublicationDate,
): Promise<number | null> {
  if ('clear' in input) return null;
  if ('id' in input) return input.id;
  const existing = await trx.selectFrom('images').select('id').where('url', '=', input.url).executeTakeFirst();
  if (existing) return existing.id;
  const fileName = new URL(input.url).pathname.split('/').pop() ?? '';
  const post = await insertPost(
    trx,
    {
      type: 'image',
      author_id: authorId,
      status: 'inherit',
      title: fileTitle(fileName),
      date_local: at.local,
      date_utc: at.utc,
      modified_local: at.local,
      modified_utc: at.utc,
    },
    slugify(fileName.replace(/\.[^.]*$/, '')) || 'image',
  );
  await trx
    .insertInto('images')
    .values({ id: post.id, url: input.url, extension: extensionOf(input.url), width: null, height: null })
    .execute();
  return post.id;
}

export async function loadImages(db: Db, ids: Iterable<number | null>): Promise<Map<number, ImageRow>> {
  const wanted = [...new Set([...ids].filter((id): id is number => id !== null))];
  if (wanted.length === 0) return new Map();
  const rows = await db.selectFrom('images').selectAll().where('id', 'in', wanted).execute();
  return new Map(rows.map((row) => [row.id, row]));
}

/** §3.6: `false` without an image; width and height only when known. */
export function serializeImage(row: ImageRow | undefined): Record<string, unknown> | false {
  if (!row) return false;
  const image: Record<string, unknown> = { url: row.url, id: row.id, extension: row.extension };
  if (row.width !== null) image.width = row.width;
  if (row.height !== null) image.height = row.height;
  return image;
}
