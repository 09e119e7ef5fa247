import type { FastifyBaseLogger } from 'fastify';
import type { Config } from '../../config.ts';
import type { Store } from '../../store/store.ts';
import { verifySecret, normalizeAppPassword } from './secrets.ts';
import {
  countUsers,
  createAppPassword,
  createUser,
  findUserByLogin,
  listAppPasswords,
  revokeAppPassword,
  setUserRole,
} from './store.ts';

/** The application password that holds ADMIN_PASSWORD: human-chosen, so it keeps scrypt and is never upgraded. */
export const BOOTSTRAP_PASSWORD_NAME = 'ADMIN_PASSWORD';

/**
 * D15: with ADMIN_USER/ADMIN_PASSWORD set, that administrator exists and the password authenticates. The password is
 * kept as an application password named ADMIN_PASSWORD (scrypt: a human-chosen secret, D29), replaced when the
 * configured value changes.
 */
export async function ensureAdmin(
  config: Config,
  store: Store,
  log: Pick<FastifyBaseLogger, 'info' | 'warn'>,
): Promise<void> {
  if (!config.admin) {
    if ((await countUsers(store.db)) === 0) {
      log.warn(
        'No user exists yet, so every write answers 401. Create an administrator with ' +
          '`npm run cli -- user create <login> --role administrator` and `npm run cli -- app-password create <login>`, ' +
          'or set ADMIN_USER and ADMIN_PASSWORD.',
      );
    }
    return;
  }
  const { user: login, password } = config.admin;
  const secret = normalizeAppPassword(password);
  await store
    .transaction(async (trx) => {
      let user = await findUserByLogin(trx, login);
      if (!user) {
        user = await createUser(trx, login, 'administrator');
        log.info({ login }, 'created the administrator named by ADMIN_USER');
      } else if (user.role !== 'administrator') {
        await setUserRole(trx, user.id, 'administrator');
        log.info({ login }, 'promoted ADMIN_USER to administrator');
      }
      const existing = (await listAppPasswords(trx, user.id)).filter((row) => row.name === BOOTSTRAP_PASSWORD_NAME);
      for (const row of existing) {
        if (await verifySecret(secret, row.hash)) return;
      }
      for (const row of existing) await revokeAppPassword(trx, row.id);
      await createAppPassword(trx, user.id, BOOTSTRAP_PASSWORD_NAME, secret, 'chosen');
    })
    .catch(async (error) => {
      // Two processes starting at once may both try to create the user; the loser finds it on a second pass.
      if ((await findUserByLogin(store.db, login)) === undefined) throw error;
    });
}
