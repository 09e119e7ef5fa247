// The organizer's own fields at the HTTP edge: how each is read and validated (the core's kind names them).
import { textField, websiteField } from '../linked/input-fields.ts';

export const organizerFieldArgs = {
  phone: textField('Phone number.'),
  website: websiteField('The organizer website: an absolute URL, or empty.'),
  email: textField('Email address (returned as sent; obfuscated only inside json_ld).'),
};
