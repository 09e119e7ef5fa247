import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import sanitize from 'sanitize-html';
import { autoParagraph, escapeHtml, renderContent, sanitizeHtml, sanitizeTitle } from '../../src/domain/html.ts';

describe('sanitizeHtml', () => {
  it('returns text without markup characters as the sanitiser would, without parsing it', () => {
    // Characters a parser treats specially, other than < > &: quotes, NUL, CR, BOM, separators, a lone surrogate.
    const alphabet = [
      'a',
      'Z',
      ' ',
      '\n',
      '\r',
      '\t',
      '\f',
      '\v',
      '\0',
      '\x01',
      '\x7f',
      '"',
      "'",
      '=',
      '/',
      ';',
      '#',
      '!',
      '?',
      '-',
      ']',
      'é',
      '€',
      '😀',
      '\u00a0',
      '\u2028',
      '\ufeff',
      '\ud800',
    ];
    let state = 7;
    const next = () => {
      state = (state * 1103515245 + 12345) % 2 ** 31;
      return state / 2 ** 31;
    };
    for (let sample = 0; sample < 5000; sample++) {
      let text = '';
      for (let length = Math.floor(next() * 16); length > 0; length--)
        text += alphabet[Math.floor(next() * alphabet.length)];
      assert.equal(
        sanitizeHtml(text),
        sanitize(text, { allowedTags: ['p'], allowedAttributes: {} }),
        JSON.stringify(text),
      );
      assert.equal(
        sanitizeTitle(text),
        sanitize(text, { allowedTags: [], allowedAttributes: {} }).replace(/\s+/g, ' ').trim(),
        JSON.stringify(text),
      );
    }
  });

  it('keeps formatting and structure', () => {
    const html =
      '<h2>Title</h2><p><strong>a</strong> <em>b</em> <b>c</b> <i>d</i> <u>e</u> <s>f</s></p>' +
      '<p>x<sub>2</sub> y<sup>3</sup></p>' +
      '<ul><li>one</li></ul><ol><li>two</li></ol><blockquote>quote</blockquote><pre><code>code</code></pre><hr />' +
      '<div><span>span</span></div>';
    assert.equal(sanitizeHtml(html), html);
  });

  it('keeps links, images, figures and tables with their allowed attributes', () => {
    const html =
      '<a href="https://example.com/" title="Example" target="_blank" rel="noopener">link</a>' +
      '<a href="mailto:someone@example.com">mail</a><a href="/relative">relative</a>' +
      '<figure><img src="https://example.com/a.png" alt="A" width="10" height="20" />' +
      '<figcaption>caption</figcaption></figure>' +
      '<table><caption>c</caption><thead><tr><th colspan="2">h</th></tr></thead>' +
      '<tbody><tr><td>1</td><td>2</td></tr></tbody><tfoot><tr><td rowspan="1">f</td></tr></tfoot></table>';
    assert.equal(sanitizeHtml(html), html);
  });

  it('removes scripts, styles and frames', () => {
    assert.equal(sanitizeHtml('<script>alert(1)</script>Hi<style>p{}</style>'), 'Hi');
    assert.equal(sanitizeHtml('<iframe src="https://example.com/"></iframe>Hi'), 'Hi');
  });

  it('removes event handlers, styles and classes', () => {
    assert.equal(
      sanitizeHtml('<p onclick="alert(1)" style="color:red" class="x">Hi</p><img src="https://e.com/a" onerror="x" />'),
      '<p>Hi</p><img src="https://e.com/a" />',
    );
  });

  it('only lets http, https and mailto links through', () => {
    assert.equal(sanitizeHtml('<a href="javascript:alert(1)">x</a>'), '<a>x</a>');
    assert.equal(sanitizeHtml('<a href=" JavaScript:alert(1)">x</a>'), '<a>x</a>');
    assert.equal(sanitizeHtml('<a href="ftp://example.com/">x</a>'), '<a>x</a>');
    assert.equal(sanitizeHtml('<a href="data:text/html,x">x</a>'), '<a>x</a>');
  });

  it('drops an image whose source is refused', () => {
    assert.equal(sanitizeHtml('<img src="data:image/png;base64,AAAA" alt="A" />after'), 'after');
    assert.equal(sanitizeHtml('<img src="mailto:a@example.com" />after'), 'after');
  });

  it('keeps the text of unknown tags', () => {
    assert.equal(sanitizeHtml('<custom>text</custom>'), 'text');
  });

  it('escapes bare special characters', () => {
    assert.equal(sanitizeHtml('Tom & Jerry: 1 < 2'), 'Tom &amp; Jerry: 1 &lt; 2');
  });
});

describe('autoParagraph', () => {
  it('wraps text in a paragraph', () => {
    assert.equal(autoParagraph('probe desc'), '<p>probe desc</p>');
    assert.equal(autoParagraph('Hello <b>world</b>'), '<p>Hello <b>world</b></p>');
  });

  it('is empty for empty or blank input', () => {
    assert.equal(autoParagraph(''), '');
    assert.equal(autoParagraph(' \n\t '), '');
  });

  it('splits paragraphs at blank lines', () => {
    assert.equal(autoParagraph('one\n\ntwo'), '<p>one</p>\n<p>two</p>');
    assert.equal(autoParagraph('one\n\n\n\ntwo'), '<p>one</p>\n<p>two</p>');
    assert.equal(autoParagraph('one\n  \ntwo'), '<p>one</p>\n<p>two</p>');
  });

  it('turns single line breaks into <br />', () => {
    assert.equal(autoParagraph('one\ntwo'), '<p>one<br />\ntwo</p>');
  });

  it('handles Windows and old Mac line breaks', () => {
    assert.equal(autoParagraph('one\r\ntwo\r\n\r\nthree\rfour'), '<p>one<br />\ntwo</p>\n<p>three<br />\nfour</p>');
  });

  it('turns two <br> in a row into a paragraph break', () => {
    assert.equal(autoParagraph('one<br>two<br /><br>three'), '<p>one<br />two</p>\n<p>three</p>');
  });

  it('does not wrap block elements', () => {
    assert.equal(autoParagraph('<p>Sample description</p>'), '<p>Sample description</p>');
    assert.equal(autoParagraph('<div>block</div>'), '<div>block</div>');
    assert.equal(autoParagraph('<ul>\n<li>a</li>\n<li>b</li>\n</ul>'), '<ul>\n<li>a</li>\n<li>b</li>\n</ul>');
    assert.equal(
      autoParagraph('<table>\n<tr>\n<td>a</td>\n</tr>\n</table>'),
      '<table>\n<tr>\n<td>a</td>\n</tr>\n</table>',
    );
  });

  it('wraps the text around block elements', () => {
    assert.equal(autoParagraph('before\n<h2>Head</h2>\nafter'), '<p>before</p>\n<h2>Head</h2>\n<p>after</p>');
    assert.equal(autoParagraph('<hr />after'), '<hr />\n<p>after</p>');
  });

  it('wraps the text inside a blockquote', () => {
    assert.equal(autoParagraph('<blockquote>quote</blockquote>'), '<blockquote><p>quote</p></blockquote>');
  });

  it('leaves the line breaks of <pre> alone', () => {
    assert.equal(autoParagraph('<pre>a\n\nb</pre>\n\nafter'), '<pre>a\n\nb</pre>\n<p>after</p>');
  });

  it('leaves line breaks inside a tag alone', () => {
    assert.equal(autoParagraph('<a href="x"\ntitle="t">link</a>'), '<p><a href="x"\ntitle="t">link</a></p>');
  });

  it('keeps a figure caption next to its image', () => {
    assert.equal(
      autoParagraph('<figure><img src="a.png" />\n<figcaption>caption</figcaption></figure>'),
      '<figure><img src="a.png" /><figcaption>caption</figcaption></figure>',
    );
  });
});

describe('renderContent', () => {
  it('sanitises, then wraps paragraphs', () => {
    assert.equal(renderContent('probe desc'), '<p>probe desc</p>');
    assert.equal(renderContent('Short'), '<p>Short</p>');
    assert.equal(renderContent('<p>Sample description</p>'), '<p>Sample description</p>');
    assert.equal(
      renderContent('<script>alert(1)</script>Hi <a href="javascript:x" onclick="y">there</a>\n\nBye'),
      '<p>Hi <a>there</a></p>\n<p>Bye</p>',
    );
  });

  it('is empty for empty content, or content that is only removed markup', () => {
    assert.equal(renderContent(''), '');
    assert.equal(renderContent('<script>alert(1)</script>'), '');
  });
});

describe('sanitizeTitle', () => {
  it('removes tags and keeps their text', () => {
    assert.equal(sanitizeTitle('<b>Sample</b> <i>Conference</i>'), 'Sample Conference');
  });

  it('drops scripts with their content', () => {
    assert.equal(sanitizeTitle('Title<script>alert(1)</script>'), 'Title');
  });

  it('trims and collapses whitespace', () => {
    assert.equal(sanitizeTitle('  Sample \n\t Conference  '), 'Sample Conference');
  });

  it('returns plain text: characters as such, entities decoded', () => {
    assert.equal(sanitizeTitle('Tom & Jerry'), 'Tom & Jerry');
    assert.equal(sanitizeTitle('Tom &amp; Jerry &lt;3 &#8217;'), 'Tom & Jerry <3 \u2019');
    assert.equal(sanitizeTitle('"Quoted" title'), '"Quoted" title');
  });
});

describe('escapeHtml', () => {
  it('escapes the HTML special characters', () => {
    assert.equal(
      escapeHtml(`<a href="x">Tom & Jerry's</a>`),
      '&lt;a href=&quot;x&quot;&gt;Tom &amp; Jerry&#039;s&lt;/a&gt;',
    );
  });

  it('does not escape an existing character reference again', () => {
    assert.equal(escapeHtml('a &amp; b &#8217; &#x2019; &copy;'), 'a &amp; b &#8217; &#x2019; &copy;');
    assert.equal(escapeHtml('https://example.com/?a=1&b=2'), 'https://example.com/?a=1&amp;b=2');
  });

  it('leaves plain text alone', () => {
    assert.equal(escapeHtml('plain text'), 'plain text');
  });
});
