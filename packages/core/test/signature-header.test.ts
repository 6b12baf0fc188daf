import { describe, expect, it } from 'vitest';
import { MAX_SIGNATURE_HEADER_LENGTH, parseSignatureHeader } from '../src/verify/verify-signature.js';

const HEX = 'ab'.repeat(32);

function code(value: string | string[] | undefined): string {
  try {
    parseSignatureHeader(value);
    return 'ok';
  } catch (error) {
    return (error as { code: string }).code;
  }
}

describe('parseSignatureHeader', () => {
  it('parses t and v1, keeping t as sent', () => {
    const h = parseSignatureHeader(`t=0017,v1=${HEX}`);
    expect(h.timestampText).toBe('0017');
    expect(h.timestamp).toBe(17);
    expect(h.signatures).toEqual([HEX]);
  });

  it('trims whitespace around items, keys and values', () => {
    const h = parseSignatureHeader(`  t = 1700000000 ,  v1=${HEX} `);
    expect(h.timestamp).toBe(1_700_000_000);
  });

  it('accepts several v1 values and ignores unknown schemes', () => {
    const other = 'cd'.repeat(32);
    const h = parseSignatureHeader(`t=1,v0=zzz,v1=${HEX},v2=whatever,v1=${other.toUpperCase()}`);
    expect(h.signatures).toEqual([HEX, other]); // lower-cased, the form digests are compared in
  });

  it('tells missing from malformed', () => {
    expect(code(undefined)).toBe('signature_missing');
    expect(code('')).toBe('signature_missing');
    expect(code('   ')).toBe('signature_missing');
    expect(code([])).toBe('signature_missing');
  });

  it.each([
    ['no t', `v1=${HEX}`],
    ['no v1', 't=1'],
    ['only unknown schemes', 't=1,v0=abc'],
    ['duplicated t', `t=1,t=2,v1=${HEX}`],
    ['negative t', `t=-1,v1=${HEX}`],
    ['exponent t', `t=1e9,v1=${HEX}`],
    ['fractional t', `t=1.5,v1=${HEX}`],
    ['empty t', `t=,v1=${HEX}`],
    ['huge t', `t=${'9'.repeat(16)},v1=${HEX}`],
    ['non-hex v1', `t=1,v1=${'zz'.repeat(32)}`],
    ['short v1', `t=1,v1=${HEX.slice(2)}`],
    ['long v1', `t=1,v1=${HEX}00`],
    ['empty v1', 't=1,v1='],
    ['item without =', `t=1,v1=${HEX},garbage`],
    ['item with empty key', `t=1,=x,v1=${HEX}`],
    ['17 v1 values', `t=1,${Array(17).fill(`v1=${HEX}`).join(',')}`],
    ['1,000 v1 values', `t=1,${Array(1000).fill(`v1=${HEX}`).join(',')}`],
    ['a 10 MB header', `t=1,v1=${HEX},x=${'a'.repeat(10 * 1024 * 1024)}`],
    ['over the length limit', `t=1,v1=${HEX},${' '.repeat(MAX_SIGNATURE_HEADER_LENGTH)}`],
  ])('rejects %s as signature_malformed', (_name, header) => {
    expect(code(header)).toBe('signature_malformed');
  });

  it('reads a repeated header (array) as one list, so two t values are a duplicate', () => {
    expect(code([`t=1,v1=${HEX}`, `t=2,v1=${HEX}`])).toBe('signature_malformed');
    expect(parseSignatureHeader([`t=1,v1=${HEX}`, `v1=${HEX}`]).signatures).toHaveLength(2);
  });

  it('skips empty items', () => {
    expect(parseSignatureHeader(`t=1,,v1=${HEX},`).timestamp).toBe(1);
  });
});
