/** A list as CSV (`1, 2`) or as a real array; items are scalars. Undefined when the value is neither. */
export function toList(raw: unknown): string[] | undefined {
  if (typeof raw === 'number') return [String(raw)];
  if (typeof raw === 'string') return raw.split(',').map((item) => item.trim()).filter((item) => item !== '');
  if (!Array.isArray(raw)) return undefined;
  const items: string[] = [];
  for (const item of raw) {
    if (typeof item === 'number' && Number.isFinite(item)) items.push(String(item));
    else if (typeof item === 'string') items.push(...toList(item)!);
    else return undefined;
  }
  return items;
}
