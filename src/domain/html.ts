// HTML of descriptions and excerpts, plain-text titles and escaping (reference §3.1 `title`, `description`,
// `excerpt`, `website`; §3.9).
import sanitize from 'sanitize-html';

/**
 * What post content may hold: the formatting and structure tags of WordPress's `wp_kses_post`, without `class`,
 * `style` or `id`. Any other tag is removed and its text kept, except for the tags of `nonTextTags`, removed with
 * their content. Links may only use http(s) and mailto (or be relative), images only http(s).
 */
const CONTENT_POLICY: sanitize.IOptions = {
  allowedTags: [
    'p',
    'br',
    'hr',
    'div',
    'span',
    'a',
    'img',
    'figure',
    'figcaption',
    'strong',
    'em',
    'b',
    'i',
    'u',
    's',
    'del',
    'ins',
    'small',
    'mark',
    'sub',
    'sup',
    'abbr',
    'cite',
    'q',
    'code',
    'pre',
    'blockquote',
    'h1',
    'h2',
    'h3',
    'h4',
    'h5',
    'h6',
    'ul',
    'ol',
    'li',
    'dl',
    'dt',
    'dd',
    'table',
    'caption',
    'colgroup',
    'col',
    'thead',
    'tbody',
    'tfoot',
    'tr',
    'th',
    'td',
  ],
  allowedAttributes: {
    a: ['href', 'title', 'target', 'rel'],
    img: ['src', 'alt', 'width', 'height'],
    abbr: ['title'],
    ol: ['start', 'reversed'],
    th: ['colspan', 'rowspan', 'scope'],
    td: ['colspan', 'rowspan'],
    col: ['span'],
    colgroup: ['span'],
  },
  allowedSchemes: ['http', 'https', 'mailto'],
  allowedSchemesByTag: { img: ['http', 'https'] },
  nonTextTags: ['script', 'style', 'textarea', 'option', 'noscript', 'template'],
  // An image whose source was refused would be an empty box.
  exclusiveFilter: (frame) => frame.tag === 'img' && !frame.attribs.src,
};

const PLAIN_TEXT_POLICY: sanitize.IOptions = {
  allowedTags: [],
  allowedAttributes: {},
  nonTextTags: CONTENT_POLICY.nonTextTags,
};

const HTML_ESCAPES: Record<string, string> = { '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#039;' };
/** `sanitize-html` decodes every entity it reads, and escapes only these characters when it writes text. */
const SANITIZER_ENTITIES: Record<string, string> = { '&amp;': '&', '&lt;': '<', '&gt;': '>', '&quot;': '"' };

/**
 * Text without `<`, `>` or `&` holds no markup and nothing the sanitiser would escape: it is its own sanitised form,
 * so the parser runs only when there is something to parse (most titles and many descriptions).
 */
const MARKUP_CHARACTERS = /[<>&]/;
const sanitizeWith = (input: string, policy: sanitize.IOptions) =>
  MARKUP_CHARACTERS.test(input) ? sanitize(input, policy) : input;

/** Safe post content (like WordPress's `wp_kses_post`); bare `&`, `<` and `>` in the text come out escaped. */
export function sanitizeHtml(input: string): string {
  return sanitizeWith(input, CONTENT_POLICY);
}

const rendered = new Map<string, string>();
const MAX_RENDERED = 5000;
/**
 * The texts kept, inputs and outputs together, in UTF-16 code units (about 2 bytes each): 4 Mi units, 8 MiB. Without
 * it 5,000 descriptions of the largest allowed size (256 KiB, D31) would hold gigabytes.
 */
const MAX_RENDERED_UNITS = 4 * 1024 * 1024;
let renderedUnits = 0;

/**
 * What the API returns for a description or an excerpt: the sanitised content with its paragraphs marked up.
 * Reads repeat the same few texts and rendering is a pure function of the text, so results are remembered
 * (least recently used dropped first, within both bounds).
 */
export function renderContent(input: string): string {
  let output = rendered.get(input);
  if (output === undefined) {
    output = autoParagraph(sanitizeHtml(input));
    const units = input.length + output.length;
    if (units > MAX_RENDERED_UNITS / 16) return output;
    while (rendered.size > 0 && (rendered.size >= MAX_RENDERED || renderedUnits + units > MAX_RENDERED_UNITS)) {
      const [oldest, oldestOutput] = rendered.entries().next().value!;
      rendered.delete(oldest);
      renderedUnits -= oldest.length + oldestOutput.length;
    }
    renderedUnits += units;
  } else {
    rendered.delete(input);
  }
  rendered.set(input, output);
  return output;
}

/** A plain-text title: tags removed (entities decoded), trimmed, runs of whitespace turned into one space. */
export function sanitizeTitle(input: string): string {
  return decodeSanitizerEntities(sanitizeWith(input, PLAIN_TEXT_POLICY)).replace(/\s+/g, ' ').trim();
}

/**
 * Escapes `&`, `<`, `>`, `"` and `'` for HTML text and attribute values, as WordPress's `esc_html`/`esc_attr` do:
 * an `&` that already starts a character reference (`&amp;`, `&#8217;`) is left alone.
 */
export function escapeHtml(input: string): string {
  return input.replace(
    /&(?!(?:[a-zA-Z][a-zA-Z0-9]*|#[0-9]+|#[xX][0-9a-fA-F]+);)|[<>"']/g,
    (character) => HTML_ESCAPES[character],
  );
}

function decodeSanitizerEntities(text: string): string {
  return text.replace(/&(?:amp|lt|gt|quot);/g, (entity) => SANITIZER_ENTITIES[entity]);
}

// ---------------------------------------------------------------------------------------------------------------------
// autoParagraph: a port of WordPress's `wpautop` (wp-includes/formatting.php), with its `$br` option on. The steps
// for <option>, <object>, <audio>/<video> are left out: the sanitiser never lets those tags through.

/** PCRE's `\s`: unlike JavaScript's, it leaves non-breaking and other Unicode spaces alone. */
const SPACE_CHARACTERS = String.raw` \t\n\r\f\v`;
const S = `[${SPACE_CHARACTERS}]`;
const BLOCK_TAGS =
  '(?:table|thead|tfoot|caption|col|colgroup|tbody|tr|td|th|div|dl|dd|dt|ul|ol|li|pre|form|map|area|blockquote' +
  '|address|style|p|h[1-6]|hr|fieldset|legend|section|article|aside|hgroup|header|footer|nav|figure|figcaption' +
  '|details|menu|summary)';
const BLOCK_TAG = `</?${BLOCK_TAGS}[^>]*>`;
/** A tag, a comment or a CDATA section (WordPress `get_html_split_regex`). */
const HTML_TAG = /(<(?:!--[\s\S]*?(?:-->|$)|!\[CDATA\[[\s\S]*?(?:\]\]>|$)|[^>]*>?))/;
const NEWLINE_IN_TAG = ' <!-- wpnl --> ';

/**
 * Turns text with line breaks into paragraphs, as WordPress does when it displays post content: blank lines separate
 * `<p>` paragraphs, other line breaks become `<br />`, block-level elements are not wrapped, `<pre>` is left as is.
 * The result is trimmed; empty or whitespace-only input gives `""`.
 */
export function autoParagraph(input: string): string {
  if (input.trim() === '') return '';
  const { text: withoutPre, preBlocks } = extractPreBlocks(`${input}\n`);

  // Two <br> in a row break a paragraph; block elements get blank lines around them.
  let text = withoutPre
    .replace(new RegExp(`<br${S}*/?>${S}*<br${S}*/?>`, 'g'), '\n\n')
    .replace(new RegExp(`(<${BLOCK_TAGS}[${SPACE_CHARACTERS}/>])`, 'g'), '\n\n$1')
    .replace(new RegExp(`(</${BLOCK_TAGS}>)`, 'g'), '$1\n\n')
    .replace(new RegExp(`(<hr${S}*?/?>)`, 'g'), '$1\n\n')
    .replace(/\r\n|\r/g, '\n');
  text = replaceInTags(text, '\n', NEWLINE_IN_TAG);
  if (text.includes('<figcaption')) {
    text = text
      .replace(new RegExp(`${S}*(<figcaption[^>]*>)`, 'g'), '$1')
      .replace(new RegExp(`</figcaption>${S}*`, 'g'), '</figcaption>');
  }

  // Every chunk between blank lines becomes a paragraph.
  text = text
    .replace(/\n\n+/g, '\n\n')
    .split(new RegExp(`\n${S}*\n`))
    .filter((paragraph) => paragraph !== '')
    .map((paragraph) => `<p>${paragraph.replace(/^\n+|\n+$/g, '')}</p>\n`)
    .join('');

  // Undo the wrapping where it swallowed block tags.
  text = text
    .replace(new RegExp(`<p>${S}*</p>`, 'g'), '')
    .replace(/<p>([^<]+)<\/(div|address|form)>/g, '<p>$1</p></$2>')
    .replace(new RegExp(`<p>${S}*(${BLOCK_TAG})${S}*</p>`, 'g'), '$1')
    .replace(/<p>(<li.+?)<\/p>/g, '$1')
    .replace(/<p><blockquote([^>]*)>/gi, '<blockquote$1><p>')
    .replaceAll('</blockquote></p>', '</p></blockquote>')
    .replace(new RegExp(`<p>${S}*(${BLOCK_TAG})`, 'g'), '$1')
    .replace(new RegExp(`(${BLOCK_TAG})${S}*</p>`, 'g'), '$1');

  // The remaining line breaks become <br />, except inside script, style and svg.
  text = text
    .replace(/<(script|style|svg)[\s\S]*?<\/\1>/g, (element) => element.replaceAll('\n', '<WPPreserveNewline />'))
    .replace(/<br>|<br\/>/g, '<br />')
    .replace(new RegExp(`(?<!<br />)${S}*\n`, 'g'), '<br />\n')
    .replaceAll('<WPPreserveNewline />', '\n');

  // No <br /> next to block tags.
  text = text
    .replace(new RegExp(`(${BLOCK_TAG})${S}*<br />`, 'g'), '$1')
    .replace(new RegExp(`<br />(${S}*</?(?:p|li|div|dl|dd|dt|th|pre|td|ul|ol)[^>]*>)`, 'g'), '$1')
    .replace(/\n<\/p>(\n?)$/, '</p>$1');

  for (const [placeholder, pre] of preBlocks) text = text.replace(placeholder, () => pre);
  return text.replaceAll(NEWLINE_IN_TAG, '\n').replaceAll('<!-- wpnl -->', '\n').trim();
}

/** Sets the `<pre>` elements aside, so that their line breaks are not touched. */
function extractPreBlocks(input: string): { text: string; preBlocks: Map<string, string> } {
  const preBlocks = new Map<string, string>();
  if (!input.includes('<pre')) return { text: input, preBlocks };
  const parts = input.split('</pre>');
  const last = parts.pop() ?? '';
  let text = '';
  for (const part of parts) {
    const start = part.indexOf('<pre');
    if (start === -1) {
      text += part;
      continue;
    }
    const placeholder = `<pre wp-pre-tag-${preBlocks.size}></pre>`;
    preBlocks.set(placeholder, `${part.slice(start)}</pre>`);
    text += part.slice(0, start) + placeholder;
  }
  return { text: text + last, preBlocks };
}

/** Replaces `search` inside tags and comments only, leaving the text between them alone. */
function replaceInTags(html: string, search: string, replacement: string): string {
  return html
    .split(HTML_TAG)
    .map((piece, index) => (index % 2 === 1 ? piece.replaceAll(search, replacement) : piece))
    .join('');
}
