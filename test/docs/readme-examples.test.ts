// The README's shell examples run as written, against a fresh service, in the order a newcomer would: the quick start
// (a user and an application password from the CLI, a venue, an event, its page, the feed), then every example of
// "What it does", with the quick start's credentials. An example that stops working fails here, not for a reader.
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { after, before, describe, it } from 'node:test';
import {
  bash,
  codeBlocks,
  type FreshService,
  notRunReason,
  SHELL_LANGUAGES,
  startFreshService,
} from './shell-examples.ts';

const README = readFileSync(new URL('../../README.md', import.meta.url), 'utf8');

/** The `sh` block that follows the `<!-- example: name -->` marker. */
function example(name: string): string {
  const marker = `<!-- example: ${name} -->`;
  const at = README.indexOf(marker);
  assert.ok(at >= 0, `the README marks an example "${name}"`);
  const block = /```sh\n([\s\S]*?)```/.exec(README.slice(at));
  assert.ok(block, `a sh block follows the "${name}" marker`);
  return block[1];
}

/** Every `sh` block of the section `heading` (an indented one in a list included), in order. */
function examplesUnder(heading: string): string[] {
  const start = README.indexOf(`\n## ${heading}\n`);
  assert.ok(start >= 0, `the README has a section "${heading}"`);
  const end = README.indexOf('\n## ', start + 1);
  const section = README.slice(start, end < 0 ? undefined : end);
  return [...section.matchAll(/^( *)```sh\n([\s\S]*?)^\1```/gm)].map(([, indent, body]) =>
    body
      .split('\n')
      .map((line) => line.slice(indent.length))
      .join('\n'),
  );
}

describe('the README examples, run as written', () => {
  let service: FreshService;
  let env: Record<string, string>;
  before(async () => {
    service = await startFreshService();
    env = service.env;
  });
  after(() => service.stop());

  it('the quick start creates a user, a venue and an event, shows its page and its feed', async () => {
    const run = await bash(example('quick-start'), env);
    assert.equal(run.code, 0, `${run.stdout}\n${run.stderr}`);
    assert.match(run.stdout, /<title>Opening night/);
    assert.match(run.stdout, /^SUMMARY:Opening night\r?$/m);
    assert.match(run.stdout, /^DTSTART;TZID=Europe\/Berlin:20300501T190000\r?$/m);
  });

  it('every example of "What it does" runs with the quick start\'s credentials', async () => {
    const examples = examplesUnder('What it does, in one example each');
    assert.ok(examples.length >= 6, `${examples.length} examples`);
    // The quick start's lines that set API and AUTH, for a user of this test's own (so it needs no other test).
    const credentials = example('quick-start')
      .split('\n')
      .filter((line) => /^(API|PASSWORD|AUTH)=/.test(line))
      .join('\n')
      .replace('for alice: ', 'for bob: ')
      .replace('AUTH="alice:', 'AUTH="bob:');
    // Made once: every example runs with them.
    const made = await bash(
      'npm run -s cli -- user create bob --role administrator >/dev/null\n' +
        credentials.replace('app-password create alice', 'app-password create bob') +
        '\necho "@@AUTH=$AUTH"',
      env,
    );
    const auth = /^@@AUTH=(.+)$/m.exec(made.stdout)?.[1];
    assert.ok(made.code === 0 && auth, `bob's credentials:\n${made.stdout}\n${made.stderr}`);
    for (const [index, script] of examples.entries()) {
      // The import reads a file of the reader's: here, the feed the service itself serves.
      const runnable = script.replace('~/Downloads/community.ics', '"$FEED"').replace('--as alice', '--as bob');
      // An HTTP error fails the example (curl alone would print it and exit 0).
      const setup =
        'curl() { command curl --fail-with-body --silent --show-error "$@"; }\n' +
        'FEED=$(mktemp); curl "$API/events.ics" > "$FEED"\n';
      const run = await bash(`${setup}${runnable}`, { ...env, AUTH: auth });
      assert.equal(run.code, 0, `example ${index + 1}:\n${runnable}\n${run.stdout}\n${run.stderr}`);
    }
  });
});

describe('the README shell blocks', () => {
  it('each runs in the tests above, or says before its fence why it does not', () => {
    const lines = README.split('\n');
    const section = (heading: string) => {
      const start = lines.indexOf(`## ${heading}`) + 1;
      const end = lines.findIndex((line, index) => index >= start && line.startsWith('## '));
      return [start, end < 0 ? lines.length : end + 1];
    };
    const [runFrom, runTo] = section('What it does, in one example each');
    for (const block of codeBlocks(README).filter((candidate) => SHELL_LANGUAGES.has(candidate.language))) {
      const run = block.marker === 'quick-start' || (block.line > runFrom && block.line < runTo);
      const reason = notRunReason(block);
      assert.ok(run || (reason !== undefined && reason.length > 10), `README.md:${block.line} runs or says why not`);
    }
  });
});
