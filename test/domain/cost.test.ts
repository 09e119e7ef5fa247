import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { costValues, formatCost, parseCost, type CurrencyDefault } from '../../src/domain/cost.ts';

const DOLLAR_PREFIX: CurrencyDefault = { symbol: '$', position: 'prefix' };

/** The display string of a cost as sent, through the same steps as a create. */
function display(raw: unknown, siteDefault: CurrencyDefault = DOLLAR_PREFIX): string {
  const parsed = parseCost(raw);
  assert.ok(parsed);
  return formatCost(parsed.values, parsed.symbol, parsed.position, siteDefault);
}

describe('parseCost', () => {
  it('keeps the values as sent, trimmed, without empty ones', () => {
    assert.deepEqual(parseCost(' 25 ')?.values, ['25']);
    assert.deepEqual(parseCost(['0$', '', '  ', ' 20$'])?.values, ['0$', '20$']);
    assert.deepEqual(parseCost(25)?.values, ['25']);
    assert.deepEqual(parseCost([10, '12.50'])?.values, ['10', '12.50']);
  });

  it('reads an empty string or array as no cost', () => {
    assert.deepEqual(parseCost(''), { values: [], symbol: '', position: '' });
    assert.deepEqual(parseCost([]), { values: [], symbol: '', position: '' });
  });

  it('refuses anything but strings, numbers and arrays of them', () => {
    for (const raw of [null, undefined, {}, true, [['10']], ['10', {}], [null], Number.NaN]) {
      assert.equal(parseCost(raw), null, JSON.stringify(raw));
    }
  });

  it('finds no symbol in a plain number', () => {
    assert.deepEqual(parseCost('25'), { values: ['25'], symbol: '', position: '' });
    assert.deepEqual(parseCost('10-20'), { values: ['10-20'], symbol: '', position: '' });
    assert.deepEqual(parseCost('1,000.50'), { values: ['1,000.50'], symbol: '', position: '' });
  });

  it('finds a postfix symbol', () => {
    assert.deepEqual(parseCost('20$'), { values: ['20$'], symbol: '$', position: 'postfix' });
    assert.deepEqual(parseCost(['0$', '20$', '30$']), {
      values: ['0$', '20$', '30$'],
      symbol: '$',
      position: 'postfix',
    });
    assert.deepEqual(parseCost('23,5 €'), { values: ['23,5 €'], symbol: '€', position: 'postfix' });
  });

  it('finds a prefix symbol, spaces around it dropped', () => {
    assert.deepEqual(parseCost('€ 5'), { values: ['€ 5'], symbol: '€', position: 'prefix' });
    assert.deepEqual(parseCost('USD 10'), { values: ['USD 10'], symbol: 'USD', position: 'prefix' });
  });

  it('finds the symbol of a range written on both numbers or once', () => {
    assert.equal(parseCost('$10 - $20')?.symbol, '$');
    assert.equal(parseCost('10$-20$')?.position, 'postfix');
    assert.deepEqual(parseCost('€10–20'), { values: ['€10–20'], symbol: '€', position: 'prefix' });
    assert.deepEqual(parseCost('10 to 20 EUR'), { values: ['10 to 20 EUR'], symbol: 'EUR', position: 'postfix' });
    assert.equal(parseCost('$10, $20')?.symbol, '$');
  });

  it('keeps the words around a single number as its symbol', () => {
    assert.deepEqual(parseCost('From $10'), { values: ['From $10'], symbol: 'From $', position: 'prefix' });
    assert.deepEqual(parseCost('10 per  person'), {
      values: ['10 per  person'],
      symbol: 'per person',
      position: 'postfix',
    });
  });

  it('finds no symbol when the values disagree', () => {
    assert.equal(parseCost(['$10', '20€'])?.symbol, '');
    assert.equal(parseCost(['$10', '20$'])?.symbol, '');
    assert.equal(parseCost(['25', '$10'])?.symbol, '');
    assert.equal(parseCost('$10-20$')?.symbol, '');
  });

  it('finds no symbol when text stands on both sides of a number, or between numbers without a separator', () => {
    assert.deepEqual(parseCost('USD 10 pp'), { values: ['USD 10 pp'], symbol: '', position: '' });
    assert.equal(parseCost('10 or 20')?.symbol, '');
  });

  it('ignores values without numbers when looking for the symbol', () => {
    assert.deepEqual(parseCost(['Free', '$10']), { values: ['Free', '$10'], symbol: '$', position: 'prefix' });
    assert.deepEqual(parseCost('Free'), { values: ['Free'], symbol: '', position: '' });
  });

  it('does not take a minus sign for a symbol', () => {
    assert.equal(parseCost('-5')?.symbol, '');
  });
});

describe('costValues', () => {
  it('lists the numbers as strings, sorted numerically', () => {
    assert.deepEqual(costValues(['25']), ['25']);
    assert.deepEqual(costValues(['0$', '20$', '30$']), ['0', '20', '30']);
    assert.deepEqual(costValues(['100', '9', '25']), ['9', '25', '100']);
  });

  it('lists every number of a range', () => {
    assert.deepEqual(costValues(['10-20']), ['10', '20']);
    assert.deepEqual(costValues(['$20 - $10']), ['10', '20']);
  });

  it('normalises separators and keeps the decimals as written', () => {
    assert.deepEqual(costValues(['1,000.50']), ['1000.50']);
    assert.deepEqual(costValues(['1.000,50']), ['1000.50']);
    assert.deepEqual(costValues(['1,000']), ['1000']);
    assert.deepEqual(costValues(['1.000.000']), ['1000000']);
    assert.deepEqual(costValues(['23,5']), ['23.5']);
    assert.deepEqual(costValues(['10.50']), ['10.50']);
    assert.deepEqual(costValues(['1.000']), ['1.000'], 'a single dot is a decimal point');
  });

  it('lists an amount once', () => {
    assert.deepEqual(costValues(['10', '10$', '10.00', '5']), ['5', '10']);
  });

  it('keeps a value without numbers as its slug, ranked as 0', () => {
    assert.deepEqual(costValues(['Free']), ['free']);
    assert.deepEqual(costValues(['10', 'Pay what you want']), ['pay-what-you-want', '10']);
    assert.deepEqual(costValues(['Free', 'free']), ['free']);
    assert.deepEqual(costValues(['???']), []);
  });

  it('ignores the words around numbers', () => {
    assert.deepEqual(costValues(['From $10 per person']), ['10']);
  });

  it('is empty without a cost', () => {
    assert.deepEqual(costValues([]), []);
  });
});

describe('formatCost', () => {
  it('is empty without a cost', () => {
    assert.equal(formatCost([], '', '', DOLLAR_PREFIX), '');
  });

  it('formats a plain number with the site default currency', () => {
    assert.equal(display('25'), '$25');
    assert.equal(display('25', { symbol: '€', position: 'postfix' }), '25€');
  });

  it("formats a number with the event's own currency", () => {
    assert.equal(display('20$'), '20$');
    assert.equal(display('€ 5'), '€5');
  });

  it('uses the site default for whichever of symbol and position the event lacks', () => {
    assert.equal(formatCost(['25'], '€', '', DOLLAR_PREFIX), '€25');
    assert.equal(formatCost(['25'], '', 'postfix', DOLLAR_PREFIX), '25$');
  });

  it('shows the lowest and highest amounts separated by an en dash', () => {
    assert.equal(display('10-20'), '$10 – $20');
    assert.equal(display('$10 - $20'), '$10 – $20');
    assert.equal(display(['30', '10', '20']), '$10 – $30');
    assert.equal(display('10$ - 20$'), '10$ – 20$');
  });

  it('shows one amount when the lowest equals the highest', () => {
    assert.equal(display(['10', '10.00']), '$10');
  });

  it('calls an amount of 0 Free', () => {
    assert.equal(display(['0$', '20$', '30$']), 'Free – 30$');
    assert.equal(display('0'), 'Free');
    assert.equal(display('0.00'), 'Free');
    assert.equal(display(['0', 'Free']), 'Free');
  });

  it('keeps the amounts as written', () => {
    assert.equal(display('10.50'), '$10.50');
    assert.equal(display('1,000.50'), '$1,000.50');
  });

  it('shows a value without numbers as written', () => {
    assert.equal(display('Free'), 'Free');
    assert.equal(display('Donation'), 'Donation');
    assert.equal(display(['Donation', 'Pay what you want']), 'Donation – Pay what you want');
    assert.equal(display(['Free', '10']), 'Free – $10');
  });

  it('puts a space between an amount and a currency written in letters', () => {
    assert.equal(display('USD 10'), 'USD 10');
    assert.equal(display('10 - 20 EUR'), '10 EUR – 20 EUR');
    assert.equal(display('23,5 kr'), '23,5 kr');
    assert.equal(display('US$10'), 'US$10');
  });

  it('keeps the words written around a single amount', () => {
    assert.equal(display('From $10'), 'From $10');
    assert.equal(display('10 per person'), '10 per person');
  });
});
