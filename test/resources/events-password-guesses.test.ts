// D29 for event passwords (§11) over HTTP, on both databases: wrong guesses through GET /events/{id}, GET /events, an
// event's iCalendar file and an event page's password form are counted like failed logins (auth_failures,
// AUTH_FAILURES_PER_LOGIN per client address and event or event list); past the limit every guess is 429 without
// being checked, the right password included. And the page's unlock cookie is keyed with the database's own secret,
// bound to the current password.
import assert from 'node:assert/strict';
import { createHmac } from 'node:crypto';
import { it } from 'node:test';
import { describeEachDatabase } from '../helpers/harness.ts';
import { page, pathOf } from '../pages/support.ts';

const LIMIT = 3;
const RIGHT = 'open sesame';
const FORM = { 'content-type': 'application/x-www-form-urlencoded' };

describeEachDatabase(
  'event password guesses (D29)',
  (h) => {
    let made = 0;
    /** A published event protected by RIGHT, with a title of its own. */
    const protectedEvent = async () => {
      made += 1;
      const response = await h().request('POST', '/events', {
        as: h().users.administrator,
        body: {
          title: `Members evening ${made}`,
          description: 'The secret programme',
          start_date: '2031-09-01 19:00',
          end_date: '2031-09-01 21:00',
          status: 'publish',
          password: RIGHT,
        },
      });
      assert.equal(response.statusCode, 201, response.body);
      return response.json() as { id: number; url: string };
    };
    const assertTooMany = (response: { statusCode: number; headers: Record<string, unknown>; json(): any }) => {
      assert.equal(response.statusCode, 429);
      assert.deepEqual(response.json(), {
        code: 'rest_too_many_password_attempts',
        message: 'Too many wrong event passwords. Try again later.',
        data: { status: 429 },
      });
      assert.ok(Number(response.headers['retry-after']) >= 1, 'Retry-After in seconds');
    };

    it('GET /events/{id}: past the limit of wrong passwords, 429 without checking, the right one included', async () => {
      const event = await protectedEvent();
      const read = (password: string) => h().request('GET', `/events/${event.id}`, { query: { password } });
      assert.equal((await read(RIGHT)).statusCode, 200, 'a right password does not count');
      for (let guess = 1; guess <= LIMIT; guess++) {
        const wrong = await read(`wrong ${guess}`);
        assert.equal(wrong.statusCode, 403);
        assert.equal(wrong.json().code, 'event-password-protected');
      }
      assertTooMany(await read(`wrong ${LIMIT + 1}`));
      assertTooMany(await read(RIGHT));
      // Counted per event: another event's password still opens it.
      const other = await protectedEvent();
      assert.equal((await h().request('GET', `/events/${other.id}`, { query: { password: RIGHT } })).statusCode, 200);
    });

    it('GET /events: a password that opens none of the protected events listed is a wrong guess', async () => {
      await protectedEvent();
      const list = (password: string) =>
        h().request('GET', '/events', { query: { start_date: '2031-09-01', end_date: '2031-09-30', password } });
      const opened = await list(RIGHT);
      assert.equal(opened.statusCode, 200);
      assert.ok(
        opened
          .json()
          .events.some((event: { description: string }) => event.description.includes('The secret programme')),
      );
      for (let guess = 1; guess <= LIMIT; guess++) {
        const wrong = await list(`wrong ${guess}`);
        assert.equal(wrong.statusCode, 200);
        assert.ok(
          wrong
            .json()
            .events.every((event: { description: string }) => !event.description.includes('The secret programme')),
        );
      }
      assertTooMany(await list(`wrong ${LIMIT + 1}`));
      assertTooMany(await list(RIGHT));
      // A list without a password is not a guess.
      assert.equal(
        (await h().request('GET', '/events', { query: { start_date: '2031-09-01', end_date: '2031-09-30' } }))
          .statusCode,
        200,
      );
    });

    it('GET /events/{id}.ics: a wrong password counts as on GET /events/{id}', async () => {
      const event = await protectedEvent();
      const read = (password: string) =>
        h().request('GET', `/events/${event.id}.ics`, { as: h().users.subscriber, query: { password } });
      assert.equal((await read(RIGHT)).statusCode, 200, 'a right password does not count');
      for (let guess = 1; guess <= LIMIT; guess++) assert.equal((await read(`wrong ${guess}`)).statusCode, 403);
      assertTooMany(await read(RIGHT));
    });

    it("the page's password form: past the limit, a 429 page without checking, the right password included", async () => {
      const event = await protectedEvent();
      const url = pathOf(event.url);
      const post = (password: string) => page(h(), 'POST', url, FORM, `password=${encodeURIComponent(password)}`);
      for (let guess = 1; guess <= LIMIT; guess++) assert.equal((await post(`wrong ${guess}`)).statusCode, 403);
      for (const password of [`wrong ${LIMIT + 1}`, RIGHT]) {
        const refused = await post(password);
        assert.equal(refused.statusCode, 429);
        assert.match(String(refused.headers['content-type']), /^text\/html/);
        assert.ok(Number(refused.headers['retry-after']) >= 1);
        assert.ok(refused.body.includes('Too many wrong passwords') && !refused.body.includes('The secret programme'));
        assert.equal(refused.headers['set-cookie'], undefined);
      }
      // The API and the page count guesses at one event together.
      assertTooMany(await h().request('GET', `/events/${event.id}`, { query: { password: RIGHT } }));
    });

    it('the unlock cookie is keyed with a server secret: the old password-keyed one is refused, a password change ends it', async () => {
      const event = await protectedEvent();
      const url = pathOf(event.url);
      const unlocked = (response: { body: string }) => response.body.includes('The secret programme');
      const withCookie = (cookie: string) => page(h(), 'GET', url, { cookie });

      const passwordKeyed = createHmac('sha256', RIGHT)
        .update(`calendar-events page unlock ${event.id}`)
        .digest('base64url');
      assert.ok(
        !unlocked(await withCookie(`event_unlock_${event.id}=${passwordKeyed}`)),
        'a cookie anyone who knows the password could make',
      );

      const right = await page(h(), 'POST', url, FORM, `password=${encodeURIComponent(RIGHT)}`);
      assert.equal(right.statusCode, 200);
      const cookie = String(right.headers['set-cookie']).split(';')[0];
      assert.notEqual(cookie, `event_unlock_${event.id}=${passwordKeyed}`);
      assert.ok(unlocked(await withCookie(cookie)));
      // Another process on the same database accepts it: the key is the database's, not the process's.
      const other = await h().openAnotherStore();
      try {
        const { unlockMatches } = await import('../../src/pages/unlock.ts');
        assert.ok(
          await unlockMatches(
            other,
            { id: event.id, password: RIGHT },
            { [`event_unlock_${event.id}`]: cookie.split('=')[1] },
          ),
        );
      } finally {
        await other.close();
      }

      const changed = await h().request('POST', `/events/${event.id}`, {
        as: h().users.administrator,
        body: { password: 'a new one' },
      });
      assert.equal(changed.statusCode, 200, changed.body);
      assert.ok(!unlocked(await withCookie(cookie)), 'the cookie of the old password no longer opens the event');
    });
  },
  { AUTH_FAILURES_PER_LOGIN: String(LIMIT) },
);
