/**
 * The decisions on a finding (README "Acting on findings"), in the order the workbook's drop-down and every summary
 * list them.
 */
export const decisions = [
  'investigating',
  'timing',
  'claim',
  'fix_ledger',
  'reverse',
  'write_off',
  'accepted',
] as const;

export type Decision = (typeof decisions)[number];

export function isDecision(value: string): value is Decision {
  return (decisions as readonly string[]).includes(value);
}
