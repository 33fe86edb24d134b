/**
 * The exact readers of an answer (issue 34), now on jsonc-parser: each array element as its raw text and a
 * top-level member's raw tokens, ids above 2^53 kept as their digits, whatever the strings around them hold.
 */
import { expect, test } from 'vitest';
import { exactTransactionId, memberTokens, rawElements } from '../../../sources/partner-api/exact-json.js';

test('an array answer gives each element as written; a single record or nothing is read as such', () => {
  const answer = ` [ {"transactionId": 9007199254740993, "note": "a ] , } \\" here"} ,
    {"transactionId":2,"items":[1,{"x":"]"}]}, 7 ] `;
  expect(rawElements(answer)).toEqual([
    '{"transactionId": 9007199254740993, "note": "a ] , } \\" here"}',
    '{"transactionId":2,"items":[1,{"x":"]"}]}',
    '7',
  ]);
  expect(rawElements('{"transactionId":1}')).toEqual(['{"transactionId":1}']);
  expect(rawElements('[]')).toEqual([]);
  expect(rawElements(' null ')).toEqual([]);
  expect(rawElements('')).toEqual([]);
});

test('a member is found by its decoded name at the top level only, every time it is repeated', () => {
  const record = '{"sale":{"transactionId":5},"transaction\\u0049d": 9007199254740993 ,"transactionId":"x"}';
  expect(memberTokens(record, 'transactionId')).toEqual(['9007199254740993', '"x"']);
  expect(exactTransactionId(record)).toBeUndefined();
  expect(exactTransactionId('{"transactionId": 9007199254740993}')).toBe('9007199254740993');
  expect(exactTransactionId('{"transactionId": 1.5}')).toBeUndefined();
  expect(memberTokens('[{"transactionId":1}]', 'transactionId')).toEqual([]);
});
