// The console's one table shape: every cell names its column (the phone layout shows it as the
// cell's label), text is escaped, and times read to the minute with the exact value kept.
import { consoleTable, when, word } from '../../../server/console/table';

it('labels each cell with its column and says so when there is no row', () => {
  const html = consoleTable({ caption: 'People', columns: ['Address', 'State'], rows: [['a@example.org', word('invited')]], empty: 'Nobody.' });
  expect(html).toContain('<caption>People</caption>');
  expect(html).toContain('<th scope="col">Address</th><th scope="col">State</th>');
  expect(html).toContain('<tr><td data-label="Address">a@example.org</td><td data-label="State"><span class="console-word">invited</span></td></tr>');
  expect(consoleTable({ caption: 'People', columns: ['Address', 'State'], rows: [], empty: 'Nobody.' })).toContain('<td colspan="2">Nobody.</td>');
});

it('shows a stored time to the minute in UTC and keeps the exact one for machines', () => {
  expect(when('2026-11-25T09:35:39.430Z')).toBe('<time datetime="2026-11-25T09:35:39.430Z">2026-11-25 09:35</time>');
  expect(when(null)).toBe('');
  expect(word('<b>')).toBe('<span class="console-word">&lt;b&gt;</span>');
});
