import { describe, expect, it } from 'vitest';
import { comparator, matches, parseFilter, parseOrderBy, select } from '../../src/graph/odata.js';

const message = {
  id: 'm1',
  subject: "Ada's budget",
  isRead: false,
  importance: 'high',
  receivedDateTime: '2025-05-02T12:00:00Z',
  sender: { emailAddress: { address: 'CFO@finance.example' } },
  flag: { flagStatus: 'flagged' },
};

describe('$filter', () => {
  it.each([
    ["subject eq 'ada''s BUDGET'", true],
    ["subject ne 'ada''s budget'", false],
    ["startswith(subject,'ADA')", true],
    ["endsWith(sender/emailAddress/address, '@finance.example')", true],
    ["contains(subject,'budget') and isRead eq false", true],
    ["contains(subject,'lunch') or importance eq 'high'", true],
    ["not (importance eq 'high')", false],
    ['receivedDateTime gt 2025-05-01T00:00:00Z and receivedDateTime lt 2025-05-03T00:00:00+02:00', true],
    ['receivedDateTime ge 2025-05-02T12:00:00Z', true],
    ['receivedDateTime le 2025-05-02T11:59:59Z', false],
    ["flag/flagStatus eq 'flagged'", true],
    ['categories eq null', true],
    ["'high' eq importance", true],
  ])('%s → %s', (filter, expected) => {
    expect(matches(parseFilter(filter), message)).toBe(expected);
  });

  it.each(["subject eq 'open", 'subject eq', "subject like 'x'", 'contains(subject)', "(subject eq 'a'", "'a' eq 'a'", "subject eq 'a' extra"])(
    'refuses %s',
    (filter) => {
      expect(() => parseFilter(filter)).toThrow(/Invalid filter clause/);
    },
  );
});

describe('$orderby and $select', () => {
  it('orders by several keys and paths, each ascending unless desc', () => {
    const rows = [
      { subject: 'b', sender: { emailAddress: { address: 'z@x' } } },
      { subject: 'a', sender: { emailAddress: { address: 'y@x' } } },
      { subject: 'b', sender: { emailAddress: { address: 'a@x' } } },
    ];
    const sorted = [...rows].sort(comparator(parseOrderBy(['subject desc', 'sender/emailAddress/address'])));
    expect(sorted.map((r) => r.sender.emailAddress.address)).toEqual(['a@x', 'z@x', 'y@x']);
    expect(() => parseOrderBy(['subject sideways'])).toThrow(/Invalid \$orderby/);
  });

  it('keeps the selected fields and the id', () => {
    expect(select(message, ['subject', 'isRead'])).toEqual({ id: 'm1', subject: "Ada's budget", isRead: false });
    expect(select(message, undefined)).toBe(message);
  });
});
