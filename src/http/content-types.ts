/** The Content-Type of every JSON answer, errors included (WordPress spells the charset this way). */
export const JSON_TYPE = 'application/json; charset=UTF-8';
