import Type from 'typebox';
import { removeOrganizerFromEvents } from '../events/store.ts';
import type { LinkedPostKind } from '../linked/kind.ts';
import { obfuscateEmail, sentText } from '../linked/text.ts';

const TEXT_FIELDS = ['phone', 'website', 'email'] as const;

export const organizerKind: LinkedPostKind = {
  type: 'organizer',
  collection: 'organizers',
  nameKey: 'organizer',
  metaTable: 'organizers',
  fieldNames: ['phone', 'website', 'email'],
  searchColumns: ['phone', 'email', 'website'],
  keepWhenEmpty: [],

  metaForCreate(sent) {
    const text = sentText(sent, TEXT_FIELDS);
    return { phone: text.phone ?? '', website: text.website ?? '', email: text.email ?? '' };
  },

  metaChanges: (sent) => sentText(sent, TEXT_FIELDS),

  fields: (meta) => ({ phone: meta.phone, website: meta.website, email: meta.email }),

  fieldSchemas: {
    phone: Type.String({ description: 'Phone number.' }),
    website: Type.String({ description: 'The organizer website.' }),
    email: Type.String({ description: 'Email address, as sent (obfuscated only inside json_ld).' }),
  },

  trailing: () => ({}),
  trailingSchemas: {},

  jsonLd(item, meta) {
    const person: Record<string, unknown> = { '@type': 'Person' };
    const put = (key: string, value: unknown) => {
      if (value !== '' && value !== null && value !== undefined) person[key] = value;
    };
    put('name', item.name);
    put('description', item.description);
    put('url', meta.website || item.url);
    put('telephone', meta.phone);
    put('email', meta.email ? obfuscateEmail(String(meta.email)) : '');
    put('sameAs', meta.website);
    return person;
  },

  unlinkFromEvents: removeOrganizerFromEvents,

  messages: {
    notAccessible: ['organizer-not-accessible', 'The requested organizer is not accessible'],
    inTrash: ['organizer-is-in-trash', 'The organizer is already trashed'],
    pageNotFound: ['organizer-archive-page-not-found', 'The requested organizer archive page does not exist'],
  },
};
