import { describe, expect, it } from 'vitest';
import { lsnOf, replicaName } from './replicas.js';

describe('WAL positions', () => {
  it('compare as PostgreSQL orders them, across the 4 GB boundary of the first half', () => {
    const positions = ['0/16B3A08', '0/FFFFFFFF', '1/0', '1/A', '16/B374D848', 'FFFFFFFF/FFFFFFFF'].map((text) => lsnOf(text) as bigint);
    expect(positions.every((lsn, index) => index === 0 || lsn > (positions[index - 1] as bigint))).toBe(true);
    expect(lsnOf('16/b374d848')).toBe(lsnOf('16/B374D848'));
  });

  it('are refused when they are not one (what a caller sends in Tally-Read-After)', () => {
    for (const text of ['', '0', '0/', '/1', '1/2/3', 'G/1', '123456789/0', '0/1 ', "0/1'; drop table x"]) expect(lsnOf(text)).toBeUndefined();
  });
});

describe('replica names', () => {
  it('name host, port and database, never the credentials', () => {
    expect(replicaName('postgresql://tally:secret@replica-1:5433/tally')).toBe('replica-1:5433/tally');
    expect(replicaName('postgres://u:p@10.0.0.7/db')).toBe('10.0.0.7:5432/db');
  });
});
